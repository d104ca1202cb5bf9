#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QPainter>
#include <QInputDialog>
#include <QMimeData>
#include <QTimer>
#include <QDir>
#include <QRegularExpression>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoGroup>
#include <QVBoxLayout>
#include <algorithm>

#include "chart_area.h"
#include "chart_data_export.h"
#include "chart_pane.h"
#include "chart_sheet.h"
#include "explanation_panel.h"
#include "export_actions.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_view.h"
#include "incident/incident_board.h"
#include "gateway/live_view.h"
#include "gateway/twin_panel.h"
#include "gateway/transport_bar.h"
#include "knob_panel.h"
#include "lab_browser.h"
#include "message_banner.h"
#include "theme.h"
#include "plots/chart_view.h"
#include "results_panel.h"
#include "run_controller.h"
#include "run_status.h"
#include "save_dialog.h"

namespace taillab::ui {
namespace {

// "Unstable: utilisation R·s = 10,000, at or above 1." of a note: up to the first full stop
// that ends a sentence (one followed by a space or the end), the whole text when there is none.
QString firstSentence(const QString& text) {
    for (qsizetype i = text.indexOf('.'); i >= 0; i = text.indexOf('.', i + 1))
        if (i + 1 == text.size() || text[i + 1] == ' ') return text.left(i + 1);
    return text;
}

constexpr const char* kLastScenarioDirKey = "scenarios/lastSaveDirectory";
constexpr const char* kRecentKey = "scenarios/recent";

// A scenario name for a file: its base name lowered, anything outside a-z, 0-9, '-' and '_'
// made '-'; `fallback` when nothing is left.
std::string scenarioNameFor(const QString& path, const std::string& fallback) {
    std::string name;
    for (QChar c : QFileInfo(path).completeBaseName().toLower()) {
        const char a = c.toLatin1();
        const bool ok = (a >= 'a' && a <= 'z') || (a >= '0' && a <= '9') || a == '-' || a == '_';
        name += ok ? a : '-';
    }
    const bool any = name.find_first_not_of('-') != std::string::npos;
    return any ? name : fallback;
}

// The local file a drag carries, if it carries exactly one scenario (.json) or latency file.
QString droppedScenario(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return {};
    const QUrl url = mime->urls().front();
    if (!url.isLocalFile()) return {};
    const QString path = url.toLocalFile();
    return path.endsWith(".json", Qt::CaseInsensitive) || isLatencyFile(path) ? path : QString();
}

// Washes out the widget it covers, in the window colour, to say that what shows through is stale.
// Mouse events pass through: a stale chart can still be read, zoomed and hovered.
class StaleVeil : public QWidget {
  public:
    explicit StaleVeil(QWidget* covered) : QWidget(covered) {
        setObjectName("staleVeil");
        setAttribute(Qt::WA_TransparentForMouseEvents);
        covered->installEventFilter(this);
        setGeometry(covered->rect());
        hide();
    }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == parentWidget() && event->type() == QEvent::Resize)
            setGeometry(parentWidget()->rect());
        return false;
    }
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        QColor veil = palette().color(QPalette::Window);
        veil.setAlpha(150);
        painter.fillRect(rect(), veil);
    }
};

}  // namespace

MainWindow::MainWindow(const std::string& scenarioDirectory, QWidget* parent)
    : QMainWindow(parent), catalog_(scenarioDirectory) {
    setObjectName("mainWindow");
    setWindowIcon(QIcon(":/taillab.svg"));
    setAcceptDrops(true);
    controller_ = new RunController(this);
    scheduler_ = new RedrawScheduler(this);
    buildLayout();
    buildActions();
    resize(kDefaultSize);

    browser_->setCatalog(&catalog_);
    connect(browser_, &LabBrowser::entrySelected, this, [this](const CatalogEntry* e) {
        if (!e) return;
        if (!e->error.empty()) {
            reportProblem(tr("This scenario file does not load"), QString::fromStdString(e->error));
            return;
        }
        open(e->scenario);
    });
    connect(knobs_, &KnobPanel::edited, this, &MainWindow::runNow);
    connect(controller_, &RunController::partialResult, this, &MainWindow::onResult);
    connect(controller_, &RunController::finished, this,
            [this](const LabResultPtr& r, double) { onResult(r); });
    connect(controller_, &RunController::cancelled, this, [this](const LabResultPtr& r, double) {
        if (r && (!latest_ || !r->charts.empty())) onResult(r);
    });
    connect(controller_, &RunController::failed, this, &MainWindow::onFailed);
    connect(scheduler_, &RedrawScheduler::redraw, this, &MainWindow::onRedraw);
    connect(charts_, &ChartArea::currentChanged, this,
            [this] { scheduler_->request(DirtyLevel::Replot); });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildLayout() {
    browser_ = new LabBrowser(this);
    knobs_ = new KnobPanel(this);
    charts_ = new ChartArea(this);
    explanation_ = new ExplanationPanel(this);
    results_ = new ResultsPanel(this);
    status_ = new RunStatus(controller_, this);
    statusBar()->addWidget(status_, 1);
    statusBar()->setSizeGripEnabled(true);

    auto* left = new QSplitter(Qt::Vertical, this);
    left->setObjectName("labsSplitter");
    sidePanel_ = left;
    left->addWidget(browser_);
    left->addWidget(knobs_);
    left->setStretchFactor(0, 2);
    left->setStretchFactor(1, 3);
    left->setSizes({300, 500});

    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->setObjectName("textSplitter");
    bottom->addWidget(explanation_);
    bottom->addWidget(results_);
    bottom->setSizes({480, 620});

    auto* right = new QSplitter(Qt::Vertical, this);
    right->setObjectName("chartsSplitter");
    right->addWidget(charts_);
    right->addWidget(bottom);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 1);
    right->setSizes({580, 250});

    // The banner sits above the charts it may mark stale.
    auto* rightPage = new QWidget(this);
    auto* rightColumn = new QVBoxLayout(rightPage);
    rightColumn->setContentsMargins(0, 0, 0, 0);
    rightColumn->setSpacing(4);
    banner_ = new MessageBanner(rightPage);
    staleVeil_ = new StaleVeil(charts_);
    rightColumn->addWidget(banner_);
    rightColumn->addWidget(right, 1);

    auto* main = new QSplitter(Qt::Horizontal, this);
    main->setObjectName("mainSplitter");
    main->addWidget(left);
    main->addWidget(rightPage);
    main->setStretchFactor(0, 0);
    main->setStretchFactor(1, 1);
    main->setSizes({340, 1100});
    main->setContentsMargins(6, 6, 6, 0);
    for (QSplitter* s : {left, bottom, right, main}) s->setChildrenCollapsible(false);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName("mainTabs");
    tabs_->setDocumentMode(true);
    tabs_->addTab(main, tr("Labs"));
    gatewayPage_ = new QWidget(tabs_);
    auto* gatewayLayout = new QVBoxLayout(gatewayPage_);
    gatewayLayout->setContentsMargins(6, 4, 6, 0);
    tabs_->addTab(gatewayPage_, tr("Gateway (simulated)"));
    tabs_->setTabToolTip(1, tr("Seed 000's search gateway, simulated and streamed as it happens"));
    livePage_ = new QWidget(tabs_);
    auto* liveLayout = new QVBoxLayout(livePage_);
    liveLayout->setContentsMargins(6, 4, 6, 0);
    tabs_->addTab(livePage_, tr("Gateway (live)"));
    tabs_->setTabToolTip(2, tr("A gateway scenario run for real on 127.0.0.1: emulated engines, "
                               "the gateway and an open-loop load generator, in this process"));
    incidentPage_ = new QWidget(tabs_);
    auto* incidentLayout = new QVBoxLayout(incidentPage_);
    incidentLayout->setContentsMargins(6, 4, 6, 0);
    const int incidentTab = tabs_->insertTab(2, incidentPage_, tr("Incidents"));
    tabs_->setTabToolTip(incidentTab, tr("A gateway scenario's fault timeline replayed as it happens, "
                                         "one run or two side by side (A/B)"));
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);
    setCentralWidget(tabs_);
}

GatewayView* MainWindow::openGateway(std::optional<GatewayRunSpec> spec, bool play) {
    const bool created = !gateway_;
    if (!gateway_) {
        gateway_ = new GatewayView(catalog_.directory(), gatewayPage_);
        gatewayPage_->layout()->addWidget(gateway_);
        connect(gateway_, &GatewayView::frameDrawn, this, &MainWindow::updateSaveRun);
        for (QAction* a : {gateway_->pinBaselineAction(), gateway_->clearBaselineAction()})
            connect(a, &QAction::changed, this, &MainWindow::updatePinActions);
        undo_->addStack(gateway_->knobPanel()->undoStack());
        gateway_->knobPanel()->setVisible(sidePanelAct_->isChecked());
        if (!gatewaySplitter_.isEmpty())
            if (auto* split = gateway_->findChild<QSplitter*>("gatewaySplitter"))
                split->restoreState(gatewaySplitter_);
        if (gatewayShown()) undo_->setActiveStack(gateway_->knobPanel()->undoStack());
    }
    if (spec) {
        gateway_->startRun(*spec, play);
    } else if (!gateway_->hasRun()) {
        gateway_->startRun(defaultGatewayRun(), play);
    }
    updateTitle();  // the scenario just started
    if (created && gatewaySpeed_) {  // after the first start, which sets the default speed
        gateway_->session()->setSpeed(*gatewaySpeed_);
        gateway_->transport()->setSpeed(*gatewaySpeed_);
    }
    tabs_->setCurrentWidget(gatewayPage_);
    return gateway_;
}

TwinPanel* MainWindow::openTwin(const Scenario* scenario) {
    if (!twinDialog_) {
        twinDialog_ = new QDialog(this);
        twinDialog_->setObjectName("twinDialog");
        twinDialog_->setWindowTitle(tr("Twin run: simulated and live — TailLab"));
        twin_ = new TwinPanel(twinDialog_);
        auto* layout = new QVBoxLayout(twinDialog_);
        layout->addWidget(twin_);
        twinDialog_->resize(980, 520);
    }
    if (!twin_->running()) {
        try {
            const auto shown = scenario ? std::optional<Scenario>(*scenario)
                               : gateway_ ? gateway_->scenarioOfRun(gateway_->runSpec().name)
                                          : std::nullopt;
            twin_->setScenario(shown ? *shown
                                     : loadScenarioFile(catalog_.directory() + "/gateway/week-v4-september.json"));
        } catch (const std::exception& e) {
            twin_->statusLabel()->setText(tr("No gateway scenario to twin: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    twinDialog_->show();
    twinDialog_->raise();
    return twin_;
}

IncidentBoard* MainWindow::openIncident(const IncidentRunSpec* spec, bool play) {
    if (!incident_) {
        incident_ = new IncidentBoard(incidentPage_);
        incidentPage_->layout()->addWidget(incident_);
        // A and B may be any gateway scenario: the incidents first, then the weeks and days.
        std::vector<IncidentChoice> choices;
        if (const CatalogLab* lab = catalog_.lab("gateway"))
            for (const CatalogEntry& e : lab->entries) {
                if (!e.error.empty() || e.file.empty()) continue;
                const QString rel = QDir(QString::fromStdString(catalog_.directory()))
                                        .relativeFilePath(QString::fromStdString(e.file))
                                        .remove(QRegularExpression("\\.json$"));
                choices.push_back({rel, e.file});
            }
        std::stable_sort(choices.begin(), choices.end(), [](const IncidentChoice& x, const IncidentChoice& y) {
            return x.label.startsWith("incidents/") && !y.label.startsWith("incidents/");
        });
        incident_->setScenarioChoices(std::move(choices), catalog_.directory());
    }
    if (spec) {
        incident_->startRun(*spec, play);
    } else if (!incident_->hasRun()) {
        incident_->startRun(defaultIncidentRun(catalog_.directory()), play);
    }
    tabs_->setCurrentWidget(incidentPage_);
    return incident_;
}

bool MainWindow::gatewayShown() const { return tabs_->currentWidget() == gatewayPage_; }

bool MainWindow::labsShown() const { return tabs_->currentIndex() == 0; }

LiveView* MainWindow::openLive() {
    if (!live_) {
        live_ = new LiveView(catalog_.directory(), livePage_);
        livePage_->layout()->addWidget(live_);
        connect(live_, &LiveView::twinRequested, this, [this] { openTwin(live_->currentScenario()); });
        undo_->addStack(live_->knobPanel()->undoStack());
    }
    tabs_->setCurrentWidget(livePage_);
    return live_;
}

void MainWindow::onTabChanged(int) {
    const bool gateway = gatewayShown();
    const bool live = tabs_->currentWidget() == livePage_;
    const bool incident = tabs_->currentWidget() == incidentPage_;
    if (gateway && (!gateway_ || !gateway_->hasRun())) openGateway();
    if (incident && (!incident_ || !incident_->hasRun())) openIncident();
    if (live && !live_) openLive();
    // The toolbar's actions (run, export) are the labs'; the gateway views have their own.
    if (toolBar_) toolBar_->setVisible(!gateway && !live && !incident);
    if (status_) status_->setLabsShown(!gateway && !live && !incident);
    if (undo_)
        undo_->setActiveStack(gateway && gateway_ ? gateway_->knobPanel()->undoStack()
                              : live && live_     ? live_->knobPanel()->undoStack()
                                                  : knobs_->undoStack());
    updateSaveRun();
    updateTitle();
    updatePinActions();
    updateRunActions();
    export_->updateEnabled();
}

void MainWindow::updateSaveRun() {
    if (saveScenarioAct_) saveScenarioAct_->setEnabled(!gatewayShown() && !scenario_.lab.empty());
    if (saveRunAct_)
        saveRunAct_->setEnabled(gatewayShown() && gateway_ && gateway_->latestFrame() &&
                                gateway_->latestFrame()->snapshot);
}

ChartSheet MainWindow::wholeViewSheet(std::vector<std::unique_ptr<ChartView>>& owned) const {
    ChartSheet sheet;
    if (gatewayShown() && gateway_) {
        const std::optional<ExportTarget> target = gateway_->exportTarget();
        sheet.title = tr("%1 (simulated)").arg(QString::fromStdString(gateway_->runSpec().title));
        sheet.caption = target ? target->caption : ExportCaption{};
        // Every chart the view draws, in its order, those without simulated data (a sweep not
        // run yet) left out.
        for (const std::string& id : gateway_->chartIds()) {
            const ChartView* view = gateway_->chartView(id);
            if (!view) continue;
            const auto& series = view->chart().series;
            if (std::any_of(series.begin(), series.end(), [](const Series& s) {
                    return s.role == SeriesRole::Simulated && !s.x.empty();
                }))
                sheet.views.push_back(view);
        }
        return sheet;
    }
    if (!labsShown() || !latest_) return sheet;
    sheet.title = QString::fromStdString(scenario_.title.empty() ? latest_->scenario : scenario_.title);
    sheet.caption = exportCaption(latest_->scenario, latest_->seed, latest_->parameters,
                                  scenario_.params.toJson(), TAILLAB_VERSION, scenario_.params.specs());
    // Every chart of the result, in the lab's order: a chart a pane shows as drawn there (with
    // its pinned ghosts and overlays), the others drawn afresh.
    for (const Chart& chart : latest_->charts) {
        const ChartView* shown = nullptr;
        for (int i = 0; i < ChartArea::kPanes && !shown; ++i) {
            const ChartPane* pane = charts_->pane(i);
            if (pane->view() && pane->chart() && pane->chart()->id == chart.id) shown = pane->view();
        }
        if (!shown) {
            owned.emplace_back(ChartView::create(chart.kind));
            ChartView* view = owned.back().get();
            view->setPalette(palette());
            view->resize(sheet.cell);
            view->setChart(chart);
            shown = view;
        }
        sheet.views.push_back(shown);
    }
    return sheet;
}

void MainWindow::buildActions() {
    QStyle* st = style();
    // The labs' result, while the labs show: Export Whole Result and the chart exports' fallback
    // never take it from behind another tab.
    export_ = new ExportActions(
        charts_, [this] { return labsShown() ? latest_ : LabResultPtr(); }, this);
    export_->setCaption([this] {
        if (!latest_) return ExportCaption{};
        return exportCaption(latest_->scenario, latest_->seed, latest_->parameters,
                             scenario_.params.toJson(), TAILLAB_VERSION, scenario_.params.specs());
    });
    // File → Export follows the visible tab: a gateway view's chart while one shows.
    export_->setRoute([this]() -> std::optional<ExportTarget> {
        if (gatewayShown() && gateway_) return gateway_->exportTarget();
        if (tabs_->currentWidget() == livePage_ && live_) return live_->exportTarget();
        return std::nullopt;
    });
    export_->setSheetSource([this](std::vector<std::unique_ptr<ChartView>>& owned) {
        return wholeViewSheet(owned);
    });

    auto* openAct =
        new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Scenario…"), this);
    openAct->setShortcut(QKeySequence::Open);
    openAct->setIconText(tr("Open"));
    connect(openAct, &QAction::triggered, this, &MainWindow::openFileDialog);
    auto* reloadAct =
        new QAction(st->standardIcon(QStyle::SP_BrowserReload), tr("Re&load Scenarios"), this);
    reloadAct->setShortcut(QKeySequence(Qt::Key_F5));
    reloadAct->setIconText(tr("Reload"));
    connect(reloadAct, &QAction::triggered, this, &MainWindow::reloadCatalog);
    saveRunAct_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton),
                              tr("&Save Run as Scenario…"), this);
    saveRunAct_->setObjectName("saveRunAsScenario");
    saveRunAct_->setShortcut(QKeySequence::Save);
    saveRunAct_->setToolTip(tr("Save the gateway run as a scenario that replays it: its first "
                               "knobs, seed and timeline, with the knob changes made during it"));
    connect(saveRunAct_, &QAction::triggered, this, &MainWindow::saveRunDialog);
    auto* overlayAct = new QAction(tr("Overlay &Latency File…"), this);
    overlayAct->setObjectName("overlayLatencyFile");
    overlayAct->setToolTip(tr("Draw a measured distribution (.hgrm, or a latency log) on the "
                              "labs' percentile charts"));
    connect(overlayAct, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Overlay Latency File"), QString(),
            tr("Latency files (*.hgrm *.log *.txt *.hlog *.u64le);;All files (*)"));
        if (!path.isEmpty()) overlayDialog(path);
    });
    clearOverlaysAct_ = new QAction(tr("Clear Latency Overlays"), this);
    clearOverlaysAct_->setObjectName("clearOverlays");
    clearOverlaysAct_->setEnabled(false);
    connect(clearOverlaysAct_, &QAction::triggered, this, &MainWindow::clearOverlays);
    saveScenarioAct_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton),
                                   tr("Save Scenario &As…"), this);
    saveScenarioAct_->setObjectName("saveScenarioAs");
    saveScenarioAct_->setShortcut(QKeySequence::SaveAs);
    saveScenarioAct_->setToolTip(tr("Save the lab scenario with the knobs as they are now, as a "
                                    "file that taillab-cli run reproduces"));
    connect(saveScenarioAct_, &QAction::triggered, this, &MainWindow::saveScenarioDialog);
    auto* quitAct = new QAction(tr("&Quit"), this);
    quitAct->setShortcut(QKeySequence::Quit);
    connect(quitAct, &QAction::triggered, this, &QWidget::close);

    auto* runAct = new QAction(st->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), this);
    runAct_ = runAct;
    runAct->setObjectName("runAction");
    runAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runAct->setToolTip(tr("Run the scenario with the current knobs (Ctrl+R)"));
    connect(runAct, &QAction::triggered, this, &MainWindow::runNow);
    auto* cancelAct = new QAction(st->standardIcon(QStyle::SP_MediaStop), tr("&Cancel Run"), this);
    cancelAct_ = cancelAct;
    cancelAct->setObjectName("cancelRunAction");
    cancelAct->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAct->setIconText(tr("Cancel"));
    connect(cancelAct, &QAction::triggered, controller_, &RunController::cancel);
    auto* resetKnobsAct =
        new QAction(st->standardIcon(QStyle::SP_DialogResetButton), tr("Reset &Knobs"), this);
    resetKnobsAct_ = resetKnobsAct;
    resetKnobsAct->setObjectName("resetKnobsAction");
    resetKnobsAct->setIconText(tr("Reset"));
    connect(resetKnobsAct, &QAction::triggered, this, [this] {
        if (KnobPanel* panel = shownKnobPanel()) panel->resetToScenario();
    });
    auto* resetViewAct = new QAction(QIcon(":/zoom-fit.svg"), tr("Reset &Zoom"), this);
    resetViewAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    resetViewAct->setObjectName("resetZoomAction");
    resetViewAct->setToolTip(tr("Fit the current chart to its data (on the other tabs, all "
                                "their charts), or double-click a chart"));
    connect(resetViewAct, &QAction::triggered, this, &MainWindow::resetZoom);
    pinAct_ = new QAction(st->standardIcon(QStyle::SP_DialogApplyButton), tr("&Pin as Baseline"), this);
    pinAct_->setObjectName("pinBaseline");
    pinAct_->setIconText(tr("Pin"));
    pinAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    pinAct_->setToolTip(tr("Keep this result to compare the next runs with: its curves stay as "
                           "muted ghosts and the tables gain a difference column (Ctrl+B)"));
    connect(pinAct_, &QAction::triggered, this, [this] {
        if (gatewayShown()) {
            if (gateway_) gateway_->pinBaseline();
        } else if (labsShown()) {
            pinBaseline();
        }
    });
    clearPinAct_ = new QAction(tr("C&lear Baseline"), this);
    clearPinAct_->setObjectName("clearBaseline");
    connect(clearPinAct_, &QAction::triggered, this, [this] {
        if (gatewayShown()) {
            if (gateway_) gateway_->clearBaseline();
        } else if (labsShown()) {
            clearBaseline();
        }
    });
    auto* aboutAct =
        new QAction(st->standardIcon(QStyle::SP_MessageBoxInformation), tr("&About TailLab"), this);
    connect(aboutAct, &QAction::triggered, this, &MainWindow::showAbout);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openAct);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setObjectName("recentMenu");
    file->addAction(reloadAct);
    file->addSeparator();
    file->addActions({overlayAct, clearOverlaysAct_});
    file->addSeparator();
    file->addActions({saveScenarioAct_, saveRunAct_});
    file->addSeparator();
    file->addActions(export_->chartActions());
    file->addActions(export_->sheetActions());
    file->addAction(export_->action(ExportFormat::ResultJson));
    file->addSeparator();
    file->addAction(quitAct);
    undo_ = new QUndoGroup(this);
    undo_->addStack(knobs_->undoStack());
    undo_->setActiveStack(knobs_->undoStack());
    QAction* undoAct = undo_->createUndoAction(this, tr("&Undo"));
    undoAct->setObjectName("undoAction");
    undoAct->setShortcuts(QKeySequence::Undo);
    QAction* redoAct = undo_->createRedoAction(this, tr("&Redo"));
    redoAct->setObjectName("redoAction");
    redoAct->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z),
                           QKeySequence(Qt::CTRL | Qt::Key_Y)});
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addActions({undoAct, redoAct});
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addActions({runAct, cancelAct, resetKnobsAct});
    run->addSeparator();
    run->addActions({pinAct_, clearPinAct_});
    run->addSeparator();
    auto* twinAct = new QAction(tr("&Twin Run (Simulated and Live)…"), this);
    twinAct->setObjectName("twinAction");
    twinAct->setToolTip(tr("The gateway scenario shown, simulated and live over loopback on the same arrivals, "
                           "side by side"));
    connect(twinAct, &QAction::triggered, this, [this] { openTwin(); });
    run->addAction(twinAct);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(resetViewAct);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(aboutAct);

    auto* gatewayAct = new QAction(tr("&Gateway (simulated)"), this);
    gatewayAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    gatewayAct->setToolTip(tr("Seed 000's search gateway, simulated and streamed as it happens"));
    connect(gatewayAct, &QAction::triggered, this, [this] { openGateway(); });
    auto* labsAct = new QAction(tr("&Labs"), this);
    labsAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(labsAct, &QAction::triggered, this, [this] { tabs_->setCurrentIndex(0); });
    auto* incidentAct = new QAction(tr("&Incidents"), this);
    incidentAct->setObjectName("incidentsAction");
    incidentAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    incidentAct->setToolTip(tr("Replay an incident as it happens, A against B, with tail attribution"));
    connect(incidentAct, &QAction::triggered, this, [this] { openIncident(); });
    view->addSeparator();
    view->addActions({labsAct, gatewayAct, incidentAct});
    // On a small screen the charts may want the whole width: the labs and knobs fold away and
    // come back where they were.
    sidePanelAct_ = new QAction(tr("&Side Panel (Labs and Knobs)"), this);
    sidePanelAct_->setObjectName("sidePanelAction");
    sidePanelAct_->setCheckable(true);
    sidePanelAct_->setChecked(true);
    sidePanelAct_->setShortcut(QKeySequence(Qt::Key_F9));
    sidePanelAct_->setToolTip(tr("Show or hide the lab list and the knobs, on both tabs (F9)"));
    connect(sidePanelAct_, &QAction::toggled, this, [this](bool shown) {
        sidePanel_->setVisible(shown);
        if (gateway_) gateway_->knobPanel()->setVisible(shown);
    });
    view->addAction(sidePanelAct_);
    view->addSeparator();
    QMenu* theme = view->addMenu(tr("&Theme"));
    theme->setObjectName("themeMenu");
    auto* themes = new QActionGroup(this);
    for (const auto& [t, label] : {std::pair{Theme::System, tr("&System")},
                                   std::pair{Theme::Light, tr("&Light")},
                                   std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction* a = theme->addAction(label);
        a->setObjectName("theme_" + themeName(t));
        a->setCheckable(true);
        a->setChecked(t == currentTheme());
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [t] { applyTheme(t); });
    }

    QToolBar* bar = addToolBar(tr("Main"));
    toolBar_ = bar;
    bar->setObjectName("mainToolBar");
    bar->setMovable(false);
    bar->setIconSize(QSize(20, 20));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addActions({openAct, reloadAct});
    bar->addSeparator();
    bar->addActions({runAct, cancelAct, resetKnobsAct, pinAct_});
    bar->addSeparator();
    bar->addAction(resetViewAct);
    bar->addSeparator();
    bar->addActions(export_->chartActions());
    bar->addAction(export_->action(ExportFormat::ResultJson));

    connect(controller_, &RunController::started, this, &MainWindow::updateRunActions);
    connect(controller_, &RunController::finished, this, &MainWindow::updateRunActions);
    connect(controller_, &RunController::cancelled, this, &MainWindow::updateRunActions);
    connect(controller_, &RunController::failed, this, &MainWindow::updateRunActions);
    updateRunActions();
    connect(controller_, &RunController::failed, cancelAct,
            [cancelAct] { cancelAct->setEnabled(false); });
    updateSaveRun();
    rebuildRecentMenu();
}

bool MainWindow::openScenario(const QString& key) {
    if (const CatalogEntry* e = catalog_.find(key.toStdString()); e && e->error.empty()) {
        browser_->setCurrentEntry(e);
        open(e->scenario);
        return true;
    }
    if (const CatalogEntry* e = catalog_.find(key.toStdString()); e && !e->error.empty()) {
        openError_ = QString::fromStdString(e->error);
        reportProblem(tr("Cannot open %1").arg(key), openError_);
        return false;
    }
    if (!QFileInfo::exists(key) && !QFileInfo(key).isSymLink()) {
        // As taillab-cli says it: neither a path nor a scenario name.
        openError_ = tr("no scenario file '%1' (not a file, nor a name under %2)")
                         .arg(key, QString::fromStdString(catalog_.directory()));
        reportProblem(tr("Cannot open %1").arg(key), openError_);
        return false;
    }
    try {
        open(loadScenarioFile(key.toStdString()));
        browser_->setCurrentEntry(nullptr);
        return true;
    } catch (const std::exception& e) {
        openError_ = QString::fromUtf8(e.what());
        reportProblem(tr("Cannot open %1").arg(key), openError_);
        return false;
    }
}

bool MainWindow::selectLab(const QString& labId) { return browser_->selectLab(labId); }

void MainWindow::open(const Scenario& scenario) {
    const Lab* lab = findLab(scenario.lab);
    if (!lab) return;
    if (baseline_ && baseline_->lab != scenario.lab) clearBaseline();
    clearProblem();
    openError_.clear();
    scenario_ = scenario;
    knobs_->setScenario(scenario, lab->mainKnob());
    explanation_->show(*lab, scenario);
    latest_.reset();
    rebuildNext_ = true;
    charts_->setPlaceholder(tr("Running %1…").arg(QString::fromStdString(scenario.name)));
    results_->setNote({});
    results_->setResult(nullptr);
    export_->updateEnabled();
    updateTitle();
    updateSaveRun();
    runNow();
}

void MainWindow::runNow() {
    if (scenario_.lab.empty()) return;
    const Scenario s = knobs_->editedScenario();
    const bool paramsEdited = !(s.params == scenario_.params);
    if (paramsEdited && !s.expect.empty()) {
        // The run marks them not applicable (runner.h), each naming the knobs that moved.
        results_->setNote(
            tr("The figures this scenario quotes hold for its own knobs: they show as n/a until "
               "the knobs are reset."));
    } else {
        results_->setNote({});
    }
    updateTitle();
    controller_->start(s);
}

void MainWindow::onResult(const LabResultPtr& result) {
    if (!result) return;
    // A result of a run started after the problem replaces the stale one.
    if (controller_->generation() > problemGeneration_) clearProblem();
    latest_ = result;
    scheduler_->request(rebuildNext_ ? DirtyLevel::Rebuild : DirtyLevel::Data);
    rebuildNext_ = false;
}

void MainWindow::overlayDialog(const QString& path) {
    const QList<LatencyUnit> units{LatencyUnit::Nanoseconds, LatencyUnit::Microseconds,
                                   LatencyUnit::Milliseconds, LatencyUnit::Seconds};
    QStringList names;
    for (LatencyUnit u : units) names << unitName(u);
    bool ok = false;
    const QString chosen = QInputDialog::getItem(
        this, tr("Overlay Latency File"),
        tr("The unit of the values in %1:").arg(QFileInfo(path).fileName()), names,
        static_cast<int>(units.indexOf(likelyUnit(path))), false, &ok);
    if (!ok) return;
    QString error;
    addOverlay(path, units[static_cast<int>(names.indexOf(chosen))], &error);
}

bool MainWindow::addOverlay(const QString& path, LatencyUnit unit, QString* error) {
    try {
        LatencyOverlay overlay = readLatencyOverlay(path, unit);
        std::erase_if(overlays_, [&](const LatencyOverlay& o) { return o.path == overlay.path; });
        overlays_.push_back(std::move(overlay));
    } catch (const std::exception& e) {
        const QString why = QString::fromUtf8(e.what());
        if (error) *error = why;
        banner_->showMessage(MessageBanner::Kind::Error, tr("Cannot overlay %1").arg(path), why);
        return false;
    }
    applyOverlays();
    const LatencyOverlay& added = overlays_.back();
    const QString overlaid = tr("Overlaid %1 on the percentile charts: %L2 values")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(added.count);
    status_->showLabsMessage(added.left_out.isEmpty() ? overlaid : overlaid + "; " + added.left_out);
    return true;
}

void MainWindow::clearOverlays() {
    overlays_.clear();
    applyOverlays();
}

void MainWindow::applyOverlays() {
    std::vector<Series> series;
    for (const LatencyOverlay& o : overlays_) series.push_back(o.series);
    charts_->setOverlays(series);
    clearOverlaysAct_->setEnabled(!overlays_.empty());
}

void MainWindow::pinBaseline() {
    if (!latest_ || latest_->progress < 1.0 || latest_->cancelled) return;
    baseline_ = latest_;
    applyBaseline();
    status_->showLabsMessage(tr("Pinned %1 as the baseline").arg(QString::fromStdString(baseline_->scenario)));
}

void MainWindow::clearBaseline() {
    if (!baseline_) return;
    baseline_.reset();
    applyBaseline();
}

void MainWindow::applyBaseline() {
    charts_->setBaseline(baseline_);
    results_->setBaseline(baseline_);
    if (latest_) {
        charts_->setResult(latest_, false);
        results_->setResult(latest_.get());
    }
    updatePinActions();
}

void MainWindow::updatePinActions() {
    if (!pinAct_ || !clearPinAct_) return;
    if (gatewayShown()) {  // the gateway view's own pin, which its toolbar shows too
        pinAct_->setEnabled(gateway_ && gateway_->pinBaselineAction()->isEnabled());
        clearPinAct_->setEnabled(gateway_ && gateway_->clearBaselineAction()->isEnabled());
        return;
    }
    const bool labs = labsShown();
    pinAct_->setEnabled(labs && latest_ && latest_->progress >= 1.0 && !latest_->cancelled &&
                        latest_ != baseline_);
    clearPinAct_->setEnabled(labs && baseline_ != nullptr);
}

void MainWindow::updateRunActions() {
    if (!runAct_) return;
    const bool labs = labsShown();
    runAct_->setEnabled(labs);
    cancelAct_->setEnabled(labs && controller_->running());
    resetKnobsAct_->setEnabled(shownKnobPanel() != nullptr);
}

void MainWindow::resetZoom() {
    QWidget* shown = tabs_->currentWidget();
    if (labsShown()) {
        charts_->resetView();
    } else if (shown == gatewayPage_ && gateway_) {
        gateway_->resetZoom();
    } else if (shown == livePage_ && live_) {
        live_->resetZoom();
    } else if (shown == incidentPage_ && incident_) {
        incident_->resetTimeRange();  // its charts share one time range
    }
}

KnobPanel* MainWindow::shownKnobPanel() const {
    if (labsShown()) return knobs_;
    if (gatewayShown()) return gateway_ ? gateway_->knobPanel() : nullptr;
    if (tabs_->currentWidget() == livePage_) return live_ ? live_->knobPanel() : nullptr;
    return nullptr;
}

void MainWindow::onRedraw(DirtyLevel level) {
    if (!latest_) return;
    updatePinActions();
    if (level >= DirtyLevel::Data) {
        charts_->setResult(latest_, level == DirtyLevel::Rebuild);
        results_->setResult(latest_.get());
        export_->updateEnabled();
        showRunNotes();
    } else {
        export_->updateEnabled();
        if (auto* v = charts_->currentView()) v->replot();
    }
    if (latest_->progress >= 1.0 && !latest_->cancelled && !controller_->running()) {
        const CheckTally t = tallyChecks(latest_->checks);
        QString message = t.total() == 0 ? tr("Finished")
                                         : tr("Finished: checks %1").arg(checkTallyText(t));
        if (!latest_->notes.empty())
            // "Unstable: utilisation R·s = 10,000, at or above 1." The banner has the rest.
            message += " — " + firstSentence(QString::fromStdString(latest_->notes.front()));
        else if (t.not_applicable > 0)
            message += tr(" — n/a: the knobs or timeline differ from the scenario's");
        if (t.inconclusive > 0)
            // Some need a longer run, some no run length decides: each check's tooltip says which.
            message += tr(" — hover an inconclusive check to see why this run cannot decide it");
        status_->showLabsMessage(message);
    }
    emit resultDrawn(latest_);
}

void MainWindow::onFailed(const QString& message) {
    if (!latest_) charts_->setPlaceholder(tr("The run failed:\n%1").arg(message));
    reportProblem(tr("The run failed"), message);
}

void MainWindow::reportProblem(const QString& title, const QString& detail) {
    QString text = detail;
    stale_ = latest_ != nullptr;
    if (stale_) {
        const QString shown = QString::fromStdString(latest_->scenario);
        text += (text.isEmpty() ? "" : "\n") +
                tr("The charts and checks below are stale: they are still those of the last run "
                   "that worked (scenario “%1”).")
                    .arg(shown);
    }
    problemGeneration_ = controller_->generation();
    banner_->showMessage(MessageBanner::Kind::Error, title, text);
    status_->showLabsMessage(title);
    // Stale results stay readable but look it: washed-out charts, a greyed-out table.
    staleVeil_->setVisible(stale_);
    staleVeil_->raise();
    results_->setEnabled(!stale_);
}

// A run's notes (LabResult::notes) in the banner, as a notice; a notice of an earlier run goes
// once a run without notes is drawn. An error the banner shows is left alone.
void MainWindow::showRunNotes() {
    if (stale_ || (banner_->kind() == MessageBanner::Kind::Error && !banner_->text().isEmpty()))
        return;
    if (latest_->notes.empty()) {
        if (shownNotes_) banner_->clear();
        shownNotes_ = false;
        return;
    }
    QStringList notes;
    for (const std::string& n : latest_->notes) notes << QString::fromStdString(n);
    const QString first = firstSentence(notes.front());
    notes.front() = notes.front().mid(first.size()).trimmed();
    if (notes.front().isEmpty()) notes.removeFirst();
    banner_->showMessage(MessageBanner::Kind::Notice, first, notes.join("\n"));
    shownNotes_ = true;
}

void MainWindow::clearProblem() {
    banner_->clear();
    shownNotes_ = false;
    stale_ = false;
    staleVeil_->hide();
    results_->setEnabled(true);
}

void MainWindow::openFileDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Scenario"),
                                                      QString::fromStdString(catalog_.directory()),
                                                      tr("Scenario files (*.json)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path) {
    if (!isGatewayScenarioFile(path.toStdString())) {
        if (!openScenario(path)) {
            forgetRecent(path);
            return false;
        }
        noteRecent(path);
        return true;
    }
    try {
        openGateway(loadGatewayRun(path.toStdString(), {}));
    } catch (const std::exception& e) {
        // The parser's message starts with the file's path ("x.json:1:185: …"): said once.
        const QString why = QString::fromUtf8(e.what());
        const QString text = why.startsWith(path) ? tr("Cannot open %1").arg(why)
                                                  : tr("Cannot open %1: %2").arg(path, why);
        // Nothing else changes: the run on screen (if any) goes on, and no other run starts.
        if (gateway_ && gateway_->hasRun()) {
            tabs_->setCurrentWidget(gatewayPage_);
            gateway_->showMessage(text);
        } else if (live_ && tabs_->currentWidget() == livePage_) {
            live_->showMessage(text);
        } else {
            if (!labsShown()) tabs_->setCurrentIndex(0);
            banner_->showMessage(MessageBanner::Kind::Error, text);
            status_->showLabsMessage(text);
        }
        forgetRecent(path);
        return false;
    }
    noteRecent(path);
    status_->showMessage(tr("Opened %1 in the gateway view").arg(path));
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedScenario(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedScenario(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    if (isLatencyFile(path)) {
        // After the drop has returned: the unit question is a modal dialog.
        QTimer::singleShot(0, this, [this, path] { overlayDialog(path); });
        return;
    }
    openFile(path);
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        if (auto* a = findChild<QAction*>("theme_" + themeName(currentTheme())))
            a->setChecked(true);
}

void MainWindow::noteRecent(const QString& path) {
    const QString full = QFileInfo(path).absoluteFilePath();
    recent_.removeAll(full);
    recent_.prepend(full);
    while (recent_.size() > kRecentFiles) recent_.removeLast();
    rebuildRecentMenu();
}

void MainWindow::forgetRecent(const QString& path) {
    if (recent_.removeAll(QFileInfo(path).absoluteFilePath()) > 0) rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    for (int i = 0; i < recent_.size(); ++i) {
        const QString path = recent_[i];
        // &1 … &8 as accelerators; the full path in the tooltip and the status bar.
        QAction* a = recentMenu_->addAction(
            tr("&%1  %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setToolTip(path);
        a->setStatusTip(path);
        a->setData(path);
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    if (!recent_.isEmpty()) recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("&Clear List"));
    clear->setEnabled(!recent_.isEmpty());
    connect(clear, &QAction::triggered, this, [this] {
        recent_.clear();
        rebuildRecentMenu();
    });
    recentMenu_->setEnabled(true);
}

void MainWindow::saveScenarioDialog() {
    if (scenario_.lab.empty()) return;
    QSettings settings;
    const QString dir = settings.value(kLastScenarioDirKey, QDir::homePath()).toString();
    const QString name = QString::fromStdString(scenario_.name) +
                         (knobs_->isEdited() ? QStringLiteral("-edited.json") : QStringLiteral(".json"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Scenario As"),
                                                      QDir(dir).filePath(name),
                                                      tr("Scenario files (*.json)"));
    if (path.isEmpty()) return;
    settings.setValue(kLastScenarioDirKey, QFileInfo(path).absolutePath());
    const QString target = pathKeepingExpectations(path);
    if (target.isEmpty()) return;
    QString error;
    if (!saveScenarioAs(target, &error)) QMessageBox::warning(this, tr("Save failed"), error);
}

QString MainWindow::pathKeepingExpectations(const QString& path) {
    return pathKeepingPublishedFigures(this, path, knobs_->editedScenario(),
                                       tr("save the edited knobs"));
}

bool MainWindow::saveScenarioAs(const QString& path, QString* error) {
    const Lab* lab = findLab(scenario_.lab);
    if (!lab) {
        if (error) *error = tr("No lab scenario is open.");
        return false;
    }
    Scenario edited = knobs_->editedScenario();
    edited.name = scenarioNameFor(path, edited.name);
    Scenario saved;
    try {
        // Knobs that contradict each other make a file no one can load: refuse before writing,
        // so that the file at `path` stays as it was.
        lab->checkParams(edited.params);
    } catch (const std::invalid_argument& e) {
        if (error) *error = tr("Cannot save %1: the knobs contradict each other: %2").arg(path, QString::fromUtf8(e.what()));
        return false;
    }
    try {
        saveScenarioFile(path.toStdString(), edited);
        saved = loadScenarioFile(path.toStdString());  // as taillab-cli will read it
    } catch (const std::exception& e) {
        if (error) *error = tr("Cannot save %1: %2").arg(path, QString::fromUtf8(e.what()));
        return false;
    }
    // The window now holds the saved scenario: its values are the file's, so nothing is edited.
    // The result on screen was computed with these knobs and stays.
    scenario_ = saved;
    knobs_->setScenario(saved, lab->mainKnob());
    explanation_->show(*lab, saved);
    const CatalogEntry* entry = catalog_.find(path.toStdString());
    browser_->setCurrentEntry(entry && entry->error.empty() ? entry : nullptr);
    noteRecent(path);
    updateTitle();
    status_->showLabsMessage(tr("Saved the scenario as %1").arg(path));
    return true;
}

namespace {
constexpr const char* kGeometryKey = "window/geometry";
constexpr const char* kStateKey = "window/state";
constexpr const char* kTabKey = "window/tab";
constexpr const char* kScenarioKey = "window/scenario";
constexpr const char* kGatewaySpeedKey = "gateway/speed";
constexpr const char* kThemeKey = "window/theme";
constexpr const char* kSidePanelKey = "window/sidePanel";
QString splitterKey(const QSplitter* s) { return "splitters/" + s->objectName(); }
}  // namespace

void MainWindow::saveSettings(QSettings& settings) const {
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    for (const QSplitter* s : findChildren<QSplitter*>())
        if (!s->objectName().isEmpty()) settings.setValue(splitterKey(s), s->saveState());
    settings.setValue(kTabKey, tabs_->currentIndex());
    const std::string& key = scenario_.file.empty() ? scenario_.name : scenario_.file;
    if (!key.empty()) settings.setValue(kScenarioKey, QString::fromStdString(key));
    settings.setValue(kRecentKey, recent_);
    settings.setValue(kThemeKey, themeName(currentTheme()));
    settings.setValue(kSidePanelKey, sidePanelAct_->isChecked());
    if (gateway_)
        settings.setValue(kGatewaySpeedKey, gateway_->transport()->speedBox()->currentData());
    else if (gatewaySpeed_)
        settings.setValue(kGatewaySpeedKey, *gatewaySpeed_);
}

void MainWindow::restoreSettings(const QSettings& settings, bool withTab) {
    if (settings.contains(kGeometryKey)) restoreGeometry(settings.value(kGeometryKey).toByteArray());
    if (settings.contains(kStateKey)) restoreState(settings.value(kStateKey).toByteArray());
    for (QSplitter* s : findChildren<QSplitter*>())
        if (!s->objectName().isEmpty() && settings.contains(splitterKey(s)))
            s->restoreState(settings.value(splitterKey(s)).toByteArray());
    sidePanelAct_->setChecked(settings.value(kSidePanelKey, true).toBool());
    bool ok = false;
    gatewaySplitter_ = settings.value("splitters/gatewaySplitter").toByteArray();
    const double speed = settings.value(kGatewaySpeedKey).toDouble(&ok);
    if (ok && speed >= 0) gatewaySpeed_ = speed;  // 0: as fast as it goes
    if (const std::optional<Theme> t = parseTheme(settings.value(kThemeKey).toString())) {
        applyTheme(*t);
        if (auto* a = findChild<QAction*>("theme_" + themeName(*t))) a->setChecked(true);
    }
    recent_.clear();
    for (const QString& path : settings.value(kRecentKey).toStringList())
        if (!path.isEmpty() && !recent_.contains(path) && recent_.size() < kRecentFiles)
            recent_.append(path);
    rebuildRecentMenu();
    const int tab = settings.value(kTabKey, 0).toInt();
    if (withTab && tab > 0 && tab < tabs_->count()) tabs_->setCurrentIndex(tab);
}

QString MainWindow::lastScenario(const QSettings& settings) {
    return settings.value(kScenarioKey).toString();
}

void MainWindow::saveRunDialog() {
    if (!gateway_ || !gateway_->latestFrame()) return;
    QSettings settings;
    const QString dir = settings.value(kLastScenarioDirKey, QDir::homePath()).toString();
    const QString name = QString::fromStdString(gateway_->runSpec().name) + "-run.json";
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Run as Scenario"),
                                                      QDir(dir).filePath(name),
                                                      tr("Scenario files (*.json)"));
    if (path.isEmpty()) return;
    settings.setValue(kLastScenarioDirKey, QFileInfo(path).absolutePath());
    const std::optional<Scenario> run =
        gateway_->scenarioOfRun(scenarioNameFor(QFileInfo(path).fileName().toStdString()));
    const QString target = run ? pathKeepingPublishedFigures(this, path, *run, tr("save the run"))
                               : path;
    if (target.isEmpty()) return;
    QString error;
    if (!gateway_->saveRun(target, &error)) {
        QMessageBox::warning(this, tr("Save failed"), error);
        return;
    }
    status_->showMessage(tr("Saved the run as %1").arg(target));
}

void MainWindow::reloadCatalog() {
    catalog_.reload();
    browser_->setCatalog(&catalog_);
    if (const CatalogEntry* e =
            catalog_.find(scenario_.file.empty() ? scenario_.lab : scenario_.file))
        browser_->setCurrentEntry(e);
    status_->showMessage(
        tr("Scenarios reloaded from %1").arg(QString::fromStdString(catalog_.directory())));
}

void MainWindow::updateTitle() {
    if (tabs_->currentWidget() == livePage_) {
        setWindowTitle(tr("Gateway (live)[*] — TailLab"));
        setWindowModified(false);
        return;
    }
    if (tabs_->currentWidget() == incidentPage_) {
        setWindowTitle(tr("Incidents[*] — TailLab"));
        setWindowModified(false);
        return;
    }
    if (gatewayShown()) {
        // The scenario on screen, as the labs' title names theirs.
        const GatewayRunSpec spec = gateway_ ? gateway_->runSpec() : defaultGatewayRun();
        setWindowTitle(tr("Gateway (simulated): %1 (%2)[*] — TailLab")
                           .arg(QString::fromStdString(spec.title.empty() ? spec.name : spec.title),
                                QString::fromStdString(spec.name)));
        setWindowModified(false);
        return;
    }
    const QString title =
        QString::fromStdString(scenario_.title.empty() ? scenario_.name : scenario_.title);
    setWindowTitle(tr("%1 (%2)[*] — TailLab").arg(title, QString::fromStdString(scenario_.name)));
    setWindowModified(knobs_->isEdited());
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About TailLab"),
        tr("<h3>TailLab %1</h3>"
           "<p>A desktop lab for tail latency: fan-out, hedging, the power of d choices, "
           "coordinated omission and why percentiles must never be averaged, each simulated "
           "beside its closed form or published figure.</p>"
           "<p>Charts: wheel to zoom, drag to pan, double-click to reset; hover a curve for "
           "its values. Percentile charts use HdrHistogram's \"nines\" axis.</p>"
           "<p>Built with Qt %2 and QCustomPlot.</p>")
            .arg(QApplication::applicationVersion(), qVersion()));
}

}  // namespace taillab::ui
