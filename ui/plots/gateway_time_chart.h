// A TimeChart whose x axis reads as seed 000's week ("Tue 04:00"; data in seconds since Mon
// 00:00 UTC). The run's knob changes and faults are ChartView annotations in the same seconds.
// A live run has no week: setElapsedTime(true) makes the axis plain seconds since the start,
// labelled with the chart's own x label. qcustomplot.h stays in the .cpp.
#pragma once

#include <optional>

#include "plots/time_chart.h"

namespace taillab::ui {

class GatewayTimeChart : public TimeChart {
    Q_OBJECT
  public:
    explicit GatewayTimeChart(QWidget* parent = nullptr);
    // Seconds since the run's start on the x axis instead of the week (from the next setChart).
    void setElapsedTime(bool elapsed);
    bool elapsedTime() const { return elapsed_; }
    // The run so far, from its start to now, in the x axis's units (from the next setChart).
    // The x axis spans it, as the status line and the breaker strips do, however few windows
    // have closed (a chart window of 10 s leaves one point at 10 s after 19 s; the first
    // 10-minute window's point is at 00:10, its data from 00:00), so charts side by side share
    // their time axis. Unless the user zoomed in. nullopt: the data alone.
    struct Span {
        double start = 0, end = 0;
    };
    void setRunSpan(std::optional<Span> span) { span_ = span; }

  protected:
    void configureAxes(const Chart& chart) override;
    QString formatX(double x) const override;
    void adjustRanges() override;

  private:
    bool elapsed_ = false;
    std::optional<Span> span_;
};

}  // namespace taillab::ui
