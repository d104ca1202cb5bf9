#include "plots/time_chart.h"

#include "plots/axis_tickers.h"

namespace taillab::ui {

TimeChart::TimeChart(QWidget* parent) : ChartView(parent) {}

void TimeChart::configureAxes(const Chart& chart) {
    setAxisLog(plot()->xAxis, false);
    setAxisLog(plot()->yAxis, chart.log_y);
}

}  // namespace taillab::ui
