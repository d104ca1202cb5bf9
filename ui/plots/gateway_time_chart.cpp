#include "plots/gateway_time_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "gateway/week_time.h"

namespace taillab::ui {
namespace {

constexpr double kEndRoom = 0.02;  // past the run's end, as a share of its span: a marker's room

// Ticks at round simulated times (1 min ... 1 day), labelled "Tue\n04:00".
class WeekTicker : public QCPAxisTicker {
  protected:
    double getTickStep(const QCPRange& range) override {
        static constexpr double kSteps[] = {60,    300,   600,   900,   1800,   3600,  7200,
                                            10800, 21600, 43200, 86400, 172800, 604800};
        const double ideal = range.size() / std::max(1, tickCount());
        for (double s : kSteps)
            if (s >= ideal) return s;
        return kSteps[std::size(kSteps) - 1] * std::ceil(ideal / kSteps[std::size(kSteps) - 1]);
    }
    int getSubTickCount(double tickStep) override {
        if (tickStep == 86400 || tickStep == 43200 || tickStep == 21600 || tickStep == 10800)
            return 2;
        return tickStep == 7200 || tickStep == 600 ? 1 : 2;
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return week_time::tickLabel(tick);
    }
};

}  // namespace

GatewayTimeChart::GatewayTimeChart(QWidget* parent) : TimeChart(parent) {
    auto ticker = QSharedPointer<WeekTicker>::create();
    ticker->setTickCount(5);
    plot()->xAxis->setTicker(ticker);
}

void GatewayTimeChart::setElapsedTime(bool elapsed) { elapsed_ = elapsed; }

void GatewayTimeChart::configureAxes(const Chart& chart) {
    TimeChart::configureAxes(chart);
    if (elapsed_) {
        plot()->xAxis->setLabel(QString::fromStdString(chart.x_label));
        if (plot()->xAxis->ticker().dynamicCast<WeekTicker>())
            plot()->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        return;
    }
    // The ticks read as days and times of the week; the data (and its CSV column) stay in
    // seconds since Mon 00:00, which the chart's own label says.
    plot()->xAxis->setLabel(tr("Simulated time (UTC)"));
    if (!plot()->xAxis->ticker().dynamicCast<WeekTicker>())
        plot()->xAxis->setTicker(QSharedPointer<WeekTicker>::create());
}

void GatewayTimeChart::adjustRanges() {
    // Elapsed time with no span given: from 0 s, as a live run's charts start.
    const std::optional<Span> span = span_ ? span_ : elapsed_ ? std::optional(Span{}) : std::nullopt;
    if (!span) return;
    const double start = span->start;
    const double end = std::max(span->end, start + 10.0);
    const int own = static_cast<int>(chart().series.size());
    bool any = false;
    double dataEnd = end;
    for (int i = 0; i < plot()->graphCount() && i < own; ++i) {
        bool found = false;
        const QCPRange keys = plot()->graph(i)->getKeyRange(found);
        if (!found) continue;
        any = true;
        dataEnd = std::max(dataEnd, keys.upper);
    }
    if (any) {
        // From the start (not before it, nor at the first window's end) to now, or to the data's
        // end, with room for the last point's marker, unless the user zoomed in. Every chart
        // given the same span has the same range, whatever its data.
        const QCPRange x = plot()->xAxis->range();
        const double upper = dataEnd + kEndRoom * (dataEnd - start);
        if (x.lower < start || !hasUserView()) plot()->xAxis->setRange(start, hasUserView() ? x.upper : upper);
        return;
    }
    // Nothing yet (a live run's first chart window has not closed): the run so far, not an
    // axis padded around nothing.
    plot()->xAxis->setRange(start, end);
    plot()->yAxis->setRange(plot()->yAxis->scaleType() == QCPAxis::stLogarithmic ? QCPRange(1, 100)
                                                                                : QCPRange(0, 1));
}

QString GatewayTimeChart::formatX(double x) const {
    return elapsed_ ? QString::number(x, 'f', 1) + " s" : week_time::label(x, true);
}

}  // namespace taillab::ui
