// ChartKind::Percentile: latency against percentile, drawn as HdrHistogram's plotter does, with
// x = 1/(1-p) on a log axis labelled 0%, 90%, 99%, 99.9%, ... and y in ms (log when the chart
// says log_y).
#pragma once

#include "plots/chart_view.h"

namespace taillab::ui {

class PercentileChart : public ChartView {
    Q_OBJECT
  public:
    explicit PercentileChart(QWidget* parent = nullptr);
    ChartKind kind() const override { return ChartKind::Percentile; }

  protected:
    void configureAxes(const Chart& chart) override;
    double toPlotX(double p) const override;
    double fromPlotX(double plotX) const override;
    QString formatX(double p) const override;
    void adjustRanges() override;
};

}  // namespace taillab::ui
