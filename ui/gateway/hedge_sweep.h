// The hedge-delay sweep: each point is a whole GatewaySim run of the current params with
// hedge_mode = fixed at one delay (and `days` days), its p99 (from the run's merged histogram)
// against its extra upstream load ((hedge + last-chance calls) / primary calls). Points run in
// parallel on core's SweepRunner, one thread per core, never on the UI thread; results come back
// to the UI thread through a UiInbox (ui_threads.h), then as signals. Also reads seed 000's
// published sweep points.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway_charts.h"
#include "knobs/knob.h"
#include "run/sweep_runner.h"
#include "sim/run_control.h"
#include "ui_threads.h"

namespace taillab::ui {

using gateway_charts::SweepPoint;

// One point; nullopt when `control` cancelled it. Throws std::invalid_argument on bad params.
std::optional<SweepPoint> runHedgeSweepPoint(const Params& params, std::uint64_t seed,
                                             double delay_ms, int days,
                                             RunControl* control = nullptr);

// gateway_000.hedge_delay_sweep of published-figures.json; empty when the file or key is missing.
std::vector<SweepPoint> readPublishedHedgeSweep(const std::string& path);
// Where published-figures.json is: $TAILLAB_PUBLISHED_FIGURES, else tests/data/ beside the
// scenario directory; "" when neither exists.
std::string findPublishedFigures(const std::string& scenarioDirectory);

class HedgeSweepRunner : public QObject {
    Q_OBJECT
  public:
    explicit HedgeSweepRunner(QObject* parent = nullptr);
    ~HedgeSweepRunner() override;  // cancels and joins

    // Starts a sweep (cancelling one in flight) on min(cores, points) threads.
    void start(const Params& params, std::uint64_t seed, std::vector<double> delays_ms, int days);
    void cancel();
    bool running() const { return running_; }
    int threadCount() const { return threadCount_; }

  signals:
    void pointDone(int index, taillab::ui::SweepPoint point);
    void finished(bool cancelled);
    void failed(QString message);

  private:
    using Runner = SweepRunner<std::optional<SweepPoint>>;

    UiInbox inbox_;                  // destroyed after sweep_, whose threads post to it
    std::unique_ptr<Runner> sweep_;  // the sweep in flight or last finished
    quint64 generation_ = 0;         // signals from an older sweep are dropped
    bool running_ = false;
    int threadCount_ = 0;
};

}  // namespace taillab::ui

Q_DECLARE_METATYPE(taillab::ui::SweepPoint)
