// What the gateway session publishes to the UI: one immutable frame per publication (at most
// ~30 Hz, latest wins), holding the simulator's snapshot (whose `timeline` holds the marks the
// charts draw: knob changes, faults, breakers), what the run replays from (its first knobs, seed
// and timeline) and the playback state it was taken in.
#pragma once

#include <QMetaType>
#include <cstdint>
#include <memory>
#include <vector>

#include "gateway_sim/gateway_sim.h"
#include "knobs/knob.h"

namespace taillab::ui {

using GatewaySnapshotPtr = std::shared_ptr<const gateway::GatewaySnapshot>;

using TimelinePtr = std::shared_ptr<const Timeline>;

struct GatewayFrame {
    GatewaySnapshotPtr snapshot;
    Params params;         // in force at snapshot->now_s
    Params initialParams;  // what the run started with
    std::uint64_t seed = 0;
    // What the run applies (GatewaySim::timeline()): the scenario's events and the knob edits
    // made during the run, in replay order. With initialParams and seed it replays the run.
    TimelinePtr timeline;
    bool playing = false;
    bool seeking = false;      // advancing at full speed towards seekTarget_s
    double seekTarget_s = 0;
    double speed = 1;          // simulated seconds per wall second; 0 = as fast as it goes
    std::uint64_t commandSeq = 0;  // the last session command the worker had handled
    std::uint64_t runId = 0;       // bumped when the run is rebuilt from scratch (new params)
    // A/B: the companion run (its own knobs and timeline, the same seed, so the same arrivals and
    // upstream luck) advanced to the same simulated moment in the same worker; null without one.
    GatewaySnapshotPtr compare;
    Params compareParams;  // in force at compare->now_s

    bool finished() const { return snapshot && snapshot->now_s >= snapshot->end_s; }
};

using GatewayFramePtr = std::shared_ptr<const GatewayFrame>;

}  // namespace taillab::ui

Q_DECLARE_METATYPE(taillab::ui::GatewayFramePtr)
