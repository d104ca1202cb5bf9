// The cache stage (seed 000, "two tiers and one flight per key"): L1 is an LRU per gateway
// instance (lru_map.h: a region's instances share one table, a part each); L2 is the region's
// shared store, a few ms away. A lookup checks L1, then L2; an L2 hit is written back to L1 so the
// next request on that instance stays in-process. Entries hold the answer (by AnswerStore handle)
// and two times: fresh until (the class's TTL) and usable until (fresh + the class's
// stale-while-revalidate window). Between the two an entry is served at once and refreshed in the
// background; classes without a window (long-tail, news) are never served stale.
//
//   class          TTL    stale-while-revalidate
//   navigational   6 h    1 h
//   evergreen      24 h   24 h
//   product        2 h    30 min
//   long-tail      1 h    none
//   news           5 min  none
//
// Fresh-until is kept in whole seconds, rounded down (an entry may lapse up to a second early),
// so an entry is 8 bytes. L2 entries leave once no lookup can use them (past fresh-until plus
// the class's window): without that the store would keep every key the run ever fetched, a third
// of them one-off queries.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "gateway/answer_store.h"
#include "gateway/config.h"
#include "gateway/flat_map.h"
#include "gateway/lru_map.h"

namespace taillab::gateway {

class Cache {
public:
    explicit Cache(const GatewayConfig& config);
    void reconfigure(const GatewayConfig& config);  // tiers and stale-while-revalidate

    // Plain fields, no std::optional: a lookup runs once per request, and an optional inside
    // the result was built on the stack and read back whole, a stalled reload each time.
    struct Lookup {
        bool hit = false;
        bool stale = false;  // a hit past fresh-until: serve, and refresh in the background
        bool consulted_l2 = false;
        AnswerStore::Handle answer = AnswerStore::kNone;  // the hit's
    };
    // Looks `key` up for `instance` of `region` at time `t` (an L2 hit is written back to L1).
    Lookup lookup(Time t, Region region, int instance, std::uint64_t key, QueryClass cls);
    // Stores a fresh answer for `key`, written at `now`, in the instance's L1 and the region's L2.
    void write(Time now, Region region, int instance, std::uint64_t key, QueryClass cls,
               const std::shared_ptr<const RankedResults>& answer);
    const RankedResults& answer(AnswerStore::Handle h) const { return store_.get(h); }
    // Stale-while-revalidate refreshes in the air, one per (region, key).
    bool startRefresh(Region region, std::uint64_t key);
    void endRefresh(Region region, std::uint64_t key);
    // Starts loading the slots a lookup of `key` will probe.
    void prefetch(Region region, int instance, std::uint64_t key) const;
    std::size_t answersHeld() const { return store_.size(); }
    CacheTiers tiers() const { return tiers_; }

private:
    struct Entry {
        std::uint32_t fresh_until_s = 0;
        AnswerStore::Handle answer = AnswerStore::kNone;
    };
    struct Lapse {
        std::uint64_t key;
        Time at;
    };
    bool usable(const Entry& e, Time t, QueryClass cls, bool& stale) const;
    void dropLapsed(Time now, Region region);

    CacheTiers tiers_;
    bool swr_;
    AnswerStore store_;
    std::vector<LruMap<Entry>> l1_;  // per region, a part per instance
    std::array<FlatMap<Entry>, kRegions> l2_;
    // L2 entries by the time they stop being usable. One queue per (region, class): a class's
    // lifetime is fixed, so appending at write time keeps each queue in lapse order.
    std::array<std::array<std::deque<Lapse>, kClasses>, kRegions> lapses_;
    std::array<std::uint32_t, kRegions> writesSinceDrop_{};
    std::array<FlatMap<std::uint8_t>, kRegions> refreshing_;
};

}  // namespace taillab::gateway
