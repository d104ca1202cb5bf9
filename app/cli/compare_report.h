// What `taillab-cli compare` reports about two runs of one lab, and its three forms: the
// parameters that differ, the figures side by side with B − A and (B − A)/|A|, the checks of
// both, and chosen time charts aligned on x. Built from two ComparedRuns; the bytes depend only
// on them and on the chosen charts.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare_inputs.h"

namespace taillab::cli {

struct CompareSide {
    std::string label;                   // "A" or "B"
    std::string source;                  // the argument as typed
    bool scenario = false;               // run here, rather than read from a result file
    std::vector<std::string> overrides;  // a scenario side's
    std::string lab;
    std::string scenarioName;
    std::uint64_t seed = 0;
};

struct ParameterDiff {
    std::string name;  // as in the result's "parameters" (nested keys joined with '.'), or "seed"
    std::optional<nlohmann::ordered_json> a;  // nullopt: the side has no such parameter
    std::optional<nlohmann::ordered_json> b;
};

struct FigureRow {
    std::string name;
    std::optional<double> a;
    std::optional<double> b;
    std::optional<double> difference() const;  // B − A, when both have a value
    std::optional<double> relative() const;    // (B − A)/|A|, when both do and A ≠ 0
};

struct CheckRow {
    std::string name;
    std::optional<CheckOutcome> a;  // nullopt: the side has no such check
    std::optional<CheckOutcome> b;
};

struct SeriesColumns {
    std::string name;
    std::vector<std::optional<double>> a;  // one per x; nullopt: no point there
    std::vector<std::optional<double>> b;
};

// One time chart of both runs on the union of their x values.
struct SeriesTable {
    std::string chart;
    std::string title;
    std::string xLabel;
    std::string yLabel;
    std::vector<double> x;
    std::vector<SeriesColumns> series;
    // Non-empty when A's and B's points do not stand for windows of one width (another window_s):
    // then a point of A and one of B at the same x cover different spans of time, and B − A is
    // left out. Says why, e.g. "A's points are 0.166667 apart, B's 0.5 (Simulated time (h ...))".
    std::string windowsDiffer;
    bool comparable() const { return windowsDiffer.empty(); }
};

// A mark of one run's timeline that the other run does not have (same kind, label and times).
struct TimelineDiff {
    std::string side;  // "A" or "B"
    ComparedRun::Mark mark;
};

struct Comparison {
    CompareSide a;
    CompareSide b;
    std::vector<ParameterDiff> parameters;
    bool hasTimeline = false;             // either run has one: the section is shown
    std::vector<TimelineDiff> timeline;  // A's marks B lacks, then B's that A lacks
    std::vector<FigureRow> figures;  // A's order, then the figures only B has
    std::vector<CheckRow> checks;    // likewise
    std::vector<SeriesTable> series;
};

Comparison makeComparison(CompareSide sideA, const ComparedRun& a, CompareSide sideB,
                          const ComparedRun& b, const std::vector<std::string>& charts);

std::string comparisonMarkdown(const Comparison& c);
std::string comparisonCsv(const Comparison& c);
std::string comparisonJson(const Comparison& c);

}  // namespace taillab::cli
