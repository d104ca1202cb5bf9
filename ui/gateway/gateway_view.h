// The Gateway view: a simulated run of seed 000's search gateway streamed as it happens. On top
// the playback controls and the request path stage by stage; on the left the knobs (applied
// mid-run from the moment they change); on the right, beside the tabs, the conservation line. In
// the "Run" tab: the latency percentiles per window and, beside them, the whole run's latency on
// the nines axis (merged and per class, against the deadline), then four more time charts (queue
// depth and admission limit, hedging, breaker strips, cache hit rates); in the "Tables" tab the
// worst customers / counters / timeline; in the "Hedge-delay sweep" tab the sweep of fixed hedge
// delays against seed 000's published points.
//
// Every time chart shows the run's timeline: knob changes (the scenario's and those made during
// the run) as lines, faults as shaded spans. "Pin as baseline" keeps the run shown; from then on
// the time charts draw its series as muted dashed ghosts under the live ones until "Clear
// baseline". The run saves as a scenario that replays it (saveRun: its first knobs, seed and
// timeline).
//
// Frames come from a GatewaySession (its own thread); the view keeps only the latest and redraws
// through one RedrawScheduler. Every chart exports like the labs' (PNG, SVG, PDF, CSV, JSON),
// from its context menu, the Export button (the chart last clicked) or exportChart().
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <string>

#include "export_actions.h"
#include "gateway/chart_exporter.h"
#include "gateway/gateway_frame.h"
#include "gateway/gateway_scenario.h"
#include "redraw_scheduler.h"

class QAction;
class QLabel;
class QTabWidget;
class QToolButton;

namespace taillab::ui {

class MessageBanner;

class ChartExporter;
class ChartView;
class GatewayChartGrid;
class GatewaySession;
class GatewayTables;
class KnobPanel;
class StagePathWidget;
class SweepPanel;
class TransportBar;

class GatewayView : public QWidget {
    Q_OBJECT
  public:
    static constexpr double kDefaultSpeed = 1000;

    explicit GatewayView(const std::string& scenarioDirectory, QWidget* parent = nullptr);
    ~GatewayView() override;

    // A new run from simulated time 0 with these knobs (shown in the knob panel) and timeline.
    void startRun(const GatewayRunSpec& spec, bool play = true);
    bool hasRun() const { return started_; }
    const GatewayRunSpec& runSpec() const { return spec_; }
    // Shows a message above the charts (a file that would not open, a refused knob).
    // The banner above the charts: an error (red) or a notice; "" hides it.
    void showMessage(const QString& text, bool error = true);
    QString message() const;

    // The scenario that replays the run shown (its first knobs, seed and timeline), named
    // `name`; nullopt before the first frame.
    std::optional<Scenario> scenarioOfRun(const std::string& name) const;
    // Writes scenarioOfRun (named after the file) atomically; false and *error on failure.
    bool saveRun(const QString& path, QString* error = nullptr) const;

    // Keeps the run shown as the baseline the time charts draw under the live series.
    void pinBaseline();
    void clearBaseline();
    bool hasBaseline() const { return baseline_ != nullptr; }
    QAction* pinBaselineAction() const { return pinAction_; }
    QAction* clearBaselineAction() const { return clearBaselineAction_; }

    GatewaySession* session() const { return session_; }
    GatewayFramePtr latestFrame() const { return drawn_; }  // the frame last drawn

    std::vector<std::string> chartIds() const;
    ChartView* chartView(const std::string& id) const;
    std::string currentChartId() const;
    // The line under every exported gateway chart: run name, seed, the user's knob edits (the
    // knobs that differ from what the scenario has in force by then), TailLab's version.
    QString exportCaption() const;
    // What File → Export takes while this view shows: the chart last clicked (the latency
    // percentiles before any click).
    std::optional<ExportTarget> exportTarget() const;
    std::optional<ExportTarget> exportTarget(const std::string& id) const;
    void setCurrentChart(const std::string& id);
    // Fits every chart to its data (View → Reset Zoom while this view shows).
    void resetZoom();
    bool exportChart(const std::string& id, ExportFormat format, const QString& path,
                     QString* error = nullptr) const;

    KnobPanel* knobPanel() const { return knobs_; }
    TransportBar* transport() const { return transport_; }
    StagePathWidget* stagePath() const { return stagePath_; }
    GatewayTables* tables() const { return tables_; }
    SweepPanel* sweepPanel() const { return sweep_; }
    QTabWidget* tabs() const { return tabs_; }
    void showSweepTab(bool sweep);

  signals:
    // A frame has been drawn (charts, path and tables show it).
    void frameDrawn(taillab::ui::GatewayFramePtr frame);

  private:
    void buildLayout();
    QWidget* buildRunPage();
    void addChart(const std::string& id, ChartView* view);
    void onFrame(const GatewayFramePtr& frame);
    void onRedraw();
    void drawCharts(const GatewayFrame& frame);
    void updateBaselineActions();
    void syncKnobs(const GatewayFrame& frame);
    void onKnobsEdited();
    void restart();
    // The knobs the user moved since the panel last showed the run's (key -> value): only these
    // go to the worker, never the panel's other values, which lag the run's timeline.
    std::vector<KnobSetting> userChanges() const;
    std::pair<Params, std::uint64_t> currentParams() const;
    // What the sweep's export says of it: the settings its points ran with (not the main run's
    // knobs nor its clock), its caption, and each point's delay.
    ChartExporter::Context sweepContext() const;
    // What the scenario itself has in force at the frame's moment (without a frame: at 0): its
    // first knobs with the knob changes its own timeline has made by then, which are no one's
    // edits; and, for each knob the timeline set, what to say of it in `setBy`.
    Params scenarioInForce(const GatewayFrame* frame,
                           std::map<std::string, QString>* setBy = nullptr) const;

    std::string scenarioDirectory_;
    GatewayRunSpec spec_;
    bool started_ = false;
    GatewaySession* session_ = nullptr;
    RedrawScheduler* scheduler_ = nullptr;
    GatewayFramePtr pending_;
    GatewayFramePtr drawn_;
    GatewaySnapshotPtr chartsSnapshot_;  // the snapshot the charts show
    GatewaySnapshotPtr baseline_;        // the pinned run, drawn as ghosts
    quint64 knobCommand_ = 0;           // the last knob change or start sent
    Params shownParams_;                // what the knob panel shows, bar the user's edits

    TransportBar* transport_ = nullptr;
    QToolButton* exportButton_ = nullptr;
    QAction* pinAction_ = nullptr;
    QAction* clearBaselineAction_ = nullptr;
    StagePathWidget* stagePath_ = nullptr;
    KnobPanel* knobs_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QLabel* conservation_ = nullptr;
    MessageBanner* message_ = nullptr;
    GatewayChartGrid* grid_ = nullptr;  // the Run tab's six charts
    GatewayTables* tables_ = nullptr;
    SweepPanel* sweep_ = nullptr;
    ChartExporter* exporter_ = nullptr;  // the charts, their export and the current one
};

}  // namespace taillab::ui
