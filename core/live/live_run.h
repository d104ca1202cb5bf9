// A whole live run in one process: the scenario's emulated fleet, its gateway in front of it and
// the open-loop load generator, each on its own thread, over loopback HTTP. What `taillab-cli
// live` and (later) the GUI's live tab run. The gateway's snapshot becomes the same lab result
// as a simulated run (figures, per-window series, invariant checks); the scenario's expectations
// are written for its simulated week and are not checked against a live run.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/time.h"
#include "labs/lab_result.h"
#include "live/load_generator.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct LiveRunOptions {
    double rate_per_s = 100;
    Duration duration = std::chrono::seconds(30);
    std::size_t connections = 0;  // 0: the generator's default for the rate
    Duration start_at{};          // where on the scenario's clock the run starts
};

struct LiveRun {
    LoadConfig load_config;  // what was sent, where
    LoadResult load;         // what the clients saw (corrected and uncorrected)
    LabResult result;        // what the gateway saw, as a simulated run reports it
    std::vector<std::string> notes;  // what the live run does differently from the simulation
    LoadScaling scaling;             // the rate asked, the load_multiplier, the rate offered
};

// Throws std::invalid_argument for a scenario of another lab or options out of range, and
// std::runtime_error when a server cannot listen.
LiveRun runLive(const Scenario& scenario, const LiveRunOptions& options,
                const LoadGenerator::IntervalCallback& onInterval = {});

}  // namespace taillab::live
