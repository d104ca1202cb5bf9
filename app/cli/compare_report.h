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

// One key where two timeline events differ: a knob the event sets ("hedge_delay_ms"), "at",
// "until", "phase", or a fault's ("fault.effect", "fault.target.engine", "fault.factor").
struct EventChange {
    std::string name;
    // As a scenario file writes it (times in seconds, choices by name); nullopt: not there.
    std::optional<nlohmann::ordered_json> a;
    std::optional<nlohmann::ordered_json> b;
    std::string text;  // for reading: "hedge_delay_ms 300 -> 200", "at Tue 07:00 -> Tue 08:00"
};

// An event of A's timeline and its counterpart in B's, where they differ: in what they do
// (`changes`), by one side not having it, or (sameEffect()) in their labels alone.
struct TimelineDiff {
    // The event's index in A's and B's timeline, in its file's order (timeline[i]); nullopt: the
    // side has no counterpart.
    std::optional<std::size_t> a;
    std::optional<std::size_t> b;
    double atS = 0;              // when: A's event's time, else B's
    std::string at;              // the same as the run's calendar writes it: "Tue 07:00"
    std::string aLabel, bLabel;  // "" for a side without it
    bool labelsDiffer = false;   // and one of them is not the label its values would generate
    std::vector<EventChange> changes;

    bool sameEffect() const { return a && b && changes.empty(); }
    // "timeline[0] (Tue 07:00, 'operator: fixed 300 ms hedge'): hedge_delay_ms 300 -> 200",
    // "...: only in B", "timeline[0] (Tue 07:00): label 'a' -> 'b'".
    std::string text() const;
};

struct Comparison {
    CompareSide a;
    CompareSide b;
    std::vector<ParameterDiff> parameters;
    bool hasTimeline = false;            // either run has one, or may have (timelineUnknown): shown
    std::vector<TimelineDiff> timeline;  // events that differ in what they do, in time order
    std::vector<TimelineDiff> relabelled;  // events that do the same under other labels
    // Why the timelines are not compared (a side's result file does not record its timeline);
    // "" when they are.
    std::string timelineUnknown;
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
