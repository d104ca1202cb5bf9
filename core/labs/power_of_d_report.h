// Turns the runs of the power_of_d lab into figures, charts and checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "labs/lab_result.h"
#include "labs/power_of_d_sim.h"
#include "labs/warmup.h"

namespace taillab::power_of_d {

struct DPoint {
    double meanTime = 0;  // in mean service times
    double medianTime = 0;
    double p99Time = 0;
    std::int64_t measured = 0;
    bool conserved = true;  // every arrival departed exactly once
};

struct LoadPoint {
    double load = 0;
    Warmup warmup;
    std::vector<DPoint> byD;  // index d - 1
};

struct ReportSetup {
    int servers = 100;
    int maxD = 3;
    double chosenLoad = 0.9;
};

DPoint summarizeRun(const SupermarketStats& s, const HdrHistogram& response);
std::string distributionName(int d);  // "d2": the histogram of best-of-2
// The check tolerance for a simulated mean at (λ, d) from `measured` arrivals: 4 standard errors
// (`sampling`, shrinking like 1/√measured) plus a part that does not shrink (`fixed`): the HDR
// resolution for d = 1, the finite-n allowance for d ≥ 2.
struct MeanTolerance {
    double sampling = 0;
    double fixed = 0;
    double total() const { return sampling + fixed; }
};
MeanTolerance meanTolerance(double load, int d, int servers, std::int64_t measured);

void addLoadFigures(LabResult& r, const LoadPoint& p);
void addCharts(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup);
void addChecks(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup);

}  // namespace taillab::power_of_d
