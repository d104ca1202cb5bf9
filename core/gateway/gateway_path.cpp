#include "gateway/gateway_path.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "gateway/compiler.h"
#include "sim/distributions.h"

namespace taillab::gateway {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr int kMaxCalls = 6;
constexpr std::size_t kBatchQueueBound = 20000;
constexpr double kPriorLatencyMs = 300;
// Stage costs: lognormal (median ms, sigma), well inside each stage's budget. A cache hit costs
// edge + gateway + compiler + cache + merge/serialize, about 20 ms end to end (seed 000).
struct CostModel {
    double median, sigma;
};
constexpr std::array<CostModel, kStages> kCost{{{5.0, 0.3},    // edge: TLS, region pin
                                                {0.6, 0.4},    // gateway: auth, bucket, admission
                                                {0.8, 0.4},    // compiler
                                                {0.05, 0.3},   // cache: L1 (L2 adds kL2)
                                                {0.1, 0.3},    // router
                                                {0, 0},        // engines: the upstream calls
                                                {9.0, 0.3}}};  // merge: validate, rank, serialize
constexpr CostModel kL2{1.4, 0.25};
constexpr std::array<double, kStages> kBudget{8, 4, 3, 2, 1, 520, 12};
// Extra edge time when an unpinned request spills into another region (one-way, ms).
constexpr std::array<std::array<double, kRegions>, kRegions> kSpillMs{
    {{0, 40, 110}, {40, 0, 80}, {110, 80, 0}}};
constexpr std::array<std::array<int, 2>, kRegions> kNearest{{{1, 2}, {0, 2}, {0, 1}}};
// Cache lifetimes per class: fresh (seed 000's TTL) and the extra stale-while-revalidate window
// (none for long-tail and news, which are never served stale).
constexpr std::array<double, kClasses> kTtlS{21600, 86400, 7200, 3600, 300};
constexpr std::array<double, kClasses> kSwrS{3600, 86400, 1800, 0, 0};
constexpr std::size_t kLapseAhead = 8;
constexpr double kRestS = 60;  // an egress IP rests this long for an engine after a block page
constexpr std::array<std::string_view, 2> kEndpoints{"/search/lite", "/search/fast"};

}  // namespace

struct GatewayPath::Request {
    RequestSpec spec;
    Time accept{}, deadline{}, engineStart{};
    std::uint64_t key = 0;
    std::uint8_t region = 0, instance = 0;
    bool live = false, done = false, background = false, holdsSlot = false, batchSlot = false;
    bool pinned = false, leader = false;
    std::uint32_t flight = kNone;
    std::array<std::uint32_t, kMaxCalls> calls{};
    std::uint8_t ncalls = 0, outstanding = 0;
    std::uint32_t tried = 0;
    std::uint8_t primary = 255;
    std::uint64_t hedgeTimer = 0, lastTimer = 0, deadlineTimer = 0, detachTimer = 0;
    double shared = 0;
};

struct GatewayPath::Call {
    std::uint32_t request = kNone;
    std::uint8_t engine = 0;
    std::uint8_t ip = 0;
    CallRole role = CallRole::Primary;
    Time start{};
    bool live = false;
};

struct GatewayPath::Flight {
    std::uint64_t mapKey = 0;
    std::uint8_t region = 0;
    std::uint32_t leader = kNone;
    std::vector<std::uint32_t> waiters;
    bool live = false;
};

PathConfig PathConfig::fromParams(const Params& p) {
    PathConfig c;
    c.rate_limits = p.flag("rate_limits");
    c.admission = p.flag("admission");
    c.breakers = p.flag("breakers");
    c.swr = p.flag("stale_while_revalidate");
    c.cache_tiers = p.choiceIndex("cache_tiers");
    c.coalescing = p.choiceIndex("coalescing");
    c.routing = p.choiceIndex("routing");
    c.hedge_mode = p.choiceIndex("hedge_mode");
    c.hedge_delay_ms = p.real("hedge_delay_ms");
    c.hedge_percentile = p.real("hedge_percentile");
    c.clamp_lo_ms = p.real("hedge_clamp_min_ms");
    c.clamp_hi_ms = p.real("hedge_clamp_max_ms");
    if (c.clamp_hi_ms < c.clamp_lo_ms) {
        std::ostringstream msg;
        msg << "hedge_clamp_max_ms (" << c.clamp_hi_ms << " ms) is below hedge_clamp_min_ms ("
            << c.clamp_lo_ms << " ms)";
        throw std::invalid_argument(msg.str());
    }
    c.hedge_budget = p.real("hedge_budget");
    c.last_chance = p.flag("last_chance_hedge");
    c.last_chance_delay_ms = p.real("last_chance_delay_ms");
    c.last_chance_budget = p.real("last_chance_budget");
    c.deadline_ms = p.real("deadline_ms");
    c.margin_ms = p.real("serialization_margin_ms");
    c.min_useful_ms = p.real("min_useful_ms");
    if (c.margin_ms + kBudget[static_cast<int>(Stage::Merge)] >= c.deadline_ms) {
        throw std::invalid_argument("deadline_ms must exceed serialization_margin_ms plus the merge "
                                    "reserve (12 ms)");
    }
    c.l2_lease_ms = p.real("l2_lease_ms");
    c.l1_entries = p.integer("l1_entries");
    c.instances = p.integer("instances");
    c.egress_ips = p.integer("egress_ips");
    c.min_limit = p.integer("admission_min_limit");
    c.max_limit = p.integer("admission_max_limit");
    if (c.max_limit < c.min_limit) {
        throw std::invalid_argument("admission_max_limit is below admission_min_limit");
    }
    c.batch_limit = p.integer("batch_lane_limit");
    c.admission_tolerance = p.real("admission_tolerance");
    c.hedge_burst = p.real("hedge_budget_burst");
    c.breaker.threshold = p.real("breaker_threshold");
    c.breaker.min_samples = p.integer("breaker_min_samples");
    c.breaker.window = fromSeconds(p.real("breaker_window_s"));
    c.breaker.open_for = fromSeconds(p.real("breaker_open_s"));
    c.breaker.probe_fraction = p.real("breaker_probe_fraction");
    c.ewma_half_life_s = p.real("ewma_half_life_s");
    for (int e = 0; e < kEngines; ++e) c.quality[e] = p.real(std::string(kEngineNames[e]) + "_quality");
    return c;
}

GatewayPath::GatewayPath(const PathConfig& config, const Workload& workload, std::uint64_t seed,
                         Port& port)
    : cfg_(config), workload_(workload), port_(port), rng_(seed, "gateway/path"),
      hedgeBudget_(config.hedge_budget, config.hedge_burst),
      lastChanceBudget_(config.last_chance_budget, 3) {
    for (int i = 0; i < kRegions; ++i)
        l1_.emplace_back(static_cast<std::size_t>(cfg_.instances),
                         static_cast<std::size_t>(cfg_.l1_entries));
    const std::size_t customers = workload.customers().size();
    buckets_.resize(customers);
    for (std::size_t c = 0; c < customers; ++c) {
        const Plan plan = workload.customers()[c].plan;
        // Burst and refill per endpoint, by plan.
        const double burst = plan == Plan::Enterprise ? 400 : plan == Plan::Pro ? 60 : 20;
        const double rate = plan == Plan::Enterprise ? 60 : plan == Plan::Pro ? 8 : 1;
        buckets_[c] = {TokenBucket(burst, rate, kZero), TokenBucket(burst, rate, kZero)};
    }
    AdaptiveLimit::Config lc;
    lc.min_limit = cfg_.min_limit;
    lc.max_limit = cfg_.max_limit;
    lc.initial = cfg_.max_limit / 2;
    lc.tolerance = cfg_.admission_tolerance;
    limits_.fill(AdaptiveLimit(lc));
    for (auto& row : breakers_) row.fill(Breaker(cfg_.breaker));
    stats_.resize(static_cast<std::size_t>(kRegions * kEngines * kClasses));
    for (std::size_t e = 0; e < kEndpoints.size(); ++e)
        for (int g = 0; g < kRegions; ++g)
            for (std::string_view lang : kLanguages)
                keyPrefix_.push_back(cacheKeyPrefix(kEndpoints[e], kRegionNames[g], lang, "web", false));
    egress_.resize(static_cast<std::size_t>(kRegions * cfg_.egress_ips * kEngines));
    engineInflight_.assign(static_cast<std::size_t>(kRegions * cfg_.instances * kEngines), 0);
    delays_.assign(static_cast<std::size_t>(kRegions * kEngines * kClasses),
                   RollingDelay(cfg_.clamp_lo_ms, cfg_.clamp_hi_ms, cfg_.hedge_percentile));
    totals_.engines.assign(kEngineNames.begin(), kEngineNames.end());
    totals_.breaker_state.assign(static_cast<std::size_t>(kRegions * kEngines),
                                 BreakerState::Closed);
    for (int s = 0; s < kStages; ++s) totals_.stages[s].budget_ms = kBudget[s];
    totals_.hedge_allowance = cfg_.hedge_burst;
    customerLatency_.assign(customers, HdrHistogram(HdrConfig{1, 60'000'000, 2}));
    customerFailed_.assign(customers, 0);
}

GatewayPath::~GatewayPath() = default;

void GatewayPath::setConfig(const PathConfig& config) {
    const bool delaysChanged = config.clamp_lo_ms != cfg_.clamp_lo_ms ||
                               config.clamp_hi_ms != cfg_.clamp_hi_ms ||
                               config.hedge_percentile != cfg_.hedge_percentile;
    cfg_.rate_limits = config.rate_limits;
    // Structural sizes (instances, L1 capacity) stay as built; everything else applies now.
    const int instances = cfg_.instances, l1 = cfg_.l1_entries, ips = cfg_.egress_ips;
    cfg_ = config;
    cfg_.instances = instances;
    cfg_.l1_entries = l1;
    cfg_.egress_ips = ips;
    for (auto& lim : limits_) {
        lim.setBounds(cfg_.min_limit, cfg_.max_limit);
        lim.setTolerance(cfg_.admission_tolerance);
    }
    for (auto& row : breakers_)
        for (Breaker& b : row) b.setConfig(cfg_.breaker);
    hedgeBudget_.setFraction(cfg_.hedge_budget);
    lastChanceBudget_.setFraction(cfg_.last_chance_budget);
    if (delaysChanged) {
        delays_.assign(delays_.size(),
                       RollingDelay(cfg_.clamp_lo_ms, cfg_.clamp_hi_ms, cfg_.hedge_percentile));
    }
}

namespace {
// A slot from a pool: a freed index if there is one, else a new element at the end.
template <typename T>
std::uint32_t acquire(std::deque<T>& pool, std::vector<std::uint32_t>& freed) {
    if (!freed.empty()) {
        const std::uint32_t i = freed.back();
        freed.pop_back();
        return i;
    }
    pool.emplace_back();
    return static_cast<std::uint32_t>(pool.size() - 1);
}
}  // namespace

std::uint32_t GatewayPath::newRequest() {
    const std::uint32_t r = acquire(requests_, freeRequests_);
    requests_[r] = Request{};
    requests_[r].live = true;
    return r;
}

namespace {
// Stage costs are drawn from a table of each stage's lognormal quantiles at 1,024 evenly spaced
// probabilities (one uniform draw and a lookup instead of a normal draw and an exp; the costs are
// a few ms inside their budgets, where 1/1024 steps in probability are invisible).
constexpr int kCostLevels = 1024;
struct CostTable {
    // 32-bit: the largest cost, the merge stage's top quantile, is about 25 ms, and half the table
    // stays in the core's first-level data cache.
    std::array<std::array<std::int32_t, kCostLevels>, kStages + 1> ns{};  // + 1: the L2 lookup
    CostTable() {
        for (int s = 0; s <= kStages; ++s) {
            const CostModel m = s < kStages ? kCost[s] : kL2;
            for (int i = 0; i < kCostLevels; ++i) {
                const double z = normalQuantile((i + 0.5) / kCostLevels);
                ns[s][i] = static_cast<std::int32_t>(fromMs(m.median * std::exp(m.sigma * z)).count());
            }
        }
    }
};
const CostTable& costTable() {
    static const CostTable table;
    return table;
}
constexpr int kL2Row = kStages;
}  // namespace

void GatewayPath::chargeStage(int stage, double ms) {
    StageStats& st = totals_.stages[static_cast<std::size_t>(stage)];
    st.time_ms_total += ms;
    st.time_ms_max = std::max(st.time_ms_max, ms);
}

Duration GatewayPath::stageCost(Stage s) { return drawCost(static_cast<int>(s)); }

Duration GatewayPath::drawCost(int row) {
    return Duration{costTable().ns[row][rng_.below(kCostLevels)]};
}

void GatewayPath::accept(Time now, const RequestSpec& spec) {
    const std::uint32_t r = newRequest();
    Request& q = requests_[r];
    q.spec = spec;
    q.accept = now;
    q.deadline = now + fromMs(cfg_.deadline_ms - cfg_.margin_ms);
    q.background = false;
    if (spec.probe) {
        ++totals_.probes;
    } else {
        ++totals_.accepted;
        ++totals_.in_flight;
    }
    auto& st = totals_.stages;
    // Edge: region from the pin, else the customer's nearest.
    Time t = now;
    const Duration edge = stageCost(Stage::Edge);
    ++st[0].entered;
    const bool known = spec.customer != kUnknownCustomer;
    if (spec.probe) {
        q.region = static_cast<std::uint8_t>(spec.customer);  // probes carry their region
        q.pinned = true;
    } else if (known) {
        const Customer& c = workload_.customers()[spec.customer];
        q.region = static_cast<std::uint8_t>(c.home);
        q.pinned = c.pins;
    }
    t += edge;
    chargeStage(0, toMs(edge));
    ++st[0].passed;
    // Gateway: key, bucket, admission.
    ++st[1].entered;
    const Duration gw = stageCost(Stage::Gateway);
    t += gw;
    chargeStage(1, toMs(gw));
    if (!spec.probe) {
        if (!known) return finish(now, r, Outcome::Unauthorized, t);
        if (cfg_.rate_limits && !buckets_[spec.customer][spec.endpoint].take(now))
            return finish(now, r, Outcome::RateLimited, t);
    }
    int region = q.region;
    if (spec.batch && !spec.probe) {
        q.batchSlot = true;
        if (cfg_.admission) {
            limits_[region].advance(now);
            const bool room = batchInflight_[region] < cfg_.batch_limit &&
                              inflight_[region] <= 0.8 * limits_[region].limit() &&
                              batchHead_[region] == batchQueue_[region].size();
            if (!room) {
                if (batchQueue_[region].size() - batchHead_[region] >= kBatchQueueBound)
                    return finish(now, r, Outcome::Shed, t);
                q.engineStart = t;  // remembers where it stood
                batchQueue_[region].push_back(r);
                // Its deadline runs while it waits: a 503 at the deadline if still queued.
                q.deadlineTimer = port_.setTimer(q.deadline, TimerKind::Deadline, r);
                return;  // waits in the batch lane; admitBatch() resumes it
            }
        }
        ++batchInflight_[region];
        q.holdsSlot = true;
    } else if (!spec.probe) {
        if (cfg_.admission) {
            limits_[region].advance(now);
            if (inflight_[region] >= limits_[region].limit()) {
                int to = -1;
                if (!q.pinned) {
                    for (int other : kNearest[region]) {
                        limits_[other].advance(now);
                        if (inflight_[other] < limits_[other].limit()) {
                            to = other;
                            break;
                        }
                    }
                }
                if (to < 0) return finish(now, r, Outcome::Shed, t);
                t += fromMs(kSpillMs[region][to]);
                region = to;
                q.region = static_cast<std::uint8_t>(to);
                ++totals_.spilled;
            }
        }
        ++inflight_[region];
        inflightPeak_[region] = std::max(inflightPeak_[region], inflight_[region]);
        q.holdsSlot = true;
    }
    ++st[1].passed;
    lookupCache(now, r, t);
}

std::uint64_t GatewayPath::cacheKey(const RequestSpec& spec, int region) const {
    const int lang =
        spec.customer < workload_.customers().size() ? workload_.customers()[spec.customer].lang : 0;
    return foldCacheKey(keyPrefix_[(spec.endpoint * kRegions + region) * kLanguages.size() +
                                   static_cast<std::size_t>(lang)],
                        spec.query, maxResultsBucket(spec.max_results));
}

// The region's load balancer spreads requests over its instances with no regard to their
// content: modelled as a hash of the arrival (its time and query), so it is known before the
// request reaches the cache and its slots can be loaded ahead.
std::uint32_t GatewayPath::instanceFor(const RequestSpec& spec) const {
    const std::uint64_t h = mix64(static_cast<std::uint64_t>(spec.at.count()) ^ spec.query);
    return static_cast<std::uint32_t>(h % static_cast<std::uint64_t>(cfg_.instances));
}

void GatewayPath::prefetch(const RequestSpec& spec) const {
    if (cfg_.cache_tiers == 0 || spec.customer >= workload_.customers().size()) return;
    // The customer's home region (a spill moves a few requests elsewhere; the hint is then
    // wasted, never wrong) and the instance its load balancer picks.
    const int region = static_cast<int>(workload_.customers()[spec.customer].home);
    const std::uint64_t key = cacheKey(spec, region);
    l1_[static_cast<std::size_t>(region)].prefetch(instanceFor(spec), key);
    if (cfg_.cache_tiers >= 2) l2_[static_cast<std::size_t>(region)].prefetch(key);
}

void GatewayPath::admitBatch(Time now) {
    for (int region = 0; region < kRegions; ++region) {
        auto& queue = batchQueue_[region];
        std::size_t& head = batchHead_[region];
        while (head < queue.size() && batchInflight_[region] < cfg_.batch_limit &&
               inflight_[region] <= 0.8 * limits_[region].limit()) {
            const std::uint32_t r = queue[head++];
            ++batchInflight_[region];
            requests_[r].holdsSlot = true;
            if (requests_[r].deadlineTimer) port_.cancelTimer(requests_[r].deadlineTimer);
            requests_[r].deadlineTimer = 0;
            ++totals_.stages[1].passed;
            lookupCache(now, r, std::max(now, requests_[r].engineStart));
        }
        if (head == queue.size()) {
            queue.clear();
            head = 0;
        }
    }
}

void GatewayPath::lookupCache(Time now, std::uint32_t r, Time t) {
    Request& q = requests_[r];
    auto& st = totals_.stages;
    // Compiler: the cache key folds what changes the answer and nothing else.
    ++st[2].entered;
    const Duration comp = stageCost(Stage::Compiler);
    t += comp;
    chargeStage(2, toMs(comp));
    q.key = cacheKey(q.spec, q.region);
    ++st[2].passed;
    // Cache: L1, then L2, then a flight upstream (joined if one is in the air).
    ++st[3].entered;
    Duration cost = stageCost(Stage::Cache);
    const int cls = static_cast<int>(q.spec.query_class);
    if (!q.spec.probe) ++totals_.cache_lookups[cls], ++windowLookups_[cls];
    q.instance = static_cast<std::uint8_t>(instanceFor(q.spec));
    bool hit = false, stale = false;
    if (cfg_.cache_tiers >= 1) {
        LruMap<CacheEntry>& l1 = l1_[q.region];
        CacheEntry* e = l1.find(q.instance, q.key);
        auto usable = [&](const CacheEntry& x) {
            if (t < x.fresh_until) return true;
            if (cfg_.swr && t < x.fresh_until + fromSeconds(kSwrS[cls])) {
                stale = true;
                return true;
            }
            return false;
        };
        if (e && usable(*e)) {
            hit = true;
        } else if (cfg_.cache_tiers >= 2) {
            cost += drawCost(kL2Row);
            const CacheEntry* l2 = l2_[q.region].find(q.key);
            if (l2 && usable(*l2)) {
                hit = true;
                l1.put(q.instance, q.key, *l2);  // written back so the next request stays in-process
            }
        }
    }
    t += cost;
    chargeStage(3, toMs(cost));
    if (hit) {
        if (!q.spec.probe) ++totals_.cache_hits[cls], ++windowHits_[cls];
        ++st[3].passed;
        if (stale && refreshing_[q.region].insert(q.key, 1)) {
            // Stale-while-revalidate: answer now, refresh in the background.
            const Request copy = q;
            const std::uint32_t b = newRequest();
            Request& bg = requests_[b];
            bg = copy;
            bg.background = true;
            bg.holdsSlot = bg.batchSlot = false;
            bg.deadline = t + fromMs(cfg_.deadline_ms);
            bg.accept = t;
            bg.live = true;
            bg.done = false;
            ++totals_.refresh_calls;
            startEngines(now, b, t);
        }
        return serveFromCache(now, r, t, stale);
    }
    // Miss: coalesce.
    if (cfg_.coalescing > 0) {
        const std::uint64_t mapKey =
            cfg_.coalescing == 1 ? q.key ^ (0x9e3779b97f4a7c15ULL * (q.instance + 1)) : q.key;
        auto& index = flightIndex_[q.region];
        if (const std::uint32_t* joined = index.find(mapKey)) {
            Flight& f = flights_[*joined];
            q.flight = *joined;
            f.waiters.push_back(r);
            ++totals_.coalesced;
            ++st[3].passed;
            const Time detachAt = q.deadline - fromMs(cfg_.detach_reserve_ms);
            if (detachAt > t) q.detachTimer = port_.setTimer(detachAt, TimerKind::Detach, r);
            return;
        }
        const std::uint32_t fi = acquire(flights_, freeFlights_);
        Flight& f = flights_[fi];
        f.mapKey = mapKey;
        f.region = q.region;
        f.leader = r;
        f.waiters.clear();
        f.live = true;
        index.put(mapKey, fi);
        q.flight = fi;
        q.leader = true;
    }
    ++st[3].passed;
    startEngines(now, r, t);
}

void GatewayPath::serveFromCache(Time now, std::uint32_t r, Time t, bool) {
    auto& st = totals_.stages;
    ++st[6].entered;
    const Request& q = requests_[r];
    if (t > q.deadline) {  // the stages before merge used up what the deadline left
        return finish(now, r, Outcome::DeadlineMissed, std::max(now, q.deadline));
    }
    Duration merge = stageCost(Stage::Merge);
    const Time hard = q.accept + fromMs(cfg_.deadline_ms);
    if (t + merge > hard) merge = std::max(kZero, hard - t);
    chargeStage(6, toMs(merge));
    ++st[6].passed;
    finish(now, r, Outcome::Ok, t + merge);
}

std::size_t GatewayPath::delayIndex(const Request& q, int engine) const {
    const int cls = cfg_.hedge_mode == 3 ? static_cast<int>(q.spec.query_class) : 0;
    return static_cast<std::size_t>((q.region * kEngines + engine) * kClasses + cls);
}

// The rolling histogram of the mode in use learns from every primary call (a mode switched on
// mid-run starts from an empty window and the clamp's high end).
void GatewayPath::recordPrimary(Time now, const Request& q, int engine, double ms) {
    if (cfg_.hedge_mode >= 2) delays_[delayIndex(q, engine)].record(now, ms);
}

double GatewayPath::score(const Request& q, int engine) const {
    const LatencyEwma& s =
        stats_[static_cast<std::size_t>((q.region * kEngines + engine) * kClasses +
                                        static_cast<int>(q.spec.query_class))];
    const int inflight = engineInflight_[static_cast<std::size_t>(
        (q.region * cfg_.instances + q.instance) * kEngines + engine)];
    return LatencyEwma::score(s.ewmaMs(kPriorLatencyMs), s.success(), inflight);
}

int GatewayPath::pickEngine(Time now, std::uint32_t r, std::uint32_t exclude, bool bestOnly) {
    const Request& q = requests_[r];
    // Candidates: engines not yet tried whose breaker admits the call. A primary is sampled among
    // the engines with a quality weight for the class; backups, and primaries when no weighted
    // engine is eligible, are the best-scored of the rest. The third engine is kept for the
    // last-chance hedge.
    constexpr int kThird = 2;
    std::array<int, kEngines> eligible{};
    int n = 0;
    bool anyWeighted = false;
    for (int e = 0; e < kEngines; ++e) {
        if ((exclude >> e & 1u) || e == kThird) continue;
        const bool admitted = !cfg_.breakers || breakers_[q.region][e].admits(now, rng_.uniform());
        noteBreaker(now, q.region, e);
        if (!admitted) continue;
        eligible[n++] = e;
        anyWeighted = anyWeighted || cfg_.quality[e] > 0;
    }
    if (n == 0) return -1;
    if (!bestOnly && anyWeighted) {
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (cfg_.quality[eligible[i]] > 0) eligible[m++] = eligible[i];
        n = m;
    } else {
        bestOnly = true;
    }
    if (n == 1 || (cfg_.routing == 0 && !bestOnly)) return eligible[0];
    if (cfg_.routing == 1 || bestOnly) {
        int best = eligible[0];
        for (int i = 1; i < n; ++i)
            if (score(q, eligible[i]) < score(q, best)) best = eligible[i];
        return best;
    }
    // Power of two choices, sampled by class quality.
    auto sample = [&](int skip) {
        double total = 0;
        for (int i = 0; i < n; ++i)
            if (eligible[i] != skip) total += cfg_.quality[eligible[i]];
        double u = rng_.uniform() * total;
        int last = -1;
        for (int i = 0; i < n; ++i) {
            if (eligible[i] == skip) continue;
            last = eligible[i];
            u -= cfg_.quality[eligible[i]];
            if (u < 0) return eligible[i];
        }
        return last;
    };
    const int a = sample(-1);
    const int b = sample(a);
    return score(q, b) < score(q, a) ? b : a;
}

void GatewayPath::noteBreaker(Time now, int region, int engine) {
    Breaker& b = breakers_[region][engine];
    const BreakerState s = b.state(now);
    Time at{};
    if (!b.takeChange(&at)) return;
    BreakerState& shown = breakerShown_[region][engine];
    const double t = toSeconds(at);
    if (shown != BreakerState::Closed) {
        totals_.breaker_spans.push_back(
            BreakerSpan{region, engine, shown, breakerSince_[region][engine], t, false});
    }
    shown = s;
    breakerSince_[region][engine] = t;
    totals_.breaker_state[static_cast<std::size_t>(region * kEngines + engine)] = s;
    totals_.timeline.push_back(TimelineEvent{
        t, std::string(kRegionNames[region]) + "/" + std::string(kEngineNames[engine]) +
               " breaker " + std::string(kBreakerStateNames[static_cast<int>(s)])});
}

bool GatewayPath::startCall(Time at, std::uint32_t r, int engine, CallRole role) {
    Request& q = requests_[r];
    if (q.ncalls >= kMaxCalls) return false;
    const std::uint32_t c = acquire(calls_, freeCalls_);
    const int ip = pickEgress(at, q.region, engine);
    calls_[c] = Call{r, static_cast<std::uint8_t>(engine), static_cast<std::uint8_t>(ip), role, at,
                     true};
    q.calls[q.ncalls++] = c;
    ++q.outstanding;
    q.tried |= 1u << engine;
    ++engineInflight_[static_cast<std::size_t>((q.region * cfg_.instances + q.instance) * kEngines +
                                               engine)];
    if (role != CallRole::Refresh) ++windowCalls_;
    switch (role) {
        case CallRole::Primary: ++totals_.primary_calls, ++windowPrimaries_; break;
        case CallRole::Hedge: ++totals_.hedge_calls, ++windowHedges_; break;
        case CallRole::LastChance: ++totals_.last_chance_calls; break;
        case CallRole::Retry: ++totals_.retry_calls; break;
        case CallRole::Refresh: break;
    }
    const int results = maxResultsBucket(q.spec.max_results);
    port_.startCall(c, engine, q.region, ip, q.spec.query_class, q.key, results, q.shared, at);
    return true;
}

int GatewayPath::pickEgress(Time at, int region, int engine) {
    // Rotate through the IPs that are not resting for this engine; if all are, the one whose
    // rest ends first.
    const int n = cfg_.egress_ips;
    int best = -1;
    Time soonest = Time::max();
    for (int k = 0; k < n; ++k) {
        const int ip = (nextIp_[region] + k) % n;
        const EgressState& e = egress_[static_cast<std::size_t>((region * n + ip) * kEngines + engine)];
        if (at >= e.rest_until) {
            best = ip;
            break;
        }
        if (e.rest_until < soonest) soonest = e.rest_until, best = ip;
    }
    nextIp_[region] = (best + 1) % n;
    return best;
}

void GatewayPath::startEngines(Time now, std::uint32_t r, Time t) {
    auto& st = totals_.stages;
    ++st[4].entered;
    const Duration routeCost = stageCost(Stage::Router);
    t += routeCost;
    chargeStage(4, toMs(routeCost));
    Request& q = requests_[r];
    q.shared = rng_.uniform();
    const int primary = pickEngine(now, r, 0, false);
    if (primary < 0) return finish(now, r, Outcome::NoEngine, t);
    ++st[4].passed;
    ++st[5].entered;
    if (q.deadline - t - fromMs(cfg_.merge_reserve_ms) < fromMs(cfg_.min_useful_ms)) {
        return finish(now, r, Outcome::DeadlineMissed, std::max(now, std::min(t, q.deadline)));
    }
    q.primary = static_cast<std::uint8_t>(primary);
    q.engineStart = t;
    startCall(t, r, primary, q.background ? CallRole::Refresh : CallRole::Primary);
    if (!q.background) hedgeBudget_.onPrimary(), totals_.hedge_allowance += cfg_.hedge_budget;
    if (cfg_.hedge_mode != 0 && !q.background) {
        double delay = cfg_.hedge_delay_ms;
        if (cfg_.hedge_mode >= 2) {
            delay = delays_[delayIndex(q, primary)].delayMs(now);
        }
        q.hedgeTimer = port_.setTimer(t + fromMs(delay), TimerKind::Hedge, r);
    }
    q.deadlineTimer =
        port_.setTimer(q.deadline - fromMs(cfg_.merge_reserve_ms), TimerKind::Deadline, r);
}

void GatewayPath::onTimer(Time now, TimerKind kind, std::uint32_t r) {
    Request& q = requests_[r];
    if (!q.live || q.done) return;
    switch (kind) {
        case TimerKind::Hedge: {
            q.hedgeTimer = 0;
            if (q.deadline - now - fromMs(cfg_.merge_reserve_ms) < fromMs(cfg_.min_useful_ms))
                return;
            if (!hedgeBudget_.take()) {
                ++totals_.hedges_denied;
                return;
            }
            const int backup = pickEngine(now, r, q.tried, true);
            if (backup < 0) return;
            startCall(now, r, backup, CallRole::Hedge);
            if (cfg_.last_chance)
                q.lastTimer = port_.setTimer(now + fromMs(cfg_.last_chance_delay_ms),
                                             TimerKind::LastChance, r);
            return;
        }
        case TimerKind::LastChance: {
            q.lastTimer = 0;
            constexpr int kThird = 2;
            if (q.tried >> kThird & 1u) return;
            if (q.deadline - now - fromMs(cfg_.merge_reserve_ms) < fromMs(cfg_.min_useful_ms))
                return;
            if (cfg_.breakers && !breakers_[q.region][kThird].admits(now, rng_.uniform())) return;
            if (!lastChanceBudget_.take()) return;
            startCall(now, r, kThird, CallRole::LastChance);
            return;
        }
        case TimerKind::Deadline: {
            q.deadlineTimer = 0;
            cancelOutstanding(now, r);
            finish(now, r, Outcome::DeadlineMissed, now);
            return;
        }
        case TimerKind::Detach: {
            // A waiter whose leader is still in the air goes on its own, with what it has left.
            q.detachTimer = 0;
            if (q.flight == kNone || q.leader) return;
            auto& w = flights_[q.flight].waiters;
            w.erase(std::remove(w.begin(), w.end(), r), w.end());
            q.flight = kNone;
            startEngines(now, r, now);
            return;
        }
        case TimerKind::BatchRetry: return;
    }
}

void GatewayPath::cancelOutstanding(Time now, std::uint32_t r) {
    Request& q = requests_[r];
    for (int i = 0; i < q.ncalls; ++i) {
        Call& c = calls_[q.calls[i]];
        if (!c.live) continue;
        port_.cancelCall(q.calls[i]);
        c.live = false;
        ++totals_.cancelled_calls;
        --engineInflight_[static_cast<std::size_t>(
            (q.region * cfg_.instances + q.instance) * kEngines + c.engine)];
        // What the loser already took is a lower bound on its latency: keep it in the rolling
        // delay and the router's average, so cancelled slow calls do not vanish from either.
        const double elapsed = toMs(now - c.start);
        if (c.role == CallRole::Primary) recordPrimary(now, q, c.engine, elapsed);
        freeCalls_.push_back(q.calls[i]);
    }
    q.outstanding = 0;
    for (std::uint64_t* timer : {&q.hedgeTimer, &q.lastTimer, &q.deadlineTimer}) {
        if (*timer) port_.cancelTimer(*timer);
        *timer = 0;
    }
}

void GatewayPath::onAnswer(Time now, std::uint32_t callId, const AnswerSummary& a) {
    Call& c = calls_[callId];
    if (!c.live) return;
    c.live = false;
    const std::uint32_t r = c.request;
    Request& q = requests_[r];
    --q.outstanding;
    --engineInflight_[static_cast<std::size_t>((q.region * cfg_.instances + q.instance) * kEngines +
                                               c.engine)];
    freeCalls_.push_back(callId);
    // Validation: schema, non-empty unless site:/exact, not a block page, CAPTCHA or consent
    // wall, at least half complete. (The byte-identical check runs in the driver's egress, which
    // turns a repeated block page into a BlockPage answer.)
    EgressState& eg = egress_[static_cast<std::size_t>(
        (q.region * cfg_.egress_ips + c.ip) * kEngines + c.engine)];
    const bool duplicate = a.kind == AnswerKind::Results && eg.last_fingerprint != 0 &&
                           a.fingerprint == eg.last_fingerprint && eg.last_key != q.key;
    const bool valid =
        !duplicate &&
        ((a.kind == AnswerKind::Results && a.results > 0 && 2 * a.complete >= a.results) ||
         (a.kind == AnswerKind::Empty && q.spec.zero_results_allowed));
    if (duplicate) ++totals_.duplicate_answers;
    if (duplicate || a.kind == AnswerKind::BlockPage || a.kind == AnswerKind::Captcha) {
        if (now >= eg.rest_until) ++totals_.egress_rests;
        eg.rest_until = now + fromSeconds(kRestS);
    }
    if (a.kind == AnswerKind::Results) {
        eg.last_fingerprint = a.fingerprint;
        eg.last_key = q.key;
    }
    const double ms = toMs(now - c.start);
    stats_[static_cast<std::size_t>((q.region * kEngines + c.engine) * kClasses +
                                    static_cast<int>(q.spec.query_class))]
        .record(now, ms, valid, fromSeconds(cfg_.ewma_half_life_s));
    breakers_[q.region][c.engine].record(now, valid);
    noteBreaker(now, q.region, c.engine);
    if (c.role == CallRole::Primary) recordPrimary(now, q, c.engine, ms);
    if (!valid) ++totals_.invalid_answers;
    if (q.done) return;
    auto& st = totals_.stages;
    if (valid) {
        cancelOutstanding(now, r);
        const double engineMs = toMs(now - q.engineStart);
        chargeStage(5, engineMs);
        ++st[5].passed;
        writeCache(now, q);
        if (q.background) return retireRefresh(r);
        const bool empty = a.kind == AnswerKind::Empty;
        if (empty && !q.spec.zero_results_allowed) ++totals_.empty_ok;
        completeFlight(now, r, true);
        serveFromCache(now, r, now, false);
        return;
    }
    if (q.outstanding > 0) return;  // the hedge may still answer
    // Nothing left in the air: retry on the next engine if the deadline allows.
    if (q.deadline - now - fromMs(cfg_.merge_reserve_ms) >= fromMs(cfg_.min_useful_ms)) {
        const int next = pickEngine(now, r, q.tried, true);
        if (next >= 0 && startCall(now, r, next, CallRole::Retry)) return;
    }
    cancelOutstanding(now, r);
    if (q.background) return retireRefresh(r);
    completeFlight(now, r, false);
    finish(now, r, Outcome::NoEngine, now);
}

void GatewayPath::writeCache(Time now, const Request& q) {
    if (cfg_.cache_tiers == 0) return;
    const int cls = static_cast<int>(q.spec.query_class);
    const CacheEntry e{now + fromSeconds(kTtlS[cls])};
    l1_[q.region].put(q.instance, q.key, e);
    if (cfg_.cache_tiers >= 2) {
        l2_[q.region].put(q.key, e);
        l2Lapses_[q.region][static_cast<std::size_t>(cls)].push_back(
            Lapse{q.key, e.fresh_until + fromSeconds(kSwrS[cls])});
        dropLapsedL2(now, q.region);
    }
}

// Removes the region's L2 entries that no lookup can use any more: past fresh-until plus the
// class's stale-while-revalidate window, the longest any setting of the swr knob allows. A queued
// key that was written again since is kept; its later write is further back in the queue.
void GatewayPath::dropLapsedL2(Time now, int region) {
    FlatMap<CacheEntry>& l2 = l2_[static_cast<std::size_t>(region)];
    for (std::size_t cls = 0; cls < kClasses; ++cls) {
        std::deque<Lapse>& queue = l2Lapses_[static_cast<std::size_t>(region)][cls];
        while (!queue.empty() && queue.front().at <= now) {
            // The key that lapses a few writes from now: its slot is loaded by then.
            if (queue.size() > kLapseAhead) l2.prefetch(queue[kLapseAhead].key);
            const std::uint64_t key = queue.front().key;
            queue.pop_front();
            const CacheEntry* e = l2.find(key);
            if (e && e->fresh_until + fromSeconds(kSwrS[cls]) <= now) l2.erase(key);
        }
    }
}

void GatewayPath::completeFlight(Time now, std::uint32_t r, bool ok) {
    Request& q = requests_[r];
    if (q.flight == kNone) return;
    const std::uint32_t fi = q.flight;
    q.flight = kNone;
    if (!q.leader) return;
    Flight& f = flights_[fi];
    flightIndex_[f.region].erase(f.mapKey);
    f.live = false;
    std::vector<std::uint32_t> waiters;
    waiters.swap(f.waiters);
    freeFlights_.push_back(fi);
    for (std::uint32_t w : waiters) {
        Request& x = requests_[w];
        x.flight = kNone;
        if (x.detachTimer) port_.cancelTimer(x.detachTimer), x.detachTimer = 0;
        if (x.done) continue;
        if (ok) {
            // Waiters on another instance learn of the answer through L2.
            const Time at = now + (x.instance != q.instance && cfg_.coalescing == 2
                                       ? fromMs(kL2.median)
                                       : kZero);
            serveFromCache(now, w, at, false);
        } else {
            startEngines(now, w, now);  // the leader failed: go on alone
        }
    }
}

void GatewayPath::releaseSlot(Time now, std::uint32_t r) {
    Request& q = requests_[r];
    if (!q.holdsSlot) {
        if (q.batchSlot) {  // still queued in the batch lane: take it out
            auto& queue = batchQueue_[q.region];
            auto it = std::find(queue.begin() + static_cast<long>(batchHead_[q.region]), queue.end(), r);
            if (it != queue.end()) queue.erase(it);
        }
        return;
    }
    q.holdsSlot = false;
    if (q.batchSlot) {
        --batchInflight_[q.region];
    } else {
        --inflight_[q.region];
    }
    admitBatch(now);
}

// A stale-while-revalidate refresh is over (answered or failed): nobody waits on it, so it only
// lets the next stale hit start another and frees its slot.
void GatewayPath::retireRefresh(std::uint32_t r) {
    Request& q = requests_[r];
    refreshing_[q.region].erase(q.key);
    q.done = true;
    q.live = false;
    freeRequests_.push_back(r);
}

void GatewayPath::finish(Time now, std::uint32_t r, Outcome o, Time at) {
    Request& q = requests_[r];
    if (q.done) {
        ++totals_.double_answers;
        return;
    }
    if (q.background) return retireRefresh(r);  // a refresh that failed
    if (q.leader && q.flight != kNone) completeFlight(now, r, false);
    q.done = true;
    if (q.detachTimer) port_.cancelTimer(q.detachTimer), q.detachTimer = 0;
    if (q.flight != kNone && !q.leader) {
        auto& w = flights_[q.flight].waiters;
        w.erase(std::remove(w.begin(), w.end(), r), w.end());
        q.flight = kNone;
    }
    const Duration latency = at - q.accept;
    if (o == Outcome::Ok && latency > fromMs(cfg_.deadline_ms)) ++totals_.over_deadline;
    releaseSlot(now, r);
    if (q.spec.probe) {
        if (o != Outcome::Ok) ++totals_.probe_failures;
    } else {
        const int oi = static_cast<int>(o);
        ++totals_.outcomes[oi];
        --totals_.in_flight;
        if (o == Outcome::Ok) {
            ++totals_.answered;
            ++window_.ok;
        } else if (isRejected(o)) {
            ++totals_.rejected;
            ++window_.rejected;
        } else {
            ++totals_.failed;
            ++window_.failed;
        }
        ++window_.requests;
        const std::int64_t us = std::max<std::int64_t>(1, toUs(latency));
        pendingLatency_.push_back(PendingLatency{us, q.spec.customer, q.spec.query_class});
        if (q.spec.customer < customerLatency_.size() && isFailed(o)) ++customerFailed_[q.spec.customer];
        if (q.holdsSlot || !isRejected(o)) {
            // The admission limit learns from requests that reached the upstream path.
            if (q.engineStart > kZero && !q.spec.batch) limits_[q.region].onSample(now, latency);
        }
    }
    q.live = false;
    freeRequests_.push_back(r);
}

// Records the latencies of the requests finished since the last call into the class, window and
// customer histograms. Done in a batch rather than as each request finishes: the records are
// independent, so their cache misses (the customer histograms alone are 2.4 MB) overlap instead
// of stalling the request path one at a time. Every reader of the histograms calls this first.
void GatewayPath::recordPendingLatencies() {
    for (const PendingLatency& p : pendingLatency_) {
        totals_.latency_by_class_us[static_cast<int>(p.cls)].record(p.us);
        windowLatency_.record(p.us);
        if (p.customer < customerLatency_.size()) customerLatency_[p.customer].record(p.us);
    }
    pendingLatency_.clear();
}

void GatewayPath::closeWindow(Time now) {
    recordPendingLatencies();
    WindowPoint w = window_;
    w.t_s = toSeconds(now);
    if (windowLatency_.empty()) {
        w.p50_ms = w.p90_ms = w.p99_ms = w.p999_ms = std::nan("");
    } else {
        w.p50_ms = windowLatency_.valueAtPercentile(50) / 1000.0;
        w.p90_ms = windowLatency_.valueAtPercentile(90) / 1000.0;
        w.p99_ms = windowLatency_.valueAtPercentile(99) / 1000.0;
        w.p999_ms = windowLatency_.valueAtPercentile(99.9) / 1000.0;
    }
    w.hedge_rate = windowPrimaries_ ? static_cast<double>(windowHedges_) / windowPrimaries_ : 0;
    w.extra_load = windowPrimaries_
                       ? static_cast<double>(windowCalls_ - windowPrimaries_) / windowPrimaries_
                       : 0;
    w.hedge_budget_level = hedgeBudget_.level();
    std::uint64_t hits = 0, lookups = 0;
    for (int c = 0; c < kClasses; ++c) {
        w.cache_hit_rate[c] = windowLookups_[c]
                                  ? static_cast<double>(windowHits_[c]) / windowLookups_[c]
                                  : std::nan("");
        hits += windowHits_[c];
        lookups += windowLookups_[c];
    }
    w.cache_hit_rate_all = lookups ? static_cast<double>(hits) / lookups : std::nan("");
    for (int g = 0; g < kRegions; ++g) {
        w.inflight_peak[g] = inflightPeak_[g] + static_cast<double>(batchQueue_[g].size() - batchHead_[g]);
        w.admission_limit[g] = limits_[g].limit();
        inflightPeak_[g] = inflight_[g];
    }
    windows_.push_back(w);
    window_ = WindowPoint{};
    windowLatency_.reset();
    windowLookups_.fill(0);
    windowHits_.fill(0);
    windowPrimaries_ = windowHedges_ = windowCalls_ = 0;
    windowStart_ = now;
}

void GatewayPath::fillSnapshot(GatewaySnapshot& s, Time now) {
    recordPendingLatencies();
    s = totals_;
    // All requests: the classes' histograms merged (each request is recorded in its class only).
    for (const HdrHistogram& c : totals_.latency_by_class_us) s.latency_us.merge(c);
    s.now_s = toSeconds(now);
    s.windows = windows_;
    s.hedge_budget_level = hedgeBudget_.level();
    for (int g = 0; g < kRegions; ++g) {
        s.admission_limit[g] = limits_[g].limit();
        s.inflight[g] = inflight_[g];
        s.batch_queue[g] = static_cast<int>(batchQueue_[g].size() - batchHead_[g]);
        for (int e = 0; e < kEngines; ++e) {
            const BreakerState shown = breakerShown_[g][e];
            if (shown != BreakerState::Closed)
                s.breaker_spans.push_back(
                    BreakerSpan{g, e, shown, breakerSince_[g][e], s.now_s, true});
        }
    }
    // Customers whose p99 sits furthest above the global one (at least 20 requests).
    std::vector<CustomerTail> tails;
    for (std::size_t c = 0; c < customerLatency_.size(); ++c) {
        const HdrHistogram& h = customerLatency_[c];
        if (h.totalCount() < 20) continue;
        tails.push_back(CustomerTail{workload_.customers()[c].name,
                                     static_cast<std::uint64_t>(h.totalCount()),
                                     h.valueAtPercentile(99) / 1000.0,
                                     h.valueAtPercentile(99.9) / 1000.0, customerFailed_[c]});
    }
    auto failedShare = [](const CustomerTail& t) {
        return static_cast<double>(t.failed) / static_cast<double>(t.requests);
    };
    std::stable_sort(tails.begin(), tails.end(), [&](const CustomerTail& a, const CustomerTail& b) {
        if (a.p99_ms != b.p99_ms) return a.p99_ms > b.p99_ms;
        if (failedShare(a) != failedShare(b)) return failedShare(a) > failedShare(b);
        return a.p999_ms > b.p999_ms;
    });
    if (tails.size() > 10) tails.resize(10);
    s.worst_customers = std::move(tails);
}

}  // namespace taillab::gateway
