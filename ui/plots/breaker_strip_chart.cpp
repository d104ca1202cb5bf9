#include "plots/breaker_strip_chart.h"

#include <qcustomplot.h>

#include <QFontInfo>

#include <algorithm>
#include <cmath>

namespace taillab::ui {
namespace {

constexpr double kStripHalfHeight = 0.36;
constexpr int kMinBins = 60;
constexpr double kBinPx = 2;   // one column's width, about
constexpr int kMinTripBins = 2;  // a state other than the normal one is at least this wide
// The smallest lane label font, in pixels: still legible ("APAC / borealis"); a thinner lane is
// labelled by its region.
constexpr int kMinLaneFontPx = 9;

// What the title adds while the lanes are labelled by region only.
QString regionNote(bool regions) {
    return regions ? BreakerStripChart::tr("lanes too thin to name: by region") : QString();
}

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
    // Which state wins a column: open over half-open over closed.
    states_ = {{stateColor(0), 0}, {stateColor(1), 2}, {stateColor(2), 1}};
    plot()->yAxis->grid()->setVisible(false);
    plot()->yAxis->grid()->setSubGridVisible(false);
    plot()->yAxis->setRangeReversed(true);
    plot()->axisRect()->setRangeDrag(Qt::Horizontal);
    plot()->axisRect()->setRangeZoom(Qt::Horizontal);
    setAnnotationSpansOverData(true);  // the strips fill the lanes
    // The lanes' labels for the size being laid out: the widget's, or an export's (drawn at its
    // own size, often taller). A change of labels or of their font is laid out again in the same
    // pass, so what is drawn next (on screen or in the file) has them; a replot from here drew the
    // widget instead, and an export kept the labels the widget had.
    connect(plot(), &QCustomPlot::afterLayout, this, [this] {
        const bool before = regionTicks_;
        const QFont font = plot()->yAxis->tickLabelFont();
        updateLaneTicks();
        if (regionTicks_ == before && plot()->yAxis->tickLabelFont() == font) return;
        setTitleNote(regionNote(regionTicks_));
        for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                                 QCPLayoutElement::upLayout})
            plot()->plotLayout()->update(phase);
    });
}

void BreakerStripChart::updateLaneTicks(bool force) {
    const int lanes = std::max<int>(1, static_cast<int>(lanes_.size()));
    const double perLane = plot()->axisRect()->height() / (lanes + 0.2);
    // Every lane its own label, in a smaller font (down to kMinLaneFontPx) where the lanes are
    // thinner than a line of the axis's font; only below that, each region's name once.
    if (!normalTickFont_) normalTickFont_ = plot()->yAxis->tickLabelFont();
    QFont font = *normalTickFont_;
    if (QFontMetrics(font).height() > perLane) {
        const int from = font.pixelSize() > 0 ? font.pixelSize() : QFontInfo(font).pixelSize();
        for (int px = from - 1; px >= kMinLaneFontPx; --px) {
            font.setPixelSize(px);
            if (QFontMetrics(font).height() <= perLane) break;
        }
    }
    const bool regions = QFontMetrics(font).height() > perLane + 0.5;
    if (regions) font = *normalTickFont_;
    const bool fontChanged = plot()->yAxis->tickLabelFont() != font;
    if (fontChanged) plot()->yAxis->setTickLabelFont(font);
    if (regions == regionTicks_ && !force && !fontChanged) return;
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

void BreakerStripChart::setStates(std::vector<State> states) { states_ = std::move(states); }

bool BreakerStripChart::hasData() const {
    for (std::size_t state = 1; state < chart().series.size(); ++state)
        if (!chart().series[state].x.empty()) return true;
    return false;
}

QStringList BreakerStripChart::valuesAt(double x) const {
    QStringList out;
    const Chart& c = chart();
    for (std::size_t state = 1; state < c.series.size(); ++state) {
        const Series& s = c.series[state];
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); i += 2)
            if (s.x[i] <= x && x <= s.x[i + 1])
                out << QString("%1: %2").arg(formatY(s.y[i]), QString::fromStdString(s.name));
    }
    if (out.isEmpty() && !c.series.empty())
        out << tr("all %1").arg(QString::fromStdString(c.series.front().name));
    return out;
}

QString BreakerStripChart::formatY(double lane) const {
    const auto i = static_cast<qsizetype>(std::lround(lane));
    return i >= 0 && i < lanes_.size() ? lanes_[i] : ChartView::formatY(lane);
}

void BreakerStripChart::showStrips(const Chart& chart) {
    setChart(chart);
    for (int i = 0; i < plot()->graphCount(); ++i) {
        QCPGraph* g = plot()->graph(i);
        const QColor color = i < static_cast<int>(states_.size()) ? states_[static_cast<std::size_t>(i)].color
                                                                  : stateColor(i);
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
    setTitleNote(regionNote(regionTicks_));
    plot()->yAxis->setSubTicks(false);
    drawStrips(chart);
}

void BreakerStripChart::adjustRanges() {
    GatewayTimeChart::adjustRanges();
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
    const int bins = std::clamp(static_cast<int>(plot()->axisRect()->width() / kBinPx), kMinBins, kBins);
    const double width = (hi - lo) / bins;
    auto addRect = [&](int lane, double x0, double x1, int state) {
        auto* rect = new QCPItemRect(plot());
        rect->topLeft->setCoords(x0, lane - kStripHalfHeight);
        rect->bottomRight->setCoords(x1, lane + kStripHalfHeight);
        rect->setPen(Qt::NoPen);
        rect->setBrush(states_[static_cast<std::size_t>(state)].color);
        rect->setSelectable(false);
        strips_.push_back(rect);
    };
    // Columns per lane hold the winning state (-1: no data).
    std::vector<std::vector<int>> columns(static_cast<std::size_t>(lanes),
                                          std::vector<int>(static_cast<std::size_t>(bins), -1));
    for (std::size_t state = 0; state < chart.series.size() && state < states_.size(); ++state) {
        const Series& s = chart.series[state];
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); i += 2) {
            const int lane = static_cast<int>(s.y[i]);
            if (lane < 0 || lane >= lanes) continue;
            const int b0 = std::clamp(static_cast<int>((s.x[i] - lo) / width), 0, bins - 1);
            int b1 = std::clamp(static_cast<int>(std::ceil((s.x[i + 1] - lo) / width)) - 1, b0, bins - 1);
            if (state > 0) b1 = std::min(bins - 1, std::max(b1, b0 + kMinTripBins - 1));
            auto& col = columns[static_cast<std::size_t>(lane)];
            for (int b = b0; b <= b1; ++b)
                if (col[static_cast<std::size_t>(b)] < 0 ||
                    states_[state].priority > states_[static_cast<std::size_t>(col[static_cast<std::size_t>(b)])].priority)
                    col[static_cast<std::size_t>(b)] = static_cast<int>(state);
        }
    }
    for (int lane = 0; lane < lanes; ++lane) {
        const auto& col = columns[static_cast<std::size_t>(lane)];
        for (int b = 0; b < bins;) {
            int e = b;
            while (e + 1 < bins && col[static_cast<std::size_t>(e + 1)] == col[static_cast<std::size_t>(b)]) ++e;
            if (col[static_cast<std::size_t>(b)] >= 0)
                addRect(lane, lo + b * width, lo + (e + 1) * width, col[static_cast<std::size_t>(b)]);
            b = e + 1;
        }
    }
}

}  // namespace taillab::ui
