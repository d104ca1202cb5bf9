// GatewayPath: the request path of seed 000 as a state machine that never reads a clock and never
// touches I/O. Its driver tells it what happened and when (a request accepted, an upstream answer
// arrived, a timer fired), always passing `now`; it answers through a Port: start or cancel an
// upstream call, set or cancel a timer. The simulator implements the Port with its event queue
// and the simulated fleet; a live driver implements it with sockets and a real clock.
//
// Per request: edge (region from the pin, else the customer's nearest), gateway (API key, token
// bucket per key and endpoint, adaptive admission per region with spill or a fast 503, batch
// lane), compiler (cache key folded from endpoint, region, language, query, result bucket, mode),
// cache (L1 LRU per instance, regional L2, fresh/usable timestamps, stale-while-revalidate,
// coalescing per instance or region-wide through an L2 lease; waiters detach near their
// deadline), router (power of two choices on seed 000's score among engines whose breaker admits
// them), engines (primary, hedge after the delay under the budget, optional last-chance third
// engine, retry after an invalid answer; first valid answer wins, losers cancelled), deadline
// (absolute, set at accept; no engine called with less than minUsefulMs left; a passed deadline
// is a 503, never an empty 200), merge. Stage costs are drawn from small lognormals scaled to
// each stage's budget, and are charged against the deadline like the upstream time.
#pragma once

#include <array>
#include <deque>
#include <cstdint>
#include <memory>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/flat_map.h"
#include "fleet/fleet.h"
#include "gateway/lru_map.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway/stages.h"
#include "workload/workload.h"
#include "metrics/hdr_histogram.h"
#include "base/rng.h"

namespace taillab::gateway {

enum class CallRole : std::uint8_t { Primary, Hedge, LastChance, Retry, Refresh };
enum class TimerKind : std::uint8_t { Hedge, LastChance, Deadline, Detach, BatchRetry };

struct PathConfig {
    bool rate_limits = true, admission = true, breakers = true, swr = true;
    int cache_tiers = 2;  // 0 off, 1 L1, 2 L1 + L2
    int coalescing = 2;   // 0 off, 1 per instance, 2 region-wide via the L2 lease
    int routing = 2;      // 0 static, 1 best score, 2 power of two choices
    int hedge_mode = 2;   // 0 off, 1 fixed, 2 rolling per (region, engine), 3 per class
    double hedge_delay_ms = 420, hedge_percentile = 90, clamp_lo_ms = 120, clamp_hi_ms = 450;
    double hedge_budget = 0.15;
    bool last_chance = false;
    double last_chance_delay_ms = 300, last_chance_budget = 0.02;
    double deadline_ms = 600, margin_ms = 10, merge_reserve_ms = 12, min_useful_ms = 40;
    double detach_reserve_ms = 150;
    double l2_lease_ms = 50;
    int l1_entries = 20000, instances = 3, egress_ips = 4;
    int min_limit = 10, max_limit = 200, batch_limit = 8;
    double admission_tolerance = 2.0;
    double hedge_burst = 50;
    Breaker::Config breaker{};
    double ewma_half_life_s = 30;
    std::array<double, kEngines> quality{1, 0.8, 0};
    static PathConfig fromParams(const Params& p);
};

// The driver's side.
class Port {
public:
    virtual ~Port() = default;
    // Starts an upstream call at `at` (>= now); its answer must come back through onAnswer, or
    // never if cancelled first.
    virtual void startCall(std::uint32_t call, int engine, int region, int egressIp,
                           QueryClass cls, std::uint64_t key, int results, double shared,
                           Time at) = 0;
    virtual void cancelCall(std::uint32_t call) = 0;
    virtual std::uint64_t setTimer(Time at, TimerKind kind, std::uint32_t request) = 0;
    virtual void cancelTimer(std::uint64_t timer) = 0;
};

class GatewayPath {
public:
    GatewayPath(const PathConfig& config, const Workload& workload, std::uint64_t seed, Port& port);
    ~GatewayPath();
    void setConfig(const PathConfig& config);
    const PathConfig& config() const { return cfg_; }

    void accept(Time now, const RequestSpec& spec);
    // A hint that `spec` arrives soon: starts loading the cache slots its lookup will probe, so
    // that the lookup does not wait on memory. Changes no state.
    void prefetch(const RequestSpec& spec) const;
    void onAnswer(Time now, std::uint32_t call, const AnswerSummary& answer);
    void onTimer(Time now, TimerKind kind, std::uint32_t request);

    // Closes the current chart window at `now` and starts the next.
    void closeWindow(Time now);
    // Non-const: first records the latencies still waiting in the batch (recordPendingLatencies).
    void fillSnapshot(GatewaySnapshot& s, Time now);
    void setWindowStart(Time t) { windowStart_ = t; }

private:
    struct Request;
    struct Call;
    struct Flight;
    // A cached answer: fresh until this time; usable (stale-while-revalidate) for its class's
    // revalidate window after that. The class is part of the key's query, so one time suffices.
    struct CacheEntry {
        Time fresh_until{};
    };
    std::uint32_t newRequest();
    void finish(Time now, std::uint32_t r, Outcome o, Time at);
    void retireRefresh(std::uint32_t r);
    void serveFromCache(Time now, std::uint32_t r, Time at, bool stale);
    void lookupCache(Time now, std::uint32_t r, Time at);
    void startEngines(Time now, std::uint32_t r, Time at);
    bool startCall(Time at, std::uint32_t r, int engine, CallRole role);
    int pickEngine(Time now, std::uint32_t r, std::uint32_t excludeMask, bool bestOnly);
    double score(const Request& q, int engine) const;
    std::size_t delayIndex(const Request& q, int engine) const;
    void recordPrimary(Time now, const Request& q, int engine, double ms);
    void completeFlight(Time now, std::uint32_t r, bool ok);
    void cancelOutstanding(Time now, std::uint32_t r);
    void writeCache(Time now, const Request& q);
    void dropLapsedL2(Time now, int region);
    void admitBatch(Time now);
    void releaseSlot(Time now, std::uint32_t r);
    std::uint64_t cacheKey(const RequestSpec& spec, int region) const;
    std::uint32_t instanceFor(const RequestSpec& spec) const;
    Duration stageCost(Stage s);
    void chargeStage(int stage, double ms);  // time spent in a stage, into its totals
    Duration drawCost(int row);
    void noteBreaker(Time now, int region, int engine);
    int pickEgress(Time at, int region, int engine);
    // Egress IPs, scored per upstream: rested after a block page, CAPTCHA or a byte-identical
    // answer to a different query (a cached block page), back after kRestS.
    struct EgressState {
        Time rest_until{};
        std::uint64_t last_fingerprint = 0;
        std::uint64_t last_key = 0;
    };
    std::vector<CacheKeyPrefix> keyPrefix_;  // [(endpoint * kRegions + region) * langs + lang]
    std::vector<EgressState> egress_;  // [(region * egress_ips + ip) * kEngines + engine]
    std::array<int, kRegions> nextIp_{};

    PathConfig cfg_;
    const Workload& workload_;
    Port& port_;
    Rng rng_;
    std::deque<Request> requests_;  // deques: references stay valid as they grow
    std::vector<std::uint32_t> freeRequests_;
    std::deque<Call> calls_;
    std::vector<std::uint32_t> freeCalls_;
    std::deque<Flight> flights_;
    std::vector<std::uint32_t> freeFlights_;
    std::array<FlatMap<std::uint32_t>, kRegions> flightIndex_;
    std::vector<LruMap<CacheEntry>> l1_;  // per region, a part per instance
    std::array<FlatMap<CacheEntry>, kRegions> l2_;
    // L2 entries by the time they stop being usable, so that lapsed ones leave the table: a lapsed
    // entry answers nothing (a lookup treats it as a miss, a write replaces it), and without this
    // the table would hold every key the run ever fetched, a third of them one-off long-tail
    // queries. One queue per (region, class): a class's lifetime is fixed, so appending at write
    // time keeps each queue in lapse order. A key's class is a function of its query.
    struct Lapse {
        std::uint64_t key;
        Time at;
    };
    std::array<std::array<std::deque<Lapse>, kClasses>, kRegions> l2Lapses_;
    std::array<FlatMap<std::uint8_t>, kRegions> refreshing_;  // SWR refreshes in the air
    std::vector<std::array<TokenBucket, 2>> buckets_;  // per customer, per endpoint
    std::array<AdaptiveLimit, kRegions> limits_;
    std::array<int, kRegions> inflight_{}, inflightPeak_{}, batchInflight_{};
    std::array<std::vector<std::uint32_t>, kRegions> batchQueue_;
    std::array<std::size_t, kRegions> batchHead_{};
    std::array<std::array<Breaker, kEngines>, kRegions> breakers_;
    std::array<std::array<BreakerState, kEngines>, kRegions> breakerShown_{};
    std::array<std::array<double, kEngines>, kRegions> breakerSince_{};
    std::vector<LatencyEwma> stats_;             // [(region * kEngines + engine) * kClasses + class]
    std::vector<int> engineInflight_;            // [(region * instances + instance) * kEngines + e]
    std::vector<RollingDelay> delays_;           // per (region, engine) or per class
    HedgeBudget hedgeBudget_, lastChanceBudget_;

    // Measurement.
    GatewaySnapshot totals_;  // counters, stages, spans, histograms (windows kept separately)
    std::vector<HdrHistogram> customerLatency_;  // 2 significant digits: 1% is plenty per key
    std::vector<std::uint64_t> customerFailed_;
    HdrHistogram windowLatency_;
    struct PendingLatency {
        std::int64_t us;
        std::uint32_t customer;
        QueryClass cls;
    };
    std::vector<PendingLatency> pendingLatency_;  // finished, not yet in the histograms
    void recordPendingLatencies();
    WindowPoint window_{};
    std::array<std::uint64_t, kClasses> windowLookups_{}, windowHits_{};
    std::uint64_t windowPrimaries_ = 0, windowHedges_ = 0, windowCalls_ = 0;
    Time windowStart_{};
    std::vector<WindowPoint> windows_;
    friend class GatewaySim;
};

}  // namespace taillab::gateway
