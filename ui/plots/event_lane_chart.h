// The incident board's timeline lane: a run's events against simulated time, one row per kind
// (faults, knob changes, phases), each a span (or, for an instant, a thin bar at least a few
// pixels wide) with its label written in the row from its start. A row whose labels would run
// into the next event splits into two tracks, each event in the first one free for its label;
// a label is elided at the next event of its track and hidden when too little room is left
// (hovering gives the full text in a tooltip and in the crosshair box). A click on an event
// emits eventClicked (the title says so on screen, not in an exported image). From the keyboard:
// Tab to the lane, Left and Right (Home, End) pick the previous or next event in time, drawn
// outlined; Enter or Space opens it as a click would. The x axis is the gateway charts' week
// ("Tue 07:30").
// qcustomplot.h stays in the .cpp.
#pragma once

#include <QRectF>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "plots/gateway_time_chart.h"

class QCPItemRect;
class QCPItemText;

namespace taillab::ui {

struct LaneEvent {
    double x0 = 0;                // data x (seconds since Mon 00:00)
    std::optional<double> x1;     // end of a span; nullopt: an instant
    int row = 0;                  // index into the lane's rows
    QString label;                // "EU provider A loses 90% of its CPUs"
    bool operator==(const LaneEvent&) const = default;
};

class EventLaneChart : public GatewayTimeChart {
    Q_OBJECT
  public:
    static constexpr int kMinEventPx = 4;   // an instant or a short span is drawn this wide
    static constexpr int kMinLabelPx = 40;  // a label with less room is hidden
    static constexpr int kTracks = 2;       // a row's events split into at most this many tracks

    explicit EventLaneChart(QWidget* parent = nullptr);
    // Row names, top to bottom ("Faults", "Knobs", "Phases"); drawn from the next setEvents.
    void setRows(const QStringList& rows);
    void setEvents(const std::vector<LaneEvent>& events);
    const std::vector<LaneEvent>& events() const { return events_; }

    struct Label {
        QString text;  // as drawn (elided)
        QRectF rect;   // widget pixels; empty when hidden
        bool shown = false;
    };
    const std::vector<Label>& labels() const { return labels_; }
    // The track (0 .. kTracks - 1) each event was laid out in, in the order of events().
    const std::vector<int>& tracks() const { return tracks_; }
    // The event drawn at `pos` (widget pixels), its label or its bar.
    std::optional<std::size_t> eventAt(QPointF pos) const;
    // A point inside event i's bar (widget pixels), for tests and keyboard use.
    QPointF eventPoint(std::size_t i) const;
    // The events under x: "Fault: atlas slow ×3 (EU)".
    QStringList valuesAt(double x) const override;
    // The event the keyboard has picked (outlined), if any.
    std::optional<std::size_t> currentEvent() const { return current_; }
    void setCurrentEvent(std::optional<std::size_t> index);

  signals:
    void eventClicked(std::size_t index);

  protected:
    // Hovering an event shows its full label and its time as a tooltip.
    bool event(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    // A theme switch: the bars and the labels' backing take the new palette with the chart.
    void changeEvent(QEvent* event) override;
    void configureAxes(const Chart& chart) override;
    void adjustRanges() override;
    bool hasData() const override { return !events_.empty(); }

  private:
    void rebuildItems();
    void layoutItems();
    void styleBar(std::size_t i);
    void styleText(QCPItemText& text) const;
    QColor rowColor(int row) const;
    // The events' indices in time order (start, then row): the keyboard's order.
    std::vector<std::size_t> timeOrder() const;

    QStringList rows_;
    std::vector<LaneEvent> events_;
    std::vector<QCPItemRect*> bars_;
    std::vector<QCPItemText*> texts_;
    std::vector<Label> labels_;
    std::vector<QRectF> barRects_;  // widget pixels, as last laid out
    std::vector<int> tracks_;       // each event's track, as last laid out
    std::optional<std::size_t> current_;
};

}  // namespace taillab::ui
