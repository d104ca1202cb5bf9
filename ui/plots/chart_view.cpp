#include "plots/chart_view.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QVBoxLayout>
#include <QtSvg/QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <limits>
#include <system_error>

#include "io/atomic_file.h"
#include "plots/chart_style.h"
#include "plots/percentile_chart.h"
#include "plots/time_chart.h"
#include "plots/xy_chart.h"

namespace taillab::ui {
namespace {

constexpr const char* kGhostLayer = "ghosts";  // a pinned run's series, under the chart's own

}  // namespace

struct ChartView::Crosshair {
    QCPItemLine* line = nullptr;
    QCPItemText* box = nullptr;
    QCPItemText* empty = nullptr;  // the empty text
};

struct ChartView::Readout {
    QCPItemTracer* tracer = nullptr;
    QCPItemText* label = nullptr;
};

ChartView* ChartView::create(ChartKind kind, QWidget* parent) {
    switch (kind) {
        case ChartKind::Percentile:
            return new PercentileChart(parent);
        case ChartKind::XY:
            return new XyChart(parent);
        case ChartKind::Time:
            return new TimeChart(parent);
    }
    return new XyChart(parent);
}

namespace {
// An axis label as set, before any fitting: kept in a property the first time it is read. A
// label that differs from the one fitting last drew was set anew.
QString fullLabel(QCPAxis& axis) {
    const QString shown = axis.label();
    QString full = axis.property("fullLabel").toString();
    if (shown != full && shown != axis.property("fittedLabel").toString()) {
        full = shown;
        axis.setProperty("fullLabel", full);
    }
    return full;
}
}  // namespace

ChartView::ChartView(QWidget* parent)
    : QWidget(parent),
      plot_(new QCustomPlot(this)),
      readout_(std::make_unique<Readout>()),
      crosshairItems_(std::make_unique<Crosshair>()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumSize(320, 240);

    chart_style::setUpPlot(*plot_);
    plotBackground_ = chart_style::plotColors(plot_->palette()).background;
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    plot_->addLayer(kGhostLayer, plot_->layer("main"), QCustomPlot::limBelow);
    annotations_ =
        std::make_unique<AnnotationLayer>(*plot_, [this](double x) { return toPlotX(x); });

    readout_->tracer = new QCPItemTracer(plot_);
    readout_->tracer->setStyle(QCPItemTracer::tsCircle);
    readout_->tracer->setSize(11);
    readout_->tracer->setPen(QPen(palette().color(QPalette::Text), 1.5));
    readout_->tracer->setVisible(false);
    readout_->label = new QCPItemText(plot_);
    chart_style::setUpReadoutLabel(*readout_->label, palette());
    readout_->label->setVisible(false);
    crosshairItems_->line = new QCPItemLine(plot_);
    crosshairItems_->line->setSelectable(false);
    for (QCPItemPosition* p : {crosshairItems_->line->start, crosshairItems_->line->end})
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    crosshairItems_->line->setVisible(false);
    crosshairItems_->box = new QCPItemText(plot_);
    chart_style::setUpReadoutLabel(*crosshairItems_->box, palette());
    crosshairItems_->box->position->setTypeX(QCPItemPosition::ptPlotCoords);
    crosshairItems_->box->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    crosshairItems_->box->setTextAlignment(Qt::AlignLeft);
    crosshairItems_->box->setVisible(false);
    crosshairItems_->empty = new QCPItemText(plot_);
    crosshairItems_->empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    crosshairItems_->empty->position->setCoords(0.5, 0.5);
    crosshairItems_->empty->setPositionAlignment(Qt::AlignCenter);
    crosshairItems_->empty->setSelectable(false);
    crosshairItems_->empty->setLayer("overlay");
    crosshairItems_->empty->setVisible(false);

    // Axis labels longer than their axis are fitted to it once the layout knows the axis
    // lengths: a smaller font first (down to 8 pt), then (the y axis) on two lines, then
    // shortened with the unit kept. A label's length does not change the layout; a smaller font
    // or a second line changes its strip's thickness, so the layout is made again at once (this
    // frame and an export are drawn with the strip they need, not a line cut off at the edge).
    // The y axis's room is the axis rect's height, which the y label's strip does not change, so
    // the choice settles.
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        for (int pass = 0; pass < 3; ++pass) {
            bool thicker = false;
            const QRect area = plot_->axisRect()->rect();
            for (const auto& [axis, room] :
                 {std::pair{plot_->xAxis, area.width()}, std::pair{plot_->yAxis, area.height()}}) {
                const QString full = fullLabel(*axis);
                const QFont font = chart_style::axisLabelFont(full, room);
                const QString text =
                    chart_style::fitAxisLabel(full, QFontMetrics(font), room, axis == plot_->yAxis);
                thicker = thicker || font != axis->labelFont() ||
                          text.count('\n') != axis->label().count('\n');
                if (axis->labelFont() != font) axis->setLabelFont(font);
                axis->setProperty("fittedLabel", text);
                if (axis->label() != text) axis->setLabel(text);
            }
            if (!thicker) return;
            for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                                     QCPLayoutElement::upLayout})
                plot_->plotLayout()->update(phase);
        }
    });
    connect(plot_, &QCustomPlot::mouseMove, this, &ChartView::onMouseMove);
    plot_->installEventFilter(this);  // for the pointer leaving it
    connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { markUserView(); });
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        pressAt_ = e->pos();
        emit activated();
    });
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton || (e->pos() - pressAt_).manhattanLength() > 3) return;
        if (!plot_->axisRect()->rect().contains(e->pos())) return;
        emit clicked(fromPlotX(plot_->xAxis->pixelToCoord(e->pos().x())));
    });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        resetView();
        emit viewReset();
    });
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) {
                if (!userView_ || settingRange_) return;
                if (horizontalOnly_) fitYToView();
                emit xRangeChanged(fromPlotX(r.lower), fromPlotX(r.upper));
            });
}

ChartView::~ChartView() = default;

bool ChartView::sameGraphs(const Chart& chart) const {
    if (chart.series.size() != chart_.series.size()) return false;
    for (std::size_t i = 0; i < chart.series.size(); ++i)
        if (chart.series[i].name != chart_.series[i].name ||
            chart.series[i].role != chart_.series[i].role)
            return false;
    if (baseline_.size() != ghostNames_.size()) return false;
    for (std::size_t i = 0; i < baseline_.size(); ++i)
        if (baseline_[i].name != ghostNames_[i]) return false;
    const std::size_t legendOnly = ghostNames_.empty() ? 0 : 1;
    return plot_->graphCount() ==
           static_cast<int>(chart.series.size() + ghostNames_.size() + legendOnly);
}

void ChartView::setColourPlan(std::vector<QString> plan) {
    if (plan == colourPlan_) return;
    colourPlan_ = std::move(plan);
    coloursStale_ = true;
}

void ChartView::setChart(const Chart& chart) {
    const bool sameSeries = sameGraphs(chart) && !coloursStale_;
    coloursStale_ = false;
    const bool newChart = chart.id != chart_.id;
    chart_ = chart;
    applyTitle();
    plot_->xAxis->setLabel(QString::fromStdString(chart.x_label));
    plot_->yAxis->setLabel(QString::fromStdString(chart.y_label));
    configureAxes(chart);
    if (sameSeries) {
        updateData();
    } else {
        rebuildGraphs();
    }
    if (!sameSeries) chart_style::fitLegend(*plot_, size());
    if (newChart) userView_ = false;
    if (!userView_) fitToData();
    if (horizontalOnly_) fitYToView();
    readout_->tracer->setVisible(false);
    readout_->label->setVisible(false);
    placeCrosshair();
    placeEmptyText();
    replot();
}

void ChartView::setEmptyText(const QString& text) {
    emptyText_ = text;
    placeEmptyText();
    replot();
}

bool ChartView::emptyShown() const { return crosshairItems_->empty->visible(); }

bool ChartView::hasData() const {
    for (const Series& s : chart_.series)
        if (!s.x.empty()) return true;
    return false;
}

void ChartView::placeEmptyText() {
    QCPItemText* t = crosshairItems_->empty;
    t->setText(emptyText_);
    t->setColor(chart_style::plotColors(palette()).axis);
    QFont f = t->font();
    f.setItalic(true);
    t->setFont(f);
    t->setVisible(!emptyText_.isEmpty() && !hasData());
}

void ChartView::setGapsShown(bool shown, const QString& text) {
    gapsShown_ = shown;
    gapText_ = text;
}

void ChartView::setHorizontalOnly(bool horizontal) {
    horizontalOnly_ = horizontal;
    const Qt::Orientations o = horizontal ? Qt::Horizontal : (Qt::Horizontal | Qt::Vertical);
    plot_->axisRect()->setRangeDrag(o);
    plot_->axisRect()->setRangeZoom(o);
}

void ChartView::setFastDrawing(bool fast) {
    fastDrawing_ = fast;
    const QCP::AntialiasedElements lines = QCP::aePlottables | QCP::aeItems | QCP::aeFills |
                                           QCP::aeGrid | QCP::aeSubGrid | QCP::aeScatters;
    if (fast) {
        plot_->setAntialiasedElements(QCP::aeAll & ~lines);
        plot_->setNotAntialiasedElements(lines);
    } else {
        plot_->setNotAntialiasedElements(QCP::aeNone);
        plot_->setAntialiasedElements(QCP::aeAll);
    }
}

void ChartView::setXRange(double lower, double upper) {
    const double lo = toPlotX(lower), hi = toPlotX(upper);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return;
    settingRange_ = true;
    userView_ = true;
    plot_->xAxis->setRange(lo, hi);
    fitYToView();
    settingRange_ = false;
    placeCrosshair();
    replot();
}

void ChartView::fitYToView() {
    const QCP::SignDomain sign =
        plot_->yAxis->scaleType() == QCPAxis::stLogarithmic ? QCP::sdPositive : QCP::sdBoth;
    QCPRange y;
    bool any = false;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        bool found = false;
        const QCPRange r = plot_->graph(i)->getValueRange(found, sign, plot_->xAxis->range());
        if (!found) continue;
        if (any) {
            y.expand(r);
        } else {
            y = r;
            any = true;
        }
    }
    if (any) {
        if (y.size() <= 0) y = QCPRange(y.lower - 0.5, y.upper + 0.5);
        plot_->yAxis->setRange(y);
        chart_style::padRange(*plot_->yAxis);
        keepNonNegative();
    }
    adjustRanges();
}

void ChartView::keepNonNegative() {
    bool nonNegative = true;
    for (const auto& s : chart_.series)
        for (double y : s.y) nonNegative = nonNegative && !(y < 0);
    if (nonNegative && plot_->yAxis->scaleType() == QCPAxis::stLinear &&
        plot_->yAxis->range().lower < 0)
        plot_->yAxis->setRangeLower(0);
}

void ChartView::setCrosshair(std::optional<double> x) {
    crosshair_ = x;
    placeCrosshair();
    replot();
}

QString ChartView::crosshairText() const {
    return crosshairItems_->box->visible() ? crosshairItems_->box->text() : QString();
}

QStringList ChartView::valuesAt(double x) const {
    QStringList out;
    const double key = toPlotX(x);
    const int own = static_cast<int>(chart_.series.size());
    for (int i = 0; i < plot_->graphCount() && i < own + static_cast<int>(ghostNames_.size()); ++i) {
        const auto data = plot_->graph(i)->data();
        if (data->isEmpty()) continue;
        // A window's point sits at its end: x reads the window it falls in, the first point at or
        // after it; past the last point there is nothing yet.
        const auto it = data->findBegin(key, false);
        if (it == data->constEnd()) continue;
        const QString name = i < own ? QString::fromStdString(chart_.series[static_cast<std::size_t>(i)].name)
                                     : plot_->graph(i)->name();
        out << QString("%1: %2").arg(name, std::isnan(it->value) ? gapText_ : formatY(it->value));
    }
    return out;
}

void ChartView::placeCrosshair() {
    Crosshair& c = *crosshairItems_;
    const double key = crosshair_ ? toPlotX(*crosshair_) : NAN;
    const bool shown = crosshair_ && std::isfinite(key) && plot_->xAxis->range().contains(key);
    c.line->setVisible(shown);
    c.box->setVisible(shown);
    if (!shown) return;
    const QColor ink = palette().color(QPalette::Text);
    c.line->setPen(QPen(ink, 1, Qt::DashLine));
    c.line->start->setCoords(key, 0);
    c.line->end->setCoords(key, 1);
    QStringList lines = valuesAt(*crosshair_);
    lines.prepend(formatX(*crosshair_));
    c.box->setText(lines.join('\n'));
    // Beside the line, on the side with more room.
    const bool right = plot_->xAxis->coordToPixel(key) < plot_->axisRect()->center().x();
    c.box->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
    c.box->position->setCoords(key, 0.02);
}

void ChartView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    chart_style::fitTitle(*plot_, width());
    chart_style::fitLegend(*plot_, size());
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) restyle();
}

bool ChartView::event(QEvent* event) {
    // A chart built before it joined the window may have taken another palette than the one it
    // shows in: settle the colours when it is polished, before it is first drawn.
    if (event->type() == QEvent::Polish &&
        plotBackground_ != chart_style::plotColors(palette()).background)
        restyle();
    if (event->type() == QEvent::Leave) hideReadout();
    return QWidget::event(event);
}

bool ChartView::eventFilter(QObject* watched, QEvent* event) {
    // The plot fills the view, so the pointer leaving the chart leaves the plot; a box left up
    // would stand beside the next chart's as if both were read at the pointer.
    if (watched == plot_ && event->type() == QEvent::Leave) hideReadout();
    return QWidget::eventFilter(watched, event);
}

void ChartView::hideReadout() {
    if (!readout_->label->visible() && !readout_->tracer->visible()) return;
    readout_->label->setVisible(false);
    readout_->tracer->setVisible(false);
    replot();
}

void ChartView::restyle() {
    chart_style::applyPalette(*plot_, palette());
    plotBackground_ = chart_style::plotColors(palette()).background;
    chart_style::setUpReadoutLabel(*readout_->label, palette());
    chart_style::setUpReadoutLabel(*crosshairItems_->box, palette());
    crosshairItems_->box->position->setTypeX(QCPItemPosition::ptPlotCoords);
    crosshairItems_->box->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    readout_->tracer->setPen(QPen(palette().color(QPalette::Text), 1.5));
    annotations_->restyle();
    if (!chart_.series.empty()) {
        rebuildGraphs();  // series colours follow the background
        chart_style::fitLegend(*plot_, size());  // the rebuilt legend's entries, laid out as before
    }
    replot();
}

void ChartView::setAnnotations(const std::vector<Annotation>& annotations) {
    if (annotations == annotations_->annotations()) return;
    annotations_->set(annotations);
    replot();
}

const std::vector<Annotation>& ChartView::annotations() const {
    return annotations_->annotations();
}

const std::vector<AnnotationLabel>& ChartView::annotationLabels() const {
    return annotations_->labels();
}

void ChartView::setAnnotationSpansOverData(bool over) { annotations_->setSpansOverData(over); }

void ChartView::setAnnotationLabelsShown(bool shown) { annotations_->setLabelsShown(shown); }

void ChartView::setBaseline(std::vector<Series> series) { baseline_ = std::move(series); }

QString ChartView::baselineName(const std::string& name) {
    return QString::fromStdString(name) + tr(" (baseline)");
}

void ChartView::setBaselineLabels(const QString& legend, const QString& suffix) {
    ghostLegend_ = legend;
    ghostSuffix_ = suffix;
}

std::vector<PlottedSeries> ChartView::baselineSeries() const {
    std::vector<PlottedSeries> out;
    const int first = static_cast<int>(chart_.series.size());
    for (int i = first; i < first + static_cast<int>(ghostNames_.size()); ++i) {
        PlottedSeries p;
        p.name = plot_->graph(i)->name();
        for (auto it = plot_->graph(i)->data()->constBegin();
             it != plot_->graph(i)->data()->constEnd(); ++it) {
            p.x.push_back(fromPlotX(it->key));
            p.y.push_back(it->value);
        }
        out.push_back(std::move(p));
    }
    return out;
}

void ChartView::rebuildGraphs() {
    plot_->clearGraphs();
    const chart_style::PlotColors look = chart_style::plotColors(palette());
    const auto colors = chart_style::seriesColors(chart_, look.background, colourPlan_);
    for (std::size_t i = 0; i < chart_.series.size(); ++i) {
        QCPGraph* g = plot_->addGraph();
        chart_style::styleGraph(*g, chart_.series[i], colors[i], look.text);
        if (fastDrawing_) {
            // Thousands of windows a series: a thin sampled line, and no markers, which along a
            // dense series would only be noise (and time).
            g->setAdaptiveSampling(true);
            QPen pen = g->pen();
            pen.setWidthF(std::min(pen.widthF(), 1.0));
            g->setPen(pen);
            if (chart_.series[i].role == SeriesRole::Simulated) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
        }
    }
    ghostNames_.clear();
    for (const Series& s : baseline_) {
        QColor live = look.axis;
        for (std::size_t i = 0; i < chart_.series.size(); ++i)
            if (chart_.series[i].name == s.name) live = colors[i];
        QCPGraph* g = plot_->addGraph();
        g->setLayer(kGhostLayer);
        chart_style::styleBaselineGraph(
            *g, ghostSuffix_.isEmpty() ? baselineName(s.name) : QString::fromStdString(s.name) + ghostSuffix_,
            live, look.background);
        if (fastDrawing_) {
            // Sampled like the chart's own lines, and a hairline: dashes along thousands of
            // points at 1.6 px were most of a frame.
            g->setAdaptiveSampling(true);
            QPen pen = g->pen();
            pen.setWidthF(0);
            g->setPen(pen);
        }
        g->removeFromLegend();  // one entry says what every dashed ghost is
        ghostNames_.push_back(s.name);
    }
    if (!ghostNames_.empty()) {
        // No data: only its legend entry, a grey dash.
        QCPGraph* legend = plot_->addGraph();
        legend->setLayer(kGhostLayer);
        chart_style::styleBaselineGraph(
            *legend, ghostLegend_.isEmpty() ? tr("baseline run") : ghostLegend_, look.axis,
            look.background);
    }
    updateData();
}

void ChartView::updateData() {
    const std::size_t own = chart_.series.size();
    for (std::size_t i = 0; i < own + ghostNames_.size() && i < own + baseline_.size(); ++i) {
        const Series& s = i < own ? chart_.series[i] : baseline_[i - own];
        QVector<double> keys, values;
        keys.reserve(static_cast<qsizetype>(s.x.size()));
        values.reserve(static_cast<qsizetype>(s.x.size()));
        for (std::size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
            const double px = toPlotX(s.x[k]);
            const bool gap = gapsShown_ && std::isnan(s.y[k]);  // drawn as a break in the line
            if (!std::isfinite(px) || (!std::isfinite(s.y[k]) && !gap)) continue;
            keys.push_back(px);
            values.push_back(s.y[k]);
        }
        QCPGraph* g = plot_->graph(static_cast<int>(i));
        g->setData(keys, values);
        chart_style::setMarkerDensity(*g, s, static_cast<int>(keys.size()));
    }
}

std::pair<std::optional<double>, std::optional<double>> ChartView::singleKeyAndValue() const {
    const QCP::SignDomain sign =
        plot_->yAxis->scaleType() == QCPAxis::stLogarithmic ? QCP::sdPositive : QCP::sdBoth;
    std::optional<QCPRange> keys, values;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const QCPGraph* g = plot_->graph(i);
        if (!g->visible() || g->data()->isEmpty()) continue;
        bool found = false;
        const QCPRange k = g->getKeyRange(found, QCP::sdBoth);
        if (found) keys ? keys->expand(k) : void(keys = k);
        const QCPRange v = g->getValueRange(found, sign);
        if (found) values ? values->expand(v) : void(values = v);
    }
    auto single = [](const std::optional<QCPRange>& r) {
        return r && r->size() == 0 ? std::optional<double>(r->lower) : std::nullopt;
    };
    return {single(keys), single(values)};
}

void ChartView::fitToData() {
    const int own = static_cast<int>(chart_.series.size());
    bool any = false, anyOwn = false;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const bool data = !plot_->graph(i)->data()->isEmpty();
        any = any || data;
        anyOwn = anyOwn || (data && i < own);
    }
    if (anyOwn && plot_->graphCount() > own) {
        // The chart's own x range; y as well from the ghosts within it.
        for (int i = own; i < plot_->graphCount(); ++i) plot_->graph(i)->setVisible(false);
        plot_->rescaleAxes(true);
        const QCP::SignDomain sign = plot_->yAxis->scaleType() == QCPAxis::stLogarithmic
                                         ? QCP::sdPositive
                                         : QCP::sdBoth;
        QCPRange y = plot_->yAxis->range();
        for (int i = own; i < plot_->graphCount(); ++i) {
            plot_->graph(i)->setVisible(true);
            bool found = false;
            const QCPRange r = plot_->graph(i)->getValueRange(found, sign, plot_->xAxis->range());
            if (found) y.expand(r);
        }
        plot_->yAxis->setRange(y);
    } else if (any) {
        plot_->rescaleAxes();
    }
    // Data of a single key or value: QCustomPlot keeps the axis's old size around it, which the
    // padding would grow on every redraw; it gets a size of its own instead.
    const auto [key, value] =
        any ? singleKeyAndValue() : std::pair<std::optional<double>, std::optional<double>>{};
    for (const auto& [axis, single] :
         {std::pair{plot_->xAxis, key}, std::pair{plot_->yAxis, value}}) {
        if (single)
            chart_style::rangeAround(*axis, *single);
        else
            chart_style::padRange(*axis);
    }
    // A chart of values that are never negative does not show an axis below zero.
    if (any) keepNonNegative();
    adjustRanges();
}

void ChartView::resetView() {
    userView_ = false;
    fitToData();
    replot();
}

void ChartView::replot() { plot_->replot(QCustomPlot::rpQueuedReplot); }

void ChartView::replotNow() { plot_->replot(QCustomPlot::rpImmediateRefresh); }

void ChartView::markUserView() { userView_ = true; }

std::vector<PlottedSeries> ChartView::plottedSeries() const {
    std::vector<PlottedSeries> out;
    for (int i = 0; i < plot_->graphCount() && i < static_cast<int>(chart_.series.size()); ++i) {
        PlottedSeries p;
        p.name = QString::fromStdString(chart_.series[static_cast<std::size_t>(i)].name);
        p.role = chart_.series[static_cast<std::size_t>(i)].role;
        for (auto it = plot_->graph(i)->data()->constBegin();
             it != plot_->graph(i)->data()->constEnd(); ++it) {
            p.x.push_back(fromPlotX(it->key));
            p.y.push_back(it->value);
        }
        out.push_back(std::move(p));
    }
    return out;
}

QStringList ChartView::legendNames() const {
    QStringList names;
    for (int i = 0; i < plot_->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i)))
            names << item->plottable()->name();
    return names;
}

int ChartView::legendColumns() const { return plot_->legend->columnCount(); }

namespace {
QCPTextElement* titleElement(QCustomPlot& plot) {
    return qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0));
}
}  // namespace

QString ChartView::titleText() const {
    QString title = QString::fromStdString(chart_.title);
    if (!titleNote_.isEmpty()) title += QString::fromUtf8(" · ") + titleNote_;
    if (!titleHint_.isEmpty() && !exporting_) title += " (" + titleHint_ + ")";
    return title;
}

void ChartView::applyTitle() const {
    chart_style::setTitle(*plot_, titleText());
    chart_style::fitTitle(*plot_, plot_->viewport().width());
}

void ChartView::setTitleHint(const QString& hint) {
    if (hint == titleHint_) return;
    titleHint_ = hint;
    applyTitle();
    replot();
}

void ChartView::setTitleNote(const QString& note) {
    if (note == titleNote_) return;
    titleNote_ = note;
    applyTitle();
}

QString ChartView::drawnTitle() const {
    const QCPTextElement* t = titleElement(*plot_);
    return t ? t->text() : QString();
}

int ChartView::titlePointSize() const {
    const QCPTextElement* t = titleElement(*plot_);
    return t ? t->font().pointSize() : 0;
}

QString ChartView::drawnAxisLabel(Qt::Orientation axis) const {
    return (axis == Qt::Horizontal ? plot_->xAxis : plot_->yAxis)->label();
}

int ChartView::axisLabelPointSize(Qt::Orientation axis) const {
    return (axis == Qt::Horizontal ? plot_->xAxis : plot_->yAxis)->labelFont().pointSize();
}

int ChartView::axisLength(Qt::Orientation axis) const {
    const QRect area = plot_->axisRect()->rect();
    return axis == Qt::Horizontal ? area.width() : area.height();
}

QRect ChartView::plotArea() const { return plot_->axisRect()->rect(); }

int ChartView::titleWidth() const {
    const QCPTextElement* t = titleElement(*plot_);
    return t ? QFontMetrics(t->font()).horizontalAdvance(t->text()) : 0;
}

ChartView::ViewRange ChartView::viewRange() const {
    return {plot_->xAxis->range().lower, plot_->xAxis->range().upper, plot_->yAxis->range().lower,
            plot_->yAxis->range().upper};
}

QString ChartView::formatX(double x) const { return chart_style::formatNumber(x); }
QString ChartView::formatY(double y) const { return chart_style::formatNumber(y); }

QString ChartView::readoutText() const {
    return readout_->label->visible() ? readout_->label->text() : QString();
}

QRect ChartView::readoutRect() const {
    return readout_->label->visible() ? chart_style::readoutRect(*readout_->label).toRect() : QRect();
}

void ChartView::onMouseMove(QMouseEvent* event) {
    if (event->buttons() != Qt::NoButton) {
        markUserView();
        return;
    }
    if (crosshairMode_) {
        if (showAnnotationReadout(event->pos())) return;
        readout_->label->setVisible(false);
        readout_->tracer->setVisible(false);
        if (plot_->axisRect()->rect().contains(event->pos()))
            emit hovered(fromPlotX(plot_->xAxis->pixelToCoord(event->pos().x())));
        return;
    }
    showReadoutNear(event->pos());
}

bool ChartView::showAnnotationReadout(QPoint pos) {
    // The annotation there, and those whose labels had no room and are named by its box.
    const std::vector<std::size_t> hits = annotations_->hits(pos);
    if (hits.empty()) return false;
    constexpr std::size_t kMaxListed = 5;  // a taller box would cover the chart
    QStringList lines;
    for (std::size_t i : hits) {
        if (lines.size() == static_cast<qsizetype>(kMaxListed)) {
            lines << tr("and %n more here (zoom in to tell them apart)", "",
                        static_cast<int>(hits.size() - kMaxListed));
            break;
        }
        const Annotation& a = annotations_->annotations()[i];
        const QString kind = a.kind == "knob"    ? tr("Knob change")
                             : a.kind == "fault" ? tr("Fault")
                             : a.kind == "phase" ? tr("Phase")
                                                 : QString::fromStdString(a.kind);
        QString when = formatX(a.x0);
        if (a.x1) when += QString::fromUtf8(" – ") + formatX(*a.x1);
        lines << QString("%1: %2\n%3: %4")
                     .arg(kind, QString::fromStdString(a.label), fullLabel(*plot_->xAxis), when);
    }
    const QString text = lines.join("\n");
    readout_->tracer->setVisible(false);
    readout_->label->setVisible(true);
    chart_style::placeReadoutLabel(*readout_->label, *plot_, plot_->xAxis->pixelToCoord(pos.x()),
                                   plot_->yAxis->pixelToCoord(pos.y()), text);
    plot_->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

void ChartView::showReadoutNear(QPoint pos) {
    if (showAnnotationReadout(pos)) return;
    constexpr double kMaxDistancePx = 40;
    double best = kMaxDistancePx * kMaxDistancePx;
    int bestGraph = -1;
    double bestKey = 0, bestValue = 0;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        const QCPGraph* g = plot_->graph(i);
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            const double px = plot_->xAxis->coordToPixel(it->key);
            const double py = plot_->yAxis->coordToPixel(it->value);
            if (!std::isfinite(px) || !std::isfinite(py)) continue;
            const double d = (px - pos.x()) * (px - pos.x()) + (py - pos.y()) * (py - pos.y());
            if (d < best) {
                best = d;
                bestGraph = i;
                bestKey = it->key;
                bestValue = it->value;
            }
        }
    }
    const bool show = bestGraph >= 0;
    readout_->tracer->setVisible(show);
    readout_->label->setVisible(show);
    if (show) {
        const bool own = bestGraph < static_cast<int>(chart_.series.size());
        const QString name = own ? QString::fromStdString(
                                       chart_.series[static_cast<std::size_t>(bestGraph)].name)
                                 : plot_->graph(bestGraph)->name();
        const QString role =
            own ? chart_style::roleLabel(chart_.series[static_cast<std::size_t>(bestGraph)].role)
                : tr("pinned run");
        readout_->tracer->position->setCoords(bestKey, bestValue);
        const QString text =
            QString("%1 (%2)\n%3: %4\n%5: %6")
                .arg(name, role,
                     fullLabel(*plot_->xAxis), formatX(fromPlotX(bestKey)),
                     QString::fromStdString(chart_.y_label), formatY(bestValue));
        chart_style::placeReadoutLabel(*readout_->label, *plot_, bestKey, bestValue, text);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QSize ChartView::exportSize(QSize requested) const {
    if (requested.isValid() && !requested.isEmpty()) return requested;
    return size().expandedTo(kMinExportSize);
}

// Each export writes a temporary file beside the target and renames it into place, so that a
// failed export leaves an existing file as it was (io/atomic_file.h).
bool ChartView::savePng(const QString& path, QSize size) const {
    return saveAtomically(path, size, [&](const QString& temporary) {
        const QSize s = exportSize(size);
        return plot_->savePng(temporary, s.width(), s.height(), 2.0);
    });
}

bool ChartView::saveAtomically(const QString& path, QSize size,
                               const std::function<bool(const QString&)>& write) const {
    bool ok = false;
    // Title and legend laid out for the export's width, then back for the widget's; the caption
    // is a row of its own under the legend while the file is written.
    const QSize s = exportSize(size);
    exporting_ = true;
    applyTitle();
    chart_style::fitTitle(*plot_, s.width());
    chart_style::fitLegend(*plot_, s);
    QCPTextElement* caption = nullptr;
    if (!exportCaption_.isEmpty()) {
        QFont f = plot_->legend->font();
        f.setPointSizeF(f.pointSizeF() - 1);
        const int room = s.width() - 16;
        caption = new QCPTextElement(plot_, exportCaption_.fitted(QFontMetrics(f), std::max(room, 0)), f);
        caption->setTextColor(chart_style::plotColors(palette()).axis);
        caption->setMargins(QMargins(8, 2, 8, 6));
        const int row = plot_->plotLayout()->rowCount();
        plot_->plotLayout()->insertRow(row);
        plot_->plotLayout()->addElement(row, 0, caption);
        plot_->plotLayout()->setRowStretchFactor(row, 0.001);
    }
    try {
        writeFileAtomicallyWith(path.toStdString(), [&](const std::string& temporary) {
            return write(QString::fromStdString(temporary));
        });
        ok = true;
    } catch (const std::system_error&) {
    }
    if (caption) {
        plot_->plotLayout()->remove(caption);
        plot_->plotLayout()->simplify();
    }
    exporting_ = false;
    applyTitle();
    chart_style::fitTitle(*plot_, width());
    chart_style::fitLegend(*plot_, QWidget::size());
    plot_->replot();  // the export laid the labels out at its own size
    return ok;
}

void ChartView::renderTo(QCPPainter& painter, QSize size) const {
    exporting_ = true;
    applyTitle();
    chart_style::fitTitle(*plot_, size.width());
    chart_style::fitLegend(*plot_, size);
    plot_->toPainter(&painter, size.width(), size.height());
    exporting_ = false;
    applyTitle();
    chart_style::fitTitle(*plot_, width());
    chart_style::fitLegend(*plot_, QWidget::size());
    plot_->replot();
}

bool ChartView::saveSvg(const QString& path, QSize size) const {
    return saveAtomically(path, size, [&](const QString& temporary) { return writeSvg(temporary, size); });
}

bool ChartView::writeSvg(const QString& path, QSize size) const {
    const QSize s = exportSize(size);
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(s);
    generator.setViewBox(QRect(QPoint(0, 0), s));
    generator.setTitle(QString::fromStdString(chart_.title));
    generator.setDescription("Exported from TailLab");
    QCPPainter painter;
    if (!painter.begin(&generator)) return false;
    plot_->toPainter(&painter, s.width(), s.height());
    painter.end();
    return QFileInfo(path).size() > 0;
}

bool ChartView::savePdf(const QString& path, QSize size) const {
    return saveAtomically(path, size, [&](const QString& temporary) {
        const QSize s = exportSize(size);
        return plot_->savePdf(temporary, s.width(), s.height(), QCP::epNoCosmetic, "TailLab",
                              QString::fromStdString(chart_.title));
    });
}

}  // namespace taillab::ui
