// What `taillab-cli serve SCENARIO` builds its gateway from: the same GatewayConfig the
// simulation builds from the scenario's knobs (its engines, its customers' API keys, every
// setting), the chart window, and one upstream URL per engine.
#pragma once

#include <string>
#include <vector>

#include "base/time.h"
#include "gateway/config.h"
#include "knobs/knob.h"
#include "live/address.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct GatewaySetup {
    gateway::GatewayConfig config;
    Duration window{};
    Params params;           // the knobs config was built from (a live change starts from them)
    std::uint64_t seed = 0;
    // Knob changes the gateway applies at their times after it starts, and faults it marks on
    // its timeline (the fleet applies those). Events before `start_at` apply at once.
    Timeline timeline;
    Duration start_at{};
};

// Throws std::invalid_argument naming the knobs when they contradict each other.
GatewaySetup gatewaySetup(const Params& params, std::uint64_t seed);

// Where a live server (`who`: "the fleet", "the gateway") starts on the scenario's clock must lie
// within the scenario's run (its `days`), from 0 up to its end: throws std::invalid_argument saying
// so otherwise. The one check of a start time, for the fleet and the gateway alike.
void checkStartAt(const Params& params, Duration start_at, const std::string& who);
// The same, with the scenario's timeline.
GatewaySetup gatewaySetup(const Scenario& scenario);

// "NAME=http://127.0.0.1:PORT/PATH" for each engine of `config`, in any order; returns the URLs
// in engine order. Throws std::invalid_argument for an unknown engine, an engine given twice or
// missing, or a bad URL, naming the engines the scenario has.
std::vector<Url> upstreamUrls(const gateway::GatewayConfig& config, const std::vector<std::string>& args);

}  // namespace taillab::live
