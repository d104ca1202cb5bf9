// How long a queueing lab's run leaves out before it measures, and whether the run is long enough
// to decide a check against a stationary closed form.
//
// The queues start empty. An M/M/1 queue started empty approaches its stationary distribution
// like exp(-t/τ) with τ = 1/(μ(1-√ρ)²) (queueing.h: 380 service times at ρ = 0.9), so a warm-up
// must scale with τ, not with the run: a share of the run is far too short at high load and
// wastefully long at low load. A run leaves out kWarmupRelaxations relaxation times (random
// routing makes every server an M/M/1 queue, the slowest to settle of the policies the labs run),
// at most half its arrivals. A run shorter than twice the warm-up is not settled: its checks
// against the stationary closed form are inconclusive, and the reason names the run that would
// decide them. Header-only, so that adding it moves no source between unity batches.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "labs/lab_common.h"
#include "labs/queueing.h"

namespace taillab {

struct Warmup {
    static constexpr double kWarmupRelaxations = 5;
    double time = 0;                  // in mean service times
    std::int64_t arrivals = 0;        // arrivals left out of the measurement
    bool settled = true;              // the run covers the warm-up twice over
    std::int64_t neededRequests = 0;  // the shortest run that would
};

// The warm-up of a run of `requests` Poisson arrivals spread over `servers` servers at
// per-server load `load` (arrivals per server per mean service time).
inline Warmup warmupFor(double load, int servers, std::int64_t requests) {
    Warmup w;
    w.time = Warmup::kWarmupRelaxations * queueing::mm1RelaxationTime(load, 1.0);
    const auto needed = static_cast<std::int64_t>(std::ceil(w.time * load * servers));
    w.neededRequests = 2 * needed;
    w.settled = requests >= w.neededRequests;
    w.arrivals = w.settled ? needed : requests / 2;
    return w;
}

// Why an unsettled run cannot decide a check ("too short to decide: at load 0.90 the queues need
// about 1,896 service times to settle (5 M/M/1 relaxation times); run at least 34,128
// requests"); "" when the run is settled.
inline std::string unsettledReason(const Warmup& w, double load) {
    if (w.settled) return {};
    char why[200];
    std::snprintf(why, sizeof why,
                  "too short to decide: at load %.2f the queues need about %s service times to "
                  "settle (%.0f M/M/1 relaxation times); run at least ",
                  load, groupedCount(std::llround(w.time)).c_str(), Warmup::kWarmupRelaxations);
    return std::string(why) + groupedCount(w.neededRequests) + " requests";
}

}  // namespace taillab
