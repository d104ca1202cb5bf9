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
    // The single-region queue wait, against M/M/c.
    double meanWaitMs = 0, meanWaitSeMs = 0;
    std::int64_t waitSamples = 0, retries = 0;
};

const char* routerKey(Router r);  // "score", "switch"

RouterSummary summarize(const ReportSetup& setup, Router router, const FleetRun& run);
void addFigures(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);
void addCharts(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);
void addChecks(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs);

// M/M/c mean wait in queue (ms) of one region of `nodes` nodes at utilisation `load`, service
// mean `serviceMs`: C(c, a) / (cμ - λ).
double mmcMeanWaitMs(int nodes, double load, double serviceMs);

}  // namespace taillab::region_router
