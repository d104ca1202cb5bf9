// Turns the per-load runs of the hedge_loaded lab into figures, charts and checks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "labs/lab_result.h"
#include "labs/warmup.h"
#include "sim/distributions.h"

namespace taillab::hedge_loaded {

// The four request policies, in the order every chart lists them.
enum Policy { kNone = 0, kFixed = 1, kPercentile = 2, kDuplicate = 3, kPolicyCount = 4 };

struct PolicyPoint {
    double meanMs = 0;
    double medianMs = 0;
    double p99Ms = 0;
    double p999Ms = 0;
    double extraRequests = 0;  // backups sent per measured request
    double capacityCost = 0;   // (busy time - unhedged busy time) / unhedged busy time
};

struct LoadPoint {
    double load = 0;
    bool onGrid = true;            // part of the 0.1..0.9 sweep (the chosen load may not be)
    Warmup warmup;                 // requests left out before measuring, and whether that settles
    double percentileDelayMs = 0;  // the calibrated pXX of unhedged response time
    std::int64_t calibrationCount = 0;
    std::int64_t measured = 0;  // measured requests per policy
    bool conserved = true;      // every request answered once, every copy accounted for
    std::array<PolicyPoint, kPolicyCount> policy;
};

struct ReportSetup {
    ServiceModel service;
    bool exponential = true;  // the M/M/1 closed forms apply
    double percentile = 95;   // hedge percentile, in %
    double fixedDelayMs = 20;
    double chosenLoad = 0.5;
    std::string cancelName;
};

std::string policyKey(int policy);  // "none", "fixed", "pxx", "dup"
std::string policyLabel(int policy, const ReportSetup& setup);

void addLoadFigures(LabResult& r, const LoadPoint& p);
void addSummaryFigures(LabResult& r, const std::vector<LoadPoint>& points);
void addCharts(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup);
void addChecks(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup);

}  // namespace taillab::hedge_loaded
