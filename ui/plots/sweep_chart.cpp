#include "plots/sweep_chart.h"

#include <qcustomplot.h>

#include "plots/chart_style.h"

namespace taillab::ui {

SweepChart::SweepChart(QWidget* parent) : XyChart(parent) {}

void SweepChart::setPointLabels(std::vector<std::vector<QString>> labels) {
    labels_ = std::move(labels);
}

void SweepChart::configureAxes(const Chart& chart) {
    XyChart::configureAxes(chart);
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

}  // namespace taillab::ui
