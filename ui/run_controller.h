// Runs scenarios off the UI thread. Lives on the UI thread and owns a WorkerThread (ui_threads.h)
// that runs one scenario at a time through taillab::runScenario.
//
// Commands go in as small values (a Scenario copy) posted to the worker; results come back as
// immutable snapshots (LabResultPtr) at no more than ~30 Hz, posted to the UI thread through a
// UiInbox, never through Qt's queued calls. Latest wins: start() while a run is in flight cancels
// that run and starts the new one, and results of any run but the latest are dropped, so an older
// run can never be shown over a newer one.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <memory>
#include <string>

#include "lab_result_ptr.h"
#include "scenario/scenario.h"
#include "sim/run_control.h"
#include "ui_threads.h"

namespace taillab::ui {

class RunController : public QObject {
    Q_OBJECT
  public:
    // At most one partial result and one progress report per this interval (about 30 Hz).
    static constexpr int kMinEmitIntervalMs = 33;

    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // Starts a run of `scenario`, cancelling the one in flight. Returns the run's generation.
    quint64 start(const Scenario& scenario);
    // Asks the current run to stop; it reports through cancelled().
    void cancel();
    bool running() const { return running_; }
    quint64 generation() const { return generation_; }
    // Seconds since the current (or last) run started.
    double elapsedSeconds() const;

  signals:
    void started(quint64 generation);
    void progressChanged(double fraction);
    void partialResult(taillab::ui::LabResultPtr result);
    void finished(taillab::ui::LabResultPtr result, double seconds);
    // `result` is what the run had when it stopped (may be null).
    void cancelled(taillab::ui::LabResultPtr result, double seconds);
    void failed(QString message);

  private:
    // On the worker thread: runs one scenario, posting what it reports to the UI thread.
    void runJob(quint64 generation, const Scenario& scenario, RunControl& control);
    // On the UI thread.
    void onPartial(quint64 generation, LabResultPtr result);
    void onProgress(quint64 generation, double fraction);
    void onFinished(quint64 generation, LabResultPtr result, bool cancelled, double seconds);
    void onFailed(quint64 generation, const std::string& message);

    UiInbox inbox_;        // destroyed after worker_, which posts to it, has been joined
    WorkerThread worker_;
    std::shared_ptr<RunControl> control_;
    quint64 generation_ = 0;
    bool running_ = false;
    QElapsedTimer clock_;
};

}  // namespace taillab::ui
