// The TailLab window: the lab browser and the knobs on the left, the charts (two side by side)
// above the explanation and the checks/figures on the right, a toolbar, menus and a status bar
// with the run's progress. It wires the panels together; each panel lives in its own file.
//
// Results arrive from the RunController as immutable snapshots; the window keeps only the
// latest and redraws through one RedrawScheduler. Editing a knob re-runs (debounced), and a new
// run always supersedes the one in flight.
#pragma once

#include <QMainWindow>
#include <memory>

#include "lab_catalog.h"
#include "lab_result_ptr.h"
#include "redraw_scheduler.h"

namespace taillab::ui {

class ChartArea;
class ExplanationPanel;
class ExportActions;
class KnobPanel;
class LabBrowser;
class ResultsPanel;
class RunController;
class RunStatus;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    static constexpr QSize kDefaultSize{1440, 900};

    explicit MainWindow(const std::string& scenarioDirectory, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a scenario by file path, name, "labs/<name>" or lab id, and runs it.
    bool openScenario(const QString& key);
    // Opens the lab's default scenario and runs it.
    bool selectLab(const QString& labId);
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

  signals:
    // A result has been drawn (charts and tables show it).
    void resultDrawn(taillab::ui::LabResultPtr result);

  private:
    void buildLayout();
    void buildActions();
    void open(const Scenario& scenario);
    void onResult(const LabResultPtr& result);
    void onRedraw(DirtyLevel level);
    void onFailed(const QString& message);
    void openFileDialog();
    void reloadCatalog();
    void showAbout();
    void updateTitle();

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
};

}  // namespace taillab::ui
