#include "gateway/gateway_worker.h"

#include <QTimer>
#include <algorithm>
#include <exception>
#include <stdexcept>

namespace taillab::ui {
namespace {

constexpr double kSliceTargetMs = 4;  // wall time one slice should take at full speed
constexpr double kMinSlice_s = 0.05;
constexpr double kMaxSlice_s = 6 * 3600;

}  // namespace

GatewayWorker::GatewayWorker(QObject* parent) : QObject(parent), timer_(new QTimer(this)) {
    timer_->setTimerType(Qt::PreciseTimer);
    connect(timer_, &QTimer::timeout, this, &GatewayWorker::tick);
    wall_.start();
}

GatewayWorker::~GatewayWorker() = default;

bool GatewayWorker::shapeDiffers(const Params& a, const Params& b) {
    for (const char* key : {"days", "start_day", "customers"})
        if (a.spec(key) && b.spec(key) && a.real(key) != b.real(key)) return true;
    return false;
}

void GatewayWorker::reset(quint64 seq, const Params& params, std::uint64_t seed,
                          const Timeline& timeline, bool play) {
    seq_ = std::max(seq_, seq);
    initial_ = params;
    seed_ = seed;
    scenario_ = timeline;
    seekTarget_.reset();
    ++runId_;
    try {
        rebuild(scenario_);
    } catch (const std::exception& e) {
        sim_.reset();
        lastSnapshot_.reset();
        playing_ = false;
        timer_->stop();
        emit failed(QString::fromStdString(e.what()));
        return;
    }
    playing_ = play;
    reanchor();
    publish(true);
    schedule();
}

void GatewayWorker::rebuild(const Timeline& timeline) {
    sim_.reset();
    sim_ = std::make_unique<gateway::GatewaySim>(initial_, seed_, timeline);
    timeline_ = std::make_shared<const Timeline>(sim_->timeline());
    simDirty_ = true;
}

void GatewayWorker::replay() {
    const Timeline recorded = sim_->timeline();
    rebuild(recorded);
}

void GatewayWorker::setPlaying(quint64 seq, bool playing) {
    seq_ = std::max(seq_, seq);
    if (!hasSim()) return;
    playing_ = playing;
    if (playing_ && sim_->finished() && !seekTarget_) {
        // Play at the end starts the run again, with the same knob changes at the same times.
        replay();
    }
    reanchor();
    publish(true);
    schedule();
}

void GatewayWorker::setSpeed(quint64 seq, double speed) {
    seq_ = std::max(seq_, seq);
    speed_ = std::max(0.0, speed);
    reanchor();
    if (hasSim()) publish(true);
    schedule();
}

void GatewayWorker::seek(quint64 seq, double t_s) {
    seq_ = std::max(seq_, seq);
    if (!hasSim()) return;
    const double target = std::clamp(t_s, 0.0, sim_->end_s());
    try {
        // After the end the clock has run on while the last requests finished: that is the end.
        if (target < std::min(sim_->now_s(), sim_->end_s())) replay();
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
        return;
    }
    seekTarget_ = target;
    if (sim_->now_s() >= target) {
        seekTarget_.reset();
        reanchor();
    }
    publish(true);
    schedule();
}

void GatewayWorker::applyParams(quint64 seq, const Params& params) {
    seq_ = std::max(seq_, seq);
    if (!hasSim() || shapeDiffers(params, sim_->params())) {
        if (hasSim())
            emit notice(tr("Days, first day and customers shape the whole run: it started again "
                           "from the beginning with the new knobs."));
        reset(seq, params, seed_, scenario_, playing_);
        return;
    }
    if (sim_->finished()) {
        // A timeline ends with the run: an edit after it is a new run.
        emit notice(tr("The run had ended: a new one starts from the beginning with the new "
                       "knobs."));
        reset(seq, params, seed_, scenario_, playing_);
        return;
    }
    try {
        sim_->applyParams(params);
    } catch (const std::invalid_argument& e) {
        // Either the knobs contradict each other (a new run would refuse them too) or one of
        // them cannot change mid-run (the workload's shape): then the run starts again.
        try {
            gateway::GatewaySim probe(params, seed_);
        } catch (const std::exception& refused) {
            emit failed(QString::fromStdString(refused.what()));
            publish(true);
            return;
        }
        emit notice(tr("%1: the run started again from the beginning with the new knobs.")
                        .arg(QString::fromStdString(e.what())));
        reset(seq, params, seed_, scenario_, playing_);
        return;
    }
    // A change rewrites the future: edits recorded after this moment (replayed since a seek
    // back) no longer apply; the scenario's own events still do.
    sim_->discardPendingChanges([this](const TimelineEvent& e) {
        return std::find(scenario_.events.begin(), scenario_.events.end(), e) ==
               scenario_.events.end();
    });
    timeline_ = std::make_shared<const Timeline>(sim_->timeline());
    simDirty_ = true;
    publish(true);
    schedule();
}

void GatewayWorker::stop() {
    timer_->stop();
    playing_ = false;
    seekTarget_.reset();
}

void GatewayWorker::tick() {
    if (!hasSim()) {
        timer_->stop();
        return;
    }
    QElapsedTimer budget;
    budget.start();
    try {
        if (seekTarget_) {
            advanceWithin(*seekTarget_, budget);
            if (sim_->now_s() >= *seekTarget_ || sim_->finished()) {
                seekTarget_.reset();
                reanchor();
                publish(true);
            }
        } else if (playing_) {
            const double elapsed_s =
                static_cast<double>(wall_.nsecsElapsed() - anchorWall_ns_) * 1e-9;
            const double target =
                speed_ > 0 ? std::min(anchorSim_s_ + speed_ * elapsed_s, sim_->end_s())
                           : sim_->end_s();
            advanceWithin(target, budget);
            // Falling behind (the simulator is slower than the speed asked for): carry on from
            // here rather than racing to catch up later.
            if (speed_ > 0 && sim_->now_s() < target && budget.elapsed() >= kTickBudgetMs)
                reanchor();
            if (sim_->finished()) {
                playing_ = false;
                publish(true);
            }
        }
    } catch (const std::exception& e) {
        playing_ = false;
        seekTarget_.reset();
        timer_->stop();
        emit failed(QString::fromStdString(e.what()));
        return;
    }
    publish(false);
    schedule();
}

void GatewayWorker::advanceWithin(double target_s, const QElapsedTimer& budget) {
    target_s = std::min(target_s, sim_->end_s());
    while (sim_->now_s() < target_s && !sim_->finished()) {
        const double next = std::min(target_s, sim_->now_s() + slice_s_);
        QElapsedTimer clock;
        clock.start();
        advanceTo(next);
        const double ms = static_cast<double>(clock.nsecsElapsed()) * 1e-6;
        if (next < target_s) {  // a full slice: learn how long slices take
            const double factor = std::clamp(kSliceTargetMs / std::max(ms, 0.01), 0.5, 2.0);
            slice_s_ = std::clamp(slice_s_ * factor, kMinSlice_s, kMaxSlice_s);
        }
        if (budget.elapsed() >= kTickBudgetMs) break;
    }
}

void GatewayWorker::advanceTo(double t_s) {
    sim_->advanceTo(t_s);
    if (sim_->finished()) sim_->drain();
    simDirty_ = true;
}

void GatewayWorker::reanchor() {
    anchorSim_s_ = hasSim() ? sim_->now_s() : 0;
    anchorWall_ns_ = wall_.nsecsElapsed();
}

void GatewayWorker::schedule() {
    const bool active = hasSim() && (seekTarget_ || (playing_ && !sim_->finished()));
    if (!active) {
        timer_->stop();
        return;
    }
    const int interval = (seekTarget_ || speed_ == 0) ? 0 : kTickMs;
    if (!timer_->isActive() || timer_->interval() != interval) timer_->start(interval);
}

void GatewayWorker::publish(bool force) {
    if (!hasSim()) return;
    if (!force && (!simDirty_ || (sincePublish_.isValid() &&
                                  sincePublish_.elapsed() < kPublishIntervalMs)))
        return;
    if (simDirty_ || !lastSnapshot_) {
        lastSnapshot_ = std::make_shared<const gateway::GatewaySnapshot>(sim_->snapshot());
        simDirty_ = false;
    }
    auto frame = std::make_shared<GatewayFrame>();
    frame->snapshot = lastSnapshot_;
    frame->params = sim_->params();
    frame->initialParams = initial_;
    frame->seed = seed_;
    frame->timeline = timeline_;
    frame->playing = playing_;
    frame->seeking = seekTarget_.has_value();
    frame->seekTarget_s = seekTarget_.value_or(sim_->now_s());
    frame->speed = speed_;
    frame->commandSeq = seq_;
    frame->runId = runId_;
    sincePublish_.start();
    emit frameReady(std::move(frame));
}

}  // namespace taillab::ui
