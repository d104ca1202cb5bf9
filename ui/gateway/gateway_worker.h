// The object that lives on the gateway session's thread and owns the GatewaySim. It advances the
// simulator in slices of simulated time so that simulated time tracks wall time x speed (or as
// fast as it goes), applies knob changes at the moment they are made (GatewaySim records each on
// its timeline), seeks (forward: advance; backward: rebuild GatewaySim(initialParams, seed,
// timeline) from the run's own record, so the scenario's events and the edits apply again at
// their times, and advance), lets the requests in flight at the end finish (as the lab run
// does, so the final snapshot is the one `taillab-cli run` reports), and publishes frames at
// most every kPublishIntervalMs.
//
// Commands arrive as queued calls carrying small values and a sequence number; every frame
// carries the number of the last command handled, so the controller (and tests) know when a
// command has taken effect. Between slices control returns to the thread's event loop, so a
// command is never stuck behind a long advance. The worker never touches widgets.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "gateway/gateway_frame.h"

class QTimer;

namespace taillab::ui {

class GatewayWorker : public QObject {
    Q_OBJECT
  public:
    static constexpr int kPublishIntervalMs = 33;  // ~30 Hz
    static constexpr int kTickMs = 10;             // pacing tick at N x real time
    static constexpr int kTickBudgetMs = 20;       // wall time one tick may spend advancing

    explicit GatewayWorker(QObject* parent = nullptr);
    ~GatewayWorker() override;

    // Commands; each runs on the worker's thread.
    void reset(quint64 seq, const Params& params, std::uint64_t seed, const Timeline& timeline,
               bool play);
    void setPlaying(quint64 seq, bool playing);
    void setSpeed(quint64 seq, double speed);
    void seek(quint64 seq, double t_s);
    // Applies from the current simulated moment; edits recorded after it (replayed since a seek
    // back) are dropped, the scenario's own events stay. A knob that cannot change mid-run (the
    // workload's shape: days, first day, customers, load, ...) restarts the run with the new
    // params instead, and says so through notice().
    void applyParams(quint64 seq, const Params& params);
    void stop();

    // The knobs that cannot change mid-run.
    static bool shapeDiffers(const Params& a, const Params& b);

  signals:
    void frameReady(taillab::ui::GatewayFramePtr frame);
    void failed(QString message);
    void notice(QString message);

  private:
    void tick();
    // A new GatewaySim from the run's first knobs and seed, applying `timeline`.
    void rebuild(const Timeline& timeline);
    // Rebuilds from the run's own record: it replays what has happened so far.
    void replay();
    // Advances towards `target_s` in slices until it is reached or `budget` is spent.
    void advanceWithin(double target_s, const QElapsedTimer& budget);
    // Advances to t_s exactly; at the end, lets the requests in flight finish.
    void advanceTo(double t_s);
    void reanchor();
    void schedule();
    void publish(bool force);
    bool hasSim() const { return sim_ != nullptr; }

    std::unique_ptr<gateway::GatewaySim> sim_;
    Params initial_;
    std::uint64_t seed_ = 1;
    Timeline scenario_;               // the scenario's own events (an edit never drops them)
    TimelinePtr timeline_;            // sim_->timeline(), as frames carry it
    bool playing_ = false;
    double speed_ = 1;                 // 0 = as fast as it goes
    std::optional<double> seekTarget_;
    double slice_s_ = 60;              // adaptive slice of simulated time at full speed
    double anchorSim_s_ = 0;
    qint64 anchorWall_ns_ = 0;
    QElapsedTimer wall_;
    QElapsedTimer sincePublish_;
    GatewaySnapshotPtr lastSnapshot_;
    bool simDirty_ = true;             // sim_ moved since lastSnapshot_
    quint64 seq_ = 0;
    quint64 runId_ = 0;
    QTimer* timer_ = nullptr;
};

}  // namespace taillab::ui
