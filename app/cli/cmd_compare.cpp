// taillab-cli compare: two runs of one lab side by side. Each side is a result file written by
// `taillab-cli run --out` or a scenario run here (both scenario sides in parallel, on the sweep
// runner); with one input, B is A with the --b-set overrides. Every input and override is
// checked before anything runs. Checks failing in A or B are reported in the table, never in the
// exit code: a comparison is not a verdict.
#include <algorithm>
#include <iostream>
#include <optional>

#include "commands.h"
#include "compare_inputs.h"
#include "compare_report.h"
#include "labs/lab.h"
#include "scenario_options.h"
#include "text_table.h"

namespace taillab::cli {
namespace {

const char* const kDefaultChart = "percentiles_over_time";

// The file an input names: a result file's path as typed, a scenario's as the loader finds it.
std::string inputPath(const std::string& arg) {
    try {
        return resolveScenarioPath(arg);
    } catch (const UsageError&) {
        return arg;
    }
}

enum class SeriesChoice { Default, All, None, Listed };

struct CompareOptions {
    std::vector<std::string> inputs;  // A, and B when given
    std::vector<std::string> common;  // --seed and --set, in order: every scenario side
    std::vector<std::string> aSet;
    std::vector<std::string> bSet;
    unsigned jobs = 0;  // 0: one per hardware thread
    Format format = Format::Markdown;
    SeriesChoice series = SeriesChoice::Default;
    std::vector<std::string> seriesIds;  // for SeriesChoice::Listed
    std::string outPath;
    bool quiet = false;
};

void parseSeries(const std::string& text, CompareOptions& o) {
    if (text == "all" || text == "none") {
        o.series = text == "all" ? SeriesChoice::All : SeriesChoice::None;
        return;
    }
    o.series = SeriesChoice::Listed;
    o.seriesIds = splitList("--series", text);
    for (std::size_t k = 0; k < o.seriesIds.size(); ++k) {
        const auto begin = o.seriesIds.begin();
        if (std::find(begin, begin + static_cast<std::ptrdiff_t>(k), o.seriesIds[k]) != begin + k)
            throw UsageError{"--series lists '" + o.seriesIds[k] + "' twice"};
    }
}

CompareOptions parseCompareArguments(const std::vector<std::string>& args) {
    CompareOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, o.common)) continue;
        const std::string& a = args[i];
        if (a == "--a-set") {
            o.aSet.push_back(optionValue(args, i));
        } else if (a == "--b-set") {
            o.bSet.push_back(optionValue(args, i));
        } else if (a == "--jobs") {
            o.jobs = parseJobs(optionValue(args, i));
        } else if (a == "--format") {
            o.format = parseFormat(optionValue(args, i));
        } else if (a == "--series") {
            parseSeries(optionValue(args, i), o);
        } else if (a == "--out") {
            o.outPath = outputPathValue(args, i);
        } else if (a == "--quiet") {
            o.quiet = true;
        } else if (a.rfind("--", 0) == 0) {
            throw UsageError{"unknown option '" + a + "'"};
        } else if (o.inputs.size() == 2) {
            throw UsageError{"more than two inputs given ('" + o.inputs[0] + "', '" + o.inputs[1] +
                             "', '" + a + "')"};
        } else {
            o.inputs.push_back(a);
        }
    }
    if (o.inputs.empty())
        throw UsageError{
            "missing A: a result file written by taillab-cli run --out, or a "
            "scenario (try taillab-cli list)"};
    if (o.inputs.size() == 1 && o.bSet.empty())
        throw UsageError{
            "with one input, B is A changed by --b-set: give at least one --b-set "
            "dotted.path=value, or a second input"};
    return o;
}

// The time charts a side will have, known before anything runs: a result file's own, or those
// its scenario's lab draws with the scenario's params (Lab::timeChartIds).
std::vector<std::string> sideTimeChartIds(const CompareInput& in) {
    std::vector<std::string> ids;
    if (!in.isScenario()) {
        for (const TimeChart& c : in.run->timeCharts) ids.push_back(c.id);
        return ids;
    }
    if (const Lab* lab = findLab(in.scenario->lab)) ids = lab->timeChartIds(in.scenario->params);
    return ids;
}

// The charts to align: --series, or by default the per-window percentiles when either side has
// them. A listed id must be a time chart of A or B: checked before the scenario sides run, so a
// mistyped name costs nothing.
std::vector<std::string> chosenCharts(const CompareOptions& o, const CompareInput& a,
                                      const CompareInput& b) {
    std::vector<std::string> ids = sideTimeChartIds(a);
    for (const auto& id : sideTimeChartIds(b))
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    switch (o.series) {
        case SeriesChoice::All:
            return ids;
        case SeriesChoice::None:
            return {};
        case SeriesChoice::Default:
            if (std::find(ids.begin(), ids.end(), kDefaultChart) != ids.end())
                return {kDefaultChart};
            return {};
        case SeriesChoice::Listed:
            break;
    }
    for (const auto& id : o.seriesIds) {
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
        throw UsageError{
            "--series: no time chart '" + id + "' in A or B (" +
            (ids.empty() ? std::string("they have none; --series none compares no time charts")
                         : "they have: " + join(ids, ", ") + "; or all, or none") +
            ")"};
    }
    return o.seriesIds;
}

// An override option given for a side that is a result file has nothing to apply to.
void refuseOverrides(const CompareInput& in, const std::vector<std::string>& overrides,
                     const char* option) {
    if (in.isScenario() || overrides.empty()) return;
    throw UsageError{std::string(option) + " " + overrides.front() + ": " + in.label + " ('" +
                     in.argument + "') is a result file; overrides apply to scenarios only"};
}

CompareSide sideOf(const CompareInput& in) {
    CompareSide side;
    side.label = in.label;
    side.source = in.argument;
    side.scenario = in.isScenario();
    if (in.isScenario()) side.overrides = in.overrides;
    side.lab = in.run->lab;
    side.scenarioName = in.run->scenario;
    side.seed = in.run->seed;
    return side;
}

}  // namespace

int cmdCompare(const std::vector<std::string>& args) {
    const CompareOptions o = parseCompareArguments(args);
    const std::string& argA = o.inputs.front();
    const std::string& argB = o.inputs.back();
    auto overrides = [&](const std::vector<std::string>& side) {
        std::vector<std::string> all = o.common;
        all.insert(all.end(), side.begin(), side.end());
        return all;
    };
    // The option each of those came from, for messages (--seed is checked before it gets there).
    auto options = [&](const std::vector<std::string>& side, const char* option) {
        std::vector<std::string> all(o.common.size(), "--set");
        all.insert(all.end(), side.size(), option);
        return all;
    };
    CompareInput a = loadCompareInput("A", argA, overrides(o.aSet), options(o.aSet, "--a-set"));
    if (o.inputs.size() == 1 && !a.isScenario())
        throw UsageError{"with one input, A must be a scenario, but '" + argA +
                         "' is a result file (give B as a second input)"};
    refuseOverrides(a, o.aSet, "--a-set");
    CompareInput b = loadCompareInput("B", argB, overrides(o.bSet), options(o.bSet, "--b-set"));
    refuseOverrides(b, o.bSet, "--b-set");
    if (!o.common.empty() && !a.isScenario() && !b.isScenario())
        throw UsageError{"--set and --seed apply to scenarios, but A and B are both result files"};
    if (a.lab != b.lab)
        throw UsageError{"A and B are runs of different labs: A ('" + argA + "') of lab '" + a.lab +
                         "', B ('" + argB + "') of lab '" + b.lab +
                         "'; compare needs two runs of one lab"};

    checkOutputPath(o.outPath, "--out", {inputPath(argA), inputPath(argB)});
    const std::vector<std::string> charts = chosenCharts(o, a, b);
    // A knob the side does not use changes nothing there: B would be A again. (--set and --seed,
    // common to both sides, are noted once, on A's.)
    if (a.isScenario())
        noteUnusedOverrides("compare", *a.scenario, overrides(o.aSet), options(o.aSet, "--a-set"));
    if (b.isScenario()) {
        const bool commonNoted = a.isScenario();
        noteUnusedOverrides("compare", *b.scenario, commonNoted ? o.bSet : overrides(o.bSet),
                            commonNoted ? std::vector<std::string>(o.bSet.size(), "--b-set")
                                        : options(o.bSet, "--b-set"));
    }
    if (const int code = runScenarioInputs({&a, &b}, o.jobs, o.quiet); code != kExitOk) return code;
    const Comparison c = makeComparison(sideOf(a), *a.run, sideOf(b), *b.run, charts);
    for (const SeriesTable& t : c.series)
        if (!t.comparable()) std::cerr << "taillab-cli compare: note: " << t.chart << ": " << t.windowsDiffer << "\n";
    switch (o.format) {
        case Format::Markdown:
            writeOutput(comparisonMarkdown(c), o.outPath);
            break;
        case Format::Csv:
            writeOutput(comparisonCsv(c), o.outPath);
            break;
        case Format::Json:
            writeOutput(comparisonJson(c), o.outPath);
            break;
    }
    return kExitOk;
}

}  // namespace taillab::cli
