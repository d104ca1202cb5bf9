// A twin run: one scenario, seed and timeline run simulated and live on the same arrivals, and the
// two results side by side. This is how a user learns how far to trust the simulator.
//
// The same arrivals. The scenario's workload draws `duration` of requests from `start_at` (the
// simulation's own, with their customers' API keys, X-Region pins, endpoints, query texts and
// trace ids), after scaling every hour by load_multiplier as a live run of the same start and
// length is scaled (live/load_scaling.h: the window's first hour, or all of a shorter window,
// averages `rate_per_s`; the knob's range, 0.1 to 50, bounds what a rate can reach). The simulation runs
// them through GatewaySim, started at `start_at`, which ends its arrivals after `duration` and
// lets the requests in flight
// finish (finishAt); the live run sends the very same requests, each at its arrival time, through
// the open-loop load generator to the live gateway in front of the emulated fleet. The request's
// trace id travels as X-Request-Id and on to the fleet (X-TailLab-Trace), so both runs draw the same
// per-request and upstream luck; what differs is real time: the machine's scheduling, loopback
// HTTP, the emulated fleet's timers.
//
// The timeline's surges add and drop arrivals in both halves alike (live/workload_plan.h). What
// differs by design, and is said in the notes: the live gateway sends no synthetic probes, so both
// runs switch probes off; and the live gateway's stages cost what its CPU takes (tens of µs), where
// the simulation's cost model charges a production gateway's (about 17 ms a request), so the
// simulated half charges each stage what the live one measured (the model's figures are noted).
//
// Each compared figure has a tolerance: p50/p90/p99 within 10% (relative), hedge rate, extra
// upstream load and cache hit rate within 2 percentage points, breaker events within 20% or 1.
// Outside it, the row says so in words with what was measured that could explain it (the
// generator's scheduling lag, requests the clients saw fail).
#pragma once

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/time.h"
#include "gateway/snapshot.h"
#include "labs/lab_result.h"
#include "live/load_generator.h"
#include "live/live_run.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct TwinOptions {
    double rate_per_s = 50;
    Duration duration = std::chrono::seconds(30);
    // Where on the scenario's clock both runs start, cold (e.g. Tue 14:00 for a busy hour).
    Duration start_at{};
    // The charts' window (window_s) as set by the user; nullopt: liveChartWindow's (live_run.h).
    std::optional<Duration> window;
    // When set and it becomes true, the live half stops early and runTwin throws TwinCancelled.
    const std::atomic<bool>* cancel = nullptr;
};

struct TwinCancelled : std::runtime_error {
    TwinCancelled() : std::runtime_error("the twin run was cancelled") {}
};

// The arrivals both halves of a twin run send.
struct TwinPlan {
    Scenario scenario;  // as both halves run it: load_multiplier set, probes off, the chart window
    LiveWindows windows;  // the chart window both halves use (none counted yet)
    std::vector<PlannedRequest> requests;
    double mean_rate_per_s = 0;  // of the requests planned
    LoadScaling scaling;         // the rate asked, the load_multiplier, the rate offered
    std::vector<std::string> notes;
};

// Throws std::invalid_argument for a scenario of another lab, a rate <= 0, or a start and
// duration outside the scenario's run: the checks that need no planning, for a caller to make
// before it announces the run.
void checkTwinOptions(const Scenario& scenario, const TwinOptions& options);

// Throws std::invalid_argument as checkTwinOptions does, or for a window with no arrivals.
TwinPlan planTwin(const Scenario& scenario, const TwinOptions& options);

struct TwinRow {
    std::string figure;  // "p99_ms"
    std::string label;   // "p99"
    std::string unit;    // "ms", "%", ""
    double simulated = 0, live = 0;
    double tolerance = 0;  // relative (percentiles, breaker events) or absolute in the unit
    bool relative = false;
    bool within = true;
    std::string verdict;  // a sentence when outside the tolerance, else ""
};

// Mean time a request spent in one stage: simulated (charged the live gateway's measured costs,
// so the two agree but for the gateway compute's queueing), live (measured), and what the
// simulation's cost model charges (a run of its own, for reference).
struct TwinStage {
    std::string stage;
    double simulated_ms = 0, live_ms = 0;
    double modelled_ms = 0;
};
std::vector<TwinStage> compareStages(const gateway::GatewaySnapshot& simulated, const gateway::GatewaySnapshot& live);

// How a row reads, in the CLI's table and the GUI's: "577.05 ms", "4.9%", "12";
// "-12.67 ms (-9.4%)"; "±10%", "±2 points", "equal".
std::string twinValueText(const TwinRow& row, double value);
std::string twinDifferenceText(const TwinRow& row);
std::string twinToleranceText(const TwinRow& row);
// A stage's mean time as the twin tables show it: milliseconds with two decimals, no unit.
std::string twinStageMsText(double ms);

struct TwinRun {
    TwinPlan plan;
    LabResult simulated, live;
    LoadConfig load_config;  // what the live clients sent, where
    LoadResult load;         // the live clients' view
    std::vector<TwinRow> rows;
    std::vector<TwinStage> stages;
    // The simulated half with the modelled stage costs: the offset the model alone would add.
    double modelled_p50_ms = 0, modelled_p99_ms = 0;
    LiveWindows windows;  // how both halves' time charts are cut (the live half's windows)
    bool agrees() const;
};

// Runs planTwin's arrivals live (on loopback, in this process), then simulated, charging each
// stage what the live gateway measured (GatewaySim::chargeStageCosts), and once more with the
// modelled costs for the stage table. The notes say so, with the model's p50 and p99.
TwinRun runTwin(const Scenario& scenario, const TwinOptions& options);

// The rows from the two runs' snapshots and the live clients' view.
std::vector<TwinRow> compareTwin(const gateway::GatewaySnapshot& simulated, const gateway::GatewaySnapshot& live,
                                 const LoadResult& load);

}  // namespace taillab::live
