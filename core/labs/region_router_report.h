// Turns the fleet runs of the region_router lab into figures, charts and checks.
//
// Every figure carries its router as a prefix ("score_", "switch_"): a run reports the router
// it studies and, with `compare`, the other one beside it on the same requests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "labs/lab_result.h"
#include "labs/region_router_sim.h"

namespace taillab::region_router {

struct ReportSetup {
    FleetConfig fleet;            // the studied router's config (router aside, both share it)
    std::vector<Router> routers;  // the studied router first
    double recoveryMargin = 0.15;
};

// The summary of one router's run.
struct RouterSummary {
    Router router = Router::Score;
    HdrHistogram global{latencyHdrConfig()};  // the measured windows, merged
    double p50Ms = 0, p99Ms = 0;
    double retriesPerMin = 0;
    double failedShare = 0;
    // The incident (NaN when the run has no fault, or is too short to show it).
    double p99BeforeFaultMs = 0, peakWindowP99Ms = 0;
    double fraShareSettled = 0, fraFallS = 0, recoveryS = 0;
    double neighbourPeakQueue = 0, neighbourIncidentP99Ms = 0, neighbourPeakShare = 0;
    double incidentRetriesPerMin = 0;  // from the first loss on, for two minutes
    // Per window: global p99 (ms) and fra/ams/lhr traffic over their pre-fault mean.
    std::vector<double> windowStartS, windowP99Ms, retriesPerMinSeries;
    std::vector<std::vector<double>> share;  // [tracked][window]
    bool conserved = true;
    // The single-region queue wait, against M/M/c: measured from waitFromS on, its standard
    // error from `batches` batch means of batchS each (see mmcSettling).
    double meanWaitMs = 0, meanWaitSeMs = 0;
    std::int64_t waitSamples = 0, retries = 0;
    int batches = 0;
};

// How the single-region wait is measured so that its batch means are honest. An M/M/c queue
// started empty settles like exp(-t/τ) with τ = 1/(√(cμ) - √λ)², the decay rate of M/M/c in
// heavy traffic (van Doorn 1981; for c = 1 the M/M/1 relaxation time of queueing.h), never less
// than one service time; successive waits stay correlated over about τ too (13 s at c = 1,
// ρ = 0.9, S = 35 ms). Per-window batch means (5 s windows) then look independent when they are
// not, and underestimate the error: at that load a 240 s run reported 209.6 ms against Erlang C
// 315 ±103 ms, a false failure. So the wait is measured from five relaxation times on (or
// warmup_s, if later), in batches of whole windows at least 2τ long, and the check needs
// kMinBatches of them: a shorter run is inconclusive and says how long a run would decide it.
struct MmcSettling {
    static constexpr double kWarmupRelaxations = 5;
    static constexpr double kBatchRelaxations = 2;
    static constexpr int kMinBatches = 10;
    double relaxationS = 0;
    double fromS = 0;          // the first measured window starts here or later
    int windowsPerBatch = 1;
    double batchS = 0;
    double neededDurationS = 0;  // warm-up plus kMinBatches batches
};
MmcSettling mmcSettling(const FleetConfig& c);

const char* routerKey(Router r);  // "score", "switch"

RouterSummary summarize(const ReportSetup& setup, Router router, const FleetRun& run);
void addFigures(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);
void addCharts(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);
void addChecks(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);

// M/M/c mean wait in queue (ms) of one region of `nodes` nodes at utilisation `load`, service
// mean `serviceMs`: C(c, a) / (cμ - λ).
double mmcMeanWaitMs(int nodes, double load, double serviceMs);

}  // namespace taillab::region_router
