// The two sides of `taillab-cli compare`: each a result file written by `taillab-cli run --out`
// (recognised by its content) or a scenario run here with its overrides. Both end as the result
// JSON text, read back by one reader, so comparing two scenarios gives the same bytes as running
// them to files and comparing the files.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace taillab::cli {

struct TimeSeries {
    std::string name;
    std::vector<double> x;
    std::vector<std::optional<double>> y;  // null in the file: no value in that window
};

struct TimeChart {
    std::string id;
    std::string title;
    std::string xLabel;
    std::string yLabel;
    std::vector<TimeSeries> series;
};

// A check as a result file records it: how the numbers compared, and whether the check applied
// to that run (a figure the scenario quotes does not once its knobs have moved).
struct CheckOutcome {
    bool pass = false;
    bool applies = true;
    bool inconclusive = false;  // does not apply because the run was too small to decide it
};

// What compare reads from a result: identity, parameters, figures, checks and time charts.
struct ComparedRun {
    std::string lab;
    std::string scenario;
    std::uint64_t seed = 0;
    nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
    std::vector<std::pair<std::string, std::optional<double>>> figures;  // in the lab's order
    std::vector<std::pair<std::string, CheckOutcome>> checks;
    std::vector<TimeChart> timeCharts;
    // The timeline the run applied, from the result's "timeline" (LabResult::timeline), read
    // back as a scenario's is under the run's parameters: events in time order, each with its
    // index in the file's order. Empty for a lab that applies none. With it, what its events
    // are written with: the knobs they may set and the run's first weekday.
    Timeline timeline;
    TimelineVocabulary timelineVocabulary;
    // A result of a lab that applies timelines, written before results recorded them: only its
    // charts' annotations name the events (a knob change by its label, not by what it set).
    bool timelineUnknown = false;
};

// Reads and validates a parsed result JSON. Throws UsageError "<where>: not a result of
// taillab-cli run: <JSON pointer>: <problem>".
ComparedRun readResult(const nlohmann::ordered_json& doc, const std::string& where);

struct CompareInput {
    std::string label;                   // "A" or "B"
    std::string argument;                // as typed
    std::vector<std::string> overrides;  // a scenario's: --seed/--set, then --a-set or --b-set
    std::optional<Scenario> scenario;    // set for a scenario side
    std::string lab;                     // the scenario's lab, or the result file's
    std::optional<ComparedRun> run;      // read from the file, or once the scenario has run

    bool isScenario() const { return scenario.has_value(); }
};

// The argument with its overrides as they would be typed, a command line `run` takes and that
// runs the same scenario: "labs/fanout --set params.backends=10 --seed 4" (the last seed given;
// words a shell would split or expand single-quoted).
std::string inputCommandLine(const std::string& argument,
                             const std::vector<std::string>& overrides);

// Reads `argument` as a result file when it is a file whose JSON has a result's keys (the
// overrides are then the caller's to refuse), else loads it as a scenario (resolved as `run`
// resolves it) with `overrides` (named in messages by `overrideOptions`, as
// loadScenarioArgument names them). Throws UsageError, prefixed with the side's label, for an
// unknown file, invalid JSON, a malformed result or a bad override.
CompareInput loadCompareInput(const std::string& label, const std::string& argument,
                              const std::vector<std::string>& overrides,
                              const std::vector<std::string>& overrideOptions = {});

// Runs the scenario sides in parallel on the sweep runner (`jobs` threads at most, 0: one per
// core) and reads each result back from its JSON text, as from a file; progress on stderr
// unless quiet. Returns 0, or the exit code after printing why a side failed (2 bad input, 1
// internal error).
int runScenarioInputs(std::vector<CompareInput*> inputs, unsigned jobs, bool quiet);

}  // namespace taillab::cli
