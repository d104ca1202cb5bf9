// The object that lives on the run thread: it runs one scenario at a time through
// taillab::runScenario and reports partial results, progress and the outcome as queued signals.
// It never touches widgets; everything it emits is an immutable snapshot tagged with the run's
// generation so the controller can drop results of superseded runs.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "lab_result_ptr.h"
#include "scenario/scenario.h"
#include "sim/run_control.h"

namespace taillab::ui {

class RunWorker : public QObject {
    Q_OBJECT
  public:
    // At most one partial result and one progress report per this interval (about 30 Hz).
    static constexpr int kMinEmitIntervalMs = 33;

    using QObject::QObject;

    // Runs on the worker thread. Skips the job when it was cancelled before it started.
    void run(quint64 generation, std::shared_ptr<const Scenario> scenario,
             std::shared_ptr<RunControl> control);

  signals:
    void partial(quint64 generation, taillab::ui::LabResultPtr result);
    void progress(quint64 generation, double fraction);
    void finished(quint64 generation, taillab::ui::LabResultPtr result, bool cancelled,
                  double seconds);
    void failed(quint64 generation, QString message);
};

}  // namespace taillab::ui
