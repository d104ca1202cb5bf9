#include "live/live_run.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/format.h"

#include "gateway_sim/gateway_lab.h"
#include "live/live_stack.h"
#include "run/runner.h"

namespace taillab::live {
namespace {

constexpr double kLiveChartWindow_s = 10;

}  // namespace

std::string liveWindowsNote(const LiveWindows& w) {
    std::string note = formatNumbers("the time charts' x is seconds since the run's start, one point at the end of "
                                     "each %g s window",
                                     w.window_s);
    if (w.chosen && w.window_s < w.scenario_window_s)
        note += formatNumbers(" (the scenario's %g s windows suit its simulated week; --set params.window_s=S sets "
                              "another)",
                              w.scenario_window_s);
    if (w.count == 0) return note + "; nothing ended in any window";
    note += "; " + std::to_string(w.count) + (w.count == 1 ? " window" : " windows");
    if (w.last_partial) note += formatNumbers(", the last one %.3g s long (the run's end)", w.last_window_s);
    return note;
}


Duration liveChartWindow(Duration scenarioWindow, Duration duration) {
    const double wanted = std::max(kLiveChartWindow_s, 10 * std::ceil(toSeconds(duration) / 1200));
    return std::min(scenarioWindow, fromSeconds(wanted));
}

LiveWindows chooseLiveWindows(Scenario& scenario, std::optional<Duration> window, Duration duration) {
    LiveWindows w;
    w.scenario_window_s = scenario.params.real("window_s");
    w.chosen = !window;
    const Duration chosen = window ? *window : liveChartWindow(fromSeconds(w.scenario_window_s), duration);
    scenario.params.set("window_s", toSeconds(chosen));  // the knob's range checks a window set by hand
    w.window_s = scenario.params.real("window_s");
    return w;
}

void countLiveWindows(LiveWindows& w, const gateway::GatewaySnapshot& snapshot, double started_s) {
    w.count = snapshot.windows.size();
    if (snapshot.windows.empty()) return;
    const double from = snapshot.windows.size() > 1 ? snapshot.windows[snapshot.windows.size() - 2].t_s : started_s;
    w.last_window_s = snapshot.windows.back().t_s - from;
    w.last_partial = w.last_window_s < w.window_s - 1e-6;
}

LiveRun runLive(const Scenario& given, const LiveRunOptions& options,
                const LoadGenerator::IntervalCallback& onInterval) {
    Scenario scenario = given;
    LiveWindows windows = chooseLiveWindows(scenario, options.window, options.duration);
    LiveStackOptions o;
    o.rate_per_s = options.rate_per_s;
    o.duration = options.duration;
    o.connections = options.connections;
    o.start_at = options.start_at;
    o.on_interval = onInterval;
    LiveStack stack(scenario, std::move(o));
    stack.start();
    stack.waitForLoad();
    stack.stop();
    LiveRun run;
    run.load_config = stack.loadConfig();
    run.load = stack.loadResult();
    run.notes = stack.notes();
    run.scaling = *stack.scaling();
    const gateway::GatewaySnapshot snapshot = stack.snapshot();
    const double started = stack.startedAt();
    run.result = gateway::gatewayResult(snapshot, scenario.params, scenario.seed, gateway::liveTimeAxis(started));
    countLiveWindows(windows, snapshot, started);
    run.windows = windows;
    run.notes.push_back(liveWindowsNote(windows));
    run.result.lab = scenario.lab;
    run.result.scenario = scenario.name;
    run.result.seed = scenario.seed;
    run.result.parameters = scenario.params.toJson();
    run.result.timeline = recordedTimeline(scenario);
    return run;
}

}  // namespace taillab::live
