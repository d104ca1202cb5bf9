// The six charts of a gateway run, two rows of three: the latency percentiles per window beside
// the whole run on the nines axis and the queue depth, then hedging, the breaker strips and the
// cache hit rates. Drawn from one snapshot (gateway_charts' builders), with the run's timeline
// as annotations on every time chart and, when given, a pinned run as ghosts. Shared by the
// simulated view (x in seconds since Mon 00:00 of the week) and the live view (seconds since the
// start: setElapsedTime).
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gateway_sim/gateway_sim.h"

namespace taillab::ui {

class BreakerStripChart;
class ChartView;
class GatewayTimeChart;
class PercentileChart;

class GatewayChartGrid : public QWidget {
    Q_OBJECT
  public:
    // The time axes' label in elapsed mode.
    static constexpr const char* kElapsedLabel = "Time since start (s)";

    explicit GatewayChartGrid(QWidget* parent = nullptr);

    // Time axes in seconds since the run's start, labelled so (a live run has no week).
    void setElapsedTime(bool elapsed);
    // Draws `s`; time charts' x is offset_s + the snapshot's seconds. `baseline`, if any, is
    // drawn as ghosts lined up by time since its start; `deadline_ms` as a line on the nines.
    void draw(const gateway::GatewaySnapshot& s, double offset_s,
              std::optional<double> deadline_ms,
              const gateway::GatewaySnapshot* baseline = nullptr);

    // What the time charts say while they have nothing to draw ("each 10 s window is drawn as it
    // closes"); the cache chart says instead that the cache is off, when `cacheOff` (from the
    // next draw).
    void setEmptyNote(const QString& note);
    void setCacheOff(bool cacheOff) { cacheOff_ = cacheOff; }

    // The charts by gateway_charts id, in the order the grid shows them.
    const std::vector<std::pair<std::string, ChartView*>>& charts() const { return charts_; }

  private:
    bool elapsed_ = false;
    bool cacheOff_ = false;
    QString emptyNote_;
    GatewayTimeChart* percentiles_ = nullptr;
    PercentileChart* nines_ = nullptr;  // the whole run on the nines axis
    GatewayTimeChart* queue_ = nullptr;
    GatewayTimeChart* hedging_ = nullptr;
    BreakerStripChart* breakers_ = nullptr;
    GatewayTimeChart* cache_ = nullptr;
    std::vector<std::pair<std::string, ChartView*>> charts_;
};

}  // namespace taillab::ui
