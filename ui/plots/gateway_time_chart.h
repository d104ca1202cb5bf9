// A TimeChart whose x axis reads as seed 000's week ("Tue 04:00"; data in seconds since Mon
// 00:00 UTC). The run's knob changes and faults are ChartView annotations in the same seconds.
// qcustomplot.h stays in the .cpp.
#pragma once

#include "plots/time_chart.h"

namespace taillab::ui {

class GatewayTimeChart : public TimeChart {
    Q_OBJECT
  public:
    explicit GatewayTimeChart(QWidget* parent = nullptr);

  protected:
    void configureAxes(const Chart& chart) override;
    QString formatX(double x) const override;
};

}  // namespace taillab::ui
