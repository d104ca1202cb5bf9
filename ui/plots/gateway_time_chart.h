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
    // With elapsed time: how long the run has gone so far (from the next setChart). The x axis
    // spans it, as the status line and the breaker strips do, however few windows have closed
    // (a chart window of 10 s leaves one point at 10 s after 19 s). nullopt: the data alone.
    void setElapsedEnd(std::optional<double> end_s) { elapsedEnd_ = end_s; }

  protected:
    void configureAxes(const Chart& chart) override;
    QString formatX(double x) const override;
    void adjustRanges() override;

  private:
    bool elapsed_ = false;
    std::optional<double> elapsedEnd_;
};

}  // namespace taillab::ui
