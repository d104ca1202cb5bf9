// Breaker state strips: one lane per (region, engine) against simulated time, coloured closed /
// open / half-open, with the legend naming the colours. The chart's data (gateway_charts::
// breakers) holds every span exactly, as two points (start, lane) and (end, lane); the drawing
// merges spans narrower than one column (about two pixels; at most kBins of them) so a flapping
// breaker stays cheap to draw, and draws a short trip at least two columns wide, so it shows. On a
// short chart, where a lane is thinner than a line of the axis's text, the lane labels take a
// smaller font, and only where a lane is thinner than that does the axis name regions only (the
// title then says so). An export is laid out at its own size, so an image taller than the chart
// on screen names every lane.
#pragma once

#include <QColor>
#include <QFont>
#include <QStringList>
#include <optional>
#include <vector>

#include "plots/gateway_time_chart.h"

namespace taillab::ui {

class BreakerStripChart : public GatewayTimeChart {
    Q_OBJECT
  public:
    static constexpr int kBins = 720;
    static QColor stateColor(int state);  // 0 closed, 1 open, 2 half-open

    // The states the chart's series stand for, in series order; state 0 is the normal one.
    // Where spans of two states share a column, the higher priority wins. Default: the
    // breaker's closed, open, half-open.
    struct State {
        QColor color;
        int priority = 0;
    };
    void setStates(std::vector<State> states);
    // The lanes not in their normal state at x: "EU / atlas: open".
    QStringList valuesAt(double x) const override;

    explicit BreakerStripChart(QWidget* parent = nullptr);
    // Lane labels, top to bottom ("EU / atlas"); drawn from the next showStrips on.
    void setLanes(const QStringList& lanes);
    const QStringList& lanes() const { return lanes_; }
    // setChart, with the state series drawn as strips (the graphs only carry the legend).
    void showStrips(const Chart& chart);
    int stripCount() const { return static_cast<int>(strips_.size()); }
    // The y axis's labels as drawn now, top to bottom.
    QStringList laneLabels() const;

  protected:
    void configureAxes(const Chart& chart) override;
    void adjustRanges() override;
    QString formatY(double lane) const override;
    // Data, for the empty text, is a lane out of its normal state.
    bool hasData() const override;

  private:
    void drawStrips(const Chart& chart);
    // Every lane's name, or only each region's when the lanes are too thin for a line of text.
    void updateLaneTicks(bool force = false);

    QStringList lanes_;
    std::vector<State> states_;

    bool regionTicks_ = false;  // the lanes are labelled by region only
    std::optional<QFont> normalTickFont_;  // the axis's own tick font, before any shrinking
    std::vector<QCPAbstractItem*> strips_;
};

}  // namespace taillab::ui
