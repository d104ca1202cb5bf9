// The TailLab window: the lab browser and the knobs on the left, the charts (two side by side)
// above the explanation and the checks/figures on the right, a toolbar, menus and a status bar
// with the run's progress. It wires the panels together; each panel lives in its own file.
//
// Results arrive from the RunController as immutable snapshots; the window keeps only the
// latest and redraws through one RedrawScheduler. Editing a knob re-runs (debounced), and a new
// run always supersedes the one in flight.
//
// Beside the labs, a second tab holds the Gateway view (ui/gateway/): a simulated run of seed
// 000's search gateway streamed as it happens. It is built the first time it is shown.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>

#include "gateway/gateway_scenario.h"
#include "chart_sheet.h"
#include "lab_catalog.h"
#include "lab_result_ptr.h"
#include "latency_overlay.h"
#include "redraw_scheduler.h"

class QAction;
class QDialog;
class QDragEnterEvent;
class QDropEvent;
class QMenu;
class QTabWidget;
class QUndoGroup;
class QSettings;
class QToolBar;

namespace taillab::ui {

class ChartArea;
class ExplanationPanel;
class ExportActions;
class GatewayView;
class IncidentBoard;
struct IncidentRunSpec;
class LiveView;
class KnobPanel;
class LabBrowser;
class MessageBanner;
class ResultsPanel;
class RunController;
class RunStatus;
class TwinPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    static constexpr QSize kDefaultSize{1440, 900};

    explicit MainWindow(const std::string& scenarioDirectory, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a scenario by file path, name, "labs/<name>" or lab id, and runs it. On failure the
    // banner says why (the core's message: file:line:column, JSON path, what was expected), the
    // result on screen is marked stale, and lastOpenError() holds the message.
    bool openScenario(const QString& key);
    QString lastOpenError() const { return openError_; }
    // The labs page's banner, and whether the result on screen is stale (it belongs to an
    // earlier scenario than the one that failed to open, or to a run that failed).
    MessageBanner* banner() const { return banner_; }
    bool resultIsStale() const { return stale_; }
    // File → Open: a gateway scenario opens in the Gateway tab (its knobs and timeline; a file
    // the parser refuses shows the parser's message there), any other in the labs.
    bool openFile(const QString& path);
    // Opens the lab's default scenario and runs it.
    bool selectLab(const QString& labId);
    // What the window keeps between sessions (QSettings): geometry and state, every splitter,
    // the open tab, the last scenario and the gateway's speed. restoreSettings restores all but
    // the scenario, which lastScenario() names for the caller to open; the tab only when
    // `withTab` (a scenario given on the command line opens in the Labs tab).
    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings, bool withTab);
    static QString lastScenario(const QSettings& settings);
    // Runs the scenario with the knobs as they are now.
    void runNow();

    const LabCatalog& catalog() const { return catalog_; }
    const Scenario& scenario() const { return scenario_; }
    LabResultPtr latestResult() const { return latest_; }
    KnobPanel* knobPanel() const { return knobs_; }
    ChartArea* chartArea() const { return charts_; }
    ResultsPanel* resultsPanel() const { return results_; }
    RunController* controller() const { return controller_; }
    RunStatus* runStatus() const { return status_; }
    ExportActions* exportActions() const { return export_; }
    LabBrowser* labBrowser() const { return browser_; }

    // Shows the Gateway tab (building the view the first time) and starts a run of `spec`
    // (default knobs when none is given and no run was started yet).
    GatewayView* openGateway(std::optional<GatewayRunSpec> spec = std::nullopt, bool play = true);
    GatewayView* gatewayView() const { return gateway_; }
    // Shows the "Incidents" tab (building the board the first time) and starts `spec` (the
    // July replay under v3 and v4 when the scenarios are there, else the slow-atlas day, when
    // none is given and nothing ran yet).
    IncidentBoard* openIncident(const IncidentRunSpec* spec = nullptr, bool play = true);
    IncidentBoard* incidentBoard() const { return incident_; }
    // Shows the "Gateway (live)" tab, building its view the first time (nothing runs until its
    // Start).
    LiveView* openLive();
    LiveView* liveView() const { return live_; }
    // The twin-run window (simulated and live on the same arrivals) for the gateway scenario shown,
    // or seed 000's September v4 when none is.
    TwinPanel* openTwin(const Scenario* scenario = nullptr);
    bool gatewayShown() const;
    // True while the Labs tab shows. The Run menu's actions, Export Whole Result and the labs'
    // fallbacks of File → Export act on the tab shown: the labs' own (Run, Cancel, Export Whole
    // Result) are disabled while another tab shows; Pin, Clear Baseline and Reset Knobs go to
    // that tab's own where it has one.
    bool labsShown() const;
    // View → Reset Zoom (Ctrl+0): fits the charts of the tab shown to their data: the labs'
    // current chart, every chart of a gateway tab, the incident board's shared time range.
    void resetZoom();
    QAction* runAction() const { return runAct_; }
    QAction* cancelAction() const { return cancelAct_; }
    QAction* resetKnobsAction() const { return resetKnobsAct_; }
    // File → Save Run as Scenario…: enabled while the Gateway tab shows a run.
    QAction* saveRunAction() const { return saveRunAct_; }
    // File → Save Scenario As…: the open lab scenario with the knobs as they are now, named for
    // the file (its base name in a-z, 0-9, '-' and '_'), written atomically. `taillab-cli run`
    // on the file reproduces the run. The window then holds the saved scenario, unedited.
    bool saveScenarioAs(const QString& path, QString* error);
    // Where Save Scenario As writes when the user picked `path`: `path`, unless the file there
    // holds published expectations (`expect`) that the save would drop (the knobs differ from
    // the ones they were written for); then it asks, and offers the "-edited" name beside it.
    // Empty: the user cancelled.
    QString pathKeepingExpectations(const QString& path);
    QAction* saveScenarioAction() const { return saveScenarioAct_; }
    // Run → Pin as Baseline: keeps the finished result on screen as the one to compare with.
    // Every chart draws the pinned run's series of the same chart as muted dashed ghosts, the
    // checks gain a "Δ vs pinned" column and the figures "Pinned" and "Δ". Kept across runs and
    // scenarios of the same lab; opening another lab clears it.
    void pinBaseline();
    void clearBaseline();
    LabResultPtr baseline() const { return baseline_; }
    QAction* pinBaselineAction() const { return pinAct_; }
    // File → Overlay Latency File…: a measured distribution (.hgrm or a latency log, values in
    // `unit`) drawn on every percentile chart of the labs whose y axis is in ms, with the lab's
    // own curves, several
    // at once, each in the legend under its file name. Kept across runs and labs until cleared.
    // False, the banner and *error saying where and what, when the file does not read.
    bool addOverlay(const QString& path, LatencyUnit unit, QString* error = nullptr);
    void clearOverlays();
    const std::vector<LatencyOverlay>& overlays() const { return overlays_; }
    QAction* clearBaselineAction() const { return clearPinAct_; }
    // File → Open Recent: scenario files opened or saved, newest first, at most kRecentFiles;
    // kept with the settings. A file that no longer opens leaves the list.
    static constexpr int kRecentFiles = 8;
    QStringList recentFiles() const { return recent_; }
    QMenu* recentMenu() const { return recentMenu_; }

  signals:
    // A result has been drawn (charts and tables show it).
    void resultDrawn(taillab::ui::LabResultPtr result);

  protected:
    // A scenario file dropped on the window opens as File → Open would open it.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void changeEvent(QEvent* event) override;  // View → Theme follows the palette

  private:
    void buildLayout();
    void saveScenarioDialog();
    void noteRecent(const QString& path);
    void forgetRecent(const QString& path);
    void rebuildRecentMenu();
    void buildActions();
    // What File -> Export Whole View draws (see ExportActions::setSheetSource).
    ChartSheet wholeViewSheet(std::vector<std::unique_ptr<ChartView>>& owned) const;
    void open(const Scenario& scenario);
    void onResult(const LabResultPtr& result);
    void onRedraw(DirtyLevel level);
    void onFailed(const QString& message);
    void reportProblem(const QString& title, const QString& detail);
    void clearProblem();
    void showRunNotes();
    void openFileDialog();
    void saveRunDialog();
    void updateSaveRun();
    void reloadCatalog();
    void showAbout();
    void updateTitle();
    void onTabChanged(int index);

    LabCatalog catalog_;
    Scenario scenario_;  // as selected (file values); the knobs may differ
    LabResultPtr latest_;
    bool rebuildNext_ = true;

    RunController* controller_ = nullptr;
    RedrawScheduler* scheduler_ = nullptr;
    LabBrowser* browser_ = nullptr;
    KnobPanel* knobs_ = nullptr;
    ChartArea* charts_ = nullptr;
    ExplanationPanel* explanation_ = nullptr;
    ResultsPanel* results_ = nullptr;
    RunStatus* status_ = nullptr;
    ExportActions* export_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QWidget* gatewayPage_ = nullptr;  // holds gateway_ once built
    QWidget* sidePanel_ = nullptr;     // the lab tree over the knobs
    QAction* sidePanelAct_ = nullptr;  // View -> Side Panel (F9): labs' left column, gateway's knobs
    GatewayView* gateway_ = nullptr;
    QWidget* incidentPage_ = nullptr;  // holds incident_ once built
    IncidentBoard* incident_ = nullptr;
    QWidget* livePage_ = nullptr;  // holds live_ once built
    LiveView* live_ = nullptr;
    QDialog* twinDialog_ = nullptr;
    TwinPanel* twin_ = nullptr;
    QToolBar* toolBar_ = nullptr;
    QAction* saveRunAct_ = nullptr;
    QAction* saveScenarioAct_ = nullptr;
    QAction* pinAct_ = nullptr;
    QAction* clearPinAct_ = nullptr;
    QAction* runAct_ = nullptr;
    QAction* cancelAct_ = nullptr;
    QAction* resetKnobsAct_ = nullptr;
    LabResultPtr baseline_;
    std::vector<LatencyOverlay> overlays_;
    QAction* clearOverlaysAct_ = nullptr;
    void overlayDialog(const QString& path);
    void applyOverlays();
    void updatePinActions();
    void updateRunActions();
    // The knob panel of the tab shown, or null (the incident board has none).
    KnobPanel* shownKnobPanel() const;
    void applyBaseline();
    QMenu* recentMenu_ = nullptr;
    QStringList recent_;
    MessageBanner* banner_ = nullptr;
    QWidget* staleVeil_ = nullptr;  // over the charts while the result is stale
    QString openError_;
    bool stale_ = false;
    bool shownNotes_ = false;  // the banner shows the drawn run's notes
    quint64 problemGeneration_ = 0;  // the run generation when the banner went up
    QUndoGroup* undo_ = nullptr;  // the visible tab's knob edits (Edit -> Undo, Redo)
    // Restored, applied when the gateway view is built.
    std::optional<double> gatewaySpeed_;
    QByteArray gatewaySplitter_;
};

}  // namespace taillab::ui
