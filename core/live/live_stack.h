// A live run's three parts in one process, each on its own thread, over loopback HTTP: the
// scenario's emulated fleet, its gateway in front of it, and the open-loop load generator. What
// `taillab-cli live` and `twin` run, and what the GUI's live tab starts, retunes and stops.
//
// The load is the scenario's own arrivals (live/workload_plan.h), surges included, unless a plan
// is given. The scenario's timeline runs from start() on both servers (the fleet applies faults
// and its knobs, the gateway its knobs and marks the faults). Changes made while it runs (applyParams,
// injectFault, removeFault) reach the gateway and the fleet at once, are marked on the gateway's
// timeline, and are recorded, so scenarioOfRun() writes the run down as a scenario whose timeline
// replays them at the same times (on the scenario's clock: start_at plus the time since start).
//
// Threads: every method may be called from any thread. snapshot() and load() are cheap enough to
// poll a few times a second.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "gateway/snapshot.h"
#include "knobs/knob.h"
#include "live/load_generator.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct LiveStackOptions {
    double rate_per_s = 100;
    std::size_t connections = 0;  // 0: the generator's default for the rate
    Duration duration = std::chrono::hours(24);
    // Called on the generator's thread once an interval (LoadConfig::interval).
    LoadGenerator::IntervalCallback on_interval;
    // Unless `load` is set, the load is the scenario's own arrivals (live/workload_plan.h) from
    // start_at, scaled so that the first hour (or all of a shorter run) averages rate_per_s
    // (live/load_scaling.h; beyond the knob's range, the rate it reaches, and notes() says so),
    // for `duration` or until the scenario's run ends.
    // The load to send instead (a twin run's plan, see twin.h).
    std::optional<LoadConfig> load;
    // Where on the scenario's clock the fleet and the gateway start: timeline events before it
    // apply at once.
    Duration start_at{};
};

// What the clients have seen so far.
struct LoadProgress {
    LoadCounts counts;
    double elapsed_s = 0;
    std::optional<double> corrected_p50_ms, corrected_p99_ms;
    std::optional<double> uncorrected_p50_ms, uncorrected_p99_ms;
    std::optional<double> lag_p99_ms;
    bool finished = false;  // the schedule is over and every request has answered
    std::string error;      // when the generator stopped on an error: what it was
};

class LiveStack {
public:
    // Binds both servers at once. Throws std::invalid_argument for a scenario of another lab, a
    // timeline either server cannot apply, or options out of range; std::runtime_error when a
    // server cannot listen.
    LiveStack(const Scenario& scenario, LiveStackOptions options);
    ~LiveStack();  // stop()s
    LiveStack(const LiveStack&) = delete;
    LiveStack& operator=(const LiveStack&) = delete;

    // Starts the fleet, the gateway, then the load on its own thread. Once only.
    void start();
    // Ends the load early (requests in flight finish or time out), then stops both servers.
    // Idempotent; snapshot() and the rest still answer afterwards.
    void stop();
    // Blocks until the load's schedule is over and its requests have answered (or stop()).
    void waitForLoad();
    // The same for at most `timeout`; true when the load has finished.
    bool waitForLoad(Duration timeout);
    bool running() const;

    gateway::GatewaySnapshot snapshot();
    LoadProgress load() const;
    // The generator's whole result; valid once the load has finished (waitForLoad() or stop()).
    const LoadResult& loadResult() const;
    const LoadConfig& loadConfig() const;

    // New knob values (all of the gateway lab's) from now on, for the gateway and the fleet.
    // Throws std::invalid_argument naming the knob (one that shapes the whole run, values that
    // contradict each other) before either changes.
    void applyParams(const Params& params);
    // The knobs the user moved, set on top of those in force at that moment (see
    // GatewayServer::applyChanges), then on the fleet; recorded as one timeline event.
    void applyChanges(const std::vector<KnobSetting>& changes);
    Params params();
    // A fault (scenario/timeline.h) put on the fleet now, for `duration_s` (nullopt: until
    // removed); returns its id. Throws std::invalid_argument for a target the fleet lacks or a
    // surge (which shapes arrivals).
    std::string injectFault(const Fault& fault, std::optional<double> duration_s, std::string label = {});
    // False when `id` is not in force.
    bool removeFault(const std::string& id);

    // Seconds since start() and on the snapshot's clock.
    double runSeconds() const;
    double nowSeconds();
    // The snapshot's clock at start().
    double startedAt();

    // The scenario with the run's own changes added to its timeline (seconds since start).
    Scenario scenarioOfRun(const std::string& name) const;
    std::string gatewayUrl() const;
    const Scenario& scenario() const;
    // What the live run does differently from the simulation, one sentence each.
    const std::vector<std::string>& notes() const;
    // How the rate asked for became the load_multiplier, when the load is the scenario's own
    // arrivals (not a given plan): the rate offered, and whether it is the one asked for.
    const std::optional<LoadScaling>& scaling() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
