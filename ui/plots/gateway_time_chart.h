// A TimeChart whose x axis reads as seed 000's week ("Tue 04:00"; data in seconds since Mon
// 00:00 UTC). The run's knob changes and faults are ChartView annotations in the same seconds.
// A live run has no week: setElapsedTime(true) makes the axis plain seconds since the start,
// labelled with the chart's own x label. qcustomplot.h stays in the .cpp.
#pragma once

#include "plots/time_chart.h"

namespace taillab::ui {

class GatewayTimeChart : public TimeChart {
    Q_OBJECT
  public:
    explicit GatewayTimeChart(QWidget* parent = nullptr);
    // Seconds since the run's start on the x axis instead of the week (from the next setChart).
    void setElapsedTime(bool elapsed);
    bool elapsedTime() const { return elapsed_; }

  protected:
    void configureAxes(const Chart& chart) override;
    QString formatX(double x) const override;
    void adjustRanges() override;

  private:
    bool elapsed_ = false;
};

}  // namespace taillab::ui
