// The hedge-delay sweep's chart: an XyChart (p99 against extra upstream load) with every point
// labelled by its hedge delay. qcustomplot.h stays in the .cpp.
#pragma once

#include <QRect>
#include <QSize>
#include <QString>
#include <vector>

#include "plots/xy_chart.h"

class QCPAbstractItem;

namespace taillab::ui {

class SweepChart : public XyChart {
    Q_OBJECT
  public:
    explicit SweepChart(QWidget* parent = nullptr);
    // Labels per series, per point in the series' order; drawn from the next setChart on.
    void setPointLabels(std::vector<std::vector<QString>> labels);
    int labelCount() const { return static_cast<int>(labelItems_.size()); }
    // Each label's box in widget pixels as last drawn, and the axis rect's.
    std::vector<QRectF> labelRects() const;
    QRect axisRectPixels() const;

  protected:
    void configureAxes(const Chart& chart) override;
    // Widens the fitted ranges so that every label lies inside the axis rect, not clipped at its
    // edges (the highest simulated point's label above it, the lowest published one's below).
    void adjustRanges() override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    std::vector<std::vector<QString>> labels_;
    std::vector<QCPAbstractItem*> labelItems_;
    QSize fittedFor_;  // the axis rect's size the ranges were last fitted for
    int refits_ = 0;   // fits since the last setChart or resize
};

}  // namespace taillab::ui
