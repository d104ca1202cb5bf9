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

void GatewayWorker::reset(quint64 seq, const Params& params, std::uint64_t seed, bool play) {
    seq_ = std::max(seq_, seq);
    base_ = params;
    seed_ = seed;
    changes_.clear();
    seekTarget_.reset();
    ++runId_;
    try {
        rebuild();
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

void GatewayWorker::rebuild() {
    sim_.reset();
    sim_ = std::make_unique<gateway::GatewaySim>(base_, seed_);
    effective_ = base_;
    nextChange_ = 0;
    simDirty_ = true;
}

void GatewayWorker::setPlaying(quint64 seq, bool playing) {
    seq_ = std::max(seq_, seq);
    if (!hasSim()) return;
    playing_ = playing;
    if (playing_ && sim_->finished() && !seekTarget_) {
        // Play at the end starts the run again, with the same knob changes at the same times.
        rebuild();
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
        if (target < sim_->now_s()) rebuild();
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
    if (!hasSim() || shapeDiffers(params, effective_)) {
        if (hasSim())
            emit notice(tr("Days, first day and customers shape the whole run: it started again "
                           "from the beginning with the new knobs."));
        reset(seq, params, seed_, playing_);
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
        reset(seq, params, seed_, playing_);
        return;
    }
    // A change rewrites the future: recorded changes after this moment no longer apply.
    changes_.resize(nextChange_);
    changes_.push_back({sim_->now_s(), params});
    nextChange_ = changes_.size();
    effective_ = params;
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
    while (nextChange_ < changes_.size() && changes_[nextChange_].t_s <= t_s) {
        const KnobChange& c = changes_[nextChange_];
        sim_->advanceTo(c.t_s);
        sim_->applyParams(c.params);
        effective_ = c.params;
        ++nextChange_;
    }
    sim_->advanceTo(t_s);
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
    frame->params = effective_;
    frame->seed = seed_;
    frame->changeTimes.reserve(changes_.size());
    for (const KnobChange& c : changes_) frame->changeTimes.push_back(c.t_s);
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
