#include "plots/xy_chart.h"

#include "plots/axis_tickers.h"

namespace taillab::ui {

XyChart::XyChart(QWidget* parent) : ChartView(parent) {}

void XyChart::configureAxes(const Chart& chart) {
    setAxisLog(plot()->xAxis, chart.log_x);
    setAxisLog(plot()->yAxis, chart.log_y);
}

}  // namespace taillab::ui
