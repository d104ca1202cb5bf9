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
    bool drawn = false;
    for (int i = 0; i < plot()->graphCount() && !drawn; ++i)
        drawn = !plot()->graph(i)->data()->isEmpty();
    // Nothing drawn yet (a live run before its first request ends): 0% to just past 99.9%, not
    // the range QCustomPlot starts with, whose ticks fall between the nines (50%, 75%, 83.3%).
    const double upper = drawn ? std::max(10.0, r.upper) : 1500.0;
    plot()->xAxis->setRange(0.85, upper);
}

}  // namespace taillab::ui
