#include "plots/breaker_strip_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace taillab::ui {
namespace {

constexpr double kHalfHeight = 0.36;
// Which state wins a column: open over half-open over closed.
constexpr int kPriority[] = {0, 2, 1};

}  // namespace

QColor BreakerStripChart::stateColor(int state) {
    switch (state) {
        case 1:
            return QColor(0xd6, 0x27, 0x28);  // open: red
        case 2:
            return QColor(0xff, 0xa5, 0x1e);  // half-open: amber
        default:
            return QColor(0x9f, 0xd8, 0x9a);  // closed: pale green
    }
}

BreakerStripChart::BreakerStripChart(QWidget* parent) : GatewayTimeChart(parent) {
    plot()->yAxis->grid()->setVisible(false);
    plot()->yAxis->grid()->setSubGridVisible(false);
    plot()->yAxis->setRangeReversed(true);
    plot()->axisRect()->setRangeDrag(Qt::Horizontal);
    plot()->axisRect()->setRangeZoom(Qt::Horizontal);
    setAnnotationSpansOverData(true);  // the strips fill the lanes
    connect(plot(), &QCustomPlot::afterLayout, this, [this] {
        const bool before = regionTicks_;
        updateLaneTicks();
        if (regionTicks_ != before) replot();
    });
}

void BreakerStripChart::updateLaneTicks(bool force) {
    const int lanes = std::max<int>(1, static_cast<int>(lanes_.size()));
    const double perLane = plot()->axisRect()->height() / (lanes + 0.2);
    const int line = QFontMetrics(plot()->yAxis->tickLabelFont()).height();
    const bool regions = perLane < line;
    if (regions == regionTicks_ && !force) return;
    regionTicks_ = regions;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < lanes_.size();) {
        if (!regions) {
            ticker->addTick(i, lanes_[i]);
            ++i;
            continue;
        }
        // "EU / atlas", "EU / borealis", ...: one tick in the middle of each region's lanes.
        const QString region = lanes_[i].section(" / ", 0, 0);
        int end = i;
        while (end + 1 < lanes_.size() && lanes_[end + 1].section(" / ", 0, 0) == region) ++end;
        ticker->addTick((i + end) / 2.0, region);
        i = end + 1;
    }
    plot()->yAxis->setTicker(ticker);
}

QStringList BreakerStripChart::laneLabels() const {
    QStringList out;
    if (auto ticker = plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>())
        for (const QString& label : ticker->ticks()) out << label;
    return out;
}

void BreakerStripChart::setLanes(const QStringList& lanes) { lanes_ = lanes; }

QString BreakerStripChart::formatY(double lane) const {
    const auto i = static_cast<qsizetype>(std::lround(lane));
    return i >= 0 && i < lanes_.size() ? lanes_[i] : ChartView::formatY(lane);
}

void BreakerStripChart::showStrips(const Chart& chart) {
    setChart(chart);
    for (int i = 0; i < plot()->graphCount(); ++i) {
        QCPGraph* g = plot()->graph(i);
        const QColor color = stateColor(i);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
        g->setPen(QPen(color));
        g->setBrush(color);  // with no line, the brush only shows as the legend's swatch
    }
    replot();
}

void BreakerStripChart::configureAxes(const Chart& chart) {
    GatewayTimeChart::configureAxes(chart);
    updateLaneTicks(/*force=*/true);  // the lanes as they are now
    plot()->yAxis->setSubTicks(false);
    drawStrips(chart);
}

void BreakerStripChart::adjustRanges() {
    const int lanes = std::max<int>(1, static_cast<int>(lanes_.size()));
    plot()->yAxis->setRange(-0.6, lanes - 0.4);
}

void BreakerStripChart::drawStrips(const Chart& chart) {
    for (QCPAbstractItem* item : strips_) plot()->removeItem(item);
    strips_.clear();
    double lo = INFINITY, hi = -INFINITY;
    int lanes = static_cast<int>(lanes_.size());
    for (const Series& s : chart.series)
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            lo = std::min(lo, s.x[i]);
            hi = std::max(hi, s.x[i]);
            lanes = std::max(lanes, static_cast<int>(s.y[i]) + 1);
        }
    if (!(hi > lo)) return;
    const double width = (hi - lo) / kBins;
    auto addRect = [&](int lane, double x0, double x1, int state) {
        auto* rect = new QCPItemRect(plot());
        rect->topLeft->setCoords(x0, lane - kHalfHeight);
        rect->bottomRight->setCoords(x1, lane + kHalfHeight);
        rect->setPen(Qt::NoPen);
        rect->setBrush(stateColor(state));
        rect->setSelectable(false);
        strips_.push_back(rect);
    };
    // Columns per lane hold the winning state (-1: no data).
    std::vector<std::vector<int>> columns(static_cast<std::size_t>(lanes),
                                          std::vector<int>(kBins, -1));
    for (std::size_t state = 0; state < chart.series.size() && state < 3; ++state) {
        const Series& s = chart.series[state];
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); i += 2) {
            const int lane = static_cast<int>(s.y[i]);
            if (lane < 0 || lane >= lanes) continue;
            const int b0 = std::clamp(static_cast<int>((s.x[i] - lo) / width), 0, kBins - 1);
            const int b1 =
                std::clamp(static_cast<int>(std::ceil((s.x[i + 1] - lo) / width)) - 1, b0, kBins - 1);
            auto& col = columns[static_cast<std::size_t>(lane)];
            for (int b = b0; b <= b1; ++b)
                if (col[b] < 0 || kPriority[state] > kPriority[col[b]])
                    col[b] = static_cast<int>(state);
        }
    }
    for (int lane = 0; lane < lanes; ++lane) {
        const auto& col = columns[static_cast<std::size_t>(lane)];
        for (int b = 0; b < kBins;) {
            int e = b;
            while (e + 1 < kBins && col[e + 1] == col[b]) ++e;
            if (col[b] >= 0) addRect(lane, lo + b * width, lo + (e + 1) * width, col[b]);
            b = e + 1;
        }
    }
}

}  // namespace taillab::ui
