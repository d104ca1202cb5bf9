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

// Counts and histograms (µs) of the main run.
struct FanoutTally {
    explicit FanoutTally(const FanoutConfig& c);
    void add(const FanoutDraw& d);
    void addHedged(const FanoutDraw& d);
    void addDelayed(const HedgedDraw& h);  // before and after of one request, same draws
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

// Simulated points of the sweeps over N and over the shared fraction f, and the budget run.
struct FanoutSweeps {
    std::int64_t requestsPerPoint = 0;
    std::vector<int> n;
    std::vector<double> slowVsN, hedgedVsN;
    std::vector<double> f;
    std::vector<double> slowVsF, hedgedVsF;
    double requestBudget = 0;
    double perBackendBudget = 0;
    std::int64_t budgetRequests = 0;
    double budgetSlow = 0;  // simulated share of requests with a slow call at the budget rate
};

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
