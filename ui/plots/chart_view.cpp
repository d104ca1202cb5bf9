#include "plots/chart_view.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QVBoxLayout>
#include <QtSvg/QSvgGenerator>
#include <cmath>
#include <limits>

#include "plots/chart_style.h"
#include "plots/percentile_chart.h"
#include "plots/time_chart.h"
#include "plots/xy_chart.h"

namespace taillab::ui {

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

ChartView::ChartView(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), readout_(std::make_unique<Readout>()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumSize(320, 240);

    chart_style::setUpPlot(*plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);

    readout_->tracer = new QCPItemTracer(plot_);
    readout_->tracer->setStyle(QCPItemTracer::tsCircle);
    readout_->tracer->setSize(11);
    readout_->tracer->setPen(QPen(QColor(20, 20, 20), 1.5));
    readout_->tracer->setVisible(false);
    readout_->label = new QCPItemText(plot_);
    chart_style::setUpReadoutLabel(*readout_->label);
    readout_->label->setVisible(false);

    connect(plot_, &QCustomPlot::mouseMove, this, &ChartView::onMouseMove);
    connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { markUserView(); });
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { emit activated(); });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetView(); });
}

ChartView::~ChartView() = default;

void ChartView::setChart(const Chart& chart) {
    const bool sameSeries = [&] {
        if (chart.series.size() != chart_.series.size()) return false;
        for (std::size_t i = 0; i < chart.series.size(); ++i)
            if (chart.series[i].name != chart_.series[i].name ||
                chart.series[i].role != chart_.series[i].role)
                return false;
        return plot_->graphCount() == static_cast<int>(chart.series.size());
    }();
    const bool newChart = chart.id != chart_.id;
    chart_ = chart;
    chart_style::setTitle(*plot_, QString::fromStdString(chart.title));
    plot_->xAxis->setLabel(QString::fromStdString(chart.x_label));
    plot_->yAxis->setLabel(QString::fromStdString(chart.y_label));
    configureAxes(chart);
    if (sameSeries) {
        updateData();
    } else {
        rebuildGraphs();
    }
    if (!sameSeries) chart_style::fitLegend(*plot_, width());
    if (newChart) userView_ = false;
    if (!userView_) fitToData();
    readout_->tracer->setVisible(false);
    readout_->label->setVisible(false);
    replot();
}

void ChartView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    chart_style::fitLegend(*plot_, width());
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::rebuildGraphs() {
    plot_->clearGraphs();
    const auto colors = chart_style::seriesColors(chart_);
    for (std::size_t i = 0; i < chart_.series.size(); ++i) {
        QCPGraph* g = plot_->addGraph();
        chart_style::styleGraph(*g, chart_.series[i], colors[i]);
    }
    updateData();
}

void ChartView::updateData() {
    for (std::size_t i = 0; i < chart_.series.size(); ++i) {
        const Series& s = chart_.series[i];
        QVector<double> keys, values;
        keys.reserve(static_cast<qsizetype>(s.x.size()));
        values.reserve(static_cast<qsizetype>(s.x.size()));
        for (std::size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
            const double px = toPlotX(s.x[k]);
            if (!std::isfinite(px) || !std::isfinite(s.y[k])) continue;
            keys.push_back(px);
            values.push_back(s.y[k]);
        }
        QCPGraph* g = plot_->graph(static_cast<int>(i));
        g->setData(keys, values);
        chart_style::setMarkerDensity(*g, s, static_cast<int>(keys.size()));
    }
}

void ChartView::fitToData() {
    bool any = false;
    for (int i = 0; i < plot_->graphCount(); ++i) any = any || !plot_->graph(i)->data()->isEmpty();
    if (any) plot_->rescaleAxes();
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) chart_style::padRange(*axis);
    if (any) {
        bool nonNegative = true;
        for (const auto& s : chart_.series)
            for (double y : s.y) nonNegative = nonNegative && !(y < 0);
        if (nonNegative && plot_->yAxis->scaleType() == QCPAxis::stLinear &&
            plot_->yAxis->range().lower < 0)
            plot_->yAxis->setRangeLower(0);
    }
    adjustRanges();
}

void ChartView::resetView() {
    userView_ = false;
    fitToData();
    replot();
}

void ChartView::replot() { plot_->replot(QCustomPlot::rpQueuedReplot); }

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

ChartView::ViewRange ChartView::viewRange() const {
    return {plot_->xAxis->range().lower, plot_->xAxis->range().upper, plot_->yAxis->range().lower,
            plot_->yAxis->range().upper};
}

QString ChartView::formatX(double x) const { return chart_style::formatNumber(x); }

QString ChartView::readoutText() const {
    return readout_->label->visible() ? readout_->label->text() : QString();
}

void ChartView::onMouseMove(QMouseEvent* event) {
    if (event->buttons() != Qt::NoButton) {
        markUserView();
        return;
    }
    showReadoutNear(event->pos());
}

void ChartView::showReadoutNear(QPoint pos) {
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
        const Series& s = chart_.series[static_cast<std::size_t>(bestGraph)];
        readout_->tracer->position->setCoords(bestKey, bestValue);
        const QString text =
            QString("%1 (%2)\n%3: %4\n%5: %6")
                .arg(QString::fromStdString(s.name), chart_style::roleLabel(s.role),
                     plot_->xAxis->label(), formatX(fromPlotX(bestKey)),
                     QString::fromStdString(chart_.y_label), chart_style::formatNumber(bestValue));
        chart_style::placeReadoutLabel(*readout_->label, *plot_, bestKey, bestValue, text);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QSize ChartView::exportSize(QSize requested) const {
    if (requested.isValid() && !requested.isEmpty()) return requested;
    return size().expandedTo(kMinExportSize);
}

bool ChartView::savePng(const QString& path, QSize size) const {
    const QSize s = exportSize(size);
    return plot_->savePng(path, s.width(), s.height(), 2.0);
}

bool ChartView::saveSvg(const QString& path, QSize size) const {
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
    const QSize s = exportSize(size);
    return plot_->savePdf(path, s.width(), s.height(), QCP::epNoCosmetic, "TailLab",
                          QString::fromStdString(chart_.title));
}

}  // namespace taillab::ui
