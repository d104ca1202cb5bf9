#include "incident/incident_board.h"

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSettings>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "chart_data_export.h"
#include "chart_sheet.h"
#include "gateway/gateway_session.h"
#include "gateway/transport_bar.h"
#include "gateway/week_time.h"
#include "incident/attribution_panel.h"
#include "incident/incident_charts.h"
#include "message_banner.h"
#include "plots/breaker_strip_chart.h"
#include "plots/event_lane_chart.h"
#include "plots/gateway_time_chart.h"
#include "scenario/timeline.h"
#include "save_dialog.h"

namespace taillab::ui {
namespace {

using gateway::GatewaySnapshot;
namespace ic = incident_charts;

constexpr double kEventPad_s = 1800;  // around an instant (or a short span) when zooming to it
// Three rows of two tracks, each at least a line of the lanes' label text (8 pt) high, under the
// title and over the time axis: less, and a split row's two labels overlap.
constexpr int kLaneHeight = 200;
constexpr int kFrameBudgetMs = 100;
constexpr std::size_t kMaxDrawnPoints = 900;  // a series' points drawn (decimated beyond)
// A chart's least size: below it the legend leaves the plot a sliver and the axis labels elide.
// The board scrolls instead, and takes a third column only where the width gives it room.
constexpr int kMinChartWidth = 520;
constexpr int kMinChartHeight = 290;

int startDayOf(const Params& p) { return p.spec("start_day") ? p.choiceIndex("start_day") : 0; }

QString runName(const GatewayRunSpec& s) { return QString::fromStdString(s.name); }

// B's strips under A's, as lanes of their own ("B · EU / atlas").
void appendLanes(Chart& into, const Chart& b, int offsetLanes) {
    for (std::size_t i = 0; i < into.series.size() && i < b.series.size(); ++i)
        for (std::size_t k = 0; k < b.series[i].x.size(); ++k) {
            into.series[i].x.push_back(b.series[i].x[k]);
            into.series[i].y.push_back(b.series[i].y[k] + offsetLanes);
        }
}

// Keeps the strip lanes where something happened (a state other than the normal one, in A or B;
// a lane is kept with its counterpart in the other run, so the two read side by side). Three
// regions' breakers, engines and B's copies are some thirty lanes, nearly all of them normal:
// drawn whole they are hairlines no one can tell apart. With nothing to show, every lane stays
// (the chart says "none in this run"). The title says how many lanes are hidden.
void keepActiveLanes(Chart& strips, QStringList& names, int perRun) {
    const int runs = perRun > 0 ? static_cast<int>(names.size()) / perRun : 0;
    if (runs < 1) return;
    std::vector<bool> active(static_cast<std::size_t>(perRun), false);
    for (std::size_t state = 1; state < strips.series.size(); ++state)
        for (double y : strips.series[state].y) {
            const int lane = static_cast<int>(y);
            if (lane >= 0) active[static_cast<std::size_t>(lane % perRun)] = true;
        }
    const auto kept = static_cast<int>(std::count(active.begin(), active.end(), true));
    if (kept == 0 || kept == perRun) return;
    std::vector<int> map(static_cast<std::size_t>(perRun * runs), -1);
    int next = 0;
    QStringList shown;
    for (int run = 0; run < runs; ++run)
        for (int l = 0; l < perRun; ++l)
            if (active[static_cast<std::size_t>(l)]) {
                map[static_cast<std::size_t>(run * perRun + l)] = next++;
                shown << names[run * perRun + l];
            }
    for (Series& s : strips.series) {
        Series out{s.name, s.role, {}, {}};
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); i += 2) {
            const int lane = static_cast<int>(s.y[i]);
            if (lane < 0 || lane >= static_cast<int>(map.size()) || map[static_cast<std::size_t>(lane)] < 0) continue;
            const double to = map[static_cast<std::size_t>(lane)];
            out.x.insert(out.x.end(), {s.x[i], s.x[i + 1]});
            out.y.insert(out.y.end(), {to, to});
        }
        s = std::move(out);
    }
    names = shown;
    strips.title += " · " + std::to_string(perRun - kept) + " of " + std::to_string(perRun) +
                    " lanes hidden: they stayed normal";
}

QStringList laneNames(const std::vector<std::string>& lanes, bool compare) {
    QStringList out;
    for (const std::string& l : lanes) out << QString::fromStdString(l);
    if (compare)
        for (const std::string& l : lanes) out << "B " + QString::fromStdString(l);
    return out;
}

// A chart's data for export, whole: its own series (A) and the ghosts (B) under names that say
// so. A ghost keeps its role: B is a second simulated run on the same seed, not theory, so its
// series are "simulated" as A's are (drawn dashed on the board, but the role says what the data
// is, not how it is drawn); only the name tells the runs apart.
Chart dataChart(const Chart& own, const std::vector<Series>& ghosts, const QString& bSuffix) {
    Chart c = own;
    for (Series s : ghosts) {
        s.name += bSuffix.toStdString();
        c.series.push_back(std::move(s));
    }
    return c;
}

// A strip chart's data as spans, one row a span: its lane by name, its state, and its start and
// end (seconds since Mon 00:00 UTC, and as the axis reads them); by lane, then time.
std::string stripsToCsv(const Chart& strips, const QStringList& lanes) {
    struct Span {
        int lane;
        std::string state;
        double x0, x1;
    };
    std::vector<Span> spans;
    for (const Series& s : strips.series)
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); i += 2)
            spans.push_back({static_cast<int>(s.y[i]), s.name, s.x[i], s.x[i + 1]});
    std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.lane != b.lane ? a.lane < b.lane : a.x0 < b.x0;
    });
    std::string out = "# one row a span: the lane was in that state from start to end\n"
                      "chart,lane,state,start_s,end_s,start,end\n";
    for (const Span& s : spans) {
        const QString lane = s.lane >= 0 && s.lane < lanes.size() ? lanes[s.lane] : QString::number(s.lane);
        out += csvField(strips.id) + "," + csvField(lane.toStdString()) + "," + csvField(s.state) + "," +
               csvNumber(s.x0) + "," + csvNumber(s.x1) + "," + week_time::label(s.x0).toStdString() + "," +
               week_time::label(s.x1).toStdString() + "\n";
    }
    return out;
}

}  // namespace

IncidentRunSpec defaultIncidentRun(const std::string& scenarioDirectory) {
    try {
        return loadIncidentRun("incidents/july-v3", "incidents/july-v4", {}, scenarioDirectory);
    } catch (const std::exception&) {
    }
    try {
        return loadIncidentRun("gateway/day-eu-atlas-slow", "", {}, scenarioDirectory);
    } catch (const std::exception&) {
    }
    IncidentRunSpec spec;
    spec.a = defaultGatewayRun();
    return spec;
}

IncidentRunSpec loadIncidentRun(const std::string& scenario, const std::string& compare,
                                const std::vector<std::string>& sets,
                                const std::string& scenarioDirectory) {
    IncidentRunSpec spec;
    spec.a = loadGatewayRun(scenario, scenarioDirectory);
    if (compare.empty() && sets.empty()) return spec;
    std::vector<std::string> overrides;
    std::string changed;
    for (const std::string& s : sets) {
        const bool path = s.rfind("params.", 0) == 0 || s.rfind("seed=", 0) == 0 ||
                          s.rfind("timeline", 0) == 0;
        overrides.push_back(path ? s : "params." + s);
        changed += (changed.empty() ? "" : ", ") + s;
    }
    spec.b = loadGatewayRun(compare.empty() ? scenario : compare, scenarioDirectory, overrides);
    spec.bLabel = spec.b->name + (changed.empty() ? "" : " with " + changed);
    if (spec.b->seed != spec.a.seed)
        throw std::invalid_argument("A and B must share the seed (the same arrivals and upstream "
                                    "luck): A has seed " + std::to_string(spec.a.seed) + ", B " +
                                    std::to_string(spec.b->seed));
    if (GatewayWorker::shapeDiffers(spec.a.params, spec.b->params))
        throw std::invalid_argument("A and B must cover the same days, first day and customers to "
                                    "be drawn on one time axis");
    return spec;
}

IncidentBoard::IncidentBoard(QWidget* parent)
    : QWidget(parent), session_(new GatewaySession(this)), scheduler_(new RedrawScheduler(this)) {
    setObjectName("incidentBoard");
    buildLayout();
    connect(session_, &GatewaySession::frameArrived, this, &IncidentBoard::onFrame);
    connect(session_, &GatewaySession::failed, this, [this](const QString& m) {
        message_->showMessage(MessageBanner::Kind::Error, tr("The simulation stopped"), m);
    });
    connect(scheduler_, &RedrawScheduler::redraw, this, [this](DirtyLevel) { onRedraw(); });
    transport_->drive(session_, this, "incidentPlayPauseShortcut");
    connect(transport_, &TransportBar::restartRequested, this, [this] { startRun(spec_, true); });
}

IncidentBoard::~IncidentBoard() = default;

void IncidentBoard::buildLayout() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    transport_ = new TransportBar(this);
    top->addWidget(transport_, 1);
    exportButton_ = new QToolButton(this);
    exportButton_->setObjectName("incidentExportButton");
    exportButton_->setText(tr("Export board"));
    exportButton_->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    exportButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    exportButton_->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton_);
    for (const auto& [text, ext] : {std::pair{tr("Board as PNG…"), "png"}, {tr("Board as SVG…"), "svg"},
                                    {tr("Board as PDF…"), "pdf"}, {tr("Board data as CSV…"), "csv"},
                                    {tr("Board data as JSON…"), "json"}}) {
        const QString e = ext;
        menu->addAction(text, this, [this, e] { exportWithDialog(e); });
    }
    exportButton_->setMenu(menu);
    top->addWidget(exportButton_, 0, Qt::AlignTop);
    layout->addLayout(top);

    auto* runs = new QHBoxLayout;
    runs->setContentsMargins(6, 0, 6, 0);
    pickA_ = new QComboBox(this);
    pickA_->setObjectName("incidentPickA");
    pickA_->setToolTip(tr("Run A, drawn solid"));
    pickB_ = new QComboBox(this);
    pickB_->setObjectName("incidentPickB");
    pickB_->setToolTip(tr("Run B on A's seed (the same arrivals and faults), drawn dashed in the same colours"));
    for (QComboBox* c : {pickA_, pickB_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        c->setMaximumWidth(420);
        connect(c, &QComboBox::activated, this, [this](int) { onPicked(); });
    }
    auto* labelA = new QLabel(tr("A (solid):"), this);
    labelA->setBuddy(pickA_);
    auto* labelB = new QLabel(tr("B (dashed):"), this);
    labelB->setBuddy(pickB_);
    runs->addWidget(labelA);
    runs->addWidget(pickA_);
    runs->addSpacing(8);
    runs->addWidget(labelB);
    runs->addWidget(pickB_);
    runs->addSpacing(8);
    legend_ = new QLabel(this);
    legend_->setObjectName("incidentLegend");
    runs->addWidget(legend_, 1);
    layout->addLayout(runs);
    message_ = new MessageBanner(this);
    message_->setObjectName("incidentMessage");
    layout->addWidget(message_);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName("incidentTabs");
    tabs_->setDocumentMode(true);
    auto* page = new QWidget(tabs_);
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(4, 2, 4, 4);
    pageLayout->setSpacing(2);
    auto* readoutRow = new QHBoxLayout;
    readout_ = new QLabel(page);
    readout_->setObjectName("incidentReadout");
    readoutRow->addWidget(readout_, 1);
    auto* runLabel = new QLabel(tr("Click attributes run:"), page);
    readoutRow->addWidget(runLabel);
    attributeRun_ = new QComboBox(page);
    attributeRun_->setObjectName("incidentAttributeRun");
    attributeRun_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    attributeRun_->addItem("A");
    readoutRow->addWidget(attributeRun_);
    pageLayout->addLayout(readoutRow);

    auto* grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    lane_ = new EventLaneChart(page);  // reparented into the scroll area with the grid
    lane_->setFixedHeight(kLaneHeight);
    lane_->setMinimumWidth(300);
    lane_->setEmptyText(tr("no faults, knob changes or phases in this run"));
    errors_ = new GatewayTimeChart(page);
    tails_ = new GatewayTimeChart(page);
    queue_ = new GatewayTimeChart(page);
    providers_ = new GatewayTimeChart(page);
    regions_ = new GatewayTimeChart(page);
    breakers_ = new BreakerStripChart(page);
    health_ = new BreakerStripChart(page);
    diffErrors_ = new GatewayTimeChart(page);
    diffTails_ = new GatewayTimeChart(page);
    health_->setStates({{QColor(0x9f, 0xd8, 0x9a), 0},
                        {QColor(0xd6, 0x27, 0x28), 3},
                        {QColor(0xff, 0xa5, 0x1e), 1},
                        {QColor(0x2f, 0x7e, 0xd8), 2}});
    breakers_->setEmptyText(tr("none in this run: every breaker stayed closed"));
    health_->setEmptyText(tr("none in this run: no probe failed, no standby started"));
    providers_->setEmptyText(tr("none in this run: no traffic counted by provider (needs gateway compute)"));
    for (GatewayTimeChart* d : {diffErrors_, diffTails_})
        d->setEmptyText(tr("no run to compare: --compare B, or --set k=v"));
    charts_ = {{ic::kLane, lane_},           {ic::kErrors, errors_},       {ic::kTails, tails_},
               {ic::kQueue, queue_},         {ic::kProviderShare, providers_},
               {ic::kRegionShare, regions_}, {ic::kBreakers, breakers_},   {ic::kHealth, health_},
               {ic::kDiffErrors, diffErrors_}, {ic::kDiffTails, diffTails_}};
    grid_ = grid;
    for (std::size_t i = 1; i < charts_.size(); ++i) charts_[i].second->setMinimumSize(kMinChartWidth, kMinChartHeight);
    reflow(width());
    for (const auto& [id, view] : charts_) {
        view->setObjectName(QString::fromStdString(id));
        view->setCrosshairMode(true);
        view->setHorizontalOnly(true);
        view->setFastDrawing(true);
        view->setGapsShown(true, tr("not rated (under %1 requests)").arg(ic::kMinRateRequests));
        view->setAnnotationLabelsShown(false);  // the lane names the events
        connect(view, &ChartView::hovered, this, &IncidentBoard::setCrosshair);
        connect(view, &ChartView::xRangeChanged, this, &IncidentBoard::setTimeRange);
        connect(view, &ChartView::viewReset, this, &IncidentBoard::resetTimeRange);
        if (view != lane_)
            connect(view, &ChartView::clicked, this,
                    [this](double x) { pickMoment(x, attributeRun_->currentIndex() == 1); });
    }
    connect(lane_, &EventLaneChart::eventClicked, this, &IncidentBoard::openEvent);
    // The charts scroll when the window is too short for them (1280x720) rather than squeeze
    // their plots to nothing.
    auto* charts = new QWidget(page);
    charts->setLayout(grid);
    auto* scroll = new QScrollArea(page);
    scroll->setObjectName("incidentScroll");
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(charts);
    pageLayout->addWidget(scroll, 1);
    tabs_->addTab(page, tr("Board"));
    attribution_ = new AttributionPanel(tabs_);
    tabs_->addTab(attribution_, tr("Attribution"));
    tabs_->setTabToolTip(1, tr("Click a moment on any chart: where that window's time went, its "
                               "slowest requests and their waterfalls"));
    layout->addWidget(tabs_, 1);
    updateReadout();
}

void IncidentBoard::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    reflow(width());
}

void IncidentBoard::reflow(int width) {
    const int columns = std::clamp((width - 24) / (kMinChartWidth + 8), 1, 3);
    if (!grid_ || columns == columns_) return;
    for (const auto& [id, view] : charts_) grid_->removeWidget(view);
    for (int c = 0; c < 3; ++c) grid_->setColumnStretch(c, c < columns ? 1 : 0);
    grid_->addWidget(lane_, 0, 0, 1, columns);
    for (std::size_t i = 1; i < charts_.size(); ++i) {
        const int k = static_cast<int>(i - 1);
        grid_->addWidget(charts_[i].second, 1 + k / columns, k % columns);
    }
    for (int r = 1; r < grid_->rowCount(); ++r) grid_->setRowStretch(r, 1);
    columns_ = columns;
}

void IncidentBoard::setScenarioChoices(std::vector<IncidentChoice> choices, std::string scenarioDirectory) {
    choices_ = std::move(choices);
    scenarioDirectory_ = std::move(scenarioDirectory);
    syncPickers();
}

namespace {
constexpr const char* kCustomB = "\x01custom";  // B as the run shown has it (A with knobs set)

QString canonical(const std::string& file) {
    const QString c = QFileInfo(QString::fromStdString(file)).canonicalFilePath();
    return c.isEmpty() ? QString::fromStdString(file) : c;
}
}  // namespace

void IncidentBoard::syncPickers() {
    syncing_ = true;
    auto fill = [this](QComboBox* c) {
        c->clear();
        for (const IncidentChoice& ch : choices_) c->addItem(ch.label, canonical(ch.file));
    };
    fill(pickA_);
    fill(pickB_);
    pickB_->insertItem(0, tr("none (A alone)"), QString());
    if (started_) {
        const QString a = canonical(spec_.a.file);
        int i = spec_.a.file.empty() ? -1 : pickA_->findData(a);
        if (i < 0) {
            pickA_->insertItem(0, QString::fromStdString(spec_.a.name), a);
            i = 0;
        }
        pickA_->setCurrentIndex(i);
        int j = 0;
        if (spec_.b) {
            const bool plain = spec_.bLabel == spec_.b->name && !spec_.b->file.empty();
            j = plain ? pickB_->findData(canonical(spec_.b->file)) : -1;
            if (j < 0) {
                pickB_->insertItem(1, QString::fromStdString(spec_.bLabel), plain ? canonical(spec_.b->file) : QString(kCustomB));
                j = 1;
            }
        }
        pickB_->setCurrentIndex(j);
    }
    syncing_ = false;
}

void IncidentBoard::onPicked() {
    if (syncing_) return;
    const std::string a = pickA_->currentData().toString().toStdString();
    const QString b = pickB_->currentData().toString();
    IncidentRunSpec next;
    try {
        if (b == kCustomB) {
            if (canonical(spec_.a.file).toStdString() != a)
                throw std::invalid_argument("B is A with knobs changed: pick B again for another A");
            next = spec_;
        } else {
            next = loadIncidentRun(a, b.toStdString(), {}, scenarioDirectory_);
        }
    } catch (const std::exception& e) {
        message_->showMessage(MessageBanner::Kind::Error, tr("Cannot run that pair"), QString::fromUtf8(e.what()));
        syncPickers();
        return;
    }
    startRun(next, true);
}

std::vector<std::string> IncidentBoard::chartIds() const { return ic::chartIds(); }

ChartView* IncidentBoard::chartView(const std::string& id) const {
    for (const auto& [name, view] : charts_)
        if (name == id) return view;
    return nullptr;
}

void IncidentBoard::startRun(const IncidentRunSpec& spec, bool play) {
    spec_ = spec;
    started_ = true;
    zoom_.reset();
    picked_.reset();
    chartsSnapshot_.reset();
    message_->clear();
    const QString a = runName(spec_.a);
    // The pickers name A and B; the legend says what makes them comparable.
    const QString legend = spec_.b ? tr("seed %1: the same arrivals and faults for both").arg(spec_.a.seed)
                                   : tr("seed %1 · no comparison run").arg(spec_.a.seed);
    legend_->setText(legend);
    syncPickers();
    while (attributeRun_->count() > 1) attributeRun_->removeItem(1);
    attributeRun_->setItemText(0, tr("A: %1").arg(a));
    if (spec_.b) attributeRun_->addItem(tr("B: %1").arg(QString::fromStdString(spec_.bLabel)));
    const QString suffix = spec_.b ? QString(" [B]") : QString();
    for (const auto& [id, view] : charts_)
        view->setBaselineLabels(tr("B: dashed"), suffix);
    std::optional<GatewayWorker::Companion> companion;
    if (spec_.b) companion = GatewayWorker::Companion{spec_.b->params, spec_.b->timeline};
    if (!session_->started()) {
        session_->setSpeed(kDefaultSpeed);
        transport_->setSpeed(kDefaultSpeed);
    }
    session_->start(spec_.a.params, spec_.a.seed, spec_.a.timeline, play, companion);
}

double IncidentBoard::offset() const {
    const Params& p = drawn_ ? drawn_->params : spec_.a.params;
    return week_time::startOffset_s(startDayOf(p));
}

void IncidentBoard::onFrame(const GatewayFramePtr& frame) {
    pending_ = frame;
    scheduler_->request(DirtyLevel::Data);
}

void IncidentBoard::onRedraw() {
    if (!pending_) return;
    const GatewayFramePtr frame = pending_;
    pending_.reset();
    drawFrame(frame);
    emit frameDrawn(frame);
}

void IncidentBoard::drawFrame(const GatewayFramePtr& frame) {
    QElapsedTimer timer;
    timer.start();
    drawn_ = frame;
    transport_->setFrame(frame);
    if (frame->snapshot && frame->snapshot != chartsSnapshot_) drawCharts(*frame);
    // The charts' replots are queued (zero timers): one queued after them measures the frame
    // whole, data, layout and painting.
    QTimer::singleShot(0, this, [this, timer] {
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        redrawMs_.push_back(ms);
        if (ms > kFrameBudgetMs) setProperty("slowFrames", property("slowFrames").toInt() + 1);
    });
}

void IncidentBoard::drawCharts(const GatewayFrame& frame) {
    const GatewaySnapshot& a = *frame.snapshot;
    chartsSnapshot_ = frame.snapshot;
    const GatewaySnapshot* b = frame.compare.get();
    const double off = week_time::startOffset_s(startDayOf(frame.params));
    std::vector<LaneEvent> events;
    for (const ic::LaneMark& m : ic::laneMarks(a, off))
        events.push_back({m.x0, m.x1, m.row, QString::fromStdString(m.label)});
    if (b)  // B's own events, when its timeline has any A's has not
        for (const ic::LaneMark& m : ic::laneMarks(*b, off)) {
            LaneEvent e{m.x0, m.x1, m.row, "B: " + QString::fromStdString(m.label)};
            const bool shared = std::any_of(events.begin(), events.end(), [&](const LaneEvent& x) {
                return x.x0 == e.x0 && x.x1 == e.x1 && x.label == QString::fromStdString(m.label);
            });
            if (!shared) events.push_back(std::move(e));
        }
    lane_->setEvents(events);
    lane_->setChart(ic::lane());

    const std::vector<Annotation> annotations = ic::annotations(a, off);
    // Every chart whole (for the data export), then drawn decimated: three days of 60 s
    // windows are more points than a chart has pixels.
    full_.clear();
    auto show = [&](GatewayTimeChart* chart, Chart own, std::vector<Series> ghosts) {
        full_[own.id] = {own, ghosts};
        ic::decimate(own.series, kMaxDrawnPoints);
        ic::decimate(ghosts, kMaxDrawnPoints);
        chart->setAnnotations(annotations);
        chart->setBaseline(std::move(ghosts));
        chart->setChart(own);
    };
    using Build = Chart (*)(const GatewaySnapshot&, double);
    const std::pair<GatewayTimeChart*, Build> series[] = {
        {tails_, &ic::tails}, {queue_, &ic::queueDepth}, {providers_, &ic::providerShare},
        {regions_, &ic::regionShare}};
    for (const auto& [chart, build] : series)
        show(chart, build(a, off), b ? build(*b, off).series : std::vector<Series>{});
    show(errors_, ic::errorRate(a, off, b), b ? ic::errorRate(*b, off, &a).series : std::vector<Series>{});
    show(diffErrors_, ic::diffErrors(a, b, off), {});
    show(diffTails_, ic::diffTails(a, b, off), {});

    // On the strips a fault's span would tint the lanes like a state: its edges only.
    std::vector<Annotation> edges;
    for (const Annotation& an : annotations) {
        edges.push_back({an.x0, std::nullopt, an.kind, an.label});
        if (an.x1) edges.push_back({*an.x1, std::nullopt, an.kind, an.label + " (ends)"});
    }
    const int breakerLanes = static_cast<int>(ic::breakerLanes(a).size());
    Chart br = ic::breakers(a, off);
    if (b) appendLanes(br, ic::breakers(*b, off), breakerLanes);
    full_[br.id] = {br, {}};  // the data export keeps every lane
    QStringList breakerNames = laneNames(ic::breakerLanes(a), b != nullptr);
    stripLanes_[br.id] = breakerNames;
    keepActiveLanes(br, breakerNames, breakerLanes);
    breakers_->setLanes(breakerNames);
    breakers_->setAnnotations(edges);
    breakers_->showStrips(br);
    const int healthLanes = static_cast<int>(ic::healthLanes().size());
    Chart he = ic::health(a, off);
    if (b) appendLanes(he, ic::health(*b, off), healthLanes);
    full_[he.id] = {he, {}};
    QStringList healthNames = laneNames(ic::healthLanes(), b != nullptr);
    stripLanes_[he.id] = healthNames;
    keepActiveLanes(he, healthNames, healthLanes);
    health_->setLanes(healthNames);
    health_->setAnnotations(edges);
    health_->showStrips(he);
    applyTimeRange(frame);
    updateReadout();
}

void IncidentBoard::applyTimeRange(const GatewayFrame& frame) {
    const double off = week_time::startOffset_s(startDayOf(frame.params));
    const double now = frame.snapshot ? frame.snapshot->now_s : 0;
    const double window = frame.params.spec("window_s") ? frame.params.real("window_s") : 600;
    const auto [lo, hi] = zoom_.value_or(std::pair{off, off + std::max(now, window)});
    for (const auto& [id, view] : charts_) {
        view->setXRange(lo, hi);
        view->setCrosshair(crosshair_);
    }
}

void IncidentBoard::setCrosshair(double x) {
    crosshair_ = x;
    for (const auto& [id, view] : charts_) view->setCrosshair(x);
    updateReadout();
}

void IncidentBoard::setTimeRange(double lower, double upper) {
    if (!(upper > lower)) return;
    zoom_ = std::pair{lower, upper};
    for (const auto& [id, view] : charts_) view->setXRange(lower, upper);
}

void IncidentBoard::resetTimeRange() {
    zoom_.reset();
    if (drawn_) applyTimeRange(*drawn_);
}

void IncidentBoard::openEvent(std::size_t index) {
    const auto& events = lane_->events();
    if (index >= events.size()) return;
    const LaneEvent& e = events[index];
    const double off = offset();
    const double end = e.x1.value_or(e.x0);
    const double pad = std::max(kEventPad_s, 0.25 * (end - e.x0));
    const double runEnd = drawn_ && drawn_->snapshot ? drawn_->snapshot->end_s : end - off;
    // To the event's end, so it shows whole (an instant: a little after it).
    const double target = std::clamp((e.x1 ? end : e.x0 + pad) - off, 0.0, runEnd);
    session_->pause();
    session_->seek(target);
    setTimeRange(e.x0 - pad, off + target + pad);
    setCrosshair(e.x0);
}

std::vector<std::string> IncidentBoard::phaseIds() const {
    std::vector<std::string> out;
    for (const TimelineEvent& e : spec_.a.timeline.events)
        if (!e.phase.empty()) out.push_back(e.phase);
    return out;
}

std::optional<std::pair<double, double>> IncidentBoard::phaseSpan(const std::string& id) const {
    const Params& p = spec_.a.params;
    const double days = p.spec("days") ? p.real("days") : 7;
    const double off = week_time::startOffset_s(startDayOf(p));
    const auto& events = spec_.a.timeline.events;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].phase == id)
            return std::pair{off + events[i].at_s, off + spec_.a.timeline.phaseEnd(i, days * 86400)};
    return std::nullopt;
}

bool IncidentBoard::focusPhase(const std::string& id) {
    const auto span = phaseSpan(id);
    if (!span) return false;
    const double pad = std::max(kEventPad_s, 0.25 * (span->second - span->first));
    setTimeRange(span->first - pad, span->second + pad);
    return true;
}

void IncidentBoard::pickMoment(double x, bool runB) {
    if (!drawn_ || !drawn_->timeline) return;
    if (runB && !spec_.b) runB = false;
    const GatewayFrame& f = *drawn_;
    const double off = week_time::startOffset_s(startDayOf(f.params));
    const double window = f.params.spec("window_s") ? f.params.real("window_s") : 600;
    const double t = std::max(0.0, x - off);
    const double t0 = std::floor(t / window) * window;
    const double t1 = std::min(t0 + window, f.snapshot ? f.snapshot->end_s : t0 + window);
    if (!(t1 > t0)) return;
    picked_ = x;
    const QString when = QString("%1–%2").arg(week_time::label(off + t0), week_time::label(off + t1));
    const QString label = runB ? tr("%1, B: %2").arg(when, QString::fromStdString(spec_.bLabel))
                               : tr("%1, A: %2").arg(when, runName(spec_.a));
    if (runB)
        attribution_->attribute(spec_.b->params, f.seed, spec_.b->timeline, t0, t1, label);
    else
        attribution_->attribute(f.initialParams, f.seed, *f.timeline, t0, t1, label);
    tabs_->setTabText(1, tr("Attribution (%1)").arg(week_time::label(off + t0)));
    updateReadout();
}

void IncidentBoard::updateReadout() {
    QStringList parts;
    if (crosshair_) parts << tr("Crosshair at %1").arg(week_time::label(*crosshair_, true));
    else parts << tr("Hover to read every chart at one moment");
    if (picked_)
        parts << tr("picked %1 (Attribution tab)").arg(week_time::label(*picked_));
    else
        parts << tr("click a moment for its slowest requests");
    parts << tr("click an event to go there");
    readout_->setText(parts.join("  ·  "));
    readout_->setToolTip(tr("Wheel or drag to zoom and pan every chart at once; double-click to reset"));
}

ExportCaption IncidentBoard::caption() const {
    QStringList parts{tr("Incident board"), tr("A: %1").arg(runName(spec_.a))};
    if (spec_.b) parts << tr("B: %1 (dashed)").arg(QString::fromStdString(spec_.bLabel));
    parts << tr("seed %1").arg(drawn_ ? drawn_->seed : spec_.a.seed);
    if (drawn_ && drawn_->snapshot)
        parts << tr("at %1").arg(week_time::label(offset() + drawn_->snapshot->now_s));
    ExportCaption c;
    c.lead = parts.join(" · ");
    c.tail = QString("TailLab %1").arg(TAILLAB_VERSION);
    return c;
}

QString IncidentBoard::exportCaption() const { return caption().text(); }

QStringList IncidentBoard::exportNotes() const {
    QStringList out;
    for (const LaneEvent& e : lane_->events()) {
        const QString row = e.row == ic::kFaultRow ? tr("fault") : e.row == ic::kKnobRow ? tr("knob") : tr("phase");
        QString when = week_time::label(e.x0);
        if (e.x1) when += QString::fromUtf8("–") + week_time::label(*e.x1);
        out << QString("%1  %2: %3").arg(when, row, e.label);
    }
    if (out.isEmpty()) out << tr("No faults, knob changes or phases on this run's timeline.");
    return out;
}

Chart IncidentBoard::exportedChart(const std::string& id, const ChartView& view, const QString& bSuffix) const {
    const auto it = full_.find(id);
    if (it != full_.end()) return dataChart(it->second.first, it->second.second, bSuffix);
    return dataChart(view.chart(), view.baseline(), bSuffix);
}

bool IncidentBoard::exportBoard(const QString& path, QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!drawn_ || !drawn_->snapshot) return fail(tr("There is no run to export yet."));
    const QString ext = QFileInfo(path).suffix().toLower();
    const QString bSuffix = " [B]";
    if (ext == "png" || ext == "svg" || ext == "pdf") {
        ChartSheet sheet;
        sheet.title = tr("Incident board: %1").arg(QString::fromStdString(spec_.a.title));
        sheet.caption = caption();
        sheet.notes = exportNotes();
        sheet.banner = lane_;
        sheet.bannerHeight = 170;
        sheet.columns = 3;
        sheet.cell = QSize(640, 400);
        for (std::size_t i = 1; i < charts_.size(); ++i) sheet.views.push_back(charts_[i].second);
        return saveChartSheet(sheet, path, error);
    }
    const std::vector<Annotation> annotations = ic::annotations(*drawn_->snapshot, offset());
    if (ext == "csv") {
        // The caption and the timeline's events once, as '#' lines readers skip; then each chart
        // under its title, axes and units, its rows naming it; the timeline's events last.
        std::string text = "# " + exportCaption().toStdString() + "\n";
        for (const QString& note : exportNotes()) text += "# " + note.toStdString() + "\n";
        for (const auto& [id, view] : charts_) {
            if (view == lane_) continue;
            const Chart chart = exportedChart(id, *view, bSuffix);
            text += "\n# chart: " + id + "\n" + csvTitleLine(chart);
            const auto lanes = stripLanes_.find(id);
            text += lanes != stripLanes_.end() ? stripsToCsv(chart, lanes->second) : chartToCsv(chart, {}, {}, true);
        }
        if (!annotations.empty()) text += "\n# timeline: knob changes and faults, x in s since Mon 00:00 UTC\n" + annotationsToCsv(annotations);
        return writeTextFile(path.toStdString(), text) ? true : fail(tr("Cannot write %1").arg(path));
    }
    if (ext == "json") {
        nlohmann::ordered_json j;
        j["caption"] = exportCaption().toStdString();
        j["events"] = nlohmann::ordered_json::array();
        for (const QString& n : exportNotes()) j["events"].push_back(n.toStdString());
        j["scenario_a"] = spec_.a.name;
        if (spec_.b) j["scenario_b"] = spec_.bLabel;
        j["seed"] = drawn_->seed;
        j["simulated_time_s"] = drawn_->snapshot->now_s;
        const ic::NormalDepth normal = ic::normalDepth(*drawn_->snapshot);
        j["normal_queue_depth"] = {{"basis", normal.beforeFirstFault ? "median of the windows before the first fault"
                                                                      : "median of the run's windows so far"},
                                   {"windows", normal.windows},
                                   {"EU", normal.depth[0]}, {"US", normal.depth[1]}, {"APAC", normal.depth[2]}};
        j["charts"] = nlohmann::ordered_json::array();
        for (const auto& [id, view] : charts_)
            if (view != lane_) j["charts"].push_back(chartToJson(exportedChart(id, *view, bSuffix), nullptr, annotations));
        return writeTextFile(path.toStdString(), j.dump(2) + "\n") ? true : fail(tr("Cannot write %1").arg(path));
    }
    return fail(tr("Export the board as .png, .svg or .pdf, its data as .csv or .json, not '%1'").arg(path));
}

void IncidentBoard::exportWithDialog(const QString& extension) {
    const QString name = QString("incident-%1.%2").arg(runName(spec_.a), extension);
    const QString path = askExportPath(this, tr("Export the incident board"), name);
    if (path.isEmpty()) return;
    QString error;
    if (!exportBoard(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace taillab::ui
