#include "compare_inputs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include "commands.h"
#include "io/text_file.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "run/sweep_runner.h"
#include "scenario/json_locate.h"
#include "scenario/json_validator.h"
#include "scenario_options.h"

namespace taillab::cli {
namespace {

using ojson = nlohmann::ordered_json;

// Keys only a result has; a scenario file has none of them (unknown keys are errors there).
constexpr std::array<const char*, 4> kResultKeys{"figures", "checks", "summary", "all_checks_pass"};

// A result file's size limit: a week of gateway windows with every chart is about 20 MiB.
constexpr std::size_t kMaxResultBytes = std::size_t{256} << 20;

// The parsed JSON of `argument` when it names a file holding a result, else nullopt (a
// scenario, a name under the scenario directory, or text the scenario loader will report on).
// A result's text is held to what the scenario reader allows (no key twice in one object, no
// number beyond a double), with FILE:LINE:COLUMN and the JSON pointer of the first offence.
std::optional<ojson> resultDocument(const std::string& argument) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(argument, ec)) return std::nullopt;
    std::string text;
    try {
        text = readTextFile(argument, kMaxResultBytes, "result file");
    } catch (const TextFileError& e) {
        throw UsageError{argument + ": " + e.what()};
    }
    ojson doc = ojson::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
    if (std::none_of(kResultKeys.begin(), kResultKeys.end(), [&](const char* k) { return doc.contains(k); }))
        return std::nullopt;
    if (const auto problem = findJsonTextProblem(text)) {
        const TextPosition at = positionOfOffset(text, problem->offset);
        throw UsageError{argument + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                         ": " + (problem->pointer.empty() ? "/" : problem->pointer) + ": " + problem->message};
    }
    return doc;
}

// A JSON pointer's reference token ("~" and "/" escaped).
std::string pointerToken(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

// A word as a shell reads it back: bare when it holds only characters no shell treats specially,
// else in single quotes (a label with spaces, "timeline=[]").
std::string shellWord(const std::string& word) {
    const bool bare = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("@%+=:,./_-").find(static_cast<char>(c)) !=
                                      std::string_view::npos;
    });
    if (bare) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// Validating reads of a result document, each failure naming the JSON pointer.
class ResultReader {
  public:
    explicit ResultReader(std::string where) : where_(std::move(where)) {}

    [[noreturn]] void fail(const std::string& pointer, const std::string& problem) const {
        throw UsageError{where_ + ": not a result of taillab-cli run: " + pointer + ": " + problem};
    }
    void expect(const ojson& v, bool ok, const std::string& pointer, const char* what) const {
        if (!ok) fail(pointer, std::string("expected ") + what + ", found " + v.type_name());
    }
    const ojson& member(const ojson& object, const std::string& pointer, const char* key) const {
        if (!object.contains(key)) fail(pointer + "/" + key, "missing");
        return object.at(key);
    }
    std::string string(const ojson& object, const std::string& pointer, const char* key) const {
        const ojson& v = member(object, pointer, key);
        expect(v, v.is_string(), pointer + "/" + key, "a string");
        return v.get<std::string>();
    }
    std::vector<double> numbers(const ojson& v, const std::string& pointer) const {
        expect(v, v.is_array(), pointer, "an array of numbers");
        std::vector<double> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            expect(v[i], v[i].is_number(), pointer + "/" + std::to_string(i), "a number");
            out.push_back(v[i].get<double>());
        }
        return out;
    }
    // A number, or null where the run had no value (JSON cannot hold NaN).
    std::optional<double> numberOrNull(const ojson& v, const std::string& pointer) const {
        expect(v, v.is_number() || v.is_null(), pointer, "a number or null");
        return v.is_null() ? std::nullopt : std::optional(v.get<double>());
    }

    TimeChart timeChart(const ojson& c, const std::string& at) const {
        expect(c, c.is_object(), at, "an object");
        TimeChart chart{string(c, at, "id"),
                        string(c, at, "title"),
                        string(c, at, "x_label"),
                        string(c, at, "y_label"),
                        {}};
        if (string(c, at, "kind") != "time") fail(at + "/kind", "expected \"time\"");
        const ojson& series = member(c, at, "series");
        expect(series, series.is_array(), at + "/series", "an array");
        for (std::size_t k = 0; k < series.size(); ++k) {
            const std::string sat = at + "/series/" + std::to_string(k);
            const ojson& s = series[k];
            expect(s, s.is_object(), sat, "an object");
            TimeSeries ts{string(s, sat, "name"), numbers(member(s, sat, "x"), sat + "/x"), {}};
            const ojson& y = member(s, sat, "y");
            expect(y, y.is_array() && y.size() == ts.x.size(), sat + "/y", "an array as long as x");
            for (std::size_t i = 0; i < y.size(); ++i)
                ts.y.push_back(numberOrNull(y[i], sat + "/y/" + std::to_string(i)));
            chart.series.push_back(std::move(ts));
        }
        return chart;
    }

  private:
    std::string where_;
};

// A result's "timeline", parsed as a scenario's is, under the run's parameters (they give the
// knobs an event may set and the weekdays of its times): each event is what the run applied.
void readTimeline(const ojson& value, const Lab* lab, const ResultReader& r, ComparedRun& run) {
    if (!lab) r.fail("/lab", "unknown lab '" + run.lab + "', whose timeline cannot be read");
    Params params = lab->defaultParams();
    for (const auto& [key, v] : run.parameters.items()) {
        try {
            params.setJson(key, nlohmann::json(v));
        } catch (const std::invalid_argument& e) {
            r.fail("/parameters/" + pointerToken(key), e.what());
        }
    }
    const std::optional<TimelineVocabulary> vocabulary = lab->timelineVocabulary(params);
    if (!vocabulary) r.fail("/timeline", "lab '" + run.lab + "' applies no timeline");
    const std::string noText;  // messages name the JSON pointer, as the reader's others do
    try {
        run.timeline =
            parseTimeline(nlohmann::json(value), nlohmann::json::json_pointer("/timeline"),
                          *vocabulary, JsonValidator(noText, "", {}));
    } catch (const ScenarioError& e) {
        r.fail(e.path(), e.detail());
    }
    run.timelineVocabulary = *vocabulary;
}

struct SideRun {
    std::string json;  // the result as `run` would write it
    std::size_t checks = 0;
    std::size_t failed = 0;
};

// Prints why a side's run failed; returns its exit code (bad input or internal error).
int reportFailure(const CompareInput& in, const std::exception_ptr& error) {
    std::string message = "internal error: unknown exception";
    int code = kExitInternal;
    try {
        std::rethrow_exception(error);
    } catch (const ScenarioError& e) {
        message = e.what();
        code = kExitBadInput;
    } catch (const std::exception& e) {
        message = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    std::cerr << "taillab-cli compare: " << in.label << ": " << message << "\n";
    return code;
}

}  // namespace

ComparedRun readResult(const ojson& doc, const std::string& where) {
    const ResultReader r(where);
    r.expect(doc, doc.is_object(), "", "an object");
    // A run cut short (cancelled, or a GUI's partial frame exported) holds the figures of part of
    // its time: set beside a whole run, every difference would be the cut, not the design.
    if (doc.contains("cancelled") && doc.at("cancelled") == true)
        r.fail("/cancelled", "a cancelled run; compare needs finished runs");
    if (doc.contains("progress")) {
        const ojson& progress = doc.at("progress");
        r.expect(progress, progress.is_number(), "/progress", "a number");
        if (progress.get<double>() < 1)
            r.fail("/progress", "a run " + std::to_string(static_cast<int>(progress.get<double>() * 100)) +
                                    "% done; compare needs finished runs");
    }
    ComparedRun run;
    run.lab = r.string(doc, "", "lab");
    run.scenario = r.string(doc, "", "scenario");
    const ojson& seed = r.member(doc, "", "seed");
    r.expect(seed, seed.is_number_unsigned(), "/seed", "a non-negative integer");
    run.seed = seed.get<std::uint64_t>();
    run.parameters = r.member(doc, "", "parameters");
    r.expect(run.parameters, run.parameters.is_object(), "/parameters", "an object");
    const ojson& figures = r.member(doc, "", "figures");
    r.expect(figures, figures.is_object(), "/figures", "an object");
    for (const auto& [name, value] : figures.items())
        run.figures.emplace_back(name, r.numberOrNull(value, "/figures/" + pointerToken(name)));
    const ojson& checks = r.member(doc, "", "checks");
    r.expect(checks, checks.is_array(), "/checks", "an array");
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const std::string at = "/checks/" + std::to_string(i);
        r.expect(checks[i], checks[i].is_object(), at, "an object");
        // null for a check that decided nothing (result files before that wrote how the
        // numbers compared, true or false, beside the reason).
        const ojson& pass = r.member(checks[i], at, "pass");
        r.expect(pass, pass.is_boolean() || pass.is_null(), at + "/pass", "true, false or null");
        CheckOutcome outcome{pass.is_boolean() && pass.get<bool>(), true};
        for (const char* reason : {"not_applicable", "inconclusive"})
            if (checks[i].contains(reason) && !r.string(checks[i], at, reason).empty()) {
                outcome.inconclusive = outcome.applies && reason == std::string("inconclusive");
                outcome.applies = false;
            }
        r.expect(pass, !pass.is_null() || !outcome.applies, at + "/pass",
                 "true or false (null only beside a not_applicable or inconclusive reason)");
        run.checks.emplace_back(r.string(checks[i], at, "name"), outcome);
    }
    // The timeline; a result of a lab that applies one, written before results recorded it,
    // has only the annotations its charts draw.
    const Lab* lab = findLab(run.lab);
    if (doc.contains("timeline")) {
        readTimeline(doc.at("timeline"), lab, r, run);
    } else if (doc.contains("annotations") && lab &&
               lab->timelineVocabulary(lab->defaultParams())) {
        run.timelineUnknown = true;
    }
    // Time charts go to "series"; a result without the key simply has none.
    if (doc.contains("series")) {
        const ojson& series = doc.at("series");
        r.expect(series, series.is_array(), "/series", "an array");
        for (std::size_t i = 0; i < series.size(); ++i)
            run.timeCharts.push_back(r.timeChart(series[i], "/series/" + std::to_string(i)));
    }
    return run;
}

std::string inputCommandLine(const std::string& argument,
                             const std::vector<std::string>& overrides) {
    // `run` takes --seed once: of several (--seed, then --a-set seed=4) the last is the run's.
    std::size_t lastSeed = overrides.size();
    for (std::size_t k = 0; k < overrides.size(); ++k)
        if (overrides[k].starts_with("seed=")) lastSeed = k;
    std::string text = shellWord(argument);
    for (std::size_t k = 0; k < overrides.size(); ++k) {
        const std::string& o = overrides[k];
        if (!o.starts_with("seed="))
            text += " --set " + shellWord(o);
        else if (k == lastSeed)
            text += " --seed " + shellWord(o.substr(5));
    }
    return text;
}

CompareInput loadCompareInput(const std::string& label, const std::string& argument,
                              const std::vector<std::string>& overrides,
                              const std::vector<std::string>& overrideOptions) {
    CompareInput in{label, argument, overrides, std::nullopt, "", std::nullopt};
    if (const auto doc = resultDocument(argument)) {
        in.run = readResult(*doc, label + ": " + argument);
        in.lab = in.run->lab;
        return in;
    }
    try {
        in.scenario = loadScenarioArgument(argument, overrides, overrideOptions);
    } catch (const UsageError& e) {
        throw UsageError{label + ": " + e.message};
    }
    in.lab = in.scenario->lab;
    return in;
}

int runScenarioInputs(std::vector<CompareInput*> inputs, unsigned jobs, bool quiet) {
    using Clock = std::chrono::steady_clock;
    std::vector<CompareInput*> sides;
    for (CompareInput* in : inputs)
        if (in->isScenario()) sides.push_back(in);
    std::vector<Clock::time_point> starts(sides.size());  // each written by its side's thread
    std::vector<SweepRunner<SideRun>::Job> work;
    for (std::size_t i = 0; i < sides.size(); ++i) {
        work.push_back([&sides, &starts, i](RunControl& control) {
            starts[i] = Clock::now();
            const LabResult result = runScenario(*sides[i]->scenario, control);
            SideRun out{toJson(result).dump(), result.checks.size(), 0};
            for (const auto& c : result.checks) out.failed += c.failed() ? 1 : 0;
            return out;
        });
    }
    auto report = [&](std::size_t i, const SweepRunner<SideRun>::Outcome& outcome) {
        if (quiet) return;
        char time[32];
        std::snprintf(time, sizeof time, "%.2f",
                      std::chrono::duration<double>(Clock::now() - starts[i]).count());
        std::cerr << sides[i]->label << ": "
                  << inputCommandLine(sides[i]->argument, sides[i]->overrides)
                  << (outcome.error ? " failed after " : " ran in ") << time << " s";
        if (outcome.result && outcome.result->failed > 0)
            std::cerr << ", " << outcome.result->failed << " of " << outcome.result->checks
                      << " checks failed";
        std::cerr << "\n";
    };
    auto sweep = runSweep<SideRun>(std::move(work), jobs, report);
    int code = kExitOk;
    for (std::size_t i = 0; i < sides.size(); ++i) {
        if (!sweep.jobs[i].error) continue;
        const int c = reportFailure(*sides[i], sweep.jobs[i].error);
        if (code != kExitInternal) code = c;
    }
    if (code != kExitOk) return code;
    for (std::size_t i = 0; i < sides.size(); ++i) {
        // Read back from the text, as a file written by `run --out` would be.
        sides[i]->run = readResult(ojson::parse(sweep.jobs[i].result->json),
                                   sides[i]->label + ": " + sides[i]->argument);
    }
    return kExitOk;
}

}  // namespace taillab::cli
