#include "gateway/gateway_worker.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "gateway_sim/sim_config.h"
#include "ui_threads.h"

namespace taillab::ui {
namespace {

constexpr double kSliceTargetMs = 4;  // wall time one slice should take at full speed
constexpr double kMinSlice_s = 0.05;
constexpr double kMaxSlice_s = 6 * 3600;

double msSince(GatewayWorker::Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(GatewayWorker::Clock::now() - t).count();
}

// `base` with `changes` set; throws std::invalid_argument for a value out of its knob's range.
Params withChanges(Params base, const std::vector<KnobSetting>& changes) {
    for (const KnobSetting& c : changes) base.set(c.key, c.value);
    return base;
}

// Why a run cannot take `to` from `from` mid-run, in the knob panel's words: "Load multiplier and
// Agent bursts cannot change during a run". Empty when no knob fixed for a run differs.
std::string fixedKnobsChanged(const Params& from, const Params& to) {
    std::vector<std::string> labels;
    for (const std::string& k : gateway::fixedRunKnobs()) {
        const KnobSpec* spec = to.spec(k);
        if (spec && from.spec(k) && from.real(k) != to.real(k)) labels.push_back(spec->label);
    }
    if (labels.empty()) return {};
    std::string list = labels.front();
    for (std::size_t i = 1; i < labels.size(); ++i)
        list += (i + 1 == labels.size() ? " and " : ", ") + labels[i];
    return list + " cannot change during a run";
}

}  // namespace

GatewayWorker::GatewayWorker(Callbacks callbacks) : callbacks_(std::move(callbacks)) {}

GatewayWorker::~GatewayWorker() = default;

bool GatewayWorker::shapeDiffers(const Params& a, const Params& b) {
    for (const char* key : {"days", "start_day", "customers"})
        if (a.spec(key) && b.spec(key) && a.real(key) != b.real(key)) return true;
    return false;
}

void GatewayWorker::reset(std::uint64_t seq, const Params& params, std::uint64_t seed,
                          const Timeline& timeline, bool play,
                          const std::optional<Companion>& companion) {
    seq_ = std::max(seq_, seq);
    initial_ = params;
    seed_ = seed;
    scenario_ = timeline;
    companion_ = companion;
    seekTarget_.reset();
    ++runId_;
    try {
        if (companion_ && shapeDiffers(params, companion_->params))
            throw std::invalid_argument(
                "the two runs compared must cover the same days, first day and customers");
        rebuild(scenario_);
    } catch (const std::exception& e) {
        sim_.reset();
        other_.reset();
        lastSnapshot_.reset();
        lastOther_.reset();
        playing_ = false;
        thread_->stopTicking();
        callbacks_.failed(e.what());
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
    other_.reset();
    if (companion_)
        other_ = std::make_unique<gateway::GatewaySim>(companion_->params, seed_, companion_->timeline);
    timeline_ = std::make_shared<const Timeline>(sim_->timeline());
    simDirty_ = true;
}

void GatewayWorker::replay() {
    const Timeline recorded = sim_->timeline();
    rebuild(recorded);
}

void GatewayWorker::setPlaying(std::uint64_t seq, bool playing) {
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

void GatewayWorker::setSpeed(std::uint64_t seq, double speed) {
    seq_ = std::max(seq_, seq);
    speed_ = std::max(0.0, speed);
    reanchor();
    if (hasSim()) publish(true);
    schedule();
}

void GatewayWorker::seek(std::uint64_t seq, double t_s) {
    seq_ = std::max(seq_, seq);
    if (!hasSim()) return;
    const double target = std::clamp(t_s, 0.0, sim_->end_s());
    try {
        // After the end the clock has run on while the last requests finished: that is the end.
        if (target < std::min(sim_->now_s(), sim_->end_s())) replay();
    } catch (const std::exception& e) {
        callbacks_.failed(e.what());
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

void GatewayWorker::restart(std::uint64_t seq, const std::vector<KnobSetting>& changes,
                            std::uint64_t seed, bool play) {
    Params first;
    try {
        first = withChanges(initial_, changes);
    } catch (const std::invalid_argument& e) {
        seq_ = std::max(seq_, seq);
        callbacks_.failed(e.what());
        publish(true);
        return;
    }
    reset(seq, first, seed, scenario_, play, companion_);
}

void GatewayWorker::applyChanges(std::uint64_t seq, const std::vector<KnobSetting>& changes) {
    seq_ = std::max(seq_, seq);
    if (!hasSim()) {  // the last start was refused: try again with the changes
        restart(seq, changes, seed_, playing_);
        return;
    }
    Params now;
    try {
        now = withChanges(sim_->params(), changes);
    } catch (const std::invalid_argument& e) {
        callbacks_.failed(e.what());
        publish(true);
        return;
    }
    if (shapeDiffers(now, sim_->params())) {
        callbacks_.restarted(Restart::Shape, {});
        restart(seq, changes, seed_, playing_);
        return;
    }
    if (sim_->finished()) {
        // A timeline ends with the run: an edit after it is a new run.
        callbacks_.restarted(Restart::Ended, {});
        restart(seq, changes, seed_, playing_);
        return;
    }
    try {
        sim_->applyParams(now);
    } catch (const std::invalid_argument& e) {
        // Either the knobs contradict each other (a new run would refuse them too) or one of
        // them cannot change mid-run (the workload's shape): then the run starts again.
        try {
            gateway::GatewaySim probe(withChanges(initial_, changes), seed_);
        } catch (const std::exception& refused) {
            callbacks_.failed(refused.what());
            publish(true);
            return;
        }
        const std::string fixed = fixedKnobsChanged(sim_->params(), now);
        callbacks_.restarted(Restart::Refused, fixed.empty() ? e.what() : fixed);
        restart(seq, changes, seed_, playing_);
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

void GatewayWorker::tick() {
    if (!hasSim()) {
        thread_->stopTicking();
        return;
    }
    const Clock::time_point started = Clock::now();
    try {
        if (seekTarget_) {
            advanceWithin(*seekTarget_, started);
            if (sim_->now_s() >= *seekTarget_ || sim_->finished()) {
                seekTarget_.reset();
                reanchor();
                publish(true);
            }
        } else if (playing_) {
            const double elapsed_s = msSince(anchorWall_) * 1e-3;
            const double target =
                speed_ > 0 ? std::min(anchorSim_s_ + speed_ * elapsed_s, sim_->end_s())
                           : sim_->end_s();
            advanceWithin(target, started);
            // Falling behind (the simulator is slower than the speed asked for): carry on from
            // here rather than racing to catch up later.
            if (speed_ > 0 && sim_->now_s() < target && msSince(started) >= kTickBudgetMs)
                reanchor();
            if (sim_->finished()) {
                playing_ = false;
                publish(true);
            }
        }
    } catch (const std::exception& e) {
        playing_ = false;
        seekTarget_.reset();
        thread_->stopTicking();
        callbacks_.failed(e.what());
        return;
    }
    publish(false);
    schedule();
}

void GatewayWorker::advanceWithin(double target_s, Clock::time_point started) {
    target_s = std::min(target_s, sim_->end_s());
    while (sim_->now_s() < target_s && !sim_->finished()) {
        const double next = std::min(target_s, sim_->now_s() + slice_s_);
        const Clock::time_point sliceStart = Clock::now();
        advanceTo(next);
        const double ms = msSince(sliceStart);
        if (next < target_s) {  // a full slice: learn how long slices take
            const double factor = std::clamp(kSliceTargetMs / std::max(ms, 0.01), 0.5, 2.0);
            slice_s_ = std::clamp(slice_s_ * factor, kMinSlice_s, kMaxSlice_s);
        }
        if (msSince(started) >= kTickBudgetMs) break;
    }
}

void GatewayWorker::advanceTo(double t_s) {
    sim_->advanceTo(t_s);
    if (sim_->finished()) sim_->drain();
    if (other_) {
        other_->advanceTo(t_s);
        if (other_->finished()) other_->drain();
    }
    simDirty_ = true;
}

void GatewayWorker::reanchor() {
    anchorSim_s_ = hasSim() ? sim_->now_s() : 0;
    anchorWall_ = Clock::now();
}

void GatewayWorker::schedule() {
    const bool active = hasSim() && (seekTarget_ || (playing_ && !sim_->finished()));
    if (!active) {
        thread_->stopTicking();
        return;
    }
    thread_->startTicking(std::chrono::milliseconds((seekTarget_ || speed_ == 0) ? 0 : kTickMs));
}

void GatewayWorker::publish(bool force) {
    if (!hasSim()) return;
    const double interval_ms = std::max<double>(kPublishIntervalMs, kPublishCostFactor * snapshotMs_);
    if (!force && (!simDirty_ || (lastPublish_ && msSince(*lastPublish_) < interval_ms))) return;
    if (simDirty_ || !lastSnapshot_) {
        const Clock::time_point started = Clock::now();
        lastSnapshot_ = std::make_shared<const gateway::GatewaySnapshot>(sim_->snapshot());
        lastOther_ = other_ ? std::make_shared<const gateway::GatewaySnapshot>(other_->snapshot())
                            : nullptr;
        simDirty_ = false;
        snapshotMs_ = msSince(started);
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
    frame->compare = lastOther_;
    if (other_) frame->compareParams = other_->params();
    lastPublish_ = Clock::now();
    callbacks_.frame(std::move(frame));
}

}  // namespace taillab::ui
