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
// decide them: one that settles and also measures enough arrivals to bring the check's tolerance
// within kMaxToleranceShare of its value (settling alone is often far short of that). Header-only,
// so that adding it moves no source between unity batches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "labs/lab_common.h"
#include "labs/lab_result.h"
#include "labs/queueing.h"

namespace taillab {

struct Warmup {
    static constexpr double kWarmupRelaxations = 5;
    double time = 0;                   // in mean service times
    std::int64_t arrivals = 0;         // arrivals left out of the measurement
    bool settled = true;               // the run covers the warm-up twice over
    std::int64_t neededRequests = 0;   // the shortest run that would
    std::int64_t settledArrivals = 0;  // the arrivals a settled run leaves out
};

// The warm-up of a run of `requests` Poisson arrivals spread over `servers` servers at
// per-server load `load` (arrivals per server per mean service time).
inline Warmup warmupFor(double load, int servers, std::int64_t requests) {
    Warmup w;
    w.time = Warmup::kWarmupRelaxations * queueing::mm1RelaxationTime(load, 1.0);
    const auto needed = static_cast<std::int64_t>(std::ceil(w.time * load * servers));
    w.neededRequests = 2 * needed;
    w.settledArrivals = needed;
    w.settled = requests >= w.neededRequests;
    w.arrivals = w.settled ? needed : requests / 2;
    return w;
}

// The shortest run of which warmupFor measures at least `measured` arrivals and that, when
// `settle`, also settles. A run shorter than neededRequests measures half its arrivals.
inline std::int64_t requestsToMeasure(const Warmup& w, std::int64_t measured, bool settle) {
    measured = std::min(measured, std::numeric_limits<std::int64_t>::max() / 4);
    if (!settle && 2 * measured < w.neededRequests) return 2 * measured;
    return std::max(w.neededRequests, w.settledArrivals + measured);
}

// Why an unsettled run cannot decide a check, naming `deciding`, the run that would (or, when
// nullopt, saying that no run length would): "too short to decide: at load 90 % the queues need
// about 1,899 service times to settle (5 M/M/1 relaxation times); run at least 862,072 requests
// (341,764 to settle, the rest to bring the tolerance within 25% of the value)".
inline std::string unsettledReason(const Warmup& w, double load,
                                   std::optional<std::int64_t> deciding) {
    char why[200];
    std::snprintf(why, sizeof why,
                  "too short to decide: at load %ld %% the queues need about %s service times to "
                  "settle (%.0f M/M/1 relaxation times); ",
                  std::lround(load * 100), groupedCount(std::llround(w.time)).c_str(), Warmup::kWarmupRelaxations);
    const std::string settle = groupedCount(w.neededRequests);
    const std::string share = std::to_string(std::lround(100 * kMaxToleranceShare)) + "%";
    if (!deciding)
        return why + ("a run of " + settle + " requests settles them, but no run length brings " +
                      "the tolerance within " + share + " of the value");
    std::string reason = why + runAtLeast(*deciding).text;
    if (*deciding > w.neededRequests)
        reason += " (" + settle + " to settle, the rest to bring the tolerance within " + share +
                  " of the value)";
    return reason;
}

// Decides `c`, a check against a stationary closed form, only when the run settled and the
// check's tolerance is within kMaxToleranceShare of its value; otherwise marks it inconclusive,
// naming the shortest run that does both. `measured` arrivals gave `sePart`, the part of the
// tolerance that shrinks like 1/√n (samplesToDecide). A check that does not apply is left alone.
inline void requireSettledResolution(Check& c, const Warmup& w, double load, std::int64_t measured,
                                     double sePart) {
    if (!c.applies()) return;
    const std::optional<std::int64_t> samples = samplesToDecide(c, measured, sePart);
    const std::optional<std::int64_t> deciding =
        samples ? std::optional(requestsToMeasure(w, *samples, true)) : std::nullopt;
    if (!w.settled) {
        c.inconclusive = unsettledReason(w, load, deciding);
        if (deciding) c.advice = runAtLeast(*deciding).knobs;
    } else if (deciding) {
        requireResolution(c, runAtLeast(*deciding));
    } else {
        requireResolution(c, kNoSampleSizeDecides);
    }
}

}  // namespace taillab
