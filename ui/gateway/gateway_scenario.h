// What a gateway run starts from: GatewaySim's knobs (defaults: seed 000's v4 September
// configuration) and a seed, or a scenario file for the gateway ("lab": "gateway") read with
// GatewaySim::knobs(), so the view can open one whether or not a gateway lab is registered.
#pragma once

#include <cstdint>
#include <string>

#include "knobs/knob.h"

namespace taillab::ui {

struct GatewayRunSpec {
    std::string name = "gateway";
    std::string title = "Search gateway, seed 000";
    Params params;
    std::uint64_t seed = 1;
};

GatewayRunSpec defaultGatewayRun();
// `key`: a file path, or a name under the scenario directory ("gateway/week-v4-september",
// "week-v4-september"), with or without ".json". Throws std::invalid_argument naming the
// problem (file not found, not JSON, unknown knob, value out of range).
GatewayRunSpec loadGatewayRun(const std::string& key, const std::string& scenarioDirectory);

}  // namespace taillab::ui
