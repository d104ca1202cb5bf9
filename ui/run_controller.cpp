#include "run_controller.h"

#include <chrono>
#include <exception>

#include "run/runner.h"

namespace taillab::ui {

void registerUiMetaTypes() { qRegisterMetaType<LabResultPtr>("taillab::ui::LabResultPtr"); }

RunController::RunController(QObject* parent) : QObject(parent), worker_("taillab-run") {
    registerUiMetaTypes();
}

RunController::~RunController() {
    if (control_) control_->requestCancel();
}  // worker_ joins (the run in flight sees the cancel), then inbox_ drops what it still holds

quint64 RunController::start(const Scenario& scenario) {
    if (control_) control_->requestCancel();
    control_ = std::make_shared<RunControl>();
    const quint64 generation = ++generation_;
    running_ = true;
    clock_.start();
    auto job = std::make_shared<const Scenario>(scenario);
    worker_.post([this, generation, job, control = control_] {
        runJob(generation, *job, *control);
    });
    emit started(generation);
    return generation;
}

void RunController::runJob(quint64 generation, const Scenario& scenario, RunControl& control) {
    using Clock = std::chrono::steady_clock;
    if (control.cancelRequested()) {
        inbox_.post([this, generation] { onFinished(generation, nullptr, true, 0.0); });
        return;
    }
    const auto start = Clock::now();
    const auto interval = std::chrono::milliseconds(kMinEmitIntervalMs);
    std::optional<Clock::time_point> lastProgress;
    // The first partial waits as long as the interval too: a run that finishes within it shows
    // only its final result, drawn once.
    Clock::time_point lastPartial = start;
    control.onProgress = [&](double fraction) {
        const auto now = Clock::now();
        if (lastProgress && now - *lastProgress < interval) return;
        lastProgress = now;
        inbox_.post([this, generation, fraction] { onProgress(generation, fraction); });
    };
    const PartialSink sink = [&](const LabResult& r) {
        if (control.cancelRequested()) return;
        const auto now = Clock::now();
        if (now - lastPartial < interval) return;
        lastPartial = now;
        inbox_.post([this, generation, result = std::make_shared<const LabResult>(r)] {
            onPartial(generation, result);
        });
    };
    try {
        LabResult result = runScenario(scenario, control, sink);
        const bool cancelled = result.cancelled || control.cancelRequested();
        control.onProgress = nullptr;
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        inbox_.post([this, generation, cancelled, seconds,
                     r = std::make_shared<const LabResult>(std::move(result))] {
            onFinished(generation, r, cancelled, seconds);
        });
    } catch (const std::exception& e) {
        control.onProgress = nullptr;
        inbox_.post([this, generation, message = std::string(e.what())] {
            onFailed(generation, message);
        });
    }
}

void RunController::cancel() {
    if (control_ && running_) control_->requestCancel();
}

double RunController::elapsedSeconds() const {
    return clock_.isValid() ? static_cast<double>(clock_.nsecsElapsed()) * 1e-9 : 0.0;
}

void RunController::onPartial(quint64 generation, LabResultPtr result) {
    if (generation != generation_ || !running_ || !result) return;
    emit partialResult(std::move(result));
}

void RunController::onProgress(quint64 generation, double fraction) {
    if (generation != generation_ || !running_) return;
    emit progressChanged(fraction);
}

void RunController::onFinished(quint64 generation, LabResultPtr result, bool cancelled,
                               double seconds) {
    if (generation != generation_) return;
    running_ = false;
    control_.reset();
    if (cancelled) {
        emit this->cancelled(std::move(result), seconds);
    } else {
        emit finished(std::move(result), seconds);
    }
}

void RunController::onFailed(quint64 generation, const std::string& message) {
    if (generation != generation_) return;
    running_ = false;
    control_.reset();
    emit failed(QString::fromStdString(message));
}

}  // namespace taillab::ui
