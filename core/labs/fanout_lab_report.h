// The fan-out lab's accumulators, sweeps and report (figures, charts, checks), kept apart from
// the lab's knobs and run loop in fanout_lab.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "labs/fanout_model.h"
#include "labs/lab_result.h"
#include "sim/run_control.h"

namespace taillab {

// The run's random streams. A sweep point draws from the same ones as the main run: the lab's
// run at that point's knobs, cut to the point's request count.
struct FanoutStreams {
    explicit FanoutStreams(std::uint64_t seed);
    Rng requests, hedged;
};

// Counts and histograms (µs) of the main run.
struct FanoutTally {
    explicit FanoutTally(const FanoutConfig& c);
    // One request of FanoutRequestSampler: before and, under a hedge, after.
    void add(const HedgedDraw& h);
    bool delayed() const { return config.hedge == FanoutHedge::Delayed; }

    FanoutConfig config;
    bool hedged;  // any hedge: the hedged histogram and counts are filled
    std::int64_t requests = 0;
    std::int64_t slow = 0;          // request latency at or over the threshold
    std::int64_t someCallSlow = 0;  // at least one call at or over the threshold
    std::int64_t backendSlow = 0;   // backend 0's call at or over the threshold
    std::int64_t hedgedSomeCallSlow = 0;
    std::int64_t calls = 0, backups = 0;  // delayed hedge: backups sent over all calls
    HdrHistogram request, backend, hedgedRequest;
};

// Simulated points of the sweeps over N and over the shared fraction f, and the budget run. Each
// point is the lab's own run (FanoutRequestSampler, the run's streams) at that point's N or f,
// of requestsVsN / requestsVsF requests: the share of requests with a call at the threshold.
struct FanoutSweeps {
    std::vector<int> n;
    std::vector<std::int64_t> requestsVsN;
    std::vector<double> slowVsN, hedgedVsN;
    std::vector<double> f;
    std::vector<std::int64_t> requestsVsF;
    std::vector<double> slowVsF, hedgedVsF;
    double requestBudget = 0;
    double perBackendBudget = 0;
    std::int64_t budgetRequests = 0;
    double budgetSlow = 0;  // simulated share of requests with a slow call at the budget rate
};

// Requests per sweep point at fan-out n: the run's own count, at most kSweepRequests, fewer at a
// large fan-out so that a point draws at most about kSweepCalls calls (never under 1,000).
std::int64_t sweepRequests(int n, std::int64_t requests);
// Returns false when cancelled. The hedged sweep points use c's hedge (immediate when none).
bool runFanoutSweeps(const FanoutConfig& c, double requestBudget, std::int64_t requests,
                     std::uint64_t seed, RunControl& control, FanoutSweeps& out);
// Distributions and the percentile chart: all a partial result carries.
void fillDistributions(LabResult& r, const FanoutTally& t);
void fillFanoutReport(LabResult& r, const FanoutTally& t, const FanoutSweeps& s);
// The names of the figures fillFanoutReport gives a run with config c.
std::vector<std::string> fanoutFigureNames(const FanoutConfig& c);
std::string fanoutExplanation();

}  // namespace taillab
