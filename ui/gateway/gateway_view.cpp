#include "gateway/gateway_view.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "chart_data_export.h"
#include "message_banner.h"
#include "plots/breaker_strip_chart.h"
#include "gateway/chart_exporter.h"
#include "gateway/gateway_chart_grid.h"
#include "gateway/gateway_charts.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_tables.h"
#include "plots/gateway_time_chart.h"
#include "plots/percentile_chart.h"
#include "gateway/hedge_sweep.h"
#include "gateway/stage_path_widget.h"
#include "plots/sweep_chart.h"
#include "gateway/sweep_panel.h"
#include "gateway/transport_bar.h"
#include "gateway/week_time.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "plots/chart_view.h"

namespace taillab::ui {
namespace {

int startDayOf(const Params& p) { return p.spec("start_day") ? p.choiceIndex("start_day") : 0; }

Scenario knobScenario(const GatewayRunSpec& spec) {
    Scenario s;
    s.name = spec.name;
    s.title = spec.title;
    s.lab = "gateway";
    s.seed = spec.seed;
    s.params = spec.params;
    return s;
}

}  // namespace

GatewayView::GatewayView(const std::string& scenarioDirectory, QWidget* parent)
    : QWidget(parent),
      scenarioDirectory_(scenarioDirectory),
      spec_(defaultGatewayRun()),
      session_(new GatewaySession(this)),
      scheduler_(new RedrawScheduler(this)) {
    setObjectName("gatewayView");
    buildLayout();
    connect(session_, &GatewaySession::frameArrived, this, &GatewayView::onFrame);
    connect(session_, &GatewaySession::failed, this, [this](const QString& m) {
        message_->showMessage(MessageBanner::Kind::Error, tr("The simulation stopped"), m);
    });
    connect(session_, &GatewaySession::notice, this, [this](const QString& m) {
        message_->showMessage(MessageBanner::Kind::Notice, m);
    });
    connect(scheduler_, &RedrawScheduler::redraw, this, [this](DirtyLevel) { onRedraw(); });
    connect(knobs_, &KnobPanel::edited, this, &GatewayView::onKnobsEdited);
    transport_->drive(session_, this, "gatewayPlayPauseShortcut");
    connect(transport_, &TransportBar::restartRequested, this, &GatewayView::restart);

    const std::string published = findPublishedFigures(scenarioDirectory_);
    sweep_->setPublished(readPublishedHedgeSweep(published), QString::fromStdString(published));
    knobs_->setScenario(knobScenario(spec_), "hedge_delay_ms");
    shownParams_ = spec_.params;
}

GatewayView::~GatewayView() = default;

void GatewayView::buildLayout() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    auto* top = new QHBoxLayout;
    transport_ = new TransportBar(this);
    top->addWidget(transport_, 1);
    exporter_ = new ChartExporter(this, [this](const std::string& id) {
        if (id == gateway_charts::kSweep) return sweepContext();
        ChartExporter::Context c;
        c.scenario = spec_.name;
        c.seed = drawn_ ? drawn_->seed : spec_.seed;
        c.params = (drawn_ ? drawn_->params : spec_.params).toJson();
        // A knob the scenario's own timeline set by now is no edit: the reference is what the
        // scenario has in force, as the knob panel's.
        c.reference = scenarioInForce(drawn_.get()).toJson();
        c.specs = spec_.params.specs();
        c.file_prefix = "gateway";
        if (drawn_ && drawn_->snapshot)
            c.extra = [t = drawn_->snapshot->now_s](nlohmann::ordered_json& j) { j["simulated_time_s"] = t; };
        if (id == gateway_charts::kBreakers && chartsSnapshot_)
            c.columns = {gateway_charts::laneColumn(exporter_->view(id)->chart(), *chartsSnapshot_)};
        return c;
    });
    exportButton_ = exporter_->makeButton(this, "gatewayExportButton");
    top->addWidget(exportButton_, 0, Qt::AlignTop);
    pinAction_ = new QAction(style()->standardIcon(QStyle::SP_DialogApplyButton),
                             tr("Pin as baseline"), this);
    pinAction_->setObjectName("gatewayPinBaseline");
    pinAction_->setToolTip(tr("Keep this run: the time charts draw it as dashed ghosts under the "
                              "next runs"));
    connect(pinAction_, &QAction::triggered, this, &GatewayView::pinBaseline);
    clearBaselineAction_ = new QAction(style()->standardIcon(QStyle::SP_DialogDiscardButton),
                                       tr("Clear baseline"), this);
    clearBaselineAction_->setObjectName("gatewayClearBaseline");
    clearBaselineAction_->setToolTip(tr("Stop drawing the pinned run"));
    connect(clearBaselineAction_, &QAction::triggered, this, &GatewayView::clearBaseline);
    for (QAction* a : {pinAction_, clearBaselineAction_}) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(a);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        transport_->addBelowControls(button);
    }
    updateBaselineActions();
    layout->addLayout(top);

    stagePath_ = new StagePathWidget(this);
    layout->addWidget(stagePath_);

    knobs_ = new KnobPanel(this);
    knobs_->setObjectName("gatewayKnobPanel");
    knobs_->setMinimumWidth(270);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName("gatewayTabs");
    tabs_->setDocumentMode(true);
    tabs_->addTab(buildRunPage(), tr("Run"));
    // The tables have a tab of their own: at 1280x720 the Run tab holds six panes of about
    // 320x225 with their legends whole, and the nines chart took the tables' pane to sit beside
    // the percentiles. A short tab name leaves the conservation line its room.
    tables_ = new GatewayTables(tabs_);
    const int tablesTab = tabs_->addTab(tables_, tr("Tables"));
    tabs_->setTabToolTip(tablesTab, tr("The customers with the worst tails, every counter of the "
                                       "run, and its timeline"));
    sweep_ = new SweepPanel([this] { return currentParams(); }, tabs_);
    addChart(gateway_charts::kSweep, sweep_->chart());
    tabs_->addTab(sweep_, tr("Hedge-delay sweep"));
    tabs_->setCornerWidget(conservation_, Qt::TopRightCorner);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName("gatewaySplitter");
    split->addWidget(knobs_);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({290, 1150});
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    setCurrentChart(gateway_charts::kPercentiles);
}

QWidget* GatewayView::buildRunPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 2, 4, 4);
    layout->setSpacing(2);
    // The conservation line sits beside the tabs (Run | Hedge-delay sweep), leaving the height
    // to the charts.
    conservation_ = new QLabel(this);
    conservation_->setObjectName("gatewayConservation");
    conservation_->setContentsMargins(0, 0, 8, 0);
    conservation_->setToolTip(GatewayTables::conservationHelp());
    message_ = new MessageBanner(page);
    layout->addWidget(message_);

    grid_ = new GatewayChartGrid(page);
    for (const auto& [id, view] : grid_->charts()) addChart(id, view);
    // The charts scroll when a notice leaves them too little height (1280x720), rather than
    // squeeze their plots past reading or grow the window past the screen.
    auto* scroll = new QScrollArea(page);
    scroll->setObjectName("gatewayRunScroll");
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(grid_);
    layout->addWidget(scroll, 1);
    return page;
}

void GatewayView::addChart(const std::string& id, ChartView* view) {
    view->setObjectName(QString::fromStdString(id));
    view->setMinimumSize(300, 216);  // two rows of these fit a 1280x720 window
    exporter_->add(id, view);
}

std::vector<std::string> GatewayView::chartIds() const { return gateway_charts::chartIds(); }

ChartView* GatewayView::chartView(const std::string& id) const { return exporter_->view(id); }

std::string GatewayView::currentChartId() const { return exporter_->current(); }

void GatewayView::setCurrentChart(const std::string& id) { exporter_->setCurrent(id); }

void GatewayView::resetZoom() { exporter_->resetViews(); }

void GatewayView::showSweepTab(bool sweep) {
    tabs_->setCurrentIndex(sweep ? tabs_->indexOf(sweep_) : 0);
}

void GatewayView::startRun(const GatewayRunSpec& spec, bool play) {
    spec_ = spec;
    started_ = true;
    knobs_->setScenario(knobScenario(spec_), "hedge_delay_ms");
    shownParams_ = spec_.params;
    message_->clear();
    if (!session_->started()) session_->setSpeed(kDefaultSpeed);
    knobCommand_ = session_->start(spec_.params, spec_.seed, spec_.timeline, play);
}

void GatewayView::showMessage(const QString& text, bool error) {
    if (text.isEmpty()) return message_->clear();
    message_->showMessage(error ? MessageBanner::Kind::Error : MessageBanner::Kind::Notice, text);
}

QString GatewayView::message() const { return message_->text(); }

void GatewayView::restart() {
    // From the run's first knobs (the worker holds them) with the user's edits: the panel's other
    // values are the ones in force, which the timeline would apply a second time.
    const std::vector<KnobSetting> changes = userChanges();
    const std::uint64_t seed = knobs_->editedScenario().seed;
    const bool play = drawn_ ? drawn_->playing || drawn_->finished() : true;
    spec_.seed = seed;
    for (const KnobSetting& c : changes) shownParams_.set(c.key, c.value);
    message_->clear();
    knobCommand_ = session_->restart(changes, seed, play);
}

std::pair<Params, std::uint64_t> GatewayView::currentParams() const {
    const Scenario s = knobs_->editedScenario();
    return {s.params, s.seed};
}

std::vector<KnobSetting> GatewayView::userChanges() const {
    const Params panel = knobs_->editedScenario().params;
    std::vector<KnobSetting> changes;
    for (const KnobSpec& k : panel.specs())
        if (panel.real(k.key) != shownParams_.real(k.key))
            changes.push_back(KnobSetting{k.key, panel.real(k.key)});
    return changes;
}

void GatewayView::onKnobsEdited() {
    if (!drawn_ || knobs_->editedScenario().seed != drawn_->seed) {  // a new seed is a new run
        restart();
        return;
    }
    const std::vector<KnobSetting> changes = userChanges();
    if (changes.empty()) return;
    message_->clear();
    for (const KnobSetting& c : changes) shownParams_.set(c.key, c.value);
    knobCommand_ = session_->applyChanges(changes);
}

void GatewayView::onFrame(const GatewayFramePtr& frame) {
    pending_ = frame;
    scheduler_->request(DirtyLevel::Data);
}

void GatewayView::onRedraw() {
    if (!pending_) return;
    const GatewayFramePtr frame = pending_;
    drawn_ = frame;
    transport_->setFrame(frame);
    if (frame->snapshot) {
        stagePath_->setSnapshot(frame->snapshot);
        conservation_->setText(tr("Requests: %1").arg(
            GatewayTables::conservationLine(*frame->snapshot)));
        tables_->setFrame(frame);
        if (frame->snapshot != chartsSnapshot_) drawCharts(*frame);
    }
    syncKnobs(*frame);
    updateBaselineActions();
    emit frameDrawn(frame);
}

void GatewayView::drawCharts(const GatewayFrame& frame) {
    const gateway::GatewaySnapshot& s = *frame.snapshot;
    chartsSnapshot_ = frame.snapshot;
    const double offset = week_time::startOffset_s(startDayOf(frame.params));
    const std::optional<double> deadline =
        frame.params.spec("deadline_ms") ? std::optional(frame.params.real("deadline_ms"))
                                         : std::nullopt;
    grid_->setCacheOff(frame.params.spec("cache_tiers") && frame.params.choice("cache_tiers") == "off");
    grid_->draw(s, offset, deadline, baseline_.get());
}

Params GatewayView::scenarioInForce(const GatewayFrame* frame,
                                    std::map<std::string, QString>* setBy) const {
    Params inForce = spec_.params;
    const double now_s = frame && frame->snapshot ? frame->snapshot->now_s : 0;
    const double offset = week_time::startOffset_s(startDayOf(frame ? frame->params : spec_.params));
    for (const TimelineEvent& e : spec_.timeline.events) {
        if (e.set.empty() || e.at_s > now_s) continue;
        for (const KnobSetting& k : e.set) {
            if (!inForce.spec(k.key)) continue;
            inForce.set(k.key, k.value);
            if (setBy)
                (*setBy)[k.key] =
                    tr("Set by the scenario's timeline at %1").arg(week_time::label(offset + e.at_s));
        }
    }
    return inForce;
}

void GatewayView::syncKnobs(const GatewayFrame& frame) {
    // Only once the worker has seen the last edit, so an older frame never undoes it.
    if (frame.commandSeq < knobCommand_) return;
    if (!(frame.params == shownParams_)) {
        knobs_->showValues(frame.params);
        shownParams_ = frame.params;
    }
    // What the scenario itself has in force by now: a knob its timeline changed is no edit.
    std::map<std::string, QString> setBy;
    const Params inForce = scenarioInForce(&frame, &setBy);
    knobs_->setInForce(inForce, setBy);
}

ChartExporter::Context GatewayView::sweepContext() const {
    const SweepPanel::Settings s = sweep_->settings();
    ChartExporter::Context c;
    c.scenario = spec_.name;
    c.seed = s.seed;
    c.file_prefix = "gateway";
    // The knobs every point ran with, the delay being what varies from point to point.
    nlohmann::ordered_json delays = nlohmann::ordered_json::array();
    for (const double d : s.delays_ms) delays.push_back(jsonNumber(d));
    c.params = s.params.toJson();
    c.params["hedge_delay_ms"] = delays;
    c.reference = c.params;
    c.specs = s.params.specs();
    ExportCaption caption;
    caption.lead = QString::fromStdString(spec_.name.empty() ? std::string("unsaved scenario") : spec_.name) +
                   QString::fromUtf8(" · seed %1 · hedge-delay sweep").arg(s.seed);
    QStringList ms;
    for (const double d : s.delays_ms) ms << QString::number(d, 'g', 6);
    caption.items << tr("hedge delay fixed at %1 ms").arg(ms.join(", "))
                  << (s.days == 1 ? tr("1 simulated day per point") : tr("%1 simulated days per point").arg(s.days))
                  << (s.shadow ? tr("as seed 000's shadow test") : tr("the current knobs otherwise"));
    if (!s.ran) caption.items << tr("not run yet: the published points only");
    caption.itemName = tr("setting");
    caption.itemsName = tr("settings");
    caption.tail = QString("TailLab %1").arg(TAILLAB_VERSION);
    c.caption = caption;
    c.extra = [s, delays](nlohmann::ordered_json& j) {
        j["sweep"] = {{"hedge_mode", "fixed"},
                      {"hedge_delay_ms", delays},
                      {"days_per_point", s.days},
                      {"shadow_test", s.shadow},
                      {"run", s.ran}};
    };
    c.columns = {sweep_->delayColumn()};
    return c;
}

QString GatewayView::exportCaption() const { return exporter_->caption(); }

std::optional<ExportTarget> GatewayView::exportTarget() const { return exporter_->target(); }

std::optional<ExportTarget> GatewayView::exportTarget(const std::string& id) const {
    return exporter_->target(id);
}

bool GatewayView::exportChart(const std::string& id, ExportFormat format, const QString& path,
                              QString* error) const {
    return exporter_->exportChart(id, format, path, error);
}

}  // namespace taillab::ui
