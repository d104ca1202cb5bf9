// ChartKind::Time: a value per window against simulated time in seconds (log y when the chart
// says log_y).
#pragma once

#include "plots/chart_view.h"

namespace taillab::ui {

class TimeChart : public ChartView {
    Q_OBJECT
  public:
    explicit TimeChart(QWidget* parent = nullptr);
    ChartKind kind() const override { return ChartKind::Time; }

  protected:
    void configureAxes(const Chart& chart) override;
};

}  // namespace taillab::ui
