#include "gateway/live_session.h"

#include <chrono>
#include <exception>

namespace taillab::ui {

LiveSession::LiveSession(QObject* parent)
    : QObject(parent), inbox_(this), thread_("taillab-live", [this] { poll(); }) {
    qRegisterMetaType<LiveFramePtr>();
}

LiveSession::~LiveSession() = default;

template <typename Job>
quint64 LiveSession::post(Job job) {
    const quint64 seq = ++seq_;
    thread_.post([this, seq, job = std::move(job)]() mutable {
        job();
        handled_ = seq;
        poll();  // a frame that reflects the command
        inbox_.post([this, seq] {
            handled_ui_ = seq;
            emit commandHandled(seq);
        });
    });
    return seq;
}

quint64 LiveSession::start(const Scenario& scenario, const live::LiveStackOptions& options) {
    return post([this, scenario, options] {
        stack_.reset();  // the previous run: stops and joins its threads
        faults_.clear();
        ++runId_;
        try {
            auto stack = std::make_unique<live::LiveStack>(scenario, options);
            stack->start();
            stack_ = std::move(stack);
            thread_.startTicking(std::chrono::milliseconds(kPollMs));
        } catch (const std::exception& e) {
            const QString what = QString::fromStdString(e.what());
            inbox_.post([this, what] { emit failed(tr("The live run did not start"), what); });
        }
    });
}

quint64 LiveSession::stop() {
    return post([this] {
        if (stack_) stack_->stop();
        thread_.stopTicking();
    });
}

quint64 LiveSession::applyChanges(const std::vector<KnobSetting>& changes) {
    return post([this, changes] {
        if (!stack_ || !stack_->running()) return;
        try {
            stack_->applyChanges(changes);  // merged with the knobs in force, on the gateway's loop
        } catch (const std::exception& e) {
            const QString what = QString::fromStdString(e.what());
            inbox_.post([this, what] { emit failed(tr("Knob change refused"), what); });
        }
    });
}

quint64 LiveSession::injectFault(const Fault& fault, std::optional<double> duration_s,
                                 std::string label) {
    return post([this, fault, duration_s, label = std::move(label)] {
        if (!stack_ || !stack_->running()) return;
        try {
            faults_.push_back(stack_->injectFault(fault, duration_s, label));
        } catch (const std::exception& e) {
            const QString what = QString::fromStdString(e.what());
            inbox_.post([this, what] { emit failed(tr("Fault refused"), what); });
        }
    });
}

quint64 LiveSession::removeFaults() {
    return post([this] {
        if (!stack_) return;
        // A fault whose duration ran out is no longer in force: removeFault says so, and that
        // is all.
        for (const std::string& id : faults_) stack_->removeFault(id);
        faults_.clear();
    });
}

void LiveSession::poll() {
    if (!stack_) return;
    auto g = std::make_shared<GatewayFrame>();
    g->snapshot = std::make_shared<const gateway::GatewaySnapshot>(stack_->snapshot());
    g->params = stack_->params();
    auto run = std::make_shared<Scenario>(stack_->scenarioOfRun(stack_->scenario().name));
    g->initialParams = run->params;
    g->seed = run->seed;
    g->timeline = std::make_shared<const Timeline>(run->timeline);
    g->commandSeq = handled_;
    g->runId = runId_;
    auto f = std::make_shared<LiveFrame>();
    f->running = stack_->running();
    g->playing = f->running;
    f->gateway = std::move(g);
    f->load = stack_->load();
    f->url = stack_->gatewayUrl();
    f->startedAt_s = stack_->startedAt();
    f->commandSeq = handled_;
    f->runId = runId_;
    f->runScenario = std::move(run);
    if (!f->running) thread_.stopTicking();  // stopped, or the load's duration is over
    LiveFramePtr frame = std::move(f);
    inbox_.post([this, frame] {
        latest_ = frame;
        emit frameArrived(frame);
    });
}

}  // namespace taillab::ui
