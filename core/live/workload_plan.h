// The scenario's own arrivals as a live load: the requests the simulation would send from
// `start_at` on (its customers' API keys, X-Region pins, endpoints, query texts, agent bursts and
// the timeline's surges, trace ids as X-Request-Id), each at its arrival time, produced a window
// at a time so that a run of any length holds one hour of them at most.
//
// The rate: every hour is scaled by one load_multiplier, chosen by scaleLoad (live/load_scaling.h)
// so that the run's first hour, or all of a shorter run, averages the rate asked for; the daily
// shape of the week follows from there. The knob's range (0.1 to 50) bounds what a rate can reach:
// beyond it the plan offers what it can, and its notes say so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/time.h"
#include "live/load_generator.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

namespace taillab::live {

class WorkloadPlan {
public:
    // Throws std::invalid_argument as scaleLoad does. `run_length` is how long the run lasts from
    // start_at (calibrationWindow says which part of it is made to average `rate_per_s`).
    WorkloadPlan(const Scenario& scenario, double rate_per_s, Duration start_at, Duration run_length);
    ~WorkloadPlan();
    WorkloadPlan(WorkloadPlan&&) noexcept;

    // The scenario as the plan draws it (load_multiplier set).
    const Scenario& scenario() const;
    const LoadScaling& scaling() const;
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
