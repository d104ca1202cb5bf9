// The hedge-delay sweep tab: which fixed delays to try and how many simulated days each point
// runs, a Run / Cancel pair with progress, and the chart of p99 against extra upstream load
// (each point labelled by its delay) beside seed 000's published sweep points when found.
#pragma once

#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "chart_data_export.h"
#include "gateway/hedge_sweep.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QCheckBox;
class QSpinBox;

namespace taillab::ui {

class SweepChart;

class SweepPanel : public QWidget {
    Q_OBJECT
  public:
    // `currentParams` gives the view's knobs and seed at the moment Run is pressed.
    SweepPanel(std::function<std::pair<Params, std::uint64_t>()> currentParams,
               QWidget* parent = nullptr);

    void setPublished(std::vector<SweepPoint> points, const QString& source);
    // Runs the sweep with the delays and days in the controls; false when they do not parse.
    bool run();
    void cancel();
    bool running() const { return runner_->running(); }

    SweepChart* chart() const { return chart_; }
    const Chart& currentChart() const { return chartData_; }
    QLineEdit* delaysEdit() const { return delays_; }
    QSpinBox* daysBox() const { return days_; }
    QCheckBox* shadowBox() const { return shadow_; }
    const std::vector<SweepPoint>& points() const { return simulated_; }

    // "150, 250 350" -> {150, 250, 350}; empty when a value is not a number in [0, 5000].
    static std::vector<double> parseDelays(const QString& text);

    // What a sweep runs with: every point the knobs `params` (hedge mode fixed and `days` days
    // already set; the shadow test's settings too when asked) at one of the delays.
    struct Settings {
        Params params;
        std::uint64_t seed = 0;
        std::vector<double> delays_ms;  // ascending, as the chart orders its points
        int days = 1;
        bool shadow = false;
        bool ran = false;  // the last sweep run (else what Run would run now)
    };
    Settings settings() const;
    // The hedge delay each point of currentChart() ran at (the published ones too), in its
    // series' order: the column its export carries beside x and y.
    PointColumn delayColumn() const;

  signals:
    void finished(bool cancelled);

  private:
    void redraw();
    // The settings Run would use now (the knobs as currentParams_ gives them).
    Settings plannedSettings() const;

    std::function<std::pair<Params, std::uint64_t>()> currentParams_;
    HedgeSweepRunner* runner_ = nullptr;
    SweepChart* chart_ = nullptr;
    Chart chartData_;
    QLineEdit* delays_ = nullptr;
    QSpinBox* days_ = nullptr;
    QCheckBox* shadow_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    std::optional<Settings> ran_;           // the sweep in flight or last run
    std::vector<double> running_;           // delays of the sweep in flight or last run
    std::vector<SweepPoint> simulated_;     // points done, any order
    std::vector<SweepPoint> published_;
};

}  // namespace taillab::ui
