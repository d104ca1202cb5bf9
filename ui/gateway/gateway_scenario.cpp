#include "gateway/gateway_scenario.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gateway_sim/gateway_sim.h"

namespace taillab::ui {

GatewayRunSpec defaultGatewayRun() {
    GatewayRunSpec spec;
    spec.params = Params(gateway::GatewaySim::knobs());
    return spec;
}

std::string findGatewayScenarioFile(const std::string& key, const std::string& scenarioDirectory) {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates{fs::path(key), fs::path(key + ".json")};
    if (!scenarioDirectory.empty()) {
        const fs::path dir(scenarioDirectory);
        for (const fs::path& base : {dir / key, dir / "gateway" / key}) {
            candidates.push_back(base);
            candidates.push_back(fs::path(base.string() + ".json"));
        }
    }
    std::error_code ec;
    for (const auto& c : candidates)
        if (fs::is_regular_file(c, ec)) return c.string();
    throw std::invalid_argument("no gateway scenario '" + key + "'");
}

GatewayRunSpec loadGatewayRun(const std::string& key, const std::string& scenarioDirectory,
                              const std::vector<std::string>& overrides) {
    return gatewayRunFromScenario(
        loadScenarioFile(findGatewayScenarioFile(key, scenarioDirectory), overrides));
}

bool isGatewayScenarioFile(const std::string& path) {
    // Through the scenario reader's checks: a pipe, a device or a file over kMaxScenarioBytes
    // is no scenario, and is neither waited on nor read whole.
    std::string text;
    try {
        text = readScenarioText(path);
    } catch (const ScenarioError&) {
        return false;
    }
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    return doc.is_object() && doc.contains("lab") && doc["lab"] == "gateway";
}

GatewayRunSpec gatewayRunFromScenario(const Scenario& scenario) {
    if (scenario.lab != "gateway")
        throw std::invalid_argument(scenario.file + ": a scenario for the '" + scenario.lab +
                                    "' lab, not for the gateway; it opens on the Labs tab (taillab " +
                                    scenario.file + ", or File > Open)");
    GatewayRunSpec spec;
    spec.name = scenario.name;
    spec.title = scenario.title.empty() ? scenario.name : scenario.title;
    spec.params = scenario.params;
    spec.seed = scenario.seed;
    spec.timeline = scenario.timeline;
    spec.file = scenario.file;
    spec.expect = scenario.expect;
    spec.expect_setup = scenario.expect_setup;
    spec.expect_timeline = scenario.expect_timeline;
    return spec;
}

Scenario runAsScenario(const GatewayRunSpec& spec, const std::string& name, const Params& initial,
                       std::uint64_t seed, const Timeline& timeline) {
    Scenario s;
    s.name = name;
    s.title = spec.title + " (saved run)";
    s.lab = "gateway";
    s.seed = seed;
    s.params = initial;
    s.timeline = timeline;
    s.expect = spec.expect;
    s.expect_setup = spec.expect_setup;
    s.expect_timeline = spec.expect_timeline;
    std::size_t edits = 0;
    for (const TimelineEvent& e : timeline.events)
        if (std::find(spec.timeline.events.begin(), spec.timeline.events.end(), e) ==
            spec.timeline.events.end())
            ++edits;
    s.notes = "Saved from TailLab's gateway view: the knobs the run started with, its seed and "
              "its timeline (" +
              std::to_string(timeline.events.size() - edits) + " event(s) of '" + spec.name +
              "', " + std::to_string(edits) +
              " knob change(s) made during the run). Replays the run exactly: taillab-cli run "
              "gives the result the view showed at the end.";
    return s;
}

bool saveRunAsScenario(const std::string& path,
                       const std::function<std::optional<Scenario>(const std::string&)>& scenarioOf,
                       std::string* error) {
    auto fail = [&](std::string why) {
        if (error) *error = std::move(why);
        return false;
    };
    const std::optional<Scenario> s =
        scenarioOf(scenarioNameFor(std::filesystem::path(path).filename().string()));
    if (!s) return fail("There is no run to save yet.");
    try {
        saveScenarioFile(path, *s);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return true;
}

std::string scenarioNameFor(const std::string& fileName) {
    std::string stem = std::filesystem::path(fileName).stem().string();
    std::string name;
    for (char c : stem) {
        const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        const bool safe = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') ||
                          lower == '-' || lower == '_';
        if (safe) {
            name += lower;
        } else if (!name.empty() && name.back() != '-') {
            name += '-';
        }
    }
    while (!name.empty() && name.back() == '-') name.pop_back();
    return name.empty() ? "gateway-run" : name;
}

}  // namespace taillab::ui
