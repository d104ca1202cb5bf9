#include "gateway/cache.h"

namespace taillab::gateway {
namespace {

constexpr std::array<double, kClasses> kTtlS{21600, 86400, 7200, 3600, 300};
constexpr std::array<double, kClasses> kSwrS{3600, 86400, 1800, 0, 0};
constexpr std::uint32_t kLapseBatch = 32;

std::uint32_t wholeSeconds(Time t) {
    const std::int64_t s = t.count() / 1'000'000'000;
    return s <= 0 ? 0 : s >= 0xffffffffLL ? 0xffffffffu : static_cast<std::uint32_t>(s);
}
Time fromWholeSeconds(std::uint32_t s) { return Time{static_cast<std::int64_t>(s) * 1'000'000'000}; }
std::size_t idx(Region r) { return static_cast<std::size_t>(r); }
std::size_t idx(QueryClass c) { return static_cast<std::size_t>(c); }

}  // namespace

Cache::Cache(const GatewayConfig& config)
    : tiers_(config.cache_tiers), swr_(config.stale_while_revalidate) {
    for (int r = 0; r < kRegions; ++r)
        l1_.emplace_back(static_cast<std::size_t>(config.instances + config.standby_instances),
                         static_cast<std::size_t>(config.l1_entries));
}

void Cache::reconfigure(const GatewayConfig& config) {
    tiers_ = config.cache_tiers;
    swr_ = config.stale_while_revalidate;
}

bool Cache::usable(const Entry& e, Time t, QueryClass cls, bool& stale) const {
    const Time fresh = fromWholeSeconds(e.fresh_until_s);
    if (t < fresh) return true;
    if (swr_ && t < fresh + fromSeconds(kSwrS[idx(cls)])) {
        stale = true;
        return true;
    }
    return false;
}

Cache::Lookup Cache::lookup(Time t, Region region, int instance, std::uint64_t key,
                            QueryClass cls) {
    Lookup out;
    if (tiers_ == CacheTiers::Off) return out;
    LruMap<Entry>& l1 = l1_[idx(region)];
    bool stale = false;
    const Entry* e1 = l1.find(static_cast<std::size_t>(instance), key);
    const bool l1Usable = e1 && usable(*e1, t, cls, stale);
    if (l1Usable && (!stale || tiers_ != CacheTiers::L1AndL2)) return Lookup{true, stale, false, e1->answer};
    if (tiers_ != CacheTiers::L1AndL2) return out;
    // A miss, or a stale copy in L1: another instance's refresh may have made L2 fresh already,
    // and a fresh answer one tier away beats a stale one here (and a second refresh of the key).
    out.consulted_l2 = true;
    bool stale2 = false;
    const Entry* e2 = l2_[idx(region)].find(key);
    if (!e2 || !usable(*e2, t, cls, stale2) || (l1Usable && stale2)) {
        if (l1Usable) return Lookup{true, true, true, e1->answer};  // L2 is no better
        return out;
    }
    stale = stale2;
    // Written back so the next request on this instance stays in-process.
    const Entry copy{e2->fresh_until_s, store_.retain(e2->answer)};
    if (const std::optional<Entry> old = l1.put(static_cast<std::size_t>(instance), key, copy))
        store_.release(old->answer);
    out.hit = true;
    out.stale = stale;
    out.answer = copy.answer;
    return out;
}

void Cache::write(Time now, Region region, int instance, std::uint64_t key, QueryClass cls,
                  const std::shared_ptr<const RankedResults>& answer) {
    if (tiers_ == CacheTiers::Off) return;
    const Time fresh = now + fromSeconds(kTtlS[idx(cls)]);
    const Entry e{wholeSeconds(fresh), store_.acquire(answer)};
    if (const std::optional<Entry> old = l1_[idx(region)].put(static_cast<std::size_t>(instance), key, e))
        store_.release(old->answer);
    if (tiers_ != CacheTiers::L1AndL2) return;
    FlatMap<Entry>& l2 = l2_[idx(region)];
    if (Entry* old = l2.find(key)) {
        store_.release(old->answer);
        *old = Entry{e.fresh_until_s, store_.retain(e.answer)};
    } else {
        l2.put(key, Entry{e.fresh_until_s, store_.retain(e.answer)});
    }
    lapses_[idx(region)][idx(cls)].push_back(
        Lapse{key, fromWholeSeconds(e.fresh_until_s) + fromSeconds(kSwrS[idx(cls)])});
    if (++writesSinceDrop_[idx(region)] < kLapseBatch) return;
    writesSinceDrop_[idx(region)] = 0;
    dropLapsed(now, region);
}

// Removes the region's L2 entries that no lookup can use any more: past fresh-until plus the
// class's stale-while-revalidate window, the longest any setting of the swr knob allows. A queued
// key that was written again since is kept; its later write is further back in the queue.
// Runs once per kLapseBatch writes (an entry may stay a little past its lapse: no lookup can
// use it, and a write replaces it), so that the slots of a batch of lapsed keys load at once
// instead of one cache miss after another.
void Cache::dropLapsed(Time now, Region region) {
    FlatMap<Entry>& l2 = l2_[idx(region)];
    for (std::size_t cls = 0; cls < kClasses; ++cls) {
        std::deque<Lapse>& queue = lapses_[idx(region)][cls];
        for (auto it = queue.begin(); it != queue.end() && it->at <= now; ++it) l2.prefetch(it->key);
        while (!queue.empty() && queue.front().at <= now) {
            const std::uint64_t key = queue.front().key;
            queue.pop_front();
            const Entry* e = l2.find(key);
            if (e && fromWholeSeconds(e->fresh_until_s) + fromSeconds(kSwrS[cls]) <= now) {
                store_.release(e->answer);
                l2.erase(key);
            }
        }
    }
}

bool Cache::startRefresh(Region region, std::uint64_t key) {
    return refreshing_[idx(region)].insert(key, 1);
}

void Cache::endRefresh(Region region, std::uint64_t key) { refreshing_[idx(region)].erase(key); }

void Cache::prefetch(Region region, int instance, std::uint64_t key) const {
    if (tiers_ == CacheTiers::Off) return;
    l1_[idx(region)].prefetch(static_cast<std::size_t>(instance), key);
    if (tiers_ == CacheTiers::L1AndL2) l2_[idx(region)].prefetch(key);
}

}  // namespace taillab::gateway
