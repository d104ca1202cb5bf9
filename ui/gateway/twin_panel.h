// A twin run from the GUI (core/live/twin.h): the scenario simulated and live on the very same
// arrivals, with a rate (req/s), a duration (s) and a start on the scenario's clock (h); the table
// shows each figure simulated and live with its difference and tolerance, and under it, in words,
// what diverged and what was measured that explains it, then a table of the stage times side by
// side.
//
// The run takes its duration in wall time: it runs on its own thread (the simulated half first,
// then fleet, gateway and load on loopback), the panel stays responsive, and Cancel (or closing
// the panel) ends the live half early. Nothing of it uses Qt's network stack.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "gateway/run_hour_spin.h"
#include "live/twin.h"
#include "scenario/scenario.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace taillab::ui {

class TwinPanel : public QWidget {
    Q_OBJECT
  public:
    explicit TwinPanel(QWidget* parent = nullptr);
    ~TwinPanel() override;  // cancels a run in progress and waits for its thread

    // The scenario the next run twins (a gateway scenario).
    void setScenario(const Scenario& scenario);
    // Starts a run with the values in the controls; false (and a message) when one is running or
    // no scenario is set.
    bool start();
    void cancel();
    bool running() const { return worker_.joinable() && !done_; }
    const std::optional<live::TwinRun>& result() const { return result_; }

    QDoubleSpinBox* rateBox() const { return rate_; }
    QSpinBox* durationBox() const { return duration_; }
    QSpinBox* startBox() const { return start_; }  // hours since the first day's 00:00
    QTableWidget* table() const { return table_; }
    QTableWidget* stageTable() const { return stages_; }
    QLabel* verdictLabel() const { return verdict_; }
    QLabel* statusLabel() const { return status_; }

  signals:
    void finished(bool ok);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void onDone(std::shared_ptr<live::TwinRun> run, QString error);
    void join();
    void setRunning(bool running);
    // The status line in the palette's fail colour while it reports a failed run.
    void setStatusFailed(bool failed);

    std::optional<Scenario> scenario_;
    std::optional<live::TwinRun> result_;
    std::thread worker_;
    std::atomic<bool> cancel_{false};
    bool done_ = true;
    QDoubleSpinBox* rate_ = nullptr;
    QSpinBox* duration_ = nullptr;
    RunHourSpin* start_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* status_ = nullptr;
    bool statusFailed_ = false;
    QTableWidget* table_ = nullptr;
    QTableWidget* stages_ = nullptr;
    QLabel* verdict_ = nullptr;
};

}  // namespace taillab::ui
