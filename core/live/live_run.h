// A whole live run in one process: the scenario's emulated fleet, its gateway in front of it and
// the open-loop load generator, each on its own thread, over loopback HTTP. What `taillab-cli
// live` and (later) the GUI's live tab run. The gateway's snapshot becomes the same lab result
// as a simulated run (figures, per-window series, invariant checks); the scenario's expectations
// are written for its simulated week and are not checked against a live run.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "gateway/snapshot.h"
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
    // The charts' window (the window_s knob) as set by the user; nullopt: liveChartWindow's.
    std::optional<Duration> window;
};

// The chart window of a live run that sets none: the scenarios' own (600 s, for a simulated
// week) would close no window in a run of a minute. 10 s, the knob's least and the GUI's live
// tab's, or for a run longer than 20 minutes a 120th of it (rounded up to 10 s), but never
// longer than the scenario's own window.
Duration liveChartWindow(Duration scenarioWindow, Duration duration);

// The windows of a live run's time charts: x is seconds since the run's start, one point at the
// end of each window; the last one ends with the run, and is shorter when the run is not a whole
// number of windows.
struct LiveWindows {
    double window_s = 0;
    bool chosen = false;        // liveChartWindow chose it (not the user)
    double scenario_window_s = 0;
    std::size_t count = 0;      // windows closed
    double last_window_s = 0;   // the last one's true length
    bool last_partial = false;  // shorter than window_s
};

// One sentence for a run's notes: the windows' length and unit, how many, the last one's length.
// Sets `scenario`'s window_s for a live run of `duration`: `window` when the user set one, else
// liveChartWindow's; the result says which, and the scenario's own window.
LiveWindows chooseLiveWindows(Scenario& scenario, std::optional<Duration> window, Duration duration);
// Fills in the windows `snapshot` closed: how many, and the last one's true length (it ends with
// the run); `started_s` is when the run started, on the snapshot's clock.
void countLiveWindows(LiveWindows& windows, const gateway::GatewaySnapshot& snapshot, double started_s);
std::string liveWindowsNote(const LiveWindows& windows);

struct LiveRun {
    LoadConfig load_config;  // what was sent, where
    LoadResult load;         // what the clients saw (corrected and uncorrected)
    LabResult result;        // what the gateway saw, as a simulated run reports it
    std::vector<std::string> notes;  // what the live run does differently from the simulation
    LoadScaling scaling;             // the rate asked, the load_multiplier, the rate offered
    LiveWindows windows;             // how result's time charts are cut
};

// Throws std::invalid_argument for a scenario of another lab or options out of range, and
// std::runtime_error when a server cannot listen.
LiveRun runLive(const Scenario& scenario, const LiveRunOptions& options,
                const LoadGenerator::IntervalCallback& onInterval = {});

}  // namespace taillab::live
