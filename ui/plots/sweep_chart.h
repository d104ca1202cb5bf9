// The hedge-delay sweep's chart: an XyChart (p99 against extra upstream load) with every point
// labelled by its hedge delay. qcustomplot.h stays in the .cpp.
#pragma once

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

  protected:
    void configureAxes(const Chart& chart) override;

  private:
    std::vector<std::vector<QString>> labels_;
    std::vector<QCPAbstractItem*> labelItems_;
};

}  // namespace taillab::ui
