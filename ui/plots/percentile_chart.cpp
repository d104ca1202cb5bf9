#include "plots/percentile_chart.h"

#include <algorithm>

#include "plots/axis_tickers.h"

namespace taillab::ui {

PercentileChart::PercentileChart(QWidget* parent) : ChartView(parent) {
    plot()->xAxis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<NinesTicker>::create();
    ticker->setSubTickCount(0);
    plot()->xAxis->setTicker(ticker);
    plot()->xAxis->grid()->setSubGridVisible(false);
}

void PercentileChart::configureAxes(const Chart& chart) { setAxisLog(plot()->yAxis, chart.log_y); }

double PercentileChart::toPlotX(double p) const { return ninesToPlot(p); }
double PercentileChart::fromPlotX(double plotX) const { return plotToNines(plotX); }
QString PercentileChart::formatX(double p) const { return percentReadout(p); }

void PercentileChart::adjustRanges() {
    // From 0% to just past the deepest percentile drawn, on whole nines where possible.
    const QCPRange r = plot()->xAxis->range();
    const double upper = std::max(10.0, r.upper);
    plot()->xAxis->setRange(0.85, upper);
}

}  // namespace taillab::ui
