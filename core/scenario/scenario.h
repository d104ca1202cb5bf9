// Scenario files: JSON with a schema version, parsed into a typed, validated Scenario.
//
//   {
//     "schema_version": 1,
//     "name": "fanout-100",          // file-name safe identifier
//     "title": "Fan-out amplification",
//     "lab": "fanout",               // which lab runs it
//     "seed": 42,
//     "params": { "backends": 100 }, // knob values; unlisted knobs take their defaults
//     "notes": "free text: what fitted parameters stand for",
//     "expect": [                    // optional: figures the run must reproduce
//       {"figure": "p999_after_ms", "value": 34, "tolerance": 0.15, "relative": true,
//        "source": "lab_001.hedge_idle_p95.p999_after_ms"},
//       {"figure": "median_ratio_dup_at_0_7", "at_least": 5, "source": "..."}
//     ],
//     "timeline": [                  // optional, labs that apply one: events at simulated times
//       {"at": "Tue 14:22", "set": {"hedge_delay_ms": 300}},
//       {"at": 3600, "until": 7200, "fault": {"target": {"engine": "atlas"}, "effect": "down"}}
//     ]                              // (schema in scenario/timeline.h)
//   }
//
// Every mistake is an error naming the file, the line and column (when the text has them), the
// JSON path, what was expected and what was found. Unknown keys are errors, so a typo is never
// silently ignored. Overrides (`--set params.backends=50`) are validated exactly like the file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "knobs/knob.h"
#include "scenario/timeline.h"

namespace taillab {

constexpr int kScenarioSchemaVersion = 1;
// The largest scenario text read: a week's timeline of a thousand events takes about 100 KB, and
// a file many times larger is a mistake (a result or a log opened as a scenario).
constexpr std::size_t kMaxScenarioBytes = 4 << 20;

class ScenarioError : public std::runtime_error {
public:
    ScenarioError(std::string file, std::optional<int> line, std::optional<int> column,
                  std::string path, std::string message);
    const std::string& file() const { return file_; }
    std::optional<int> line() const { return line_; }
    std::optional<int> column() const { return column_; }
    const std::string& path() const { return path_; }  // JSON pointer, "" for syntax errors
    const std::string& detail() const { return detail_; }

private:
    std::string file_;
    std::optional<int> line_;
    std::optional<int> column_;
    std::string path_;
    std::string detail_;
};

// A figure the run must reproduce: either value ± tolerance, or a one-sided bound.
struct Expectation {
    std::string figure;
    std::optional<double> value;
    double tolerance = 0;
    bool relative = false;
    std::optional<double> at_least;
    std::optional<double> at_most;
    std::string source;

    bool operator==(const Expectation&) const = default;
};

struct Scenario {
    std::string file;  // where it came from ("" for built-in)
    std::string name;
    std::string title;
    std::string lab;
    std::uint64_t seed = 1;
    Params params;
    std::string notes;
    std::vector<Expectation> expect;
    // The knobs `expect` was written for: the file's own params, before --set overrides (and,
    // in the GUI, before knob edits). Where `params` differs, the expectations do not apply to
    // the run: their checks are marked not applicable rather than failed.
    Params expect_setup;
    Timeline timeline;
    // The timeline `expect` was written for: the file's own, before --set overrides. Where
    // `timeline` differs in what it does (sameEffect: an event changed or removed by --set, not
    // a new label), the expectations do not apply to the run, as with moved knobs.
    Timeline expect_timeline;

    // expect_setup and expect_timeline count only beside expectations: without any they mean
    // nothing; and expect_timeline only by what it does, its labels naming nothing the figures
    // depend on.
    bool operator==(const Scenario& o) const {
        return file == o.file && name == o.name && title == o.title && lab == o.lab &&
               seed == o.seed && params == o.params && notes == o.notes && expect == o.expect &&
               (expect.empty() || (expect_setup == o.expect_setup &&
                                   sameEffect(expect_timeline, o.expect_timeline))) &&
               timeline == o.timeline;
    }
};

// Parses and validates scenario text. `file` is only used in messages. `overrideOptions` names
// the option each override came from, for messages ("--b-set"; "--set" for those not given).
// Two overrides from one option that set one value (the same path, one within the other, or a
// member of an object the other merges) are an error naming both; overrides from different
// options apply in order, the later over the earlier (compare's --b-set over its --set).
Scenario parseScenario(const std::string& text, const std::string& file,
                       const std::vector<std::string>& overrides = {},
                       const std::vector<std::string>& overrideOptions = {});
Scenario loadScenarioFile(const std::string& path, const std::vector<std::string>& overrides = {},
                          const std::vector<std::string>& overrideOptions = {});
// A scenario file's text; throws ScenarioError naming the file and the reason (missing, a
// directory, a symlink loop, over kMaxScenarioBytes, unreadable).
std::string readScenarioText(const std::string& path);

// The scenario as a file holds it, so that parsing the text gives back an equal Scenario:
// schema_version, name, title, lab, seed, params (the knobs that differ from their defaults),
// then notes, expect and timeline when there are any. Indented by two, ending in a newline.
// `expect` is left out when params differ from expect_setup, or the timeline from
// expect_timeline: the expectations quote figures for another setup.
std::string writeScenarioJson(const Scenario& scenario);
// Whether writeScenarioJson writes `scenario`'s expectations: it has some, and its knobs and
// timeline are the ones they were written for.
bool writesExpectations(const Scenario& scenario);
// Whether writing `scenario` over the file that holds `there` keeps that file's published figures:
// it has none, or `scenario` writes the same expectations for the same knobs and timeline. The GUI
// asks before a save that would lose them.
bool keepsExpectationsOf(const Scenario& scenario, const Scenario& there);
// Writes writeScenarioJson(scenario) to `path` atomically (io/atomic_file.h): a reader sees the
// old file or the new one, never a part.
void saveScenarioFile(const std::string& path, const Scenario& scenario);

// Applies one "dotted.path=value" override to a scenario document (value parsed as JSON when it
// is valid JSON, else taken as a string). An object set where an object stands is merged into it
// member by member, as if each member had its own override ("params={\"backends\":5}" changes
// one knob and keeps the others). Throws ScenarioError naming the override as `option` gave it.
void applyOverride(nlohmann::json& doc, const std::string& assignment,
                   const std::string& option = "--set");

// Scenario files under a directory (recursively), sorted by path.
std::vector<std::string> findScenarioFiles(const std::string& directory);

}  // namespace taillab
