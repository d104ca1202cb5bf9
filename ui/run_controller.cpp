#include "run_controller.h"

#include "run_worker.h"

namespace taillab::ui {

void registerUiMetaTypes() { qRegisterMetaType<LabResultPtr>("taillab::ui::LabResultPtr"); }

RunController::RunController(QObject* parent) : QObject(parent) {
    registerUiMetaTypes();
    thread_.setObjectName("taillab-run");
    worker_ = new RunWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &RunWorker::partial, this, &RunController::onPartial, Qt::QueuedConnection);
    connect(worker_, &RunWorker::progress, this, &RunController::onProgress, Qt::QueuedConnection);
    connect(worker_, &RunWorker::finished, this, &RunController::onFinished, Qt::QueuedConnection);
    connect(worker_, &RunWorker::failed, this, &RunController::onFailed, Qt::QueuedConnection);
    thread_.start();
}

RunController::~RunController() {
    if (control_) control_->requestCancel();
    thread_.quit();
    thread_.wait();
}

quint64 RunController::start(const Scenario& scenario) {
    if (control_) control_->requestCancel();
    control_ = std::make_shared<RunControl>();
    const quint64 generation = ++generation_;
    running_ = true;
    clock_.start();
    auto job = std::make_shared<const Scenario>(scenario);
    RunWorker* worker = worker_;
    QMetaObject::invokeMethod(
        worker_,
        [worker, generation, job, control = control_] { worker->run(generation, job, control); },
        Qt::QueuedConnection);
    emit started(generation);
    return generation;
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

void RunController::onFailed(quint64 generation, const QString& message) {
    if (generation != generation_) return;
    running_ = false;
    control_.reset();
    emit failed(message);
}

}  // namespace taillab::ui
