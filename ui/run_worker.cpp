#include "run_worker.h"

#include <QElapsedTimer>
#include <exception>

#include "run/runner.h"

namespace taillab::ui {

void RunWorker::run(quint64 generation, std::shared_ptr<const Scenario> scenario,
                    std::shared_ptr<RunControl> control) {
    if (control->cancelRequested()) {
        emit finished(generation, nullptr, true, 0.0);
        return;
    }
    QElapsedTimer clock;
    clock.start();
    QElapsedTimer sinceProgress;
    // The first partial waits as long as the interval too: a run that finishes within it shows
    // only its final result, drawn once.
    QElapsedTimer sincePartial;
    sincePartial.start();
    control->onProgress = [&](double fraction) {
        if (sinceProgress.isValid() && sinceProgress.elapsed() < kMinEmitIntervalMs) return;
        sinceProgress.start();
        emit progress(generation, fraction);
    };
    const PartialSink sink = [&](const LabResult& r) {
        if (control->cancelRequested()) return;
        if (sincePartial.isValid() && sincePartial.elapsed() < kMinEmitIntervalMs) return;
        sincePartial.start();
        emit partial(generation, std::make_shared<const LabResult>(r));
    };
    try {
        LabResult result = runScenario(*scenario, *control, sink);
        const bool cancelled = result.cancelled || control->cancelRequested();
        control->onProgress = nullptr;
        emit finished(generation, std::make_shared<const LabResult>(std::move(result)), cancelled,
                      static_cast<double>(clock.nsecsElapsed()) * 1e-9);
    } catch (const std::exception& e) {
        control->onProgress = nullptr;
        emit failed(generation, QString::fromStdString(e.what()));
    }
}

}  // namespace taillab::ui
