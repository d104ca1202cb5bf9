// GatewaySim: the simulation driver of the gateway (gateway/gateway.h). It runs the same Gateway
// the live driver runs, against a simulated upstream fleet (fleet/) and a simulated week of
// traffic (workload/), on a virtual clock: a discrete-event loop that feeds the gateway arrivals,
// upstream answers and its timers, and charges modelled stage costs when the gateway asks its
// clock (Port::stageEnd). Seeded and deterministic: the same params, seed and timeline give the
// same bytes. Randomness is keyed per request and purpose (see base/rng.h streamKey), so two runs
// with the same seed see the same arrivals and the same upstream luck whatever their knobs.
//
// A caller advances it in slices of simulated time (advanceTo), reads immutable snapshots between
// slices (snapshot), and may change knobs mid-run (applyParams): a change applies from the
// simulated moment it is made, after every event at or before that moment, and is recorded in
// the snapshot's timeline. The GUI's gateway view uses this directly for play / pause / speed /
// seek; the "gateway" lab wraps it for the CLI, scenario files and sweeps.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <functional>

#include "gateway/contract.h"
#include "gateway/snapshot.h"
#include "knobs/knob.h"
#include "scenario/timeline.h"
#include "sim/run_control.h"
#include "workload/workload.h"

namespace taillab::gateway {

class GatewaySim {
public:
    // Throws std::invalid_argument when the knobs contradict each other, and TimelineError (at
    // the event's JSON path) when a timeline event cannot apply: a knob change that would
    // contradict the knobs in force then, a name the fleet does not have. Everything is checked
    // before the run starts.
    //
    // `start_s` starts the run later than the first day's 00:00, with nothing in flight and empty
    // caches: its hour's arrivals before it are left out, and timeline events before it apply at
    // the start (a twin run at a busy hour). Throws std::invalid_argument outside the run.
    GatewaySim(const Params& params, std::uint64_t seed, const Timeline& timeline = {}, double start_s = 0);
    ~GatewaySim();
    GatewaySim(const GatewaySim&) = delete;
    GatewaySim& operator=(const GatewaySim&) = delete;

    // Every knob of the gateway path, fleet and workload, with units, ranges and help.
    static std::vector<KnobSpec> knobs();

    double now_s() const;
    double end_s() const;
    bool finished() const;
    // Runs events up to simulated time t (clamped to the end). Polls `control` (when given) every
    // few thousand events; returns false when it was cancelled.
    bool advanceTo(double t_s, RunControl* control = nullptr);
    // After the end: lets the requests still in flight finish (no new arrivals), so the final
    // snapshot has none in flight.
    bool drain(RunControl* control = nullptr);
    // Ends the run early at t_s: runs to it, then lets the requests in flight finish with no new
    // arrivals, probes or timeline events. For a run shorter than the scenario's days (the
    // simulated half of a twin run).
    bool finishAt(double t_s, RunControl* control = nullptr);
    // Changes knobs from the current simulated moment on, after every event at or before it (as
    // a timeline event at this moment would). Workload-shape knobs (days, start day, customers)
    // cannot change mid-run and throw std::invalid_argument; so do contradictory knobs. The
    // change is recorded in timeline(), labelled as a scenario file would label it.
    void applyParams(const Params& params);
    const Params& params() const;
    const Params& initialParams() const;
    // What the run applies: the timeline it was built with, and every change made since with
    // applyParams at the moment it was made. Saved with initialParams() into a scenario, it
    // replays this run exactly.
    const Timeline& timeline() const;
    // Forgets the knob changes of the timeline the run was built with that have not applied yet
    // and for which `which` holds: they will not apply, and timeline() leaves them out. Faults
    // stay. For a driver that replays a run with its edits and then rewrites its future (the
    // GUI: an edit after a seek back replaces the edits recorded after that moment).
    void discardPendingChanges(const std::function<bool(const TimelineEvent&)>& which);

    GatewaySnapshot snapshot() const;

    // For tests and tail attribution: every arrival as it is delivered, every upstream call
    // with the latency the fleet drew for it (before any queueing at the engine) and when it
    // left for the engine (`launched`: after any wait for an engine slot), every stage's work
    // with its start and end (the end includes any wait for a CPU), and every response. Also,
    // for attribution: a call that found its engine at engine_capacity and waits in its queue
    // (`queued`, from `at`: launched later, or cancelled there), the failure the fleet drew for
    // each launched call (None: a page), a call cancelled while in the air or while it waited
    // in the queue (its request answered, or another call won), and the gateway's notes (a
    // spill refused, a hedge the budget denied).
    struct Observer {
        std::function<void(const RequestSpec&)> arrival;
        std::function<void(const UpstreamCall&, Duration latency)> call;
        std::function<void(const UpstreamCall&, Time at)> queued;
        std::function<void(const UpstreamCall&, Time launched, Duration latency)> launched;
        std::function<void(const UpstreamCall&, CallFailure failure)> answer;
        std::function<void(const UpstreamCall&, Time at)> cancelled;
        std::function<void(const RequestNote&)> note;
        std::function<void(const StageWork&, Time start, Time end)> stage;
        std::function<void(const Response&)> response;
    };
    void setObserver(Observer observer);

    // Charges every stage's work `ms[stage]` (the engines' stage apart: its time is the upstream
    // calls') instead of the modelled costs, with no modelled trip to another region: the costs
    // a live gateway measured, for the simulated half of a twin run, so that the two compare the
    // gateway's logic and the fleet rather than the cost model. Before the run advances. Throws
    // std::invalid_argument for a cost below 0.
    void chargeStageCosts(const std::array<double, kStages>& ms);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::gateway
