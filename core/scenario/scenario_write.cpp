// Scenarios back to JSON: what the GUI saves after a run's edits, in the schema parseScenario
// reads (scenario.h), key order as people write them.
#include "io/atomic_file.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

nlohmann::ordered_json changedParams(const Params& params) {
    const nlohmann::ordered_json all = params.toJson();
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const KnobSpec& k : params.specs())
        if (params.real(k.key) != k.defaultValue) out[k.key] = all.at(k.key);
    return out;
}

nlohmann::ordered_json expectationJson(const Expectation& e) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    out["figure"] = e.figure;
    if (e.value) {
        out["value"] = *e.value;
        out["tolerance"] = e.tolerance;
    }
    if (e.value || e.relative) out["relative"] = e.relative;
    if (e.at_least) out["at_least"] = *e.at_least;
    if (e.at_most) out["at_most"] = *e.at_most;
    if (!e.source.empty()) out["source"] = e.source;
    return out;
}

}  // namespace

std::string writeScenarioJson(const Scenario& s) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    doc["schema_version"] = kScenarioSchemaVersion;
    doc["name"] = s.name;
    doc["title"] = s.title;
    doc["lab"] = s.lab;
    doc["seed"] = s.seed;
    doc["params"] = changedParams(s.params);
    if (!s.notes.empty()) doc["notes"] = s.notes;
    // Expectations hold for the knobs and timeline they were written for: a scenario saved with
    // others leaves them out, or reading it back would apply them to a setup they say nothing about.
    if (writesExpectations(s)) {
        nlohmann::ordered_json expect = nlohmann::ordered_json::array();
        for (const auto& e : s.expect) expect.push_back(expectationJson(e));
        doc["expect"] = std::move(expect);
    }
    if (!s.timeline.empty()) doc["timeline"] = timelineToJson(s.timeline, s.params.specs());
    return doc.dump(2) + "\n";
}

// The timeline counts by what it does, as for the run's checks (runner.h): a new label leaves the
// figures as they were.
bool writesExpectations(const Scenario& s) {
    return !s.expect.empty() && s.params == s.expect_setup &&
           sameEffect(s.timeline, s.expect_timeline);
}

bool keepsExpectationsOf(const Scenario& s, const Scenario& there) {
    if (there.expect.empty()) return true;
    return writesExpectations(s) && s.expect == there.expect &&
           s.expect_setup == there.expect_setup && sameEffect(s.expect_timeline, there.expect_timeline);
}

void saveScenarioFile(const std::string& path, const Scenario& scenario) {
    writeFileAtomically(path, writeScenarioJson(scenario));
}

}  // namespace taillab
