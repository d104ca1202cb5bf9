// The supermarket model of the power_of_d lab (Mitzenmacher, IEEE TPDS 2001).
//
// n FIFO servers with exponential service of rate 1; Poisson arrivals at rate λn; each arrival
// samples d servers uniformly at random (with replacement) and joins the one with the fewest jobs
// (waiting plus in service), the first sampled on a tie. d = 1 is random routing: n independent
// M/M/1 queues.
//
// Because service is FIFO and a job's service time can be drawn when it arrives, a server is
// fully described by the departure times of the jobs it holds: at an arrival at time t, the jobs
// with departure <= t have left, the number left is the queue length, and the new job departs at
// max(t, last departure) + S. The run is therefore an exact event-by-event simulation that needs
// no event heap: arrivals are the only events that make decisions.
//
// Time unit: the mean service time (1/μ). Histograms record it as 1 ms = 1000 µs.
#pragma once

#include <cstdint>

#include "metrics/hdr_histogram.h"
#include "base/rng.h"
#include "sim/run_control.h"

namespace taillab {

struct SupermarketConfig {
    int servers = 100;
    int choices = 2;    // d
    double load = 0.9;  // λ, arrivals per server per mean service time
    std::int64_t requests = 30'000;
    std::int64_t warmup = 3'000;  // first arrivals not measured
};

struct SupermarketStreams {
    Rng arrivals;
    Rng sampling;
    Rng service;
};

struct SupermarketStats {
    std::int64_t arrived = 0;
    std::int64_t measured = 0;
    std::int64_t departed = 0;  // jobs that left by the last arrival, plus the ones drained after
    double sumResponse = 0;     // in mean service times, measured jobs only
    double meanResponse() const { return measured > 0 ? sumResponse / measured : 0.0; }
    bool cancelled = false;
};

using SupermarketProgress = ProgressSlice;

// The HDR layout of times in system: 1 µs to 10,000 mean service times, 3 significant digits.
HdrConfig supermarketHdrConfig();

// Records the measured times in system into `response` (reset first; µs, 1 mean service time =
// 1000 µs). The caller owns the histogram so a sweep can reuse one allocation.
SupermarketStats runSupermarket(const SupermarketConfig& config, SupermarketStreams streams,
                                HdrHistogram& response, const SupermarketProgress& progress = {});

}  // namespace taillab
