// The idle-hedging lab's accumulators and report (figures, charts, checks), kept apart from its
// knobs and run loop in hedge_idle_lab.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "labs/hedge_idle_model.h"
#include "labs/lab_result.h"

namespace taillab {

// Sums of one policy (delay, shared fraction) over the run.
struct HedgeIdleTally {
    HedgeIdleTally(double delay, double f, const HdrConfig& range);
    void add(const HedgeIdleOutcome& o);

    double delay_ms;
    double shared_fraction;
    std::int64_t requests = 0, backups = 0;
    // With the hedge, the primary is busy until T and the backup from d to T; without it, the
    // primary is busy until X1.
    double primaryBusy = 0, backupBusy = 0;
    double unhedgedBusy = 0;
    HdrHistogram after;
};

struct HedgeIdleRun {
    HedgeIdleConfig config;
    double hedgePercentile = 0.95;  // the knob, as a fraction (also the sweep's highlighted point)
    bool fixedDelay = false;
    std::int64_t calibrationSamples = 0;
    double calibratedDelay = 0;  // d actually used by the main policy
    HdrHistogram before;
    std::vector<HedgeIdleTally> policies;  // [0] = the knob's policy, then the sweeps
    std::vector<double> sweepPercentiles;  // policies[1 .. P]
    std::vector<double> sweepShared;       // policies[P+1 ..]
};

// Percentile chart of the tail before and after: all a partial result carries.
void fillHedgeIdleTail(LabResult& r, const HedgeIdleRun& run);
void fillHedgeIdleReport(LabResult& r, const HedgeIdleRun& run);
// The names of the figures fillHedgeIdleReport gives a run with config c.
std::vector<std::string> hedgeIdleFigureNames(const HedgeIdleConfig& c);
std::string hedgeIdleExplanation();

}  // namespace taillab
