// The gateway's numbers that are not charts: the customers whose p99 sits furthest above the
// global p99, every counter of the run (requests, outcomes, engine calls, cache, coalescing),
// and the timeline of knob changes and breaker events. conservationLine() is the one-line
// account accepted = answered + rejected + failed + in flight shown above the charts.
#pragma once

#include <QTabWidget>

#include "gateway/gateway_frame.h"

class QLabel;
class QTableWidget;

namespace taillab::ui {

class GatewayTables : public QTabWidget {
    Q_OBJECT
  public:
    explicit GatewayTables(QWidget* parent = nullptr);
    void setFrame(const GatewayFramePtr& frame);
    // The timeline's times as seconds since the start (a live run) instead of the week.
    void setElapsedTime(bool elapsed);

    QTableWidget* customersTable() const { return customers_; }
    // Above the customers: what the ranking means when it cannot single anyone out ("" hidden).
    QString customersNote() const;
    QTableWidget* countersTable() const { return counters_; }
    QTableWidget* timelineTable() const { return timeline_; }
    // Above the timeline when it has no event yet ("" hidden).
    QString timelineNote() const;

    static QString conservationLine(const gateway::GatewaySnapshot& s);
    // What the line means, for its tooltip.
    static QString conservationHelp();
    static double globalP99_ms(const gateway::GatewaySnapshot& s);
    // The global p99 at the customers' resolution (GatewaySnapshot::customers_global_p99_ms):
    // what the customers table and its note compare their p99s with.
    static double customersGlobalP99_ms(const gateway::GatewaySnapshot& s);

  private:
    void fillCustomers(const gateway::GatewaySnapshot& s, double deadline_ms);
    void fillCounters(const gateway::GatewaySnapshot& s);
    void fillTimeline(const GatewayFrame& f);

    QTableWidget* customers_ = nullptr;
    QLabel* customersNote_ = nullptr;
    QTableWidget* counters_ = nullptr;
    QTableWidget* timeline_ = nullptr;
    QLabel* timelineNote_ = nullptr;
    QString timelineKey_;  // what the timeline table shows
    bool elapsed_ = false;
};

}  // namespace taillab::ui
