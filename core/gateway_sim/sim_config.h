// From the gateway lab's knobs (one flat Params, gateway_knobs.cpp) to the configurations of the
// pieces a simulated run is built from: the gateway itself, the simulated fleet, and the driver's
// own settings. The gateway's engines are atlas and borealis (routed) and cirrus (last chance
// only); its API keys are the workload's customers, the batch job and the three probe keys.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "fleet/fleet.h"
#include "gateway/config.h"
#include "knobs/knob.h"
#include "workload/workload.h"

namespace taillab::gateway {

constexpr int kEngines = 3;
constexpr std::array<std::string_view, kEngines> kEngineNames{"atlas", "borealis", "cirrus"};
constexpr std::array<std::string_view, kRegions> kProbeKeys{"tl-probe-eu", "tl-probe-us",
                                                            "tl-probe-apac"};

// Throws std::invalid_argument naming the knobs when they contradict each other.
GatewayConfig gatewayConfigFromParams(const Params& p, const Workload& workload);
fleet::FleetConfig fleetConfigFromParams(const Params& p);

}  // namespace taillab::gateway
