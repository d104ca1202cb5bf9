// The scenario's own arrivals as a live load: the requests the simulation would send from
// `start_at` on (its customers' API keys, X-Region pins, endpoints, query texts, agent bursts and
// the timeline's surges, trace ids as X-Request-Id), each at its arrival time, produced a window
// at a time so that a run of any length holds one hour of them at most.
//
// The rate: every hour is scaled by one load_multiplier, chosen so that a given window's mean rate
// is about the one asked for (a twin run's whole window; a live run's first hour); the daily shape
// of the week follows from there. The knob's range (0.1 to 50) bounds what a rate can reach.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/time.h"
#include "live/load_generator.h"
#include "scenario/scenario.h"

namespace taillab::live {

class WorkloadPlan {
public:
    // Throws std::invalid_argument for a scenario of another lab, a rate <= 0, a start outside the
    // scenario's run, or a calibration window with no arrivals. `calibrate` is the window (from
    // start_at) whose mean rate is made `rate_per_s`.
    WorkloadPlan(const Scenario& scenario, double rate_per_s, Duration start_at, Duration calibrate);
    ~WorkloadPlan();
    WorkloadPlan(WorkloadPlan&&) noexcept;

    // The scenario as the plan draws it (load_multiplier set).
    const Scenario& scenario() const;
    double loadMultiplier() const;
    // What differs from the rate asked for, one sentence each.
    const std::vector<std::string>& notes() const;
    // How long the scenario's run lasts after start_at.
    Duration remaining() const;
    // Appends the requests with times in [from, to) since the start, in time order. Calls must
    // come in time order (`from` at least the previous `to`).
    void fill(Duration from, Duration to, std::vector<PlannedRequest>& out);
    // As a LoadConfig's plan_source (the plan is shared with it).
    static PlanSource source(std::shared_ptr<WorkloadPlan> plan);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
