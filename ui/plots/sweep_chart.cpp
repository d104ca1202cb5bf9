#include "plots/sweep_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plots/chart_style.h"

namespace taillab::ui {

namespace {

// Widens `axis` (its length `px` pixels) so that `lowPx` pixels fit below the value `low` and
// `highPx` pixels above `high`, on the axis's own scale (linear or log); never narrows it.
void makeRoom(QCPAxis& axis, double px, double low, double lowPx, double high, double highPx) {
    const bool log = axis.scaleType() == QCPAxis::stLogarithmic;
    if (log && !(low > 0 && high > 0)) return;
    const auto to = [log](double v) { return log ? std::log10(v) : v; };
    const auto from = [log](double v) { return log ? std::pow(10.0, v) : v; };
    const double a = lowPx / px, b = highPx / px;
    if (!(px > 0) || a + b >= 0.9) return;  // a chart too small for labels keeps its range
    // The range's length W must hold the labels' margins, a*W and b*W, which grow with it: the
    // least W with max(upper, high + b*W) - min(lower, low - a*W) = W, a fixed point that the
    // iteration reaches from below (each step shrinks the shortfall by a factor of a + b < 0.9).
    const double lower0 = to(axis.range().lower), upper0 = to(axis.range().upper);
    double lower = lower0, upper = upper0;
    for (int round = 0; round < 64; ++round) {
        const double span = upper - lower;
        lower = std::min(lower0, to(low) - a * span);
        upper = std::max(upper0, to(high) + b * span);
    }
    axis.setRange(from(lower), from(upper));
}

}  // namespace

SweepChart::SweepChart(QWidget* parent) : XyChart(parent) {
    // The room a label needs is in pixels, so the fit depends on the axis rect's size, which the
    // first layout after a setChart or a resize settles: fit again when it differs from the one
    // the ranges were fitted for (a few times at most, in case tick labels keep moving it).
    connect(plot(), &QCustomPlot::afterLayout, this, [this] {
        if (labelItems_.empty() || hasUserView() || refits_ >= 3) return;
        if (plot()->axisRect()->rect().size() == fittedFor_) return;
        ++refits_;
        resetView();
    });
}

void SweepChart::resizeEvent(QResizeEvent* event) {
    refits_ = 0;
    XyChart::resizeEvent(event);
}

void SweepChart::setPointLabels(std::vector<std::vector<QString>> labels) {
    labels_ = std::move(labels);
}

void SweepChart::configureAxes(const Chart& chart) {
    XyChart::configureAxes(chart);
    refits_ = 0;
    for (QCPAbstractItem* item : labelItems_) plot()->removeItem(item);
    labelItems_.clear();
    QFont font;
    font.setPointSize(8);
    for (std::size_t i = 0; i < chart.series.size() && i < labels_.size(); ++i) {
        const Series& s = chart.series[i];
        // Simulated labels above their points, published ones below, so the two rarely collide.
        const bool above = s.role != SeriesRole::Published;
        for (std::size_t k = 0; k < s.x.size() && k < s.y.size() && k < labels_[i].size(); ++k) {
            if (labels_[i][k].isEmpty()) continue;
            auto* text = new QCPItemText(plot());
            text->setText(labels_[i][k]);
            text->setFont(font);
            const chart_style::PlotColors look = chart_style::plotColors(plot()->palette());
            text->setColor(above ? look.text : look.axis);
            text->position->setType(QCPItemPosition::ptPlotCoords);
            text->position->setCoords(s.x[k], s.y[k]);
            text->setPositionAlignment(Qt::AlignHCenter | (above ? Qt::AlignBottom : Qt::AlignTop));
            text->setPadding(QMargins(2, above ? 0 : 7, 2, above ? 7 : 0));
            text->setSelectable(false);
            labelItems_.push_back(text);
        }
    }
}

std::vector<QRectF> SweepChart::labelRects() const {
    std::vector<QRectF> out;
    for (const QCPAbstractItem* item : labelItems_) {
        const auto* text = static_cast<const QCPItemText*>(item);
        out.emplace_back(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition());
    }
    return out;
}

QRect SweepChart::axisRectPixels() const { return plot()->axisRect()->rect(); }

void SweepChart::adjustRanges() {
    if (labelItems_.empty() || hasUserView()) return;  // a zoom keeps its range
    const QRect area = plot()->axisRect()->rect();
    fittedFor_ = area.size();
    double aboveTop = -INFINITY, belowBottom = INFINITY, left = INFINITY, right = -INFINITY;
    int labelHeight = 0, labelHalfWidth = 0;
    for (const QCPAbstractItem* item : labelItems_) {
        const auto* text = static_cast<const QCPItemText*>(item);
        const QFontMetrics fm(text->font());
        const QPointF at = text->position->coords();
        labelHeight = std::max(labelHeight, fm.height() + 7 + 2);
        labelHalfWidth = std::max(labelHalfWidth, fm.horizontalAdvance(text->text()) / 2 + 4);
        if (text->positionAlignment() & Qt::AlignBottom)
            aboveTop = std::max(aboveTop, at.y());
        else
            belowBottom = std::min(belowBottom, at.y());
        left = std::min(left, at.x());
        right = std::max(right, at.x());
    }
    makeRoom(*plot()->xAxis, area.width(), left, labelHalfWidth, right, labelHalfWidth);
    const QCPRange y = plot()->yAxis->range();
    makeRoom(*plot()->yAxis, area.height(), std::isfinite(belowBottom) ? belowBottom : y.lower,
             std::isfinite(belowBottom) ? labelHeight : 0,
             std::isfinite(aboveTop) ? aboveTop : y.upper,
             std::isfinite(aboveTop) ? labelHeight : 0);
}

}  // namespace taillab::ui
