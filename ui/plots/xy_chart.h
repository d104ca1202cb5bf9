// ChartKind::XY: an ordinary x/y chart (a key figure against a knob), with log axes when the
// chart says log_x / log_y.
#pragma once

#include "plots/chart_view.h"

namespace taillab::ui {

class XyChart : public ChartView {
    Q_OBJECT
  public:
    explicit XyChart(QWidget* parent = nullptr);
    ChartKind kind() const override { return ChartKind::XY; }

  protected:
    void configureAxes(const Chart& chart) override;
};

}  // namespace taillab::ui
