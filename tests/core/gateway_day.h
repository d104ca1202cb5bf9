// Shared by the gateway simulation tests: the lab's knobs for one simulated day.
#pragma once

#include "gateway_sim/gateway_sim.h"

namespace taillab::test {

// One day of the week's traffic times `load`, every other knob at its default.
inline Params gatewayDay(double load) {
    Params p(gateway::GatewaySim::knobs());
    p.set("days", 1);
    p.set("load_multiplier", load);
    return p;
}

}  // namespace taillab::test
