// What a gateway run publishes: counters, per-stage totals, per-window series, breaker spans, the
// customers with the worst tails, the timeline, and HDR histograms of request latency. The same
// type for the simulated and the live driver, so every view reads either. Percentiles come only
// from the histograms (merged, never averaged); latency runs from accept to the response, and
// failures are recorded at their latency.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway_types.h"
#include "metrics/hdr_histogram.h"

namespace taillab::gateway {

// One closed chart window (the knob `window_s` long) of simulated time. Percentiles come from
// that window's own HDR histogram of request latency (accept to last byte, failures at their
// latency), never from averages; a window with no requests has NaN percentiles.
// One region's part of a window: where the requests were served (after any reroute or spill).
struct RegionWindow {
    std::uint32_t requests = 0, failed = 0, invisible = 0;
    double p99_ms = 0, p999_ms = 0;  // NaN when the region served none
    // Requests in flight in the region's gateway, on average over the window, by Little's law:
    // the latencies of the requests that ended in it, summed, over its length. Its depth.
    double queue_mean = 0;
};

struct WindowPoint {
    double t_s = 0;  // window end, simulated seconds since the run started
    std::uint32_t requests = 0;  // accepted requests that ended in the window
    std::uint32_t ok = 0, rejected = 0, failed = 0;
    std::uint32_t invisible = 0;  // of the failed, answered as an empty 200 (TimeoutReply::EmptyOk)
    double p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0;
    double hedge_rate = 0;         // hedges sent / primary engine calls in the window
    double extra_load = 0;         // (all engine calls - primary calls) / primary calls
    double hedge_budget_level = 0; // hedge tokens / bucket capacity at window end, in [0, 1]
    std::array<double, kClasses> cache_hit_rate{};  // hits / lookups per class; NaN if none
    double cache_hit_rate_all = 0;
    std::array<double, kRegions> inflight_peak{};   // most requests in flight at once, per region
    std::array<double, kRegions> admission_limit{}; // concurrency limit at window end, per region
    std::array<RegionWindow, kRegions> regions{};
    // Requests whose gateway work ran on each provider (A, B, C; counted at the edge), when the
    // run models gateway compute; zero otherwise.
    std::array<std::uint32_t, kProviders> provider_requests{};
};

// One hour of the run (the windows that end in it, merged): its tail, for an incident's
// "p99 by hour". Exact when the window length divides an hour, as the default 600 s does.
struct HourPoint {
    double t_s = 0;  // the hour's start, seconds since the run's first day's 00:00
    std::uint32_t requests = 0, failed = 0;
    double p99_ms = 0, p999_ms = 0;  // NaN when the hour had no requests
};

// Per-stage totals since the start: how many requests entered the stage, how many it passed
// on, and the simulated time spent in it (the engines stage: from the first call to the winning
// answer). The synthetic health probes (GatewaySnapshot::probes) go through the stages like any
// request and are in these counts; probes_entered and probes_passed say how many of them. So are
// the stale-while-revalidate refreshes, the gateway's own requests (refresh_calls): from a stale
// hit through the router and the engines into the cache, never to merge, and never answered,
// rejected or failed; refreshes_entered and refreshes_passed say how many of them (a refresh a
// probe's stale hit started among them, not among the probes).
//
// The customers' requests (entered - probes_entered - refreshes_entered, and the same of passed)
// and the probes each flow through the path on their own, and their counts reconcile: what a stage
// passed on entered the next one; the cache passes a miss (or a coalesced waiter that goes on
// alone) to the router and a hit (or a waiter given its flight's answer) to merge, so merge's
// entered is the engines' passed plus the cache's passed less the router's entered. A request
// that entered a stage and was not passed on ended there (rejected or failed) or is still in it:
// a coalesced waiter stays in the cache until its flight lands, it goes on alone or its deadline
// passes. Edge's entered is `accepted`, merge's passed is `answered`.
struct StageStats {
    std::uint64_t entered = 0;
    std::uint64_t passed = 0;
    std::uint64_t probes_entered = 0;     // of `entered`
    std::uint64_t probes_passed = 0;      // of `passed`
    std::uint64_t refreshes_entered = 0;  // of `entered`
    std::uint64_t refreshes_passed = 0;   // of `passed`
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

// A stretch of time during which a health mechanism of the gateway's compute was not in its
// normal state: a (region, provider) whose health probes fail, a region's breaker (spill into it
// stopped), a standby provider starting or serving.
enum class HealthKind : std::uint8_t { Probe, RegionBreaker, Standby };
constexpr std::array<std::string_view, 3> kHealthKindNames{"probe", "region_breaker", "standby"};
enum class HealthState : std::uint8_t { Failing, Open, HalfOpen, Starting, Serving };
constexpr std::array<std::string_view, 5> kHealthStateNames{"failing", "open", "half-open",
                                                            "starting", "serving"};
struct HealthSpan {
    HealthKind kind = HealthKind::Probe;
    int region = 0;
    int provider = -1;  // -1: the region as a whole
    HealthState state = HealthState::Failing;
    double t0_s = 0;
    double t1_s = 0;  // == t0_s while still in that state at snapshot time (see `ongoing`)
    bool ongoing = false;
};

// A customer (API key) is ranked by its own p99 once that rests on this many requests.
inline constexpr std::uint64_t kCustomerTailMinRequests = 20;

struct CustomerTail {
    std::string name;  // "cust-017 (pro)"
    std::uint64_t requests = 0;
    double p99_ms = 0;   // from that customer's own histogram
    double p999_ms = 0;
    std::uint64_t failed = 0;  // 503s after acceptance (deadline, no engine): the tail's cost
};

// Something that happened at a moment or over a span of the run, drawn on every time chart: a
// knob change, a fault from the scenario's timeline, a breaker changing state, a phase of an
// incident the timeline names (a note: it changes nothing).
enum class MarkKind : std::uint8_t { Knob, Fault, Breaker, Phase };
// One knob a change moved, by its key: a view names it and writes its values as its knob panel
// does ("Hedge budget 15 % -> 7.5 %"), where `what` keeps the key for scenarios and the CLI.
struct KnobStep {
    std::string key;
    double from = 0, to = 0;
};
struct TimelineMark {
    double t_s = 0;
    std::optional<double> end_s;  // faults: when the fault ends (nullopt: an instant)
    MarkKind kind = MarkKind::Knob;
    std::string what;  // "hedge_delay_ms 420 -> 300", "EU/atlas breaker open", "atlas slow ×3 (EU)"
    std::string phase;  // a phase's id ("sev1"), for its figures; empty for other kinds
    // A knob change whose text is the default one: the knobs it moved, in `what`'s order. Empty
    // for a change with a label of its own, one not applied, and the other kinds.
    std::vector<KnobStep> knobs;
};

struct GatewaySnapshot {
    double now_s = 0;
    double end_s = 0;
    std::vector<WindowPoint> windows;  // closed windows so far, oldest first
    std::vector<HourPoint> hours;      // hours with a closed window so far, oldest first
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
    // Foreground retries after an invalid answer; calls for stale-while-revalidate refreshes (a
    // refresh's retry included).
    std::uint64_t retry_calls = 0, refresh_calls = 0;
    std::uint64_t hedges_denied = 0;      // hedge timers that found the budget empty
    double hedge_allowance = 0;           // tokens ever credited to the hedge budget (+ burst)
    std::uint64_t spilled = 0;            // unpinned requests admitted in another region
    std::uint64_t rerouted = 0;           // unpinned requests whose home region was rerouted
    std::uint64_t spill_refused = 0;      // reroutes or spills into a region with its breaker open
    std::uint64_t probes = 0;             // synthetic probe requests (not in `accepted`)
    std::uint64_t probe_failures = 0;
    // Failures answered as an empty 200 (TimeoutReply::EmptyOk): in `failed` (the truth), but
    // successes to the clients that got them.
    std::uint64_t invisible_failures = 0;
    // Invariants, all zero in a correct run: 200s with no results outside site:/exact-match,
    // stage work that ran past the request's deadline, requests answered twice.
    std::uint64_t empty_ok = 0, over_deadline = 0, double_answers = 0;
    std::uint64_t stale_answers = 0;  // answers for calls already cancelled or finished: ignored
    std::uint64_t late_merges = 0;    // valid answers whose merge ended past the deadline (503)
    std::uint64_t events = 0;  // discrete events the simulator processed
    double hedge_budget_level = 0;
    std::array<int, kRegions> admission_limit{};
    std::array<int, kRegions> inflight{};
    std::array<int, kRegions> batch_queue{};
    std::vector<std::string> engines;     // engine names, index = engine id
    std::vector<BreakerState> breaker_state;  // [region * engines.size() + engine]
    std::vector<BreakerSpan> breaker_spans;
    std::vector<HealthSpan> health_spans;  // ended spans in end order, then the ongoing ones
    // p99 furthest above the global p99, worst first (ties, as when every p99 sits at the
    // deadline: by share of failed requests, then p99.9).
    std::vector<CustomerTail> worst_customers;
    // The global p99 (latency_us's) read at the customers' resolution: a customer's histogram
    // has 2 significant digits, so a customer whose requests make the global tail reads this,
    // not latency_us's own p99 (3 digits: 578 ms there can be 582 ms here). What their p99s
    // compare with. NaN before any request (and in a snapshot not filled by the metrics).
    double customers_global_p99_ms = std::numeric_limits<double>::quiet_NaN();
    std::vector<TimelineMark> timeline;  // in time order
    // All accepted requests since the start: the classes and the unclassified merged.
    HdrHistogram latency_us;
    // By the query's class, for the requests whose query the compiler classified.
    std::array<HdrHistogram, kClasses> latency_by_class_us;
    // Requests refused before their query was classified (401, 429, shed, a 400 for max_results
    // or the query itself, a deadline passed in the batch lane's queue): they have no class.
    HdrHistogram latency_unclassified_us;
};

}  // namespace taillab::gateway
