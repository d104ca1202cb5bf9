// The hedged-request model of the hedge_loaded lab, on TailLab's discrete-event core.
//
// c FIFO servers, each with its own queue. Requests arrive as a Poisson stream at rate
// ρ·c/E[S] (ρ is the per-server utilisation without hedging). A request's primary copy joins a
// uniformly random server; depending on the mode a backup copy goes to a different random server
// at once (duplicate-all), after a fixed delay (a cancellable timer that the primary's answer
// cancels), or never. A backup queues like any job and holds its server from the moment it
// starts until it finishes or is stopped. The request is answered by the first copy to finish;
// the cancel rule says what happens to the other copy:
//   Both        the loser is removed from its queue, or stopped mid-service;
//   BackupOnly  only a backup can be removed or stopped; a losing primary runs to completion;
//   Nothing     both copies run to completion (the answer is still the first one).
//
// Accounting: a request's demand is its primary's service time, the server time it would take
// without hedging (on common random numbers, exactly the busy time of the unhedged run). Its busy
// time is every second a server spends on any of its copies, stopped ones included. Capacity
// cost = (busy - demand) / demand: the extra server time hedging spends per unit of useful work.
// Requests before `warmup` are simulated but not measured, so the queues are near steady state
// when measurement starts.
//
// The run is a pure function of the config and the streams; it is exposed as a function so the
// benchmark can time the engine on exactly the model the lab runs.
#pragma once

#include <cstdint>

#include "metrics/hdr_histogram.h"
#include "sim/distributions.h"
#include "base/rng.h"
#include "sim/run_control.h"
#include "base/time.h"

namespace taillab {

enum class HedgeMode { None, Delayed, Immediate };
enum class CancelRule { Both, BackupOnly, Nothing };

struct HedgeSimConfig {
    int servers = 10;
    double load = 0.5;  // per-server utilisation without hedging
    ServiceModel service = ExponentialModel{10.0};
    std::int64_t requests = 10'000;
    std::int64_t warmup = 1'000;  // first requests not measured
    HedgeMode mode = HedgeMode::None;
    Duration hedgeDelay{0};  // for Delayed
    CancelRule cancel = CancelRule::Both;
};

// One RNG stream per component of the model. Hedged and unhedged runs built from the same
// streams see the same arrivals, the same primary routing and the same primary service times.
struct HedgeSimStreams {
    Rng arrivals;
    Rng routing;
    Rng service;
    Rng backupRouting;
    Rng backupService;
};

struct HedgeSimStats {
    std::int64_t arrived = 0;  // all requests, warm-up included
    std::int64_t answered = 0;
    std::int64_t measured = 0;
    std::int64_t backupsSent = 0;      // all requests
    std::int64_t measuredBackups = 0;  // measured requests only
    std::int64_t copiesCreated = 0;
    std::int64_t copiesFinished = 0;  // ran to completion
    std::int64_t copiesDropped = 0;   // removed from a queue before starting
    std::int64_t copiesStopped = 0;   // stopped mid-service
    std::int64_t events = 0;          // events dispatched by the engine
    double demandMs = 0;              // Σ primary service time, measured requests only
    double busyMs = 0;                // Σ server busy time on their copies, measured requests only
    bool cancelled = false;
};

using HedgeSimProgress = ProgressSlice;

// The HDR layout of response times: 1 µs to one hour, 3 significant digits.
HdrConfig hedgeResponseHdrConfig();

// Records measured response times into `response` (reset first, µs). The caller owns the
// histogram so a sweep reuses one allocation.
HedgeSimStats runHedgeSim(const HedgeSimConfig& config, HedgeSimStreams streams,
                          HdrHistogram& response, const HedgeSimProgress& progress = {});

}  // namespace taillab
