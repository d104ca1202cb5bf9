#include "plots/event_lane_chart.h"

#include <qcustomplot.h>

#include <QFocusEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QKeyEvent>

#include <algorithm>
#include <array>
#include <cmath>

#include "gateway/week_time.h"
#include "plots/chart_style.h"

namespace taillab::ui {
namespace {

constexpr double kLaneHalfHeight = 0.42;
constexpr double kLaneGapPx = 6;
constexpr int kLaneLabelPointSize = 8;
const QMargins kLanePadding(3, 0, 3, 0);
constexpr const char* kLabelLayer = "laneLabels";

QFont laneLabelFont() {
    QFont f;
    f.setPointSize(kLaneLabelPointSize);
    return f;
}

}  // namespace

EventLaneChart::EventLaneChart(QWidget* parent) : GatewayTimeChart(parent) {
    plot()->yAxis->grid()->setVisible(false);
    plot()->yAxis->grid()->setSubGridVisible(false);
    plot()->yAxis->setRangeReversed(true);
    plot()->yAxis->setSubTicks(false);
    plot()->yAxis->setTicks(true);
    setHorizontalOnly(true);
    rows_ = {tr("Faults"), tr("Knobs"), tr("Phases")};
    // No series, so no legend: an empty legend would cap the width of the column it sits in.
    plot()->legend->setVisible(false);
    plot()->plotLayout()->take(plot()->legend);
    plot()->plotLayout()->simplify();
    connect(plot(), &QCustomPlot::afterLayout, this, [this] { layoutItems(); });
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(tr("Timeline of faults, knob changes and phases"));
    setToolTip(tr("Click an event to go there; or Tab here, Left/Right to pick one, Enter to go"));
    // On screen only: an exported image of the lane cannot be clicked.
    setTitleHint(tr("click one to go there"));
    connect(plot(), &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton) return;
        if (const auto i = eventAt(e->pos())) emit eventClicked(*i);
    });
}

void EventLaneChart::setRows(const QStringList& rows) { rows_ = rows; }

void EventLaneChart::setEvents(const std::vector<LaneEvent>& events) {
    if (events == events_ && bars_.size() == events.size()) return;
    events_ = events;
    if (current_ && *current_ >= events_.size()) current_.reset();
    rebuildItems();
    replot();
}

std::vector<std::size_t> EventLaneChart::timeOrder() const {
    std::vector<std::size_t> order(events_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (events_[a].x0 != events_[b].x0) return events_[a].x0 < events_[b].x0;
        return events_[a].row < events_[b].row;
    });
    return order;
}

void EventLaneChart::setCurrentEvent(std::optional<std::size_t> index) {
    if (index && *index >= events_.size()) index.reset();
    if (index == current_) return;
    const std::optional<std::size_t> was = current_;
    current_ = index;
    if (was) styleBar(*was);
    if (current_) {
        styleBar(*current_);
        const LaneEvent& e = events_[*current_];
        QString when = week_time::label(e.x0);
        if (e.x1) when += QString::fromUtf8("–") + week_time::label(*e.x1);
        setAccessibleDescription(QString("%1: %2").arg(when, e.label));
    }
    replot();
}

void EventLaneChart::focusInEvent(QFocusEvent* event) {
    GatewayTimeChart::focusInEvent(event);
    if (!current_ && !events_.empty() && event->reason() != Qt::MouseFocusReason)
        setCurrentEvent(timeOrder().front());
}

void EventLaneChart::keyPressEvent(QKeyEvent* event) {
    if (events_.empty()) return GatewayTimeChart::keyPressEvent(event);
    const std::vector<std::size_t> order = timeOrder();
    const auto at = current_ ? std::find(order.begin(), order.end(), *current_) : order.end();
    const std::ptrdiff_t k = at == order.end() ? -1 : at - order.begin();
    const auto last = static_cast<std::ptrdiff_t>(order.size()) - 1;
    switch (event->key()) {
        case Qt::Key_Right:
            setCurrentEvent(order[static_cast<std::size_t>(std::min(k + 1, last))]);
            return;
        case Qt::Key_Left:
            setCurrentEvent(order[static_cast<std::size_t>(std::max<std::ptrdiff_t>(k - 1, 0))]);
            return;
        case Qt::Key_Home: setCurrentEvent(order.front()); return;
        case Qt::Key_End: setCurrentEvent(order.back()); return;
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Space:
            if (current_) emit eventClicked(*current_);
            return;
        default: GatewayTimeChart::keyPressEvent(event);
    }
}

void EventLaneChart::styleBar(std::size_t i) {
    if (i >= bars_.size()) return;
    const LaneEvent& e = events_[i];
    const QColor color = rowColor(e.row);
    QColor fill = color;
    fill.setAlpha(e.x1 ? 70 : 200);
    bars_[i]->setBrush(fill);
    if (current_ == i)
        bars_[i]->setPen(QPen(palette().color(QPalette::Highlight), 2.5));
    else
        bars_[i]->setPen(QPen(color, 1));
}

void EventLaneChart::styleText(QCPItemText& text) const {
    text.setBrush(chart_style::annotationColors(palette(), chart_style::plotColors(palette()).background).labelFill);
    text.setColor(palette().color(QPalette::Text));
}

void EventLaneChart::changeEvent(QEvent* event) {
    GatewayTimeChart::changeEvent(event);
    if (event->type() != QEvent::PaletteChange) return;
    for (std::size_t i = 0; i < bars_.size(); ++i) styleBar(i);
    for (QCPItemText* t : texts_) styleText(*t);
    replot();
}

QColor EventLaneChart::rowColor(int row) const {
    const chart_style::AnnotationColors c =
        chart_style::annotationColors(palette(), chart_style::plotColors(palette()).background);
    switch (row) {
        case 0: return c.fault;
        case 1: return c.knob;
        default: {
            // Phases: a blue that reads on the background.
            const bool dark = chart_style::plotColors(palette()).background.lightnessF() < 0.4;
            return dark ? QColor(0x7a, 0xb8, 0xff) : QColor(0x1f, 0x5f, 0xb4);
        }
    }
}

void EventLaneChart::rebuildItems() {
    if (!plot()->layer(kLabelLayer)) plot()->addLayer(kLabelLayer, plot()->layer("main"), QCustomPlot::limAbove);
    for (QCPItemRect* r : bars_) plot()->removeItem(r);
    for (QCPItemText* t : texts_) plot()->removeItem(t);
    bars_.clear();
    texts_.clear();
    for (const LaneEvent& e : events_) {
        auto* bar = new QCPItemRect(plot());
        bar->setSelectable(false);
        bar->topLeft->setCoords(e.x0, e.row - kLaneHalfHeight);
        bar->bottomRight->setCoords(e.x1.value_or(e.x0), e.row + kLaneHalfHeight);
        bars_.push_back(bar);
        styleBar(bars_.size() - 1);
        auto* text = new QCPItemText(plot());
        text->setSelectable(false);
        // Over every bar, on a backing of the plot's colour: a label that runs past its own short
        // span is not crossed by that span's edge.
        text->setLayer(kLabelLayer);
        styleText(*text);
        text->setFont(laneLabelFont());
        text->setPadding(kLanePadding);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->position->setType(QCPItemPosition::ptAbsolute);
        text->setClipToAxisRect(true);
        text->setVisible(false);
        texts_.push_back(text);
    }
    labels_.assign(events_.size(), Label{});
    barRects_.assign(events_.size(), QRectF());
}

void EventLaneChart::configureAxes(const Chart& chart) {
    GatewayTimeChart::configureAxes(chart);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int r = 0; r < rows_.size(); ++r) ticker->addTick(r, rows_[r]);
    plot()->yAxis->setTicker(ticker);
    plot()->yAxis->setSubTicks(false);
}

void EventLaneChart::adjustRanges() {
    plot()->yAxis->setRange(-0.5, std::max<qsizetype>(1, rows_.size()) - 0.5);
}

void EventLaneChart::layoutItems() {
    const QRect area = plot()->axisRect()->rect();
    const QFontMetrics fm(laneLabelFont());
    const double pad = kLanePadding.left() + kLanePadding.right();
    // Bars at least kMinEventPx wide, centred on an instant.
    for (std::size_t i = 0; i < events_.size(); ++i) {
        const LaneEvent& e = events_[i];
        double p0 = plot()->xAxis->coordToPixel(e.x0);
        double p1 = plot()->xAxis->coordToPixel(e.x1.value_or(e.x0));
        if (p1 - p0 < kMinEventPx) {
            const double mid = e.x1 ? p0 : (p0 + p1) / 2;
            p0 = e.x1 ? p0 : mid - kMinEventPx / 2.0;
            p1 = p0 + kMinEventPx;
        }
        bars_[i]->topLeft->setCoords(plot()->xAxis->pixelToCoord(p0), e.row - kLaneHalfHeight);
        bars_[i]->bottomRight->setCoords(plot()->xAxis->pixelToCoord(p1), e.row + kLaneHalfHeight);
        const double y0 = plot()->yAxis->coordToPixel(e.row - kLaneHalfHeight);
        const double y1 = plot()->yAxis->coordToPixel(e.row + kLaneHalfHeight);
        barRects_[i] = QRectF(QPointF(p0, std::min(y0, y1)), QPointF(p1, std::max(y0, y1)));
    }
    // Tracks: in x order, each event of a row takes the first of the row's kTracks tracks free
    // from its bar's start to its label's end, so a label is not cut by the next event's bar;
    // when none is free, the one that frees first (its label is elided at the next event).
    std::vector<std::size_t> order(events_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return barRects_[a].left() < barRects_[b].left();
    });
    tracks_.assign(events_.size(), 0);
    std::vector<std::array<double, kTracks>> busyUntil(static_cast<std::size_t>(std::max<qsizetype>(1, rows_.size())));
    for (auto& row : busyUntil) row.fill(-INFINITY);
    std::vector<bool> rowSplit(busyUntil.size(), false);
    for (const std::size_t i : order) {
        const auto row = static_cast<std::size_t>(std::clamp<int>(events_[i].row, 0, static_cast<int>(busyUntil.size()) - 1));
        const double start = barRects_[i].left();
        const double end = std::max(barRects_[i].right(), start + 2 + fm.horizontalAdvance(events_[i].label) + pad + 1);
        int track = 0;
        while (track < kTracks && busyUntil[row][static_cast<std::size_t>(track)] + kLaneGapPx > start) ++track;
        if (track == kTracks)
            track = static_cast<int>(std::min_element(busyUntil[row].begin(), busyUntil[row].end()) - busyUntil[row].begin());
        busyUntil[row][static_cast<std::size_t>(track)] = std::max(busyUntil[row][static_cast<std::size_t>(track)], end);
        tracks_[i] = track;
        if (track > 0) rowSplit[row] = true;
    }
    // A row with one track draws its events its full height; one with two, each in its half.
    for (std::size_t i = 0; i < events_.size(); ++i) {
        const LaneEvent& e = events_[i];
        const auto row = static_cast<std::size_t>(std::clamp<int>(e.row, 0, static_cast<int>(busyUntil.size()) - 1));
        double top = e.row - kLaneHalfHeight, bottom = e.row + kLaneHalfHeight;
        if (rowSplit[row]) {
            const double h = 2 * kLaneHalfHeight / kTracks;
            top = e.row - kLaneHalfHeight + tracks_[i] * h + 0.02;
            bottom = top + h - 0.04;
        }
        bars_[i]->topLeft->setCoords(bars_[i]->topLeft->coords().x(), top);
        bars_[i]->bottomRight->setCoords(bars_[i]->bottomRight->coords().x(), bottom);
        const double y0 = plot()->yAxis->coordToPixel(top), y1 = plot()->yAxis->coordToPixel(bottom);
        barRects_[i] = QRectF(QPointF(barRects_[i].left(), std::min(y0, y1)), QPointF(barRects_[i].right(), std::max(y0, y1)));
    }
    // Labels: in their track, from the bar's start, up to the next event's start in that track.
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        Label& l = labels_[i];
        l = Label{};
        const double left = std::max(barRects_[i].left() + 2, static_cast<double>(area.left()));
        double right = area.right();
        for (std::size_t n = k + 1; n < order.size(); ++n)
            if (events_[order[n]].row == events_[i].row && tracks_[order[n]] == tracks_[i] &&
                barRects_[order[n]].left() > left) {
                right = std::min(right, barRects_[order[n]].left() - kLaneGapPx);
                break;
            }
        const bool visible = barRects_[i].right() >= area.left() && barRects_[i].left() <= area.right();
        const QString full = events_[i].label;
        const double natural = fm.horizontalAdvance(full) + pad + 1;
        const double room = right - left;
        if (visible && room >= kMinLabelPx) {
            l.text = natural <= room ? full
                                     : fm.elidedText(full, Qt::ElideRight, static_cast<int>(room - pad));
            const double width = std::min(natural, room);
            const double mid = barRects_[i].center().y();
            l.rect = QRectF(left, mid - fm.height() / 2.0, width, fm.height());
            l.shown = true;
        }
        texts_[i]->setVisible(l.shown);
        if (!l.shown) continue;
        texts_[i]->setText(l.text);
        texts_[i]->position->setCoords(l.rect.left(), l.rect.center().y());
    }
}

bool EventLaneChart::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        // Over an event: its full text and when, however its label was elided.
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto i = eventAt(help->pos())) {
            const LaneEvent& e = events_[*i];
            QString when = week_time::label(e.x0);
            if (e.x1) when += QString::fromUtf8(" – ") + week_time::label(*e.x1);
            const QString row = e.row >= 0 && e.row < rows_.size() ? rows_[e.row] : QString();
            QToolTip::showText(help->globalPos(), QString("%1: %2\n%3").arg(row, e.label, when), this);
            return true;
        }
    }
    return GatewayTimeChart::event(event);
}

std::optional<std::size_t> EventLaneChart::eventAt(QPointF pos) const {
    for (std::size_t i = 0; i < labels_.size(); ++i)
        if (labels_[i].shown && labels_[i].rect.contains(pos)) return i;
    std::optional<std::size_t> best;
    double bestWidth = INFINITY;
    for (std::size_t i = 0; i < barRects_.size(); ++i) {
        const QRectF r = barRects_[i].adjusted(-2, 0, 2, 0);
        // The narrowest bar under the pointer: an instant inside a span wins.
        if (r.contains(pos) && r.width() < bestWidth) {
            best = i;
            bestWidth = r.width();
        }
    }
    return best;
}

QPointF EventLaneChart::eventPoint(std::size_t i) const {
    return i < barRects_.size() ? barRects_[i].center() : QPointF();
}

QStringList EventLaneChart::valuesAt(double x) const {
    QStringList out;
    for (const LaneEvent& e : events_) {
        const bool on = e.x1 ? (e.x0 <= x && x <= *e.x1) : std::abs(e.x0 - x) < 60;
        if (on && e.row < rows_.size()) out << QString("%1: %2").arg(rows_[e.row], e.label);
    }
    if (out.isEmpty()) out << tr("no event");
    return out;
}

}  // namespace taillab::ui
