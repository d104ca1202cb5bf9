// Runs scenarios off the UI thread. Lives on the UI thread and owns a QThread with a RunWorker.
//
// Commands go in as small values (a Scenario copy) through a queued call; results come back as
// immutable snapshots (LabResultPtr) at no more than ~30 Hz. Latest wins: start() while a run is
// in flight cancels that run and starts the new one, and results of any run but the latest are
// dropped, so an older run can never be shown over a newer one.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <memory>

#include "lab_result_ptr.h"
#include "scenario/scenario.h"
#include "sim/run_control.h"

namespace taillab::ui {

class RunWorker;

class RunController : public QObject {
    Q_OBJECT
  public:
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
    void onPartial(quint64 generation, LabResultPtr result);
    void onProgress(quint64 generation, double fraction);
    void onFinished(quint64 generation, LabResultPtr result, bool cancelled, double seconds);
    void onFailed(quint64 generation, const QString& message);

    QThread thread_;
    RunWorker* worker_ = nullptr;  // owned by thread_ (deleted on its finish)
    std::shared_ptr<RunControl> control_;
    quint64 generation_ = 0;
    bool running_ = false;
    QElapsedTimer clock_;
};

}  // namespace taillab::ui
