// The object that lives on the gateway session's thread and owns the GatewaySim. It advances the
// simulator in slices of simulated time so that simulated time tracks wall time x speed (or as
// fast as it goes), applies knob changes at the moment they are made (GatewaySim records each on
// its timeline), seeks (forward: advance; backward: rebuild GatewaySim(initialParams, seed,
// timeline) from the run's own record, so the scenario's events and the edits apply again at
// their times, and advance), lets the requests in flight at the end finish (as the lab run
// does, so the final snapshot is the one `taillab-cli run` reports), and publishes frames at
// most every kPublishIntervalMs, or less often when taking a frame's snapshots is slow (a large
// run, a slow machine, a sanitizer build), so that they take at most a fifth of its time.
//
// Commands arrive as jobs posted to its WorkerThread (ui_threads.h), carrying small values and a
// sequence number; every frame carries the number of the last command handled, so the session
// (and tests) know when a command has taken effect. Pacing is the thread's tick; between ticks
// the thread runs the jobs waiting, so a command is never stuck behind a long advance. The worker
// uses no Qt at all: what it reports goes out through the callbacks, which the session points at
// its UiInbox.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway_frame.h"

namespace taillab::ui {

class WorkerThread;

class GatewayWorker {
  public:
    // Why a run started again from the beginning; the session words it for the user.
    enum class Restart {
        Shape,    // days, first day or customers changed: they shape the whole run
        Ended,    // a knob changed after the run had ended
        Refused,  // GatewaySim refused the change mid-run (detail says why)
    };
    struct Callbacks {
        std::function<void(GatewayFramePtr)> frame;
        std::function<void(std::string)> failed;
        std::function<void(Restart, std::string detail)> restarted;
    };
    using Clock = std::chrono::steady_clock;
    // A/B: a second run advanced in lockstep with the first (same seed: same arrivals, same
    // upstream luck), published in the same frames. Knob edits and seeks apply to the first;
    // a seek back rebuilds both.
    struct Companion {
        Params params;
        Timeline timeline;
    };

    static constexpr int kPublishIntervalMs = 33;  // ~30 Hz
    static constexpr int kPublishCostFactor = 5;   // frames at least this many snapshot times apart
    static constexpr int kTickMs = 10;             // pacing tick at N x real time
    static constexpr int kTickBudgetMs = 20;       // wall time one tick may spend advancing

    explicit GatewayWorker(Callbacks callbacks);
    ~GatewayWorker();
    // The thread whose tick paces this worker (its tick calls tick()). Set once, before any
    // command is posted.
    void attach(WorkerThread* thread) { thread_ = thread; }

    // Commands; each runs on the worker's thread.
    // `companion`: the run to compare with, or none. The two must cover the same days.
    void reset(std::uint64_t seq, const Params& params, std::uint64_t seed, const Timeline& timeline,
               bool play, const std::optional<Companion>& companion = std::nullopt);
    void setPlaying(std::uint64_t seq, bool playing);
    void setSpeed(std::uint64_t seq, double speed);
    void seek(std::uint64_t seq, double t_s);
    // The knobs the user moved (key -> value), from the current simulated moment on, merged into
    // the knobs in force then: a knob the timeline set and the user did not touch keeps the
    // timeline's value. Edits recorded after this moment (replayed since a seek back) are
    // dropped, the scenario's own events stay. A change that cannot apply mid-run (the workload's
    // shape: days, first day, customers; a change after the end; one GatewaySim refuses) starts
    // the run again from its first knobs with `changes` merged in (never from the knobs in
    // force, on which the timeline would apply a second time), and says so through restarted().
    void applyChanges(std::uint64_t seq, const std::vector<KnobSetting>& changes);
    // A new run from this run's first knobs with `changes` merged in, on `seed`, with the
    // scenario's timeline and the same companion.
    void restart(std::uint64_t seq, const std::vector<KnobSetting>& changes, std::uint64_t seed,
                 bool play);
    // The pacing tick: advances towards the target time within kTickBudgetMs.
    void tick();

    // The knobs that cannot change mid-run.
    static bool shapeDiffers(const Params& a, const Params& b);

  private:
    // A new GatewaySim from the run's first knobs and seed, applying `timeline`.
    void rebuild(const Timeline& timeline);
    // Rebuilds from the run's own record: it replays what has happened so far.
    void replay();
    // Advances towards `target_s` in slices until it is reached or `budget` is spent.
    void advanceWithin(double target_s, Clock::time_point started);
    // Advances to t_s exactly; at the end, lets the requests in flight finish.
    void advanceTo(double t_s);
    void reanchor();
    void schedule();
    void publish(bool force);
    bool hasSim() const { return sim_ != nullptr; }

    std::unique_ptr<gateway::GatewaySim> sim_;
    std::optional<Companion> companion_;
    std::unique_ptr<gateway::GatewaySim> other_;  // the companion's run, when there is one
    GatewaySnapshotPtr lastOther_;
    Params initial_;
    std::uint64_t seed_ = 1;
    Timeline scenario_;               // the scenario's own events (an edit never drops them)
    TimelinePtr timeline_;            // sim_->timeline(), as frames carry it
    bool playing_ = false;
    double speed_ = 1;                 // 0 = as fast as it goes
    std::optional<double> seekTarget_;
    double slice_s_ = 60;              // adaptive slice of simulated time at full speed
    double anchorSim_s_ = 0;
    Clock::time_point anchorWall_ = Clock::now();
    std::optional<Clock::time_point> lastPublish_;
    double snapshotMs_ = 0;            // what taking the last frame's snapshots took
    GatewaySnapshotPtr lastSnapshot_;
    bool simDirty_ = true;             // sim_ moved since lastSnapshot_
    std::uint64_t seq_ = 0;
    std::uint64_t runId_ = 0;
    Callbacks callbacks_;
    WorkerThread* thread_ = nullptr;
};

}  // namespace taillab::ui
