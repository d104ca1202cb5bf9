// Breaker state strips: one lane per (region, engine) against simulated time, coloured closed /
// open / half-open, with the legend naming the colours. The chart's data (gateway_charts::
// breakers) holds every span exactly, as two points (start, lane) and (end, lane); the drawing
// merges spans narrower than one of kBins columns so a flapping breaker stays cheap to draw.
#pragma once

#include <QColor>
#include <QStringList>
#include <vector>

#include "plots/gateway_time_chart.h"

namespace taillab::ui {

class BreakerStripChart : public GatewayTimeChart {
    Q_OBJECT
  public:
    static constexpr int kBins = 720;
    static QColor stateColor(int state);  // 0 closed, 1 open, 2 half-open

    explicit BreakerStripChart(QWidget* parent = nullptr);
    // Lane labels, top to bottom ("EU / atlas"); drawn from the next showStrips on.
    void setLanes(const QStringList& lanes);
    // setChart, with the state series drawn as strips (the graphs only carry the legend).
    void showStrips(const Chart& chart);
    int stripCount() const { return static_cast<int>(strips_.size()); }

  protected:
    void configureAxes(const Chart& chart) override;
    void adjustRanges() override;

  private:
    void drawStrips(const Chart& chart);

    QStringList lanes_;
    std::vector<QCPAbstractItem*> strips_;
};

}  // namespace taillab::ui
