// taillab-cli sweep: runs a scenario once per point of the cartesian product of the --vary lists,
// on the sweep runner's threads, and writes one table (csv, json or md) with a row per point: the
// varied values, the lab's named figures and the point's check counts. Every point's overrides
// are validated before any run starts, and the table's bytes depend only on the arguments, never
// on --jobs or on which thread finished first (each point is a pure function of its scenario).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "run/runner.h"
#include "run/sweep_runner.h"
#include "scenario/scenario.h"
#include "scenario_options.h"
#include "text_table.h"
#include "vary_parse.h"

namespace taillab::cli {
namespace {

// Each point holds its scenario and its figures and checks until the table is written, and even
// the quickest lab takes about 50 ms a point: 10,000 points is minutes of work and tens of MB.
constexpr std::size_t kMaxPoints = 10000;

struct SweepOptions {
    std::string scenarioArg;
    std::string outPath;
    std::vector<std::string> overrides;  // --seed and --set, in order
    std::vector<Vary> vary;
    std::optional<std::vector<std::string>> figures;
    Format format = Format::Csv;
    unsigned jobs = 0;  // 0: one per hardware thread
    bool quiet = false;
};

struct Point {
    std::vector<std::string> assignments;  // "path=value", one per --vary, in --vary order
    Scenario scenario;
};

struct Outcome {
    std::optional<LabResult> result;
    std::string error;  // set when the run threw
    bool badInput = false;
};

SweepOptions parseSweepArguments(const std::vector<std::string>& args) {
    SweepOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, o.overrides)) continue;
        const std::string& a = args[i];
        if (a == "--vary") {
            Vary v = parseVary(optionValue(args, i));
            for (const auto& other : o.vary)
                if (other.path == v.path) throw UsageError{"--vary " + v.path + " given twice"};
            o.vary.push_back(std::move(v));
        } else if (a == "--figures") {
            std::vector<std::string> names = splitList("--figures", optionValue(args, i));
            for (std::size_t k = 0; k < names.size(); ++k)
                if (std::find(names.begin(), names.begin() + k, names[k]) != names.begin() + k)
                    throw UsageError{"--figures lists '" + names[k] + "' twice"};
            o.figures = std::move(names);
        } else if (a == "--jobs") {
            o.jobs = parseJobs(optionValue(args, i));
        } else if (a == "--format") {
            o.format = parseFormat(optionValue(args, i));
        } else if (a == "--out") {
            o.outPath = outputPathValue(args, i);
        } else if (a == "--quiet") {
            o.quiet = true;
        } else {
            takeScenarioArgument(a, o.scenarioArg);
        }
    }
    if (o.scenarioArg.empty()) throw UsageError{"missing SCENARIO (try taillab-cli list)"};
    if (o.vary.empty()) throw UsageError{"missing --vary dotted.path=v1,v2,..."};
    // A --set of a varied path would be overridden at every point: say so rather than drop it.
    for (const std::string& set : o.overrides) {
        const std::string path = set.substr(0, set.find('='));
        for (const auto& v : o.vary)
            if (v.path == path)
                throw UsageError{"--set " + set + " and --vary " + v.path + " name the same path: each point sets it "
                                 "from --vary, so give one of them"};
    }
    return o;
}

std::string readText(const std::string& path) {
    try {
        return readScenarioText(path);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
}

// Mistakes that may lie in the combination rather than in one value, judged on the real points
// since the file alone, or one value alone, meets values that are not its point's: knobs that
// contradict each other (reported at /params), and anything in the timeline, which is read
// against the point's knobs (the days and first day its times must fall in, the providers,
// zones and egress IPs its faults may name, the knobs in force when a change comes) and against
// its other events (an "until" after its "at", surges that overlap).
bool judgedOnThePoints(const ScenarioError& e) {
    const std::string& path = e.path();
    return path == "/params" || path == "/timeline" || path.starts_with("/timeline/");
}

// Builds and validates every point before anything runs: first each --vary value on its own (so
// the message names the one bad path and value), then each combination.
std::vector<Point> buildPoints(const SweepOptions& o) {
    const std::string file = resolveScenarioPath(o.scenarioArg);
    const std::string text = readText(file);
    try {
        parseScenario(text, file, o.overrides);
    } catch (const ScenarioError& e) {
        if (!judgedOnThePoints(e)) throw UsageError{e.what()};
    }
    std::size_t total = 1;
    for (const auto& v : o.vary) {
        for (const auto& value : v.values) {
            std::vector<std::string> overrides = o.overrides;
            overrides.push_back(v.path + "=" + value);
            std::vector<std::string> options(o.overrides.size(), "--set");
            options.push_back("--vary");
            try {
                parseScenario(text, file, overrides, options);
            } catch (const ScenarioError& e) {
                if (judgedOnThePoints(e)) continue;
                throw UsageError{"--vary " + overrides.back() + ": " +
                                 (e.path().empty() ? "" : e.path() + ": ") + e.detail()};
            }
        }
        if (total > kMaxPoints / v.values.size())
            throw UsageError{"the --vary lists make more than " + std::to_string(kMaxPoints) +
                             " points (split the sweep, or vary fewer values)"};
        total *= v.values.size();
    }
    std::vector<Point> points;
    points.reserve(total);
    for (std::size_t index = 0; index < total; ++index) {
        Point p;
        // Mixed radix, the last --vary fastest.
        std::size_t rest = index;
        p.assignments.resize(o.vary.size());
        for (std::size_t k = o.vary.size(); k-- > 0;) {
            const auto& v = o.vary[k];
            p.assignments[k] = v.path + "=" + v.values[rest % v.values.size()];
            rest /= v.values.size();
        }
        std::vector<std::string> overrides = o.overrides;
        overrides.insert(overrides.end(), p.assignments.begin(), p.assignments.end());
        // Named in messages by the option that gave each (--seed is checked before it gets here).
        std::vector<std::string> options(o.overrides.size(), "--set");
        options.insert(options.end(), p.assignments.size(), "--vary");
        try {
            p.scenario = parseScenario(text, file, overrides, options);
        } catch (const ScenarioError& e) {
            throw UsageError{"point " + join(p.assignments, " ") + ": " + e.what()};
        }
        points.push_back(std::move(p));
    }
    return points;
}

// Notes each knob change of the timeline that changes nothing at some points
// (ineffectiveSettings: a knob set to the value it has, or one the knobs then do not use), as
// noteUnusedOverrides does for a run.
void noteIneffectiveSettings(const SweepOptions& o, const std::vector<Point>& points) {
    struct Ineffective {
        std::string path, source, why;  // the first point's source and reason
        std::size_t points = 0;
    };
    std::vector<Ineffective> found;                 // in the order the points first give them
    std::map<std::string, std::size_t> foundIndex;  // path -> its entry in found
    std::vector<std::string> options(o.overrides.size(), "--set");
    options.insert(options.end(), o.vary.size(), "--vary");
    for (const Point& p : points)
        for (IneffectiveSetting& s : ineffectiveSettings(p.scenario.params, p.scenario.timeline)) {
            const auto [it, fresh] = foundIndex.emplace(s.path, found.size());
            if (fresh) {
                std::vector<std::string> overrides = o.overrides;
                overrides.insert(overrides.end(), p.assignments.begin(), p.assignments.end());
                found.push_back({s.path, givenIn(p.scenario, s.path, overrides, options),
                                 std::move(s.why)});
            }
            ++found[it->second].points;
        }
    for (const Ineffective& f : found)
        std::cerr << "taillab-cli sweep: note: " << f.source << ": " << f.path << " has no effect "
                  << (f.points == points.size()
                          ? std::string("at any point")
                          : "at " + std::to_string(f.points) + " of " +
                                std::to_string(points.size()) + " points")
                  << ": " << f.why << "\n";
}

// Notes each --set and --vary whose knob the points do not use (KnobSpec::usedWhen: a hedge
// delay while the delay is a percentile's): varied, it gives identical rows at those points.
void noteUnusedKnobs(const SweepOptions& o, const std::vector<Point>& points) {
    std::vector<std::pair<std::string, std::string>> given;  // option, its override
    for (const std::string& set : o.overrides) given.emplace_back("--set", set);
    for (const Vary& v : o.vary) given.emplace_back("--vary", v.path + "=");
    for (const auto& [option, override] : given) {
        std::size_t unused = 0;
        std::string why;
        for (const Point& p : points)
            if (std::string w = unusedOverrideReason(p.scenario.params, override); !w.empty()) {
                if (unused++ == 0) why = std::move(w);
            }
        if (unused == 0) continue;
        const std::string name = option == "--vary" ? override.substr(0, override.size() - 1)
                                                    : override;
        std::cerr << "taillab-cli sweep: note: " << option << " " << name << " has no effect "
                  << (unused == points.size()
                          ? std::string("at any point")
                          : "at " + std::to_string(unused) + " of " +
                                std::to_string(points.size()) + " points")
                  << ": " << why << "\n";
    }
}

std::size_t passedChecks(const LabResult& r) {
    return static_cast<std::size_t>(
        std::count_if(r.checks.begin(), r.checks.end(), [](const Check& c) { return c.passed(); }));
}

// The checks that apply to the point: a scenario's quoted figures do not once the point's knobs
// differ from the scenario's own (runner.h).
std::size_t applicableChecks(const LabResult& r) {
    return static_cast<std::size_t>(std::count_if(
        r.checks.begin(), r.checks.end(), [](const Check& c) { return c.applies(); }));
}

// Why a point failed: bad input (a ScenarioError, exit 2) or an internal error (exit 1).
void describeError(const std::exception_ptr& error, Outcome& out) {
    try {
        std::rethrow_exception(error);
    } catch (const ScenarioError& e) {
        out.error = e.what();
        out.badInput = true;
    } catch (const std::exception& e) {
        out.error = std::string("internal error: ") + e.what();
    } catch (...) {
        out.error = "internal error: unknown exception";
    }
}

// Runs every point on the sweep runner, `jobs` at a time (0: one per core). After the first
// failure no new point starts and the running ones are cancelled.
std::vector<Outcome> runPoints(const std::vector<Point>& points, unsigned jobs, bool quiet) {
    using Clock = std::chrono::steady_clock;
    const std::size_t n = points.size();
    std::vector<Clock::time_point> starts(n);  // each written by the thread running the point
    std::vector<SweepRunner<LabResult>::Job> work;
    work.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        work.push_back([&points, &starts, i](RunControl& control) {
            starts[i] = Clock::now();
            // The table needs each point's figures and checks only: the histograms, charts and
            // annotations (most of a result's memory) go as soon as the point is done, so a
            // sweep holds a small record per point however many points it has.
            LabResult r = runScenario(points[i].scenario, control);
            r.distributions = {};
            r.charts = {};
            r.annotations = {};
            return r;
        });
    }
    std::size_t finished = 0;  // the runner serializes the reports
    auto report = [&](std::size_t i, const JobOutcome<LabResult>& out) {
        ++finished;
        if (quiet) return;
        const double seconds = std::chrono::duration<double>(Clock::now() - starts[i]).count();
        char time[32];
        std::snprintf(time, sizeof time, "%.2f", seconds);
        std::cerr << "[" << finished << "/" << n << "] " << join(points[i].assignments, " ")
                  << (out.error ? " failed after " : " done in ") << time << " s";
        if (out.result && passedChecks(*out.result) < applicableChecks(*out.result))
            std::cerr << ", " << applicableChecks(*out.result) - passedChecks(*out.result)
                      << " checks failed";
        std::cerr << "\n";
    };
    SweepOutcome<LabResult> sweep = runSweep<LabResult>(std::move(work), jobs, report);
    std::vector<Outcome> outcomes(n);
    for (std::size_t i = 0; i < n; ++i) {
        outcomes[i].result = std::move(sweep.jobs[i].result);
        if (sweep.jobs[i].error) describeError(sweep.jobs[i].error, outcomes[i]);
    }
    return outcomes;
}

// The union of the points' figure names, each point's names kept in the lab's order (a name only
// some points produce goes after the name that precedes it in the first point producing it).
std::vector<std::string> figureColumns(const std::vector<Outcome>& outcomes) {
    std::vector<std::string> columns;
    for (const auto& o : outcomes) {
        std::size_t insertAt = 0;
        for (const auto& [name, value] : o.result->figures) {
            const auto it = std::find(columns.begin(), columns.end(), name);
            if (it == columns.end()) {
                columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(insertAt), name);
                ++insertAt;
            } else {
                insertAt = static_cast<std::size_t>(it - columns.begin()) + 1;
            }
        }
    }
    return columns;
}

struct Table {
    std::vector<std::string> header;  // varied paths, figure names, checks_passed, checks_total
    std::size_t pointColumns = 0;
    std::vector<std::vector<std::string>> rows;  // "" for a figure the point does not produce
};

Table makeTable(const SweepOptions& o, const std::vector<Point>& points,
                const std::vector<Outcome>& outcomes, const std::vector<std::string>& figures) {
    Table t;
    for (const auto& v : o.vary) t.header.push_back(v.path);
    t.pointColumns = t.header.size();
    t.header.insert(t.header.end(), figures.begin(), figures.end());
    t.header.push_back("checks_passed");
    t.header.push_back("checks_total");
    for (std::size_t i = 0; i < points.size(); ++i) {
        const LabResult& r = *outcomes[i].result;
        std::vector<std::string> row;
        for (const auto& a : points[i].assignments) row.push_back(a.substr(a.find('=') + 1));
        for (const auto& name : figures) {
            const auto value = r.figure(name);
            row.push_back(value ? formatNumber(*value) : "");
        }
        row.push_back(std::to_string(passedChecks(r)));
        row.push_back(std::to_string(applicableChecks(r)));
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::string toCsv(const Table& t) {
    std::string out = csvLine(t.header);
    for (const auto& row : t.rows) out += csvLine(row);
    return out;
}

std::string toMarkdown(const Table& t) {
    std::string out = markdownLine(t.header);
    out += markdownRule(t.header.size(), t.pointColumns);
    for (const auto& row : t.rows) out += markdownLine(row);
    return out;
}

std::string toJsonTable(const std::vector<Point>& points, const std::vector<Outcome>& outcomes,
                        const std::vector<std::string>& figures) {
    using ojson = nlohmann::ordered_json;
    ojson table = ojson::array();
    for (std::size_t i = 0; i < points.size(); ++i) {
        const LabResult& r = *outcomes[i].result;
        ojson row;
        row["point"] = ojson::object();
        for (const auto& a : points[i].assignments) {
            const auto eq = a.find('=');
            // Parsed as --set parses it: JSON when the text is JSON, else a string.
            ojson value = ojson::parse(a.substr(eq + 1), nullptr, false);
            if (value.is_discarded()) value = a.substr(eq + 1);
            row["point"][a.substr(0, eq)] = std::move(value);
        }
        row["figures"] = ojson::object();
        for (const auto& name : figures) {
            const auto value = r.figure(name);
            row["figures"][name] = value ? ojson(*value) : ojson(nullptr);
        }
        row["checks_passed"] = passedChecks(r);
        row["checks_total"] = applicableChecks(r);
        row["checks"] = toJson(r).at("checks");
        table.push_back(std::move(row));
    }
    return table.dump(2) + "\n";
}

// Before any point runs: every name in --figures is a figure of at least one point (a point's
// figures depend on its params; one that lacks a name leaves that cell empty).
void checkFigureNames(const std::vector<std::string>& names, const std::vector<Point>& points) {
    const std::string& labId = points.front().scenario.lab;
    const Lab* lab = findLab(labId);
    std::vector<std::string> known;
    for (const auto& p : points)
        for (auto& name : lab->figureNames(p.scenario.params))
            if (std::find(known.begin(), known.end(), name) == known.end())
                known.push_back(std::move(name));
    for (const auto& name : names)
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw UsageError{"--figures: " + unknownFigureMessage(labId, name, known,
                                                                    "at any point of this sweep")};
}

}  // namespace

int cmdSweep(const std::vector<std::string>& args) {
    const SweepOptions o = parseSweepArguments(args);
    const std::vector<Point> points = buildPoints(o);
    checkOutputPath(o.outPath, "--out", {resolveScenarioPath(o.scenarioArg)});
    noteUnusedKnobs(o, points);
    noteIneffectiveSettings(o, points);
    if (o.figures) checkFigureNames(*o.figures, points);
    const std::vector<Outcome> outcomes = runPoints(points, o.jobs, o.quiet);

    int errorCode = kExitOk;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Outcome& out = outcomes[i];
        if (out.error.empty()) continue;
        std::cerr << "taillab-cli sweep: point " << join(points[i].assignments, " ") << ": "
                  << out.error << "\n";
        if (errorCode != kExitInternal) errorCode = out.badInput ? kExitBadInput : kExitInternal;
    }
    if (errorCode != kExitOk) return errorCode;
    for (const auto& out : outcomes)
        if (!out.result) throw std::logic_error("a sweep point did not run");

    const std::vector<std::string> all = figureColumns(outcomes);
    std::vector<std::string> figures = all;
    if (o.figures) {
        figures = *o.figures;  // each produced by some point: checkFigureNames
    }

    std::string text;
    if (o.format == Format::Json) {
        text = toJsonTable(points, outcomes, figures);
    } else {
        const Table table = makeTable(o, points, outcomes, figures);
        text = o.format == Format::Csv ? toCsv(table) : toMarkdown(table);
    }
    writeOutput(text, o.outPath);

    std::size_t failedPoints = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        bool failed = false;
        for (const auto& c : outcomes[i].result->checks) {
            if (!c.failed()) continue;
            failed = true;
            std::cerr << "point " << join(points[i].assignments, " ") << ": "
                      << failedCheckMessage(c) << "\n";
        }
        if (failed) ++failedPoints;
    }
    std::cerr << points.size() << " points: " << points.size() - failedPoints
              << " with all checks passing, " << failedPoints << " with a failed check\n";
    return failedPoints == 0 ? kExitOk : kExitChecksFailed;
}

}  // namespace taillab::cli
