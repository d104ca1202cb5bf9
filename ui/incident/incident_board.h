// The "Incidents" tab: a gateway scenario with a fault timeline replayed as it happens, and what
// the incident is about drawn on charts that share one time axis. On top the playback controls
// (the gateway view's TransportBar over a GatewaySession), the runs shown (A solid; B, when
// comparing, as dashed ghosts in the same colours) and the export; then the timeline lane
// (faults, knob changes, phases; a click seeks there and zooms to it) and the charts: error rate
// (truth and what clients saw), p99 and p99.9 per region, queue depth against normal, provider
// and region traffic shares, breaker strips, probe and standby strips, and the B - A
// differences. Zooming or panning one chart moves them all; hovering draws a crosshair that
// reads every chart at that moment; a click pins the moment and attributes its window (the
// Attribution tab: where the time went, the slowest requests, their waterfalls).
//
// A/B: both runs share the seed (the same arrivals and upstream luck) and advance in the same
// worker to the same simulated moment. Frames are redrawn through a RedrawScheduler; only the
// latest is drawn. The whole board exports as PNG, SVG or PDF with a caption (the scenarios, the
// seed, the timeline's events), and its data as CSV or JSON, each written atomically.
#pragma once

#include <QWidget>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway_frame.h"
#include "gateway/gateway_scenario.h"
#include "labs/lab_result.h"
#include "plots/export_caption.h"
#include "redraw_scheduler.h"

class QGridLayout;
class QLabel;
class QComboBox;
class QTabWidget;
class QToolButton;

namespace taillab::ui {

class AttributionPanel;
class BreakerStripChart;
class ChartView;
class EventLaneChart;
class GatewaySession;
class GatewayTimeChart;
class MessageBanner;
class TransportBar;

struct IncidentRunSpec {
    GatewayRunSpec a;
    std::optional<GatewayRunSpec> b;  // the run to compare with (same seed as A)
    std::string bLabel;               // how the legend names B ("july-v4", "hedge_delay_ms=300")
};

// The July replay (incidents/july-v3 against incidents/july-v4) when the scenario directory has
// it, else gateway/day-eu-atlas-slow alone.
IncidentRunSpec defaultIncidentRun(const std::string& scenarioDirectory);
// A: `scenario` (a gateway scenario file or name). B: `compare` (another one) when not empty,
// else A itself; `sets` ("k=v", a knob of params; or any dotted path "seed=2") apply to B. No B
// when both are empty. Throws what loadGatewayRun throws, and std::invalid_argument when the two
// runs cannot be compared (another seed, other days).
IncidentRunSpec loadIncidentRun(const std::string& scenario, const std::string& compare,
                                const std::vector<std::string>& sets,
                                const std::string& scenarioDirectory);

// A scenario the board offers for A or B: how the picker names it, and its file.
struct IncidentChoice {
    QString label;  // "incidents/july-v3: July 28-30 under v3"
    std::string file;
};

class IncidentBoard : public QWidget {
    Q_OBJECT
  public:
    static constexpr double kDefaultSpeed = 10000;  // a day in under nine seconds

    explicit IncidentBoard(QWidget* parent = nullptr);
    ~IncidentBoard() override;

    void startRun(const IncidentRunSpec& spec, bool play = true);
    // The gateway scenarios the A and B pickers offer (B also offers none). Picking one starts
    // that pair at once; a pair that cannot be compared (another seed, other days) is explained
    // in the banner and the pickers go back to the run shown.
    void setScenarioChoices(std::vector<IncidentChoice> choices, std::string scenarioDirectory);
    QComboBox* pickerA() const { return pickA_; }
    QComboBox* pickerB() const { return pickB_; }
    bool hasRun() const { return started_; }
    const IncidentRunSpec& runSpec() const { return spec_; }
    GatewaySession* session() const { return session_; }
    TransportBar* transport() const { return transport_; }
    GatewayFramePtr latestFrame() const { return drawn_; }

    std::vector<std::string> chartIds() const;
    ChartView* chartView(const std::string& id) const;
    EventLaneChart* lane() const { return lane_; }
    AttributionPanel* attribution() const { return attribution_; }
    QTabWidget* tabs() const { return tabs_; }
    QLabel* readout() const { return readout_; }
    QLabel* legend() const { return legend_; }

    // The shared crosshair at data x (seconds since Mon 00:00), as hovering sets it.
    void setCrosshair(double x);
    // Every chart's x range (data units), as a zoom or pan of one of them sets it; reset: fit
    // the run so far.
    void setTimeRange(double lower, double upper);
    void resetTimeRange();
    std::optional<std::pair<double, double>> timeRange() const { return zoom_; }
    // A click on event `index` of the lane: seek to its end (an instant: a little after it)
    // and zoom to it.
    void openEvent(std::size_t index);
    // A's phase `id` ("sev1"), from its start to its end, in data x; nullopt when A has none.
    std::optional<std::pair<double, double>> phaseSpan(const std::string& id) const;
    // Zooms every chart to phase `id` with a margin either side (as a click on it in the lane
    // does, without seeking); false when A has no such phase.
    bool focusPhase(const std::string& id);
    // A's phase ids in timeline order.
    std::vector<std::string> phaseIds() const;
    // Pins the moment at data x and attributes the window it falls in (run A, or B).
    void pickMoment(double x, bool runB = false);
    // Data x of the run's start (its first day's 00:00, seconds since Mon 00:00).
    double timeOffset() const { return offset(); }

    // The caption and notes under every export: scenarios, seed, time shown, version; the
    // timeline's events one a line. caption() is the caption as the images shorten it.
    QString exportCaption() const;
    ExportCaption caption() const;
    QStringList exportNotes() const;
    // `path` by extension: .png, .svg, .pdf (the board) or .csv, .json (its data).
    bool exportBoard(const QString& path, QString* error = nullptr) const;

    // Redraw timings (ms) of every frame drawn so far: the board's own measure of its speed.
    const std::vector<double>& redrawTimes() const { return redrawMs_; }
    // Draws `frame` now (the benchmark feeds frames without a session).
    void drawFrame(const GatewayFramePtr& frame);

  signals:
    void frameDrawn(taillab::ui::GatewayFramePtr frame);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void buildLayout();
    void syncPickers();
    void onPicked();
    // Lays the charts out in as many columns as the width gives each at least kMinChartWidth.
    void reflow(int width);
    void onFrame(const GatewayFramePtr& frame);
    void onRedraw();
    void drawCharts(const GatewayFrame& frame);
    void applyTimeRange(const GatewayFrame& frame);
    double offset() const;
    void updateReadout();
    void exportWithDialog(const QString& extension);
    Chart exportedChart(const std::string& id, const ChartView& view, const QString& bSuffix) const;

    IncidentRunSpec spec_;
    bool started_ = false;
    GatewaySession* session_ = nullptr;
    RedrawScheduler* scheduler_ = nullptr;
    GatewayFramePtr pending_, drawn_;
    GatewaySnapshotPtr chartsSnapshot_;
    std::optional<std::pair<double, double>> zoom_;
    std::optional<double> crosshair_, picked_;
    std::vector<double> redrawMs_;
    // The time charts as built, before decimation (A's chart, B's series): what the data export
    // writes.
    std::map<std::string, std::pair<Chart, std::vector<Series>>> full_;
    // The strip charts' lanes as full_ holds them (every lane, A's then B's): their data export
    // names them.
    std::map<std::string, QStringList> stripLanes_;

    TransportBar* transport_ = nullptr;
    QToolButton* exportButton_ = nullptr;
    QLabel* legend_ = nullptr;
    QLabel* readout_ = nullptr;
    QComboBox* attributeRun_ = nullptr;
    QComboBox* pickA_ = nullptr;
    QComboBox* pickB_ = nullptr;
    std::vector<IncidentChoice> choices_;
    std::string scenarioDirectory_;
    bool syncing_ = false;
    MessageBanner* message_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    EventLaneChart* lane_ = nullptr;
    GatewayTimeChart* errors_ = nullptr;
    GatewayTimeChart* tails_ = nullptr;
    GatewayTimeChart* queue_ = nullptr;
    GatewayTimeChart* providers_ = nullptr;
    GatewayTimeChart* regions_ = nullptr;
    BreakerStripChart* breakers_ = nullptr;
    BreakerStripChart* health_ = nullptr;
    GatewayTimeChart* diffErrors_ = nullptr;
    GatewayTimeChart* diffTails_ = nullptr;
    std::vector<std::pair<std::string, ChartView*>> charts_;  // the lane first
    QGridLayout* grid_ = nullptr;
    int columns_ = 0;
    AttributionPanel* attribution_ = nullptr;
};

}  // namespace taillab::ui
