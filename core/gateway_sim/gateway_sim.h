// GatewaySim: seed 000's whole search path (edge, gateway, compiler, cache, router, engines with
// hedging, merge) run against a simulated upstream fleet and a simulated week of traffic, on a
// virtual clock. Seeded and deterministic: the same params, seed and knob-change timeline give
// the same bytes.
//
// A driver advances it in slices of simulated time (advanceTo), reads immutable snapshots between
// slices (snapshot), and may change knobs mid-run (applyParams): a change applies from the
// simulated moment it is made and is recorded in the snapshot's timeline. The GUI's gateway view
// uses this directly for play / pause / speed / seek; the "gateway" lab wraps it for the CLI,
// scenario files and sweeps.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gateway/gateway_types.h"
#include "knobs/knob.h"
#include "metrics/hdr_histogram.h"
#include "sim/run_control.h"

namespace taillab::gateway {

// One closed chart window (the knob `window_s` long) of simulated time. Percentiles come from
// that window's own HDR histogram of request latency (accept to last byte, failures at their
// latency), never from averages; a window with no requests has NaN percentiles.
struct WindowPoint {
    double t_s = 0;  // window end, simulated seconds since the run started
    std::uint32_t requests = 0;  // accepted requests that ended in the window
    std::uint32_t ok = 0, rejected = 0, failed = 0;
    double p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0;
    double hedge_rate = 0;         // hedges sent / primary engine calls in the window
    double extra_load = 0;         // (all engine calls - primary calls) / primary calls
    double hedge_budget_level = 0; // hedge tokens / bucket capacity at window end, in [0, 1]
    std::array<double, kClasses> cache_hit_rate{};  // hits / lookups per class; NaN if none
    double cache_hit_rate_all = 0;
    std::array<double, kRegions> inflight_peak{};   // most requests in flight at once, per region
    std::array<double, kRegions> admission_limit{}; // concurrency limit at window end, per region
};

// Per-stage totals since the start: how many requests entered the stage, how many it passed
// on, and the simulated time spent in it (the engines stage: from the first call to the winning
// answer).
struct StageStats {
    std::uint64_t entered = 0;
    std::uint64_t passed = 0;
    double time_ms_total = 0;
    double time_ms_max = 0;
    double budget_ms = 0;  // the stage's slice of the deadline (seed 000's budget table)
};

// A stretch of time during which one (region, engine) breaker was not closed.
struct BreakerSpan {
    int region = 0;
    int engine = 0;
    BreakerState state = BreakerState::Open;
    double t0_s = 0;
    double t1_s = 0;  // == t0_s while still in that state at snapshot time (see `ongoing`)
    bool ongoing = false;
};

struct CustomerTail {
    std::string name;  // "cust-017 (pro)"
    std::uint64_t requests = 0;
    double p99_ms = 0;   // from that customer's own histogram
    double p999_ms = 0;
    std::uint64_t failed = 0;  // 503s after acceptance (deadline, no engine): the tail's cost
};

struct TimelineEvent {
    double t_s = 0;
    std::string what;  // "hedge_delay_ms 420 -> 300", "EU/atlas breaker open"
};

struct GatewaySnapshot {
    double now_s = 0;
    double end_s = 0;
    std::vector<WindowPoint> windows;  // closed windows so far, oldest first
    std::array<StageStats, kStages> stages{};
    // Conservation: accepted == answered + rejected + failed + in_flight.
    std::uint64_t accepted = 0, answered = 0, rejected = 0, failed = 0, in_flight = 0;
    std::array<std::uint64_t, kOutcomes> outcomes{};
    std::array<std::uint64_t, kClasses> cache_lookups{}, cache_hits{};
    std::uint64_t coalesced = 0;          // requests served by joining another request's flight
    std::uint64_t primary_calls = 0, hedge_calls = 0, last_chance_calls = 0, cancelled_calls = 0;
    std::uint64_t invalid_answers = 0;    // upstream answers that failed validation
    std::uint64_t duplicate_answers = 0;  // of which byte-identical to another query's answer
    std::uint64_t egress_rests = 0;       // an egress IP rested for an engine
    std::uint64_t retry_calls = 0, refresh_calls = 0;  // after an invalid answer; SWR refreshes
    std::uint64_t hedges_denied = 0;      // hedge timers that found the budget empty
    double hedge_allowance = 0;           // tokens ever credited to the hedge budget (+ burst)
    std::uint64_t spilled = 0;            // unpinned requests admitted in another region
    std::uint64_t probes = 0;             // synthetic probe requests (not in `accepted`)
    std::uint64_t probe_failures = 0;
    // Invariants, all zero in a correct run: 200s with no results outside site:/exact-match,
    // stage work that ran past the request's deadline, requests answered twice.
    std::uint64_t empty_ok = 0, over_deadline = 0, double_answers = 0;
    std::uint64_t events = 0;  // discrete events the simulator processed
    double hedge_budget_level = 0;
    std::array<int, kRegions> admission_limit{};
    std::array<int, kRegions> inflight{};
    std::array<int, kRegions> batch_queue{};
    std::vector<std::string> engines;     // engine names, index = engine id
    std::vector<BreakerState> breaker_state;  // [region * engines.size() + engine]
    std::vector<BreakerSpan> breaker_spans;
    // p99 furthest above the global p99, worst first (ties, as when every p99 sits at the
    // deadline: by share of failed requests, then p99.9).
    std::vector<CustomerTail> worst_customers;
    std::vector<TimelineEvent> timeline;
    HdrHistogram latency_us;  // all accepted requests since the start: the classes merged
    std::array<HdrHistogram, kClasses> latency_by_class_us;
};

class GatewaySim {
public:
    // Throws std::invalid_argument when the knobs contradict each other.
    GatewaySim(const Params& params, std::uint64_t seed);
    ~GatewaySim();
    GatewaySim(const GatewaySim&) = delete;
    GatewaySim& operator=(const GatewaySim&) = delete;

    // Every knob of the gateway path, fleet and workload, with units, ranges and help.
    static std::vector<KnobSpec> knobs();

    double now_s() const;
    double end_s() const;
    bool finished() const;
    // Runs events up to simulated time t (clamped to the end). Polls `control` (when given) every
    // few thousand events; returns false when it was cancelled.
    bool advanceTo(double t_s, RunControl* control = nullptr);
    // After the end: lets the requests still in flight finish (no new arrivals), so the final
    // snapshot has none in flight.
    bool drain(RunControl* control = nullptr);
    // Changes knobs from the current simulated moment on. Workload-shape knobs (days, start day,
    // customers) cannot change mid-run and throw std::invalid_argument.
    void applyParams(const Params& params);
    const Params& params() const;

    GatewaySnapshot snapshot() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::gateway
