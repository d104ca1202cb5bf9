// What a gateway run starts from: GatewaySim's knobs (defaults: seed 000's v4 September
// configuration), a seed and a timeline, or a scenario file for the gateway ("lab": "gateway")
// read by the scenario parser, so a file opens in the view exactly as `taillab-cli run` reads it.
// And the other way: a run as a scenario that replays it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "knobs/knob.h"
#include "scenario/scenario.h"

namespace taillab::ui {

struct GatewayRunSpec {
    std::string name = "gateway";
    std::string title = "Search gateway, seed 000";
    Params params;
    std::uint64_t seed = 1;
    Timeline timeline;  // knob changes and faults at their simulated times
    std::string file;   // where it was read from ("" for the defaults)
    // The file's published figures and the knobs and timeline they hold for (Scenario::expect,
    // expect_setup, expect_timeline): a run saved as it started keeps them.
    std::vector<Expectation> expect;
    Params expect_setup;
    Timeline expect_timeline;
};

GatewayRunSpec defaultGatewayRun();
// `key`: a file path, or a name under the scenario directory ("gateway/week-v4-september",
// "week-v4-september"), with or without ".json". Throws std::invalid_argument when there is no
// such file or it is not a gateway scenario, and ScenarioError (file:line:col: JSON path: what)
// when the parser refuses it.
// `overrides` are applied to the file as `taillab-cli run --set` applies them ("params.k=v").
GatewayRunSpec loadGatewayRun(const std::string& key, const std::string& scenarioDirectory,
                              const std::vector<std::string>& overrides = {});
// The file loadGatewayRun reads for `key`; throws std::invalid_argument ("no gateway scenario
// 'key'") when there is none.
std::string findGatewayScenarioFile(const std::string& key, const std::string& scenarioDirectory);
// True when `path` holds a JSON object whose "lab" is "gateway" (whatever else is wrong in it).
bool isGatewayScenarioFile(const std::string& path);
// The same, for a file already parsed; throws std::invalid_argument unless its lab is "gateway".
GatewayRunSpec gatewayRunFromScenario(const Scenario& scenario);

// A scenario that replays a run: its first knobs, seed and timeline (the scenario's events and
// the edits made during the run), and the spec's published figures, which the file keeps when
// the run started with the knobs and ran the timeline they hold for (writeScenarioJson).
// `name` must be file-name safe (see scenarioNameFor).
Scenario runAsScenario(const GatewayRunSpec& spec, const std::string& name, const Params& initial,
                       std::uint64_t seed, const Timeline& timeline);
// Writes scenarioOf(the name scenarioNameFor gives `path`'s file) to `path` atomically. False and
// *error when scenarioOf has nothing yet ("There is no run to save yet.") or the file cannot be
// written. Both gateway views save their runs with it.
bool saveRunAsScenario(const std::string& path,
                       const std::function<std::optional<Scenario>(const std::string&)>& scenarioOf,
                       std::string* error = nullptr);
// A scenario name (a-z, 0-9, '-', '_') from a file name: "My run 2.json" -> "my-run-2".
std::string scenarioNameFor(const std::string& fileName);

}  // namespace taillab::ui
