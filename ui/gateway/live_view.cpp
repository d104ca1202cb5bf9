#include "gateway/live_view.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "gateway/chart_exporter.h"
#include "gateway/gateway_chart_grid.h"
#include "gateway/gateway_charts.h"
#include "gateway/gateway_scenario.h"
#include "gateway/gateway_tables.h"
#include "gateway/run_hour_spin.h"
#include "gateway/stage_path_widget.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "seed_edit.h"
#include "labs/lab.h"
#include "message_banner.h"
#include "save_dialog.h"
#include "scenario/timeline.h"
#include "plots/gateway_time_chart.h"
#include "theme.h"

namespace taillab::ui {

namespace {

constexpr const char* kSaveDirKey = "scenarios/lastSaveDirectory";
constexpr const char* kDefaultScenario = "week-v4-september";
// The chart window of a live run: the scenarios' (600 s, for a simulated week) would leave the
// time charts empty for ten minutes. 10 s is the knob's least.
constexpr double kLiveWindow_s = 10;

// The fault row's effects: what the amount box means for each.
struct EffectChoice {
    const char* label;
    FaultEffect effect;
    const char* suffix;  // "" for none: the amount box is disabled
    double min, max, value, step;
};
constexpr EffectChoice kEffects[] = {
    {"down", FaultEffect::Down, "", 0, 0, 0, 1},
    {"slow ×N", FaultEffect::Slow, " ×", 1.1, 100, 5, 0.5},
    {"latency +", FaultEffect::Latency, " ms", 1, 60000, 200, 50},
    {"resets", FaultEffect::Resets, " % of calls", 1, 100, 50, 5},
    {"invalid answers", FaultEffect::Invalid, " % of answers", 1, 100, 50, 5},
};

TimelineVocabulary vocabularyOf(const Scenario& s) {
    if (const Lab* lab = findLab("gateway"))
        if (auto v = lab->timelineVocabulary(s.params)) return *v;
    return {};
}

QString grouped(std::uint64_t n) { return QLocale(QLocale::English).toString(qulonglong(n)); }

QString ms(std::optional<double> v) {
    if (!v) return QStringLiteral("–");
    return QString::number(*v, 'f', *v >= 100 ? 0 : 1) + " ms";
}

}  // namespace

LiveView::LiveView(const std::string& scenarioDirectory, QWidget* parent)
    : QWidget(parent), session_(new LiveSession(this)) {
    setObjectName("liveView");
    loadScenarios(scenarioDirectory);
    buildLayout();
    connect(session_, &LiveSession::frameArrived, this, &LiveView::onFrame);
    connect(session_, &LiveSession::failed, this, [this](const QString& title, const QString& m) {
        message_->showMessage(MessageBanner::Kind::Error, title, m);
        if (drawn_) {  // the knobs show what is in force, not the refused edit
            knobs_->showValues(drawn_->gateway->params);
            shownParams_ = drawn_->gateway->params;
        }
        updateButtons();
    });
    connect(knobs_, &KnobPanel::edited, this, &LiveView::onKnobsEdited);
    connect(session_, &LiveSession::commandHandled, this, &LiveView::updateButtons);
    onScenarioPicked();
    updateButtons();
}

LiveView::~LiveView() = default;

void LiveView::loadScenarios(const std::string& directory) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const fs::path& dir : {fs::path(directory) / "gateway", fs::path(directory)})
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".json" && isGatewayScenarioFile(e.path().string()))
                files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
        try {
            scenarios_.push_back(loadScenarioFile(f.string()));
        } catch (const std::exception&) {
            // A file the parser refuses is the simulated tab's to report; it is not offered here.
        }
    }
    if (scenarios_.empty()) {  // no scenario directory: the gateway's defaults
        const GatewayRunSpec d = defaultGatewayRun();
        Scenario s;
        s.name = d.name;
        s.title = d.title;
        s.lab = "gateway";
        s.seed = d.seed;
        s.params = d.params;
        scenarios_.push_back(s);
    }
}

void LiveView::buildLayout() {
    exporter_ = new ChartExporter(this, [this](const std::string& id) {
        ChartExporter::Context c;
        const Scenario* picked = pickedScenario();
        c.scenario = picked ? picked->name : std::string();
        c.file_prefix = "gateway-live";
        if (drawn_ && drawn_->gateway) {
            const GatewayFrame& g = *drawn_->gateway;
            c.seed = g.seed;
            c.params = g.params.toJson();
            c.reference = g.initialParams.toJson();
            c.specs = g.params.specs();
            if (g.snapshot)
                c.extra = [t = g.snapshot->now_s - drawn_->startedAt_s](nlohmann::ordered_json& j) {
                    j["live_elapsed_s"] = t;
                };
            if (id == gateway_charts::kBreakers && g.snapshot)
                c.columns = {gateway_charts::laneColumn(exporter_->view(id)->chart(), *g.snapshot)};
        } else if (picked) {
            c.seed = picked->seed;
            c.params = c.reference = picked->params.toJson();
            c.specs = picked->params.specs();
        }
        return c;
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(buildControls());
    layout->addWidget(buildFaultRow());
    layout->addWidget(buildStatusRow());
    message_ = new MessageBanner(this);
    layout->addWidget(message_);
    stagePath_ = new StagePathWidget(this);
    stagePath_->setMeasured(true);
    stagePath_->setProbesShown(false);  // the live gateway sends no synthetic probes
    layout->addWidget(stagePath_);

    knobs_ = new KnobPanel(this);
    knobs_->setObjectName("liveKnobPanel");
    knobs_->setMinimumWidth(270);

    conservation_ = new QLabel(this);
    conservation_->setObjectName("liveConservation");
    conservation_->setContentsMargins(0, 0, 8, 0);
    conservation_->setToolTip(
        GatewayTables::conservationHelp() +
        tr(".\n\nThe gateway's own count, of every request as it arrives: it runs up to a second "
           "ahead of the clients' tally in the status line, which they make once a second. Its "
           "failed requests were answered with an error status (a deadline passed, no engine), so "
           "the clients count them as answered; theirs are requests that got no answer at all "
           "(refused, reset, timed out). Synthetic probes are not counted (the live gateway sends "
           "none)."));
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName("liveTabs");
    tabs_->setDocumentMode(true);
    tabs_->addTab(buildRunPage(), tr("Run"));
    client_ = new GatewayTimeChart(tabs_);
    client_->setElapsedTime(true);
    addChart(kClientChart, client_);
    const int clientTab = tabs_->addTab(client_, tr("Client view"));
    tabs_->setTabToolTip(clientTab,
                         tr("What the load generator's clients saw: corrected latency (from each "
                            "request's intended send time) against uncorrected (from when it got "
                            "a connection), and the generator's own lag"));
    tables_ = new GatewayTables(tabs_);
    tables_->setElapsedTime(true);
    tabs_->addTab(tables_, tr("Tables"));
    tabs_->setCornerWidget(conservation_, Qt::TopRightCorner);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName("liveSplitter");
    split->addWidget(knobs_);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({290, 1150});
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
}

QWidget* LiveView::buildControls() {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(4, 2, 4, 2);
    h->addWidget(new QLabel(tr("Scenario:"), row));
    scenarioBox_ = new QComboBox(row);
    scenarioBox_->setObjectName("liveScenario");
    for (const Scenario& s : scenarios_) {
        scenarioBox_->addItem(QString::fromStdString(s.title.empty() ? s.name : s.title),
                              QString::fromStdString(s.name));
        scenarioBox_->setItemData(scenarioBox_->count() - 1, QString::fromStdString(s.file),
                                  Qt::ToolTipRole);
    }
    // Titles are long: the box keeps a fixed room and the list shows them whole.
    scenarioBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    scenarioBox_->setMinimumContentsLength(24);
    const int preferred = scenarioBox_->findData(QString(kDefaultScenario));
    if (preferred >= 0) scenarioBox_->setCurrentIndex(preferred);
    connect(scenarioBox_, &QComboBox::currentIndexChanged, this, &LiveView::onScenarioPicked);
    h->addWidget(scenarioBox_);

    h->addWidget(new QLabel(tr("From:"), row));
    auto* from = new RunHourSpin(row);
    from->setObjectName("liveStartAt");
    from->setRange(0, 24 * 7 - 1);
    from->setToolTip(tr("Where on the scenario's clock the run starts: its arrivals, and its timeline's "
                        "faults and knob changes, from that hour on (those before it apply at once). "
                        "Type a time such as Tue 14:00 or a number of hours"));
    startAt_ = from;
    h->addWidget(from);
    h->addSpacing(8);
    h->addWidget(new QLabel(tr("Rate:"), row));
    rate_ = new QDoubleSpinBox(row);
    rate_->setObjectName("liveRate");
    rate_->setRange(1, 20000);
    rate_->setDecimals(0);
    rate_->setValue(30);  // within what the default scenario reaches from its first hour (about 37)
    rate_->setSuffix(tr(" req/s"));
    rate_->setToolTip(tr("Open-loop: the scenario's own arrivals (its customers, queries, bursts), scaled so "
                         "that the first hour averages this rate; each request leaves at its time whatever "
                         "the gateway answers. A rate the scenario cannot reach from the hour picked is "
                         "said, with the rate the run offers instead"));
    h->addWidget(rate_);
    h->addWidget(new QLabel(tr("Connections:"), row));
    connections_ = new QSpinBox(row);
    connections_->setObjectName("liveConnections");
    connections_->setRange(0, 10000);
    connections_->setSpecialValueText(tr("auto"));
    connections_->setToolTip(tr("The clients' connection pool; auto: enough for the rate at "
                                "250 ms per answer, at least 8"));
    h->addWidget(connections_);

    startButton_ = new QPushButton(tr("Start"), row);
    setPaletteIcon(startButton_, QStyle::SP_MediaPlay);
    startButton_->setObjectName("liveStart");
    startButton_->setToolTip(tr("Start the emulated fleet, the gateway and the load generator on "
                                "127.0.0.1, in this process"));
    connect(startButton_, &QPushButton::clicked, this, &LiveView::start);
    stopButton_ = new QPushButton(tr("Stop"), row);
    setPaletteIcon(stopButton_, QStyle::SP_MediaStop);
    stopButton_->setObjectName("liveStop");
    connect(stopButton_, &QPushButton::clicked, this, &LiveView::stop);
    saveButton_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton),
                                  tr("Save run…"), row);
    saveButton_->setObjectName("liveSave");
    saveButton_->setToolTip(tr("Save the run as a scenario: its first knobs, its seed and a timeline "
                               "of the knob changes and faults made during it, for the "
                               "simulated tab"));
    connect(saveButton_, &QPushButton::clicked, this, &LiveView::saveWithDialog);
    h->addWidget(startButton_);
    h->addWidget(stopButton_);
    h->addWidget(saveButton_);
    h->addWidget(exporter_->makeButton(row, "liveExportButton"));
    auto* twin = new QPushButton(tr("Twin run…"), row);
    twin->setObjectName("liveTwin");
    twin->setToolTip(tr("The picked scenario simulated and live on the very same arrivals, side by side "
                        "with tolerances (its own window; stop this run first for a quiet machine)"));
    connect(twin, &QPushButton::clicked, this, &LiveView::twinRequested);
    h->addWidget(twin);
    h->addStretch(1);
    return row;
}

QWidget* LiveView::buildFaultRow() {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(4, 0, 4, 2);
    h->addWidget(new QLabel(tr("Fault:"), row));
    faultEngine_ = new QComboBox(row);
    faultEngine_->setObjectName("liveFaultEngine");
    faultEngine_->setToolTip(tr("The engine the fault hits"));
    h->addWidget(faultEngine_);
    faultRegion_ = new QComboBox(row);
    faultRegion_->setObjectName("liveFaultRegion");
    faultRegion_->setToolTip(tr("In one region, or in all of them"));
    h->addWidget(faultRegion_);
    faultEffect_ = new QComboBox(row);
    faultEffect_->setObjectName("liveFaultEffect");
    for (const EffectChoice& e : kEffects) faultEffect_->addItem(tr(e.label));
    h->addWidget(faultEffect_);
    faultAmount_ = new QDoubleSpinBox(row);
    faultAmount_->setObjectName("liveFaultAmount");
    h->addWidget(faultAmount_);
    auto effectPicked = [this](int i) {
        const EffectChoice& e = kEffects[std::clamp(i, 0, int(std::size(kEffects)) - 1)];
        const bool amount = *e.suffix != '\0';
        faultAmount_->setEnabled(amount);
        faultAmount_->setSuffix(tr(e.suffix));
        faultAmount_->setDecimals(e.effect == FaultEffect::Slow ? 1 : 0);
        faultAmount_->setRange(e.min, std::max(e.min, e.max));
        faultAmount_->setSingleStep(e.step);
        faultAmount_->setValue(e.value);
        faultAmount_->setVisible(amount);
    };
    connect(faultEffect_, &QComboBox::currentIndexChanged, this, effectPicked);
    faultEffect_->setCurrentIndex(1);
    effectPicked(1);
    h->addWidget(new QLabel(tr("for"), row));
    faultDuration_ = new QSpinBox(row);
    faultDuration_->setObjectName("liveFaultDuration");
    faultDuration_->setRange(0, 3600);
    faultDuration_->setValue(10);
    faultDuration_->setSuffix(tr(" s"));
    faultDuration_->setSpecialValueText(tr("until cleared"));
    h->addWidget(faultDuration_);
    injectButton_ = new QPushButton(tr("Inject"), row);
    injectButton_->setObjectName("liveInject");
    injectButton_->setToolTip(tr("Apply the fault to the running fleet now; it is marked on "
                                 "every time chart"));
    connect(injectButton_, &QPushButton::clicked, this, &LiveView::injectFromRow);
    h->addWidget(injectButton_);
    clearFaultsButton_ = new QPushButton(tr("Clear faults"), row);
    clearFaultsButton_->setObjectName("liveClearFaults");
    clearFaultsButton_->setToolTip(tr("End every fault injected from here that is still in force"));
    connect(clearFaultsButton_, &QPushButton::clicked, session_, &LiveSession::removeFaults);
    h->addWidget(clearFaultsButton_);
    h->addSpacing(8);
    // The address where the scenario row has no room left for it at 1280 px.
    url_ = new QLabel(row);
    url_->setObjectName("liveUrl");
    url_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    url_->setToolTip(tr("The gateway's address: any HTTP client may send to it while it runs"));
    // Never wider than what is left of the row.
    url_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    h->addWidget(url_, 1);
    return row;
}

QWidget* LiveView::buildStatusRow() {
    // A row of its own, the window's whole width: the line is read, not hovered for, so it is
    // never cut; a font or a window too narrow for it wraps it onto a second line.
    status_ = new QLabel(this);
    statusLine_ = tr("Not running: pick a scenario and a rate, then Start");
    status_->setObjectName("liveStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setContentsMargins(6, 0, 6, 0);
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status_->setText(statusLine_);
    return status_;
}

QWidget* LiveView::buildRunPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 2, 4, 4);
    grid_ = new GatewayChartGrid(page);
    grid_->setElapsedTime(true);
    for (const auto& [id, view] : grid_->charts()) addChart(id, view);
    // The charts scroll when a notice or a wrapped status line leaves too little height for them
    // (1280x720), rather than squeeze their plots past reading or grow the window.
    auto* scroll = new QScrollArea(page);
    scroll->setObjectName("liveRunScroll");
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(grid_);
    layout->addWidget(scroll, 1);
    return page;
}

void LiveView::addChart(const std::string& id, ChartView* view) {
    view->setObjectName(QString::fromStdString("live_" + id));
    view->setMinimumSize(300, 200);
    charts_[id] = view;
    exporter_->add(id, view);
}

ChartView* LiveView::chartView(const std::string& id) const {
    const auto it = charts_.find(id);
    return it == charts_.end() ? nullptr : it->second;
}

void LiveView::resetZoom() { exporter_->resetViews(); }

std::optional<ExportTarget> LiveView::exportTarget(const std::string& id) const { return exporter_->target(id); }

bool LiveView::exportChart(const std::string& id, ExportFormat format, const QString& path, QString* error) const {
    return exporter_->exportChart(id, format, path, error);
}

std::vector<std::string> LiveView::chartIds() const {
    std::vector<std::string> ids;
    for (const std::string& id : gateway_charts::chartIds())
        if (charts_.count(id)) ids.push_back(id);
    ids.push_back(kClientChart);
    return ids;
}

const Scenario* LiveView::pickedScenario() const {
    const int i = scenarioBox_->currentIndex();
    return i >= 0 && i < static_cast<int>(scenarios_.size()) ? &scenarios_[i] : nullptr;
}

bool LiveView::selectScenario(const std::string& name) {
    const int i = scenarioBox_->findData(QString::fromStdString(name));
    if (i < 0) return false;
    scenarioBox_->setCurrentIndex(i);
    return true;
}

void LiveView::pickScenario(const Scenario& scenario) {
    namespace fs = std::filesystem;
    for (std::size_t i = 0; i < scenarios_.size(); ++i) {
        std::error_code ec;
        if (!scenario.file.empty() && !scenarios_[i].file.empty() &&
            fs::equivalent(scenario.file, scenarios_[i].file, ec)) {
            scenarioBox_->setCurrentIndex(static_cast<int>(i));
            return;
        }
    }
    scenarios_.push_back(scenario);
    scenarioBox_->addItem(QString::fromStdString(scenario.title.empty() ? scenario.name : scenario.title),
                          QString::fromStdString(scenario.name));
    scenarioBox_->setItemData(scenarioBox_->count() - 1, QString::fromStdString(scenario.file),
                              Qt::ToolTipRole);
    scenarioBox_->setCurrentIndex(scenarioBox_->count() - 1);
}

void LiveView::setRate(double perSecond) { rate_->setValue(perSecond); }

void LiveView::setStartHour(int hours) { startAt_->setValue(hours); }

void LiveView::onScenarioPicked() {
    const Scenario* s = pickedScenario();
    if (!s) return;
    // The box keeps a fixed room and cuts a long title: its tooltip has it whole.
    scenarioBox_->setToolTip(scenarioBox_->currentText() + "\n" + QString::fromStdString(s->file));
    Scenario live = *s;
    if (live.params.spec("window_s") && live.params.real("window_s") > kLiveWindow_s)
        live.params.set("window_s", kLiveWindow_s);
    knobs_->setScenario(live, "hedge_delay_ms");
    shownParams_ = live.params;
    scaling_.reset();
    showScaling(live);
    sayWhenWindowsDraw(live.params);
    auto* from = static_cast<RunHourSpin*>(startAt_);
    from->setMaximum(std::max<int>(0, static_cast<int>(s->params.integer("days")) * 24 - 1));
    from->setStartDay(s->params.spec("start_day") ? s->params.choiceIndex("start_day") : 0);
    const TimelineVocabulary v = vocabularyOf(*s);
    faultEngine_->clear();
    for (const std::string& e : v.engines) faultEngine_->addItem(QString::fromStdString(e));
    faultRegion_->clear();
    faultRegion_->addItem(tr("all regions"), QString());
    for (const std::string& r : v.regions)
        faultRegion_->addItem(QString::fromStdString(r), QString::fromStdString(r));
    updateButtons();
}

void LiveView::start() {
    const Scenario* picked = pickedScenario();
    if (!picked) return;
    Scenario s = knobs_->editedScenario();  // the picked scenario with the knobs as edited
    live::LiveStackOptions options;
    options.start_at = std::chrono::hours(startAt_->value());
    options.rate_per_s = rate_->value();
    options.connections = static_cast<std::size_t>(connections_->value());
    startedRate_ = options.rate_per_s;
    message_->clear();
    // The stack scales the arrivals the same way (live/load_scaling.h); a bad option is the
    // session's to report.
    scaling_.reset();
    try {
        scaling_ = live::scaleLoad(s, options.rate_per_s, options.start_at, options.duration);
    } catch (const std::invalid_argument&) {
    }
    showScaling(s);
    shownParams_ = s.params;
    session_->start(s, options);
    startButton_->setEnabled(false);  // until the worker's first frame says how it went
}

QString LiveView::rateText() const {
    if (!scaling_) return {};
    const QString offered = QString::number(scaling_->offered_rate_per_s, 'g', 3);
    if (scaling_->reachable()) return tr(" at %1 req/s").arg(offered);
    return tr(" at %1 req/s, not the %2 asked")
        .arg(offered, QString::number(scaling_->asked_rate_per_s, 'g', 4));
}

void LiveView::showScaling(const Scenario& s) {
    KnobEditor* editor = knobs_->editor("load_multiplier");
    if (!scaling_) {
        if (editor)
            editor->setNote(tr("in a live run the rate sets it: the multiplier of the scenario's arrivals "
                               "that makes the run's first hour average the rate"));
        return;
    }
    const live::LoadScaling& sc = *scaling_;
    const QString asked = QString::number(sc.asked_rate_per_s, 'g', 4);
    if (editor)
        editor->setNote(
            sc.reachable()
                ? tr("set by the rate: %1 req/s from there asks for a multiplier of %2")
                      .arg(asked, QString::number(sc.multiplier, 'g', 3))
                : tr("set by the rate: %1 req/s from there would need a multiplier of %2, and the knob "
                     "stops at %3, so the run offers about %4 req/s")
                      .arg(asked, QString::number(sc.wanted_multiplier, 'g', 3),
                           QString::number(sc.multiplier, 'g', 3),
                           QString::number(sc.offered_rate_per_s, 'g', 3)));
    if (sc.reachable()) return;
    const bool tooFast = sc.wanted_multiplier > sc.multiplier;
    QString how = tooFast ? tr("A rate of %1 req/s or less is met from there")
                                .arg(QString::number(std::floor(sc.max_rate_per_s * 10) / 10, 'g', 4))
                          : tr("A rate of %1 req/s or more is met from there")
                                .arg(QString::number(std::ceil(sc.min_rate_per_s * 10) / 10, 'g', 4));
    if (sc.reachable_from) {
        const double at = toSeconds(*sc.reachable_from);
        how += tr("; %1 req/s is met From %2 (hour %3)")
                   .arg(asked,
                        QString::fromStdString(formatRunTime(
                            at, s.params.spec("start_day") ? static_cast<int>(s.params.choiceIndex("start_day")) : 0)),
                        QString::number(at / 3600, 'f', 0));
    }
    message_->showMessage(
        MessageBanner::Kind::Notice,
        tr("This run offers about %1 req/s, not the %2 asked")
            .arg(QString::number(sc.offered_rate_per_s, 'g', 3), asked),
        QString::fromStdString(live::unreachableRateText(s, sc)) + ". " + how + ".");
}

void LiveView::stop() {
    session_->stop();
    stopButton_->setEnabled(false);
}

void LiveView::onKnobsEdited() {
    if (!session_->running()) return;  // before a run: the knobs it will start with
    // Only the knobs the user moved: the panel's other values lag the running stack (and what
    // its timeline or another change set), and sending them would undo those changes.
    const Params panel = knobs_->editedScenario().params;
    std::vector<KnobSetting> changes;
    for (const KnobSpec& k : panel.specs())
        if (panel.real(k.key) != shownParams_.real(k.key))
            changes.push_back(KnobSetting{k.key, panel.real(k.key)});
    if (changes.empty()) return;
    message_->clear();
    for (const KnobSetting& c : changes) shownParams_.set(c.key, c.value);
    knobCommand_ = session_->applyChanges(changes);
}

void LiveView::injectFault(const Fault& fault, std::optional<double> duration_s) {
    message_->clear();
    session_->injectFault(fault, duration_s, {});
}

void LiveView::injectFromRow() {
    const int i = std::clamp(faultEffect_->currentIndex(), 0, int(std::size(kEffects)) - 1);
    const EffectChoice& e = kEffects[i];
    Fault f;
    f.effect = e.effect;
    if (!faultEngine_->currentText().isEmpty())
        f.target.engine = faultEngine_->currentText().toStdString();
    const QString region = faultRegion_->currentData().toString();
    if (!region.isEmpty()) f.target.region = region.toStdString();
    const double amount = faultAmount_->value();
    switch (e.effect) {
        case FaultEffect::Slow:
            f.factor = amount;
            break;
        case FaultEffect::Latency:
            f.add_ms = amount;
            break;
        case FaultEffect::Resets:
        case FaultEffect::Invalid:
            f.share = amount / 100;
            break;
        default:
            break;
    }
    const int seconds = faultDuration_->value();
    injectFault(f, seconds > 0 ? std::optional<double>(seconds) : std::nullopt);
}

void LiveView::updateButtons() {
    const bool running = session_->running();
    const bool pending = !session_->handled(session_->lastCommand());
    startButton_->setEnabled(!running && !pending);
    stopButton_->setEnabled(running);
    saveButton_->setEnabled(drawn_ != nullptr);
    injectButton_->setEnabled(running && faultEngine_->count() > 0);
    clearFaultsButton_->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*>{scenarioBox_, startAt_, rate_, connections_})
        w->setEnabled(!running);
    // Knobs that shape the workload from its start cannot change during a run.
    if (const Scenario* s = pickedScenario()) {
        for (const std::string& key : vocabularyOf(*s).fixed_knobs)
            if (KnobEditor* editor = knobs_->editor(key)) editor->setEnabled(!running);
    }
    // The rate sets the load multiplier (its tooltip says how): a value edited here would be
    // ignored.
    if (KnobEditor* editor = knobs_->editor("load_multiplier")) editor->setEnabled(false);
    knobs_->seedBox()->setEnabled(!running);
}

void LiveView::onFrame(const LiveFramePtr& frame) {
    if (!frame || !frame->gateway || !frame->gateway->snapshot) return;
    if (frame->runId != runId_) {
        clientHistory_.clear();
        runId_ = frame->runId;
    }
    const GatewayFrame& g = *frame->gateway;
    drawn_ = frame;
    const double t = g.snapshot->now_s - frame->startedAt_s;
    if (clientHistory_.empty() || t > clientHistory_.back().t_s)
        clientHistory_.push_back({t, frame->load});
    urlLine_ = tr("Gateway: %1").arg(QString::fromStdString(frame->url));
    showUrl();
    const live::LoadProgress& l = frame->load;
    // The clients tally once a second (their last tally is at l.elapsed_s); the gateway's line
    // beside the tabs counts each request as it arrives, so it runs up to a second ahead. The
    // counts add up: sent (+ too late to send, each a failure) = answered + without an answer +
    // in flight (+ abandoned at a stop).
    QString ended = tr("%1 answered, %2 without an answer")
                        .arg(grouped(l.counts.answered), grouped(l.counts.failed));
    if (l.counts.abandoned > 0) ended += tr(", %1 abandoned at the stop").arg(grouped(l.counts.abandoned));
    ended += tr(", %1 in flight").arg(grouped(l.counts.in_flight()));
    statusLine_ =
        tr("%1 %2 s%3 · clients by %4 s: %5: %6 · lag p99 %7 · client p99 %8")
            .arg(frame->running ? tr("Running,") : tr("Stopped at"))
            .arg(t, 0, 'f', 0)
            .arg(rateText())
            .arg(l.elapsed_s, 0, 'f', 0)
            .arg(l.counts.too_late > 0 ? tr("%1 sent + %2 too late to send")
                                             .arg(grouped(l.counts.sent), grouped(l.counts.too_late))
                                       : tr("%1 sent").arg(grouped(l.counts.sent)),
                 ended)
            .arg(ms(l.lag_p99_ms), ms(l.corrected_p99_ms)) +
        tr(" (uncorrected %1)").arg(ms(l.uncorrected_p99_ms));
    showStatusLine();
    conservation_->setText(tr("Gateway: %1").arg(GatewayTables::conservationLine(*g.snapshot)));
    stagePath_->setSnapshot(g.snapshot);
    tables_->setFrame(frame->gateway);
    drawCharts(*frame);
    // The knobs show what is in force once the worker has seen the last edit.
    if (frame->commandSeq >= knobCommand_ && !(g.params == shownParams_)) {
        knobs_->showValues(g.params);
        shownParams_ = g.params;
    }
    updateButtons();
    emit frameDrawn(frame);
}

void LiveView::drawCharts(const LiveFrame& frame) {
    const GatewayFrame& g = *frame.gateway;
    const gateway::GatewaySnapshot& s = *g.snapshot;
    const std::optional<double> deadline =
        g.params.spec("deadline_ms") ? std::optional(g.params.real("deadline_ms")) : std::nullopt;
    // x: seconds since the run's start, as the saved scenario's timeline counts them.
    const double offset = -frame.startedAt_s;
    grid_->setCacheOff(g.params.spec("cache_tiers") && g.params.choice("cache_tiers") == "off");
    grid_->draw(s, offset, deadline);
    sayWhenWindowsDraw(g.params);
    client_->setAnnotations(gateway_charts::annotations(s, offset));
    client_->setRunSpan(GatewayTimeChart::Span{0.0, s.now_s + offset});
    drawClientChart();
}

void LiveView::sayWhenWindowsDraw(const Params& params) {
    const double window_s = params.spec("window_s") ? params.real("window_s") : 0;
    if (window_s == windowSaid_s_) return;
    windowSaid_s_ = window_s;
    const QString text =
        window_s > 0 ? tr("each %1 s window is drawn as it closes").arg(QString::number(window_s)) : QString();
    grid_->setEmptyNote(text);
}

void LiveView::drawClientChart() {
    Chart c;
    c.id = kClientChart;
    c.title = "Client view: latency so far, corrected vs uncorrected";
    c.kind = ChartKind::Time;
    c.x_label = GatewayChartGrid::kElapsedLabel;
    c.y_label = "Latency (ms)";
    c.log_y = true;
    using Field = std::optional<double> live::LoadProgress::*;
    const std::pair<const char*, Field> fields[] = {
        {"corrected p50", &live::LoadProgress::corrected_p50_ms},
        {"corrected p99", &live::LoadProgress::corrected_p99_ms},
        {"uncorrected p50", &live::LoadProgress::uncorrected_p50_ms},
        {"uncorrected p99", &live::LoadProgress::uncorrected_p99_ms},
        {"generator lag p99", &live::LoadProgress::lag_p99_ms}};
    for (const auto& [name, field] : fields) {
        Series series;
        series.name = name;
        for (const ClientPoint& p : clientHistory_) {
            const std::optional<double> v = p.load.*field;
            if (!v || !(*v > 0)) continue;  // nothing answered yet, or no lag for a log axis
            series.x.push_back(p.t_s);
            series.y.push_back(*v);
        }
        c.series.push_back(std::move(series));
    }
    client_->setChart(c);
}

std::optional<Scenario> LiveView::scenarioOfRun(const std::string& name) const {
    if (!drawn_ || !drawn_->runScenario) return std::nullopt;
    Scenario s = *drawn_->runScenario;
    const std::string scenario = s.name;
    s.name = name;
    s.title = (s.title.empty() ? scenario : s.title) + " (live run)";
    s.file.clear();
    // The live tab's short chart window was for the live charts; the simulated tab draws the
    // scenario's own (the window shapes the charts, never the run).
    const auto picked = std::find_if(scenarios_.begin(), scenarios_.end(),
                                     [&](const Scenario& p) { return p.name == scenario; });
    if (picked != scenarios_.end() && s.params.spec("window_s") &&
        s.params.real("window_s") == kLiveWindow_s)
        s.params.set("window_s", picked->params.real("window_s"));
    std::size_t faults = 0;
    for (const TimelineEvent& e : s.timeline.events) faults += e.fault ? 1 : 0;
    s.notes = "Saved from TailLab's live tab: a live run of '" + scenario + "' at about " +
              QString::number(startedRate_).toStdString() +
              " requests per second, with the knobs it started with (load_multiplier as the live load "
              "scaled the scenario's arrivals), its seed, and a timeline of " +
              std::to_string(s.timeline.events.size() - faults) + " knob change(s) and " +
              std::to_string(faults) +
              " fault(s) made during it, at their seconds since the start. The simulated tab "
              "replays those changes on the same arrivals the live clients sent.";
    return s;
}

bool LiveView::saveRun(const QString& path, QString* error) const {
    std::string why;
    const bool saved = saveRunAsScenario(
        path.toStdString(), [this](const std::string& name) { return scenarioOfRun(name); }, &why);
    if (!saved && error) *error = QString::fromStdString(why);
    return saved;
}

void LiveView::saveWithDialog() {
    QSettings settings;
    const QString dir = settings.value(kSaveDirKey, QDir::homePath()).toString();
    const Scenario* picked = pickedScenario();
    const QString name = QString::fromStdString(picked ? picked->name : "gateway") + "-live.json";
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Run as Scenario"),
                                                      QDir(dir).filePath(name),
                                                      tr("Scenarios (*.json)"));
    if (path.isEmpty()) return;
    settings.setValue(kSaveDirKey, QFileInfo(path).absolutePath());
    const std::optional<Scenario> run =
        scenarioOfRun(scenarioNameFor(QFileInfo(path).fileName().toStdString()));
    const QString target = run ? pathKeepingPublishedFigures(this, path, *run, tr("save the run"))
                               : path;
    if (target.isEmpty()) return;
    QString error;
    if (!saveRun(target, &error)) {
        QMessageBox::warning(this, tr("Save failed"), error);
        return;
    }
    message_->showMessage(MessageBanner::Kind::Notice, tr("Saved the run as %1").arg(target),
                          tr("File → Open it to replay the run in the simulated tab"));
}

void LiveView::showMessage(const QString& text, bool error) {
    if (text.isEmpty()) return message_->clear();
    message_->showMessage(error ? MessageBanner::Kind::Error : MessageBanner::Kind::Notice, text);
}

QString LiveView::message() const { return message_->text(); }
QString LiveView::statusText() const { return statusLine_; }

void LiveView::showStatusLine() {
    status_->setText(statusLine_);  // whole: its row wraps it when the window is too narrow
    status_->setToolTip(
        tr("The load generator: requests sent, answered (any status) and failed (refused, "
           "reset, timed out); its own scheduling lag; the clients' p99 so far from each "
           "request's intended send time (corrected) and from when it got a connection "
           "(uncorrected)."));
}

void LiveView::showUrl() {
    // Cut to the room the row leaves (…), whole in the tooltip and selectable there.
    url_->setText(url_->fontMetrics().elidedText(urlLine_, Qt::ElideRight, url_->width()));
    url_->setToolTip(urlLine_ + tr("\n\nThe gateway's address: any HTTP client may send to it while it runs"));
}

void LiveView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    showUrl();
}

QString LiveView::urlText() const { return urlLine_; }

}  // namespace taillab::ui
