#include "plots/chart_style.h"

#include <qcustomplot.h>

#include <QLocale>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <vector>

namespace taillab::ui::chart_style {
namespace {

// Tableau 10: distinct, print-safe, colour-blind friendly enough for a handful of series.
// Tableau 10 without its grey: grey is what a chart says "not a series" with (the axes, the
// legend entry of a baseline's or B's dashed ghosts), and an eighth series drawn in it read as one
// of those.
const QColor kPalette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                           QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                           QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                           QColor(0xe3, 0x77, 0xc2), QColor(0xbc, 0xbd, 0x22),
                           QColor(0x17, 0xbe, 0xcf)};
constexpr int kPaletteSize = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
constexpr int kLegendColumns = 3;
constexpr QSize kLegendIcon{28, 12};
constexpr int kLegendSpacing = 18;
// At most this share of a chart's height for its legend, so the data keeps the rest.
constexpr double kLegendShare = 0.4;

constexpr int kAxisLabelPoints = 10, kSmallestPoints = 8;

QFont font(int pointSize, bool bold = false) {
    QFont f;
    f.setPointSize(pointSize);
    f.setBold(bold);
    return f;
}

// A series name without words that only say its role, so "p99 (closed form)" pairs with "p99".
QString pairingKey(const std::string& name) {
    QString key = QString::fromStdString(name).toLower();
    static const QRegularExpression kRoleWords(
        "\\b(simulated|simulation|sim|closed[- ]form|theory|theoretical|formula|expected|"
        "published|paper|measured)\\b");
    key.remove(kRoleWords);
    key.remove(QRegularExpression("[^a-z0-9.=<>%]"));
    return key;
}

double luminance(const QColor& c);
QColor readableOn(QColor c, const QColor& background, double ratio);

QColor mix(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

PlotColors plotColors(const QPalette& palette) {
    PlotColors c;
    c.background = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    // The grey steps a white chart had (axis 90, grid 215, sub-grid 235 of 255), on any Base.
    c.axis = mix(c.text, c.background, 90.0 / 255.0);
    c.grid = mix(c.text, c.background, 215.0 / 255.0);
    c.subGrid = mix(c.text, c.background, 235.0 / 255.0);
    return c;
}

void applyPalette(QCustomPlot& plot, const QPalette& palette) {
    const PlotColors c = plotColors(palette);
    plot.setBackground(c.background);
    if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
        t->setTextColor(c.text);
    for (QCPAxis* axis : plot.axisRect()->axes()) {
        axis->setLabelColor(c.text);
        axis->setTickLabelColor(c.text);
        axis->grid()->setPen(QPen(c.grid, 0, Qt::SolidLine));
        axis->grid()->setSubGridPen(QPen(c.subGrid, 0, Qt::DotLine));
        axis->setBasePen(QPen(c.axis));
        axis->setTickPen(QPen(c.axis));
        axis->setSubTickPen(QPen(mix(c.text, c.background, 120.0 / 255.0)));
    }
    plot.legend->setTextColor(c.text);
}

void setUpPlot(QCustomPlot& plot) {
    plot.setAntialiasedElements(QCP::aeAll);
    plot.setNoAntialiasingOnDrag(true);
    plot.plotLayout()->setRowSpacing(2);

    auto* title = new QCPTextElement(&plot, QString(), font(11, true));
    title->setMargins(QMargins(8, 6, 8, 0));
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, title);

    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        axis->setLabelFont(font(kAxisLabelPoints));
        axis->setTickLabelFont(font(9));
        axis->setLabelPadding(6);
        axis->grid()->setSubGridVisible(true);
    }
    plot.axisRect()->setupFullAxesBox(false);
    // The top and right axes only close the box: their ticks would not follow a log scale.
    plot.xAxis2->setTicks(false);
    plot.yAxis2->setTicks(false);

    // Legend below the axes, in columns, so it never hides data.
    plot.legend->setVisible(true);
    plot.legend->setFont(font(9));
    plot.legend->setBorderPen(Qt::NoPen);
    plot.legend->setBrush(Qt::NoBrush);
    plot.legend->setIconSize(kLegendIcon);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot.legend->setWrap(kLegendColumns);
    plot.legend->setColumnSpacing(kLegendSpacing);
    plot.legend->setRowSpacing(0);
    plot.axisRect()->insetLayout()->take(plot.legend);
    plot.plotLayout()->addElement(2, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(2, 0.001);
    plot.legend->setMargins(QMargins(8, 0, 8, 8));
    applyPalette(plot, plot.palette());
}

void setTitle(QCustomPlot& plot, const QString& title) {
    if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0))) {
        t->setProperty("fullTitle", title);
        t->setText(title);
        t->setVisible(!title.isEmpty());
        fitTitle(plot, plot.width());
    }
}

void fitTitle(QCustomPlot& plot, int width) {
    auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0));
    if (!t) return;
    const QString full = t->property("fullTitle").toString();
    const int room = width - t->margins().left() - t->margins().right();
    QFont f = font(11, true);
    for (; f.pointSize() > kSmallestPoints && QFontMetrics(f).horizontalAdvance(full) > room;)
        f.setPointSize(f.pointSize() - 1);
    t->setFont(f);
    t->setText(QFontMetrics(f).elidedText(full, Qt::ElideRight, std::max(room, 0)));
}

QFont axisLabelFont(const QString& full, int room) {
    QFont f = font(kAxisLabelPoints);
    for (; f.pointSize() > kSmallestPoints && QFontMetrics(f).horizontalAdvance(full) > room;)
        f.setPointSize(f.pointSize() - 1);
    return f;
}

QString fitAxisLabel(const QString& full, const QFontMetrics& metrics, int room, bool twoLines) {
    room = std::max(room, 0);
    if (metrics.horizontalAdvance(full) <= room) return full;
    const qsizetype open = full.lastIndexOf(QStringLiteral(" ("));
    if (twoLines) {
        const auto fits = [&](qsizetype at) {
            return metrics.horizontalAdvance(full.left(at)) <= room &&
                   metrics.horizontalAdvance(full.mid(at + 1)) <= room;
        };
        if (open > 0 && full.endsWith(QChar(')')) && fits(open))
            return full.left(open) + QChar('\n') + full.mid(open + 1);
        // Else as text wraps: the first line as long as fits.
        for (qsizetype at = full.lastIndexOf(QChar(' ')); at > 0; at = full.lastIndexOf(QChar(' '), at - 1))
            if (fits(at)) return full.left(at) + QChar('\n') + full.mid(at + 1);
    }
    if (open > 0 && full.endsWith(QChar(')'))) {
        const QString unit = full.mid(open + 1);
        const QString words = metrics.elidedText(
            full.left(open), Qt::ElideRight, room - metrics.horizontalAdvance(QChar(' ') + unit));
        // Whole words before the ellipsis: a word cut short ("Late… (ms)") reads as nothing, so
        // then the unit alone.
        QString kept = words.endsWith(QChar(0x2026)) ? words.chopped(1) : words;
        if (kept != full.left(open) && !full.mid(kept.size()).startsWith(QChar(' ')))
            kept = kept.left(std::max<qsizetype>(kept.lastIndexOf(QChar(' ')), 0));
        kept = kept.trimmed();
        if (!kept.isEmpty())
            return kept == full.left(open) ? kept + QChar(' ') + unit
                                           : kept + QChar(0x2026) + QChar(' ') + unit;
        if (metrics.horizontalAdvance(unit) <= room) return unit;
    }
    return metrics.elidedText(full, Qt::ElideRight, room);
}

namespace {

// A legend entry whose name is elided to a width (0: whole), so more columns fit a short chart;
// the plottable keeps its whole name (the read-out and exports say it).
class ElidingLegendItem : public QCPPlottableLegendItem {
  public:
    using QCPPlottableLegendItem::QCPPlottableLegendItem;
    void setMaxTextWidth(int width) { maxTextWidth_ = width; }

  protected:
    QString shownName() const {
        const QString name = mPlottable->name();
        if (maxTextWidth_ <= 0) return name;
        return QFontMetrics(getFont()).elidedText(name, Qt::ElideRight, maxTextWidth_);
    }
    void draw(QCPPainter* painter) override {
        if (!mPlottable) return;
        const QSize icon = mParentLegend->iconSize();
        // The icon as QCustomPlot draws it (its text clipped away), then the name, elided.
        painter->save();
        painter->setClipRect(QRect(mRect.topLeft(), icon), Qt::IntersectClip);
        QCPPlottableLegendItem::draw(painter);
        painter->restore();
        painter->setFont(getFont());
        painter->setPen(QPen(getTextColor()));
        const QString name = shownName();
        const QRect text = painter->fontMetrics().boundingRect(0, 0, 0, icon.height(),
                                                               Qt::TextDontClip, name);
        const int textHeight = std::max(text.height(), icon.height());
        painter->drawText(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y(),
                          text.width(), textHeight, Qt::TextDontClip, name);
    }
    QSize minimumOuterSizeHint() const override {
        if (!mPlottable) return {};
        const QSize icon = mParentLegend->iconSize();
        const QRect text = QFontMetrics(getFont()).boundingRect(0, 0, 0, icon.height(),
                                                                Qt::TextDontClip, shownName());
        return {icon.width() + mParentLegend->iconTextPadding() + text.width() + mMargins.left() +
                    mMargins.right(),
                std::max(text.height(), icon.height()) + mMargins.top() + mMargins.bottom()};
    }

  private:
    int maxTextWidth_ = 0;
};

// The legend's entries as ElidingLegendItems, in their order (QCustomPlot adds plain ones).
void useElidingItems(QCPLegend& legend) {
    bool plain = false;
    for (int i = 0; i < legend.itemCount(); ++i)
        plain = plain || !dynamic_cast<ElidingLegendItem*>(legend.item(i));
    if (!plain) return;
    std::vector<QCPAbstractPlottable*> plottables;
    for (int i = 0; i < legend.itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend.item(i)))
            plottables.push_back(item->plottable());
    legend.clearItems();
    for (QCPAbstractPlottable* p : plottables) legend.addItem(new ElidingLegendItem(&legend, p));
}

// The width to elide the legend's names (`names`: each entry's name width) to so that its columns
// fit `room` (text only), or 0 when they fit whole. The legend fills its rows first, so column c
// holds entries c, c + columns, ...; each column is as wide as its widest name. Only the widest
// columns give up width: the cap is the one at which the columns' capped widths fill the room,
// so a column of short names keeps them whole and leaves its share to the long ones.
int elisionWidth(const std::vector<int>& names, int columns, int room) {
    std::vector<int> widths(static_cast<std::size_t>(columns), 0);
    for (std::size_t i = 0; i < names.size(); ++i) {
        int& column = widths[i % static_cast<std::size_t>(columns)];
        column = std::max(column, names[i]);
    }
    std::sort(widths.begin(), widths.end());
    int left = room;
    for (std::size_t c = 0; c < widths.size(); ++c) {
        const int share = left / static_cast<int>(widths.size() - c);
        if (widths[c] > share) return std::max(share, 1);
        left -= widths[c];
    }
    return 0;
}

}  // namespace

void fitLegend(QCustomPlot& plot, QSize size) {
    QCPLegend* legend = plot.legend;
    const int items = legend->itemCount();
    if (items == 0) return;
    useElidingItems(*legend);
    const QFontMetrics metrics(legend->font());
    std::vector<int> names(static_cast<std::size_t>(items), 0);  // each entry's name width
    for (int i = 0; i < items; ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
            names[static_cast<std::size_t>(i)] = metrics.horizontalAdvance(item->plottable()->name());
    const int widest = *std::max_element(names.begin(), names.end());
    // QCustomPlot clips each item to its rect, which is as tall as the font's line; a
    // descender on the last row ("p", ",") lost its bottom pixels. Two pixels under each item
    // keep every glyph whole.
    for (int i = 0; i < items; ++i)
        if (QCPAbstractLegendItem* item = legend->item(i); item && item->margins().bottom() != 2)
            item->setMargins(QMargins(0, 0, 0, 2));
    const int width = size.width();
    const int available = width - legend->margins().left() - legend->margins().right();
    auto columnsFor = [&](int iconWidth, int spacing) {
        const int itemWidth = iconWidth + legend->iconTextPadding() + widest + 16;
        return std::clamp((available + spacing) / (itemWidth + spacing), 1,
                          std::min(items, kLegendColumns));
    };
    // A narrow chart takes shorter icons and less spacing before it stacks every item in one
    // column (a legend that tall leaves the data no room).
    int columns = columnsFor(kLegendIcon.width(), kLegendSpacing);
    bool compact = columns < std::min(items, 2) && columnsFor(16, 6) > columns;
    if (compact) columns = columnsFor(16, 6);
    // A short chart keeps most of its height for the data: a legend of more rows than
    // kLegendShare of the height allows takes more columns, compact, its names elided to fit
    // (the read-out and the exported data keep them whole).
    int textWidth = 0;
    const int rowHeight = metrics.height() + 2;
    const int maxRows = std::max(
        2, static_cast<int>((size.height() * kLegendShare - legend->margins().bottom()) / rowHeight));
    const int rows = (items + columns - 1) / columns;
    if (size.height() > 0 && rows > maxRows) {
        constexpr int kIcon = 16, kSpacing = 6, kMinText = 40;
        const int most = std::max(
            1, (available + kSpacing) / (kIcon + legend->iconTextPadding() + kMinText + kSpacing));
        const int wanted = std::min({items, most, (items + maxRows - 1) / maxRows});
        if (wanted > columns) {
            compact = true;
            columns = wanted;
            textWidth = elisionWidth(names, columns,
                                     available - (columns - 1) * kSpacing -
                                         columns * (kIcon + legend->iconTextPadding() + 2));
        }
    }
    for (int i = 0; i < items; ++i)
        if (auto* item = dynamic_cast<ElidingLegendItem*>(legend->item(i)))
            item->setMaxTextWidth(textWidth);
    legend->setIconSize(compact ? QSize(16, kLegendIcon.height()) : kLegendIcon);
    legend->setColumnSpacing(compact ? 6 : kLegendSpacing);
    if (columns != legend->wrap() || legend->columnCount() > columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

std::vector<QString> colourPlan(const std::vector<Chart>& charts) {
    std::vector<QString> plan;
    for (const Chart& c : charts)
        for (const Series& s : c.series) {
            const QString key = pairingKey(s.name);
            if (!key.isEmpty() && std::find(plan.begin(), plan.end(), key) == plan.end())
                plan.push_back(key);
        }
    return plan;
}

std::vector<QColor> seriesColors(const Chart& chart, const QColor& background,
                                 const std::vector<QString>& plan) {
    const bool dark = luminance(background) < 0.4;
    std::vector<QColor> colors(chart.series.size());
    std::vector<QString> keys(chart.series.size());
    // Palette places taken in this chart; with a plan, the free ones start after it.
    std::vector<int> taken;
    int next = static_cast<int>(plan.size());
    const auto place = [&](int at) {
        taken.push_back(at);
        const QColor c = kPalette[at % kPaletteSize];
        return dark ? readableOn(c, background, 3.0) : c;
    };
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        keys[i] = pairingKey(chart.series[i].name);
        bool paired = false;
        bool sameRoleBefore = false;
        for (std::size_t j = 0; j < i && !keys[i].isEmpty(); ++j) {
            if (keys[j] != keys[i]) continue;
            if (chart.series[j].role != chart.series[i].role) {
                colors[i] = colors[j];
                paired = true;
                break;
            }
            sameRoleBefore = true;
        }
        if (paired) continue;
        const auto planned = std::find(plan.begin(), plan.end(), keys[i]);
        if (!keys[i].isEmpty() && planned != plan.end() && !sameRoleBefore) {
            colors[i] = place(static_cast<int>(planned - plan.begin()));
            continue;
        }
        while (std::find(taken.begin(), taken.end(), next) != taken.end()) ++next;
        colors[i] = place(next++);
    }
    return colors;
}

void styleGraph(QCPGraph& graph, const Series& series, const QColor& color, const QColor& ink) {
    graph.setName(QString::fromStdString(series.name));
    graph.setAdaptiveSampling(false);
    switch (series.role) {
        case SeriesRole::Simulated:
            graph.setPen(QPen(color, 2.0));
            graph.setLineStyle(QCPGraph::lsLine);
            graph.setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 5));
            break;
        case SeriesRole::ClosedForm:
        case SeriesRole::Reference: {
            // A closed form is dashed; a reference line (a level to read the data against) is
            // dash-dotted, so that neither reads as a pinned run's or B's ghost (dashed, thin).
            QPen pen(color.darker(125), 2.0, Qt::DashLine);
            if (series.role == SeriesRole::ClosedForm) {
                pen.setDashPattern({5, 3});
            } else {
                pen.setDashPattern({7, 2.5, 1.5, 2.5});
            }
            graph.setPen(pen);
            graph.setLineStyle(QCPGraph::lsLine);
            graph.setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
            break;
        }
        case SeriesRole::Published:
            graph.setPen(QPen(color.darker(150), 1.5));
            graph.setLineStyle(QCPGraph::lsNone);
            graph.setScatterStyle(QCPScatterStyle(
                QCPScatterStyle::ssDiamond, QPen(ink, 1.2), QBrush(color), 11));
            break;
    }
}

void styleBaselineGraph(QCPGraph& graph, const QString& name, const QColor& live, const QColor& background) {
    graph.setName(name);
    graph.setAdaptiveSampling(false);
    QPen pen(baselineColor(live, background), 1.6, Qt::DashLine);
    pen.setDashPattern({4, 3});
    graph.setPen(pen);
    graph.setLineStyle(QCPGraph::lsLine);
    graph.setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
}

void setMarkerDensity(QCPGraph& graph, const Series& series, int points) {
    if (series.role != SeriesRole::Simulated) return;
    constexpr int kMaxMarkers = 50;
    graph.setScatterSkip(std::max(0, points / kMaxMarkers - 1));
}

void padRange(QCPAxis& axis) {
    const QCPRange r = axis.range();
    if (axis.scaleType() == QCPAxis::stLogarithmic) {
        if (!(r.lower > 0) || !(r.upper > 0)) {
            axis.setRange(1, 10);
            return;
        }
        if (r.upper / r.lower < 1.0001) return rangeAround(axis, r.lower);
        const double f = std::max(1.08, std::pow(r.upper / r.lower, 0.05));
        axis.setRange(r.lower / f, r.upper * f);
        return;
    }
    if (r.size() <= 0) return rangeAround(axis, r.lower);
    const double margin = r.size() * 0.05;
    axis.setRange(r.lower - margin, r.upper + margin);
}

void rangeAround(QCPAxis& axis, double at) {
    if (axis.scaleType() == QCPAxis::stLogarithmic) {
        if (at > 0)
            axis.setRange(at / 2, at * 2);
        else
            axis.setRange(1, 10);
        return;
    }
    const double size = std::max(1.0, std::abs(at) * 0.2);
    axis.setRange(at - size / 2, at + size / 2);
}

void setUpReadoutLabel(QCPItemText& label, const QPalette& palette) {
    label.setFont(font(9));
    // A tooltip's colours: the palette's own pair for floating text.
    QColor fill = palette.color(QPalette::ToolTipBase);
    fill.setAlpha(235);
    label.setColor(palette.color(QPalette::ToolTipText));
    label.setBrush(QBrush(fill));
    label.setPen(QPen(mix(palette.color(QPalette::ToolTipText), fill, 0.5)));
    label.setPadding(QMargins(6, 4, 6, 4));
    label.setTextAlignment(Qt::AlignLeft);
    label.position->setType(QCPItemPosition::ptAbsolute);
    label.setClipToAxisRect(false);
    label.setLayer("overlay");
}

QRectF readoutRect(const QCPItemText& label) {
    return QRectF(label.topLeft->pixelPosition(), label.bottomRight->pixelPosition());
}

void placeReadoutLabel(QCPItemText& label, const QCustomPlot& plot, double key, double value,
                       const QString& text) {
    const double px = plot.xAxis->coordToPixel(key);
    const double py = plot.yAxis->coordToPixel(value);
    const QRect area = plot.axisRect()->rect();
    constexpr int kOffset = 12;
    label.setText(text);
    // Placed by its top left corner, worked out here from the box's size (its anchors measure it
    // as it is drawn).
    label.setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label.position->setCoords(0, 0);
    const QSizeF box = readoutRect(label).size();
    // The box is drawn over the whole widget (not clipped to the axis rect), so the widget's
    // edges bound it. Beside the point on the side toward the plot's centre; if the box does not
    // fit there (wider than the room, as a long time stamp in a narrow chart is), on the other
    // side; if it fits on neither, as near as it can be, inside the widget. When it is larger
    // than the widget, its start (the left edge, the top line) stays in view.
    const QRectF bounds = plot.viewport();
    auto place = [kOffset](double at, double size, double lower, double upper, bool before) {
        const double after = at + kOffset, ahead = at - kOffset - size;
        const double first = before ? ahead : after, second = before ? after : ahead;
        auto fits = [&](double start) { return start >= lower && start + size <= upper; };
        if (fits(first)) return first;
        if (fits(second)) return second;
        return std::max(lower, std::min(first, upper - size));
    };
    const double x = place(px, box.width(), bounds.left(), bounds.left() + bounds.width(),
                           px > area.center().x());
    const double y = place(py, box.height(), bounds.top(), bounds.top() + bounds.height(),
                           py >= area.center().y());
    label.position->setCoords(std::round(x), std::round(y));
}

namespace {

double luminance(const QColor& c) {
    auto channel = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

// `c` darkened (on a light background) or lightened (on a dark one) until it reaches `ratio`.
QColor readableOn(QColor c, const QColor& background, double ratio) {
    const bool lightBackground = luminance(background) > 0.4;
    for (int i = 0; i < 20 && contrastRatio(c, background) < ratio; ++i)
        c = lightBackground ? c.darker(115) : c.lighter(115);
    return c;
}

}  // namespace

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

AnnotationColors annotationColors(const QPalette& palette, const QColor& background) {
    AnnotationColors c;
    const QColor text = palette.color(QPalette::Text);
    const QColor base = palette.color(QPalette::Base);
    c.ink = readableOn(contrastRatio(text, background) >= contrastRatio(base, background) ? text
                                                                                          : base,
                       background, 7);
    c.knob = readableOn(c.ink, background, 4.5);
    c.knob.setAlpha(190);
    c.fault = readableOn(kPalette[1], background, 3);
    c.faultFill = kPalette[1];
    c.faultFill.setAlpha(luminance(background) > 0.4 ? 30 : 32);  // two overlapping faults still leave the data readable
    c.phase = readableOn(kPalette[0], background, 3);
    c.labelFill = background;
    c.labelFill.setAlpha(225);
    return c;
}

QColor baselineColor(const QColor& live, const QColor& background) {
    float h = 0, s = 0, v = 0;
    live.getHsvF(&h, &s, &v);
    // Paler than the live series: toward white on a light plot; on a dark one, lighter would be
    // toward white too and every ghost would turn the same grey, so it dims instead and keeps
    // more of its hue.
    const bool dark = luminance(background) <= 0.4;
    QColor c = dark ? QColor::fromHsvF(h, s * 0.7f, v * 0.78f)
                    : QColor::fromHsvF(h, s * 0.45f, std::min(1.0f, v * 0.9f + 0.15f));
    c.setAlpha(210);
    return c;
}

QString roleLabel(SeriesRole role) {
    switch (role) {
        case SeriesRole::Simulated:
            return "simulated";
        case SeriesRole::ClosedForm:
            return "closed form";
        case SeriesRole::Published:
            return "published";
        case SeriesRole::Reference:
            return "reference";
    }
    return {};
}

QString formatNumber(double v) {
    if (!std::isfinite(v)) return QString::number(v);
    const double a = std::abs(v);
    QLocale locale(QLocale::English);
    locale.setNumberOptions(QLocale::OmitGroupSeparator);
    QString s;
    if (a >= 1e7) return QString::number(v, 'g', 4);
    if (a >= 1000) return QLocale(QLocale::English).toString(v, 'f', 0);
    if (a >= 100)
        s = locale.toString(v, 'f', 1);
    else if (a >= 1 || a == 0)
        s = locale.toString(v, 'f', 3);
    else
        s = QString::number(v, 'g', 3);
    if (s.contains('.') && !s.contains('e')) {
        while (s.endsWith('0')) s.chop(1);
        if (s.endsWith('.')) s.chop(1);
    }
    return s;
}

}  // namespace taillab::ui::chart_style
