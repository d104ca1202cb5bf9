// The fleet model of the region_router lab: edges sending inference requests to regions of
// accelerator nodes, routed by a region-aware score or by "nearest region with a switch".
//
// Fleet. Up to 24 regions (a fixed table of cities; fra, ams and lhr first, close neighbours).
// Each region is one FIFO queue served by its nodes (c nodes: an M/Ek/c queue); a node serves at
// rate 1/S, a throttled node at a third of that. One edge sits beside each region and sends it
// demand in proportion to the region's capacity times its "heat" (some cities ask for more than
// they hold; `skew` scales how much). Arrivals are one Poisson stream over the whole fleet at
// `load` times its capacity; each request's service demand (Erlang-k, mean S) is drawn when it
// arrives, so both routers see the same requests. The round trip edge -> region comes from great-
// circle distance (2 ms inside a city, plus 1.5 ms per 100 km); it is added to the latency of
// every attempt, while the request joins the queue at once (a few ms of transit are not modelled).
//
// Health. Every `health_interval` each region publishes a record: its queue depth (requests
// waiting), the requests it completed per second over the interval, its hardware status (the
// share of its capacity lost to failed nodes) and its recent error rate (timeouts, overflows and
// requests lost on a failing node over requests it received, smoothed over `error_window`). The
// per-window p50/p95 of the seed's record are not modelled: neither router reads them.
//
// Routers. Score: each request goes to the region with the lowest
//   rtt + depth * per_request_cost + hardware_penalty * lost_share + error_penalty * error_%
// where depth is the last record's, plus what the router has sent there since, minus what the
// region drains in the meantime at its published rate. Because the router's own sends raise the
// depth it sees, a degrading region loses traffic in proportion, not all at once. Switch: the
// nearest region the records call healthy; a region is unhealthy once its lost share or its error
// rate crosses a threshold, and then all of its traffic moves to the next nearest in one step.
// Both retry a timed-out, rejected or lost attempt once, in another region (score: the next best;
// switch: the next nearest healthy), keeping the original arrival time.
//
// Fault. `fault_nodes` nodes of fra fail, the first at `fault_at`, the rest evenly spread over
// `fault_spread`; a request in service on a failing node is lost (an error) and retried.
//
// Measurement. Latency runs from arrival at the edge to the answer (every attempt's round trip
// included); a request that fails for good counts at the latency it failed at. Requests are
// binned by arrival into windows of `window`, one HDR histogram per window; whole-run figures come
// from merging the windows' histograms, never from their percentiles.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/time.h"
#include "metrics/hdr_histogram.h"
#include "sim/run_control.h"

namespace taillab::region_router {

enum class Router { Score, Switch };

constexpr int kMaxRegions = 24;
constexpr int kFra = 0, kAms = 1, kLhr = 2;  // the first three of the table

struct RegionInfo {
    const char* name;
    double lat, lon;  // degrees
    double heat;      // demand over capacity, before `skew` scales it (1 = balanced)
    bool throttled;   // one of its nodes runs at a third of its rate
};
const std::array<RegionInfo, kMaxRegions>& regionTable();
// Round trip edge of region `from` -> region `to`, in ms.
double rttMs(int from, int to);

struct FleetConfig {
    Router router = Router::Score;
    int regions = 24;
    int nodes = 4;          // per region
    double load = 0.6;      // demand over the fleet's nominal capacity (all nodes at full rate)
    double skew = 1.85;     // scales each region's heat - 1
    bool throttle = true;   // the table's throttled nodes run at a third of their rate
    double serviceMs = 35;  // mean service time S of one request on a healthy node
    int serviceShape = 16;  // Erlang phases k (1: exponential)
    double healthIntervalMs = 250;
    int candidates = 3;  // score: the regions nearest the edge that it weighs
    double perRequestCostMs = 9;
    double hardwarePenaltyMs = 30;    // at a whole region's capacity lost
    double errorPenaltyMs = 5;        // per percent of recent errors
    double errorWindowS = 10;         // time constant of the error-rate smoothing
    double unhealthyLostShare = 0.5;  // switch: unhealthy at this share of capacity lost
    double unhealthyErrorRate = 0.2;  // switch: ... or at this recent error rate
    double queueTimeoutMs = 250;      // an attempt waiting longer is dropped and retried
    int queueLimit = 17;              // an attempt finding this many waiting is rejected
    int maxRetries = 1;
    double errorShare = 0;  // requests whose first attempt fails after service
    int faultNodes = 0;
    double faultAtS = 60;
    double faultSpreadS = 40;
    double durationS = 240;
    double warmupS = 30;
    double windowS = 5;
};

struct FleetStreams {
    Rng arrivals;  // arrival times and edges
    Rng service;   // service demands
    Rng errors;    // which requests meet a transient error
};
FleetStreams fleetStreams(std::uint64_t seed);

// The three tracked regions: fra, ams, lhr.
constexpr int kTracked = 3;

struct Window {
    HdrHistogram latency;                       // requests arriving in the window, µs
    std::array<std::int64_t, kTracked> sent{};  // attempts dispatched to fra, ams, lhr
    std::int64_t retries = 0;
    std::int64_t failed = 0;
    explicit Window(const HdrConfig& c) : latency(c) {}
};

struct FleetRun {
    std::vector<Window> windows;
    std::vector<std::int64_t> fraSentPerSecond;  // attempts dispatched to fra, per second
    std::int64_t arrived = 0, completed = 0, failed = 0, retries = 0, events = 0;
    std::int64_t inFlightAtEnd = 0;  // still queued or in service when the run stopped
    // Per tracked region: the deepest queue before the fault and from the fault on.
    std::array<int, kTracked> peakDepthBefore{}, peakDepthAfter{};
    // Requests served in ams or lhr that arrived during the incident (fault start + 120 s).
    HdrHistogram neighbourLatency;
    // Single-region closed-form check: time waited in queue by measured requests (ms), and per
    // window for batch means.
    std::vector<double> waitSumPerWindow;
    std::vector<std::int64_t> waitCountPerWindow;
    bool cancelled = false;
    explicit FleetRun(const HdrConfig& c) : neighbourLatency(c) {}
};

HdrConfig latencyHdrConfig();  // 1 µs to 60 s, 3 significant digits
// The fleet's nominal capacity in requests per second (every node at full rate).
double fleetCapacityPerS(const FleetConfig& config);
// The time of the k-th node loss (k = 0 .. faultNodes-1), in s.
double faultTimeS(const FleetConfig& config, int k);

FleetRun runFleet(const FleetConfig& config, FleetStreams streams,
                  const ProgressSlice& progress = {});

}  // namespace taillab::region_router
