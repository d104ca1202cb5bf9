// The "Gateway (live)" tab: a gateway scenario run for real on 127.0.0.1 (the emulated fleet,
// the gateway and the open-loop load generator, in this process, each on its own thread; see
// LiveSession). On top: the scenario, the rate and connections, Start / Stop; below them a fault
// control for the fleet and the gateway's URL, then the generator's counts and lag on a line of
// their own (wrapped, never cut). On the left the gateway lab's knobs, applied to the running
// gateway and fleet at once; on the right the simulated view's charts (the same chart classes
// and builders), drawn from the gateway's snapshot in seconds since the start, the clients'
// corrected and uncorrected percentiles in a tab of their own, and the tables. Knob changes and
// faults land on every time chart's timeline. "Save run as scenario" writes the run's first
// knobs, seed and timeline, which the simulated tab opens.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "export_actions.h"
#include "gateway/live_session.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace taillab::ui {

class ChartExporter;
class ChartView;
class GatewayChartGrid;
class GatewayTables;
class GatewayTimeChart;
class KnobPanel;
class MessageBanner;
class StagePathWidget;

class LiveView : public QWidget {
    Q_OBJECT
  public:
    static constexpr const char* kClientChart = "live_client_percentiles";

    explicit LiveView(const std::string& scenarioDirectory, QWidget* parent = nullptr);
    ~LiveView() override;

    // The gateway scenarios offered (from the scenario directory), in the picker's order.
    const std::vector<Scenario>& scenarios() const { return scenarios_; }
    // Picks a scenario by name ("day-eu-atlas-slow"); false when there is none.
    bool selectScenario(const std::string& name);
    // Picks `scenario` (a gateway scenario read from a file, e.g. taillab --live PATH): the one
    // offered from the same file, else it is added to the picker.
    void pickScenario(const Scenario& scenario);
    void setRate(double perSecond);
    // The hour of the scenario's run the next Start begins at (0: its first hour).
    void setStartHour(int hours);

    // Start / Stop as the buttons do.
    void start();
    void stop();
    bool running() const { return session_->running(); }
    LiveSession* session() const { return session_; }
    LiveFramePtr latestFrame() const { return drawn_; }

    // A fault on the fleet now, as the fault row's Inject does; duration_s nullopt = until
    // "Clear faults".
    void injectFault(const Fault& fault, std::optional<double> duration_s);

    // The run as a scenario (first knobs, seed, timeline of the changes and faults made during
    // it) named `name`; nullopt before the first frame.
    std::optional<Scenario> scenarioOfRun(const std::string& name) const;
    // Writes scenarioOfRun (named after the file) atomically; false and *error on failure.
    bool saveRun(const QString& path, QString* error = nullptr) const;

    void showMessage(const QString& text, bool error = true);
    QString message() const;
    QString statusText() const;
    QString urlText() const;

    KnobPanel* knobPanel() const { return knobs_; }
    GatewayTables* tables() const { return tables_; }
    QTabWidget* tabs() const { return tabs_; }
    ChartView* chartView(const std::string& id) const;
    std::vector<std::string> chartIds() const;
    // Fits every chart to its data (View → Reset Zoom while this view shows).
    void resetZoom();
    // What File → Export takes while this view shows: the chart `id`, or the one last clicked.
    std::optional<ExportTarget> exportTarget(const std::string& id = {}) const;
    bool exportChart(const std::string& id, ExportFormat format, const QString& path,
                     QString* error = nullptr) const;
    QPushButton* startButton() const { return startButton_; }
    QPushButton* stopButton() const { return stopButton_; }

    // The scenario picked (nullptr when there is none).
    const Scenario* currentScenario() const { return pickedScenario(); }

  signals:
    void frameDrawn(taillab::ui::LiveFramePtr frame);
    // "Twin run…": the picked scenario simulated and live side by side (the main window opens it).
    void twinRequested();

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void buildLayout();
    void showStatusLine();
    // How the rate became the load multiplier: the multiplier knob's note, and a notice when the
    // scenario cannot reach the rate from the start picked (what the run offers, how to get it).
    void showScaling(const Scenario& scenario);
    // " at 100 req/s" for the status line ("" before a run).
    QString rateText() const;
    void showUrl();
    QWidget* buildControls();
    QWidget* buildFaultRow();
    QWidget* buildStatusRow();
    QWidget* buildRunPage();
    void loadScenarios(const std::string& directory);
    void onScenarioPicked();
    void onKnobsEdited();
    void onFrame(const LiveFramePtr& frame);
    void drawCharts(const LiveFrame& frame);
    void drawClientChart();
    // The per-window charts say, while they have nothing, when their first window is drawn.
    void sayWhenWindowsDraw(const Params& params);
    void injectFromRow();
    void saveWithDialog();
    void updateButtons();
    void addChart(const std::string& id, ChartView* view);
    const Scenario* pickedScenario() const;

    std::vector<Scenario> scenarios_;
    LiveSession* session_ = nullptr;
    LiveFramePtr drawn_;
    std::uint64_t runId_ = 0;      // the run the client history belongs to
    quint64 knobCommand_ = 0;      // the last knob change sent
    double startedRate_ = 0;       // the rate of the run last started, req/s
    std::optional<live::LoadScaling> scaling_;  // how that rate scales the scenario's arrivals
    Params shownParams_;           // what the knob panel shows, bar the user's edits
    double windowSaid_s_ = -1;     // the window length the empty charts say
    struct ClientPoint {
        double t_s;
        live::LoadProgress load;
    };
    std::vector<ClientPoint> clientHistory_;

    QComboBox* scenarioBox_ = nullptr;
    QDoubleSpinBox* rate_ = nullptr;
    QSpinBox* connections_ = nullptr;
    QSpinBox* startAt_ = nullptr;  // the hour of the scenario's run the next start begins at
    QPushButton* startButton_ = nullptr;
    QPushButton* stopButton_ = nullptr;
    QPushButton* saveButton_ = nullptr;
    QLabel* url_ = nullptr;
    QLabel* status_ = nullptr;
    QString statusLine_;  // the status line, as status_ shows it (wrapped if need be)
    QString urlLine_;     // the whole address line; url_ shows what fits
    QComboBox* faultEngine_ = nullptr;
    QComboBox* faultRegion_ = nullptr;
    QComboBox* faultEffect_ = nullptr;
    QDoubleSpinBox* faultAmount_ = nullptr;
    QSpinBox* faultDuration_ = nullptr;
    QPushButton* injectButton_ = nullptr;
    QPushButton* clearFaultsButton_ = nullptr;
    KnobPanel* knobs_ = nullptr;
    MessageBanner* message_ = nullptr;
    StagePathWidget* stagePath_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QLabel* conservation_ = nullptr;
    GatewayChartGrid* grid_ = nullptr;  // the simulated view's six charts
    GatewayTimeChart* client_ = nullptr;
    GatewayTables* tables_ = nullptr;
    std::map<std::string, ChartView*> charts_;
    ChartExporter* exporter_ = nullptr;  // every chart's export, and the current one
};

}  // namespace taillab::ui
