// The Incidents tab in a real window (offscreen): a scenario with a fault timeline (gateway
// compute on one provider, EU losing all of provider A's CPUs) played to a moment beside the
// same scenario on three providers (A/B), its charts hold data on one time axis; the crosshair reads every
// chart; a click on a timeline event seeks there and zooms to it; the board exports as PNG, SVG,
// PDF, CSV and JSON with its caption; a picked moment fills the attribution panel; and
// `taillab --incident` runs from a script and refuses bad arguments clearly. No assertion
// depends on wall-clock speed; the redraw times are printed, not asserted.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QMouseEvent>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest/QTest>
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "gateway/gateway_session.h"
#include "gateway/week_time.h"
#include "incident/attribution_panel.h"
#include "incident/incident_board.h"
#include "incident/incident_charts.h"
#include "message_banner.h"
#include "plots/breaker_strip_chart.h"
#include "plots/event_lane_chart.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

constexpr int kTimeoutMs = 240000 * kSlowdown;
constexpr double kTue = 86400;  // the scenario starts on Tuesday: x = Mon 00:00 + 1 day + t
// B: v4's layout, three providers, none above 45%: EU keeps B's and C's CPUs through the fault.
const std::string kThreeProviders = "providers=three (A 40%, B 35%, C 25%)";
const std::string kScenario = std::string(TAILLAB_SCENARIO_DIR) + "/../tests/data/incident-eu-capacity.json";

std::size_t points(const ChartView& view) {
    std::size_t n = 0;
    for (const auto& s : view.plottedSeries()) n += static_cast<std::size_t>(s.x.size());
    return n;
}

class IncidentBoardTest : public ::testing::Test {
  protected:
    void SetUp() override {
        window_ = std::make_unique<MainWindow>(scenarioDirectory());
        window_->resize(1600, 1000);
        window_->show();
        const IncidentRunSpec spec = loadIncidentRun(kScenario, "", {kThreeProviders}, scenarioDirectory());
        board_ = window_->openIncident(&spec, /*play=*/false);
        ASSERT_NE(board_, nullptr);
        ASSERT_TRUE(seekAndWait(9 * 3600)) << "the board did not get to Tue 09:00";
    }
    bool waitDrawn(const std::function<bool(const GatewayFrame&)>& pred) {
        return QTest::qWaitFor(
            [&] {
                const GatewayFramePtr f = board_->latestFrame();
                return f && f->snapshot && pred(*f);
            },
            kTimeoutMs);
    }
    bool seekAndWait(double t_s) {
        const quint64 seq = board_->session()->seek(t_s);
        const bool settled = waitDrawn([seq](const GatewayFrame& f) { return f.commandSeq >= seq && !f.seeking; });
        QTest::qWait(100);  // the charts' queued replots lay them out
        return settled;
    }
    ChartView* chart(const char* id) { return board_->chartView(id); }

    std::unique_ptr<MainWindow> window_;
    IncidentBoard* board_ = nullptr;
};

TEST_F(IncidentBoardTest, PlaysToAMomentWithEveryChartOnOneTimeAxis) {
    auto* tabs = window_->findChild<QTabWidget*>("mainTabs");
    ASSERT_NE(tabs, nullptr);
    EXPECT_EQ(tabs->tabText(tabs->currentIndex()), "Incidents");
    EXPECT_EQ(tabs->tabText(tabs->currentIndex() - 1), "Gateway (simulated)");
    const GatewayFramePtr f = board_->latestFrame();
    EXPECT_NEAR(f->snapshot->now_s, 9 * 3600, 1);
    ASSERT_NE(f->compare, nullptr) << "A/B: the companion run in the same frame";
    EXPECT_EQ(f->compare->now_s, f->snapshot->now_s);
    for (const char* id : {incident_charts::kErrors, incident_charts::kTails, incident_charts::kQueue,
                           incident_charts::kRegionShare, incident_charts::kDiffErrors,
                           incident_charts::kDiffTails})
        EXPECT_GT(points(*chart(id)), 50u) << id;
    // The fault of 06:55 is on the lane, labelled as the scenario names it.
    ASSERT_FALSE(board_->lane()->events().empty());
    EXPECT_EQ(board_->lane()->events().front().label, "EU loses all of provider A's CPUs");
    EXPECT_TRUE(board_->lane()->labels().front().shown)
        << board_->lane()->width() << " " << board_->lane()->axisLength(Qt::Horizontal) << " "
        << board_->lane()->findChild<QWidget*>()->width() << " " << board_->lane()->findChild<QWidget*>()->metaObject()->className();
    // One time axis: every chart shows the same range, from the run's start to now.
    const auto range = chart(incident_charts::kErrors)->viewRange();
    EXPECT_NEAR(range.xLower, kTue, 1);
    EXPECT_NEAR(range.xUpper, kTue + 9 * 3600, 1);
    for (const std::string& id : board_->chartIds()) {
        const auto r = board_->chartView(id)->viewRange();
        EXPECT_NEAR(r.xLower, range.xLower, 1e-6) << id;
        EXPECT_NEAR(r.xUpper, range.xUpper, 1e-6) << id;
    }
    // The lane spans the board: as wide as the three columns of charts.
    EXPECT_GT(board_->lane()->width(), 2 * chart(incident_charts::kErrors)->width());
    // No provider counts in this core yet, no probe failure, no breaker: said, not left blank.
    auto* health = static_cast<BreakerStripChart*>(chart(incident_charts::kHealth));
    EXPECT_TRUE(health->emptyShown());
    EXPECT_TRUE(health->emptyText().contains("none in this run"));
    // Normal queue depth: the basis is named.
    EXPECT_NE(chart(incident_charts::kQueue)->chart().title.find("before the first fault"), std::string::npos);
    std::printf("[incident board] %zu frames drawn, slowest %.1f ms\n", board_->redrawTimes().size(),
                board_->redrawTimes().empty() ? 0.0
                                              : *std::max_element(board_->redrawTimes().begin(),
                                                                  board_->redrawTimes().end()));
}

TEST_F(IncidentBoardTest, TheCrosshairReadsEveryChartAtOneMoment) {
    const double at = kTue + 8 * 3600 + 120;
    board_->setCrosshair(at);
    for (const std::string& id : board_->chartIds())
        EXPECT_TRUE(board_->chartView(id)->crosshairText().startsWith("Tue 08:02")) << id;
    const QString errors = chart(incident_charts::kErrors)->crosshairText();
    EXPECT_TRUE(errors.contains("all, truth: ")) << errors.toStdString();
    EXPECT_TRUE(errors.contains("all, truth [B]: ")) << errors.toStdString();
    EXPECT_TRUE(chart(incident_charts::kQueue)->crosshairText().contains("EU normal: "));
    EXPECT_TRUE(chart(incident_charts::kHealth)->crosshairText().contains("normal"));
    EXPECT_TRUE(board_->lane()->crosshairText().contains("EU loses all"));
    EXPECT_TRUE(board_->readout()->text().contains("Tue 08:02"));
    // Hovering one chart moves the crosshair on all of them.
    ChartView* tails = chart(incident_charts::kTails);
    auto* plot = tails->findChild<QWidget*>();
    ASSERT_NE(plot, nullptr);
    const QPointF centre = QRectF(tails->plotArea()).center();
    QMouseEvent move(QEvent::MouseMove, centre, plot->mapToGlobal(centre),
                     Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QSignalSpy hovered(tails, &ChartView::hovered);
    QApplication::sendEvent(plot, &move);
    ASSERT_EQ(hovered.count(), 1);
    ASSERT_TRUE(QTest::qWaitFor([&] { return board_->chartView(incident_charts::kErrors)->crosshair() != at; }, 5000 * kSlowdown));
    EXPECT_EQ(chart(incident_charts::kErrors)->crosshair(), tails->crosshair());
}

// A row whose labels crowd splits in two tracks; at the board's lane height each track holds a
// line of label text, so neither label cuts the other (descenders included) nor the plot's frame.
TEST_F(IncidentBoardTest, LaneLabelsInSplitRowsDoNotOverlap) {
    EventLaneChart* lane = board_->lane();
    const double t = kTue + 3600;
    lane->setEvents({{t, t + 7200, 0, "US-East engines +150 ms, every call"},
                     {t + 600, t + 9000, 0, "US-East TCP resets 5%"},
                     {t, std::nullopt, 1, "operator reroutes US-East to EU, slowly"},
                     {t + 300, std::nullopt, 1, "operator starts cold standby on provider B"},
                     {t, t + 1800, 2, "Jul 28 14:22 latency anomaly, no drops"},
                     {t + 900, t + 5400, 2, "Jul 28 16:05 retries mask TCP resets"}});
    lane->replotNow();
    QApplication::processEvents();
    const QRectF area = lane->plotArea();
    const auto& labels = lane->labels();
    int split = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (!labels[i].shown) continue;
        EXPECT_GE(labels[i].rect.top(), area.top() - 0.5) << labels[i].text.toStdString();
        EXPECT_LE(labels[i].rect.bottom(), area.bottom() + 0.5) << labels[i].text.toStdString();
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            if (!labels[j].shown || lane->events()[i].row != lane->events()[j].row) continue;
            split += lane->tracks()[i] != lane->tracks()[j];
            EXPECT_FALSE(labels[i].rect.adjusted(0, 0.5, 0, -0.5).intersects(labels[j].rect.adjusted(0, 0.5, 0, -0.5)))
                << labels[i].text.toStdString() << " / " << labels[j].text.toStdString() << " at "
                << lane->height() << " px";
        }
    }
    EXPECT_EQ(split, 3) << "every row split in two tracks";
}

TEST_F(IncidentBoardTest, ClickingAnEventSeeksThereAndZoomsToIt) {
    EventLaneChart* lane = board_->lane();
    ASSERT_FALSE(lane->events().empty());
    const LaneEvent e = lane->events().front();
    ASSERT_TRUE(e.x1.has_value());
    auto* plot = lane->findChild<QWidget*>();
    QTest::mouseClick(plot, Qt::LeftButton, {}, lane->eventPoint(0).toPoint());
    ASSERT_TRUE(board_->timeRange().has_value()) << "no zoom after the click";
    const quint64 seq = board_->session()->lastCommand();
    ASSERT_TRUE(waitDrawn([seq](const GatewayFrame& f) { return f.commandSeq >= seq && !f.seeking; }));
    QTest::qWait(100);
    // Seeked to the fault's end (Tue 08:20), zoomed around it on every chart.
    EXPECT_NEAR(board_->latestFrame()->snapshot->now_s, *e.x1 - kTue, 1);
    for (const std::string& id : board_->chartIds()) {
        const auto r = board_->chartView(id)->viewRange();
        EXPECT_LT(r.xLower, e.x0) << id;
        EXPECT_GT(r.xUpper, *e.x1) << id;
        EXPECT_LT(r.xUpper - r.xLower, 4 * 3600) << id;
    }
    // Double-click resets every chart to the run so far.
    board_->resetTimeRange();
    EXPECT_FALSE(board_->timeRange().has_value());
    EXPECT_NEAR(chart(incident_charts::kTails)->viewRange().xLower, kTue, 1);
}

// The lane from the keyboard: Tab to it, Left/Right pick an event in time order, Enter opens it.
TEST_F(IncidentBoardTest, TheLaneIsUsableFromTheKeyboard) {
    ASSERT_TRUE(seekAndWait(14 * 3600));  // every event of the day has happened
    EventLaneChart* lane = board_->lane();
    ASSERT_GE(lane->events().size(), 4u);
    lane->setFocus(Qt::TabFocusReason);
    ASSERT_TRUE(QTest::qWaitFor([&] { return lane->hasFocus(); }, kTimeoutMs));
    ASSERT_TRUE(lane->currentEvent().has_value()) << "focus by Tab picks the first event";
    auto startOf = [&] { return lane->events()[*lane->currentEvent()].x0; };
    double before = startOf();
    for (int i = 0; i < 2; ++i) {
        QTest::keyClick(lane, Qt::Key_Right);
        EXPECT_GE(startOf(), before);
        before = startOf();
    }
    QTest::keyClick(lane, Qt::Key_End);
    const std::size_t last = *lane->currentEvent();
    for (const LaneEvent& e : lane->events()) EXPECT_LE(e.x0, lane->events()[last].x0);
    QTest::keyClick(lane, Qt::Key_Right);  // stays on the last
    EXPECT_EQ(*lane->currentEvent(), last);
    QTest::keyClick(lane, Qt::Key_Home);
    const std::size_t first = *lane->currentEvent();
    EXPECT_TRUE(lane->accessibleDescription().contains(lane->events()[first].label));
    EXPECT_FALSE(board_->timeRange().has_value());
    QTest::keyClick(lane, Qt::Key_Return);
    ASSERT_TRUE(board_->timeRange().has_value()) << "Enter opens the event as a click does";
    EXPECT_LT(board_->timeRange()->first, lane->events()[first].x0);
}

// A and B are picked in the board: any gateway scenario, B also none; a pair that cannot share
// a time axis is explained and the pickers go back to the run shown.
TEST_F(IncidentBoardTest, PickersChooseAAndBAndRefuseAPairThatCannotBeCompared) {
    QComboBox* a = board_->pickerA();
    QComboBox* b = board_->pickerB();
    auto pick = [](QComboBox* c, const QString& text) {
        const int i = c->findText(text);
        ASSERT_GE(i, 0) << text.toStdString();
        c->setCurrentIndex(i);
        emit c->activated(i);
    };
    ASSERT_GE(a->findText("incidents/july-v3"), 0);
    EXPECT_LT(a->findText("incidents/july-v3"), a->findText("gateway/week-v4-september")) << "incidents first";
    pick(b, "none (A alone)");
    EXPECT_FALSE(board_->runSpec().b.has_value());
    EXPECT_TRUE(board_->legend()->text().contains("no comparison run"));
    pick(a, "incidents/july-v3");
    EXPECT_EQ(board_->runSpec().a.name, "july-v3");
    pick(b, "incidents/july-v4");
    ASSERT_TRUE(board_->runSpec().b.has_value());
    EXPECT_EQ(board_->runSpec().b->name, "july-v4");
    // A week against a three-day incident: refused, and the pickers show the run still shown.
    pick(b, "gateway/week-v4-september");
    EXPECT_EQ(board_->runSpec().b->name, "july-v4");
    EXPECT_EQ(b->currentText(), "incidents/july-v4");
    auto* banner = board_->findChild<MessageBanner*>("incidentMessage");
    ASSERT_NE(banner, nullptr);
    EXPECT_TRUE(banner->isVisible());
    EXPECT_TRUE(banner->text().contains("same days")) << banner->text().toStdString();
}

// July at 08:40 on Tuesday: of the probe and standby lanes only those where something happened
// are drawn, each with its counterpart in the other run; the rest are said to be hidden.
TEST_F(IncidentBoardTest, StripsDrawTheLanesWhereSomethingHappened) {
    board_->startRun(loadIncidentRun("incidents/july-v3", "incidents/july-v4", {}, scenarioDirectory()), false);
    ASSERT_TRUE(seekAndWait(86400 + 8 * 3600 + 40 * 60));
    auto* health = static_cast<BreakerStripChart*>(chart(incident_charts::kHealth));
    const QStringList lanes = health->lanes();
    EXPECT_TRUE(lanes.contains("B EU / probes on A")) << lanes.join("|").toStdString();  // v4's probes see zone a fail
    EXPECT_TRUE(lanes.contains("EU / probes on A")) << "its counterpart in A, though v3 does not probe";
    EXPECT_TRUE(lanes.contains("EU / standby"));  // v3's cold standby on B
    EXPECT_FALSE(lanes.contains("APAC / probes on C"));
    EXPECT_LT(lanes.size(), 2 * static_cast<int>(incident_charts::healthLanes().size()));
    EXPECT_NE(health->chart().title.find("lanes hidden: they stayed normal"), std::string::npos);
    EXPECT_FALSE(health->emptyShown());
}

TEST_F(IncidentBoardTest, FocusingAPhaseZoomsEveryChartToItAndDrawsItsEdgesNotATint) {
    EXPECT_EQ(board_->phaseIds(), std::vector<std::string>{"outage"});
    EXPECT_FALSE(board_->focusPhase("no-such-phase"));
    EXPECT_FALSE(board_->timeRange().has_value());
    const double t0 = kTue + 6 * 3600 + 55 * 60, t1 = kTue + 8 * 3600 + 20 * 60;
    const auto span = board_->phaseSpan("outage");
    ASSERT_TRUE(span.has_value());
    EXPECT_DOUBLE_EQ(span->first, t0);
    EXPECT_DOUBLE_EQ(span->second, t1);
    ASSERT_TRUE(board_->focusPhase("outage"));
    for (const std::string& id : board_->chartIds()) {
        const auto r = board_->chartView(id)->viewRange();
        EXPECT_NEAR(r.xLower, t0 - 1800, 1) << id;  // half an hour either side
        EXPECT_NEAR(r.xUpper, t1 + 1800, 1) << id;
    }
    // On the charts the phase is an annotation of its own kind, the fault under it another.
    const auto& marks = chart(incident_charts::kErrors)->annotations();
    const auto phase = std::find_if(marks.begin(), marks.end(), [](const Annotation& a) { return a.kind == "phase"; });
    ASSERT_NE(phase, marks.end());
    EXPECT_EQ(phase->label, "EU outage");
    EXPECT_TRUE(std::any_of(marks.begin(), marks.end(), [](const Annotation& a) { return a.kind == "fault"; }));
}

TEST_F(IncidentBoardTest, ABOverlaysBothRunsAndTheirDifference) {
    EXPECT_EQ(board_->pickerB()->currentText().toStdString(), "incident-eu-capacity with " + kThreeProviders);
    EXPECT_EQ(board_->pickerA()->currentText().toStdString(), "incident-eu-capacity");  // not in the catalog: named
    EXPECT_TRUE(board_->legend()->text().contains("the same arrivals and faults for both"));
    ChartView* errors = chart(incident_charts::kErrors);
    const auto ghosts = errors->baselineSeries();
    ASSERT_EQ(ghosts.size(), errors->chart().series.size());
    EXPECT_EQ(ghosts.front().name, "all, truth [B]");
    EXPECT_GT(ghosts.front().x.size(), 50u);
    EXPECT_TRUE(errors->legendNames().join("|").contains("B: "));
    // The queue chart draws A's "normal" levels and B's ghosts, both broken lines: their strokes
    // differ in kind, so a level is not read as B's run.
    const auto* queuePlot = chart(incident_charts::kQueue)->findChild<QCustomPlot*>();
    ASSERT_NE(queuePlot, nullptr);
    const QCPGraph* normal = nullptr;
    const QCPGraph* ghost = nullptr;
    for (int i = 0; i < queuePlot->graphCount(); ++i) {
        const QCPGraph* g = queuePlot->graph(i);
        if (g->name() == "EU normal") normal = g;
        if (!ghost && g->name().endsWith(" [B]") && !g->name().contains("normal")) ghost = g;
    }
    ASSERT_NE(normal, nullptr);
    ASSERT_NE(ghost, nullptr);
    EXPECT_EQ(normal->pen().style(), Qt::CustomDashLine);
    EXPECT_EQ(ghost->pen().style(), Qt::CustomDashLine);
    // Two dashes of near lengths read alike: the level is dash-dotted (dash, gap, dot, gap).
    EXPECT_EQ(normal->pen().dashPattern().size(), 4);
    EXPECT_EQ(ghost->pen().dashPattern().size(), 2) << ghost->name().toStdString();
    // B's strips are lanes of their own under A's.
    auto* breakers = static_cast<BreakerStripChart*>(chart(incident_charts::kBreakers));
    EXPECT_TRUE(breakers->laneLabels().join("|").contains("B "));
    EXPECT_FALSE(chart(incident_charts::kDiffTails)->emptyShown());
    // Without B the difference charts say why they are empty.
    IncidentRunSpec alone = loadIncidentRun(kScenario, "", {}, scenarioDirectory());
    board_->startRun(alone, false);
    ASSERT_TRUE(seekAndWait(3 * 3600));
    EXPECT_EQ(board_->latestFrame()->compare, nullptr);
    EXPECT_TRUE(chart(incident_charts::kDiffErrors)->emptyShown());
    EXPECT_TRUE(chart(incident_charts::kErrors)->baselineSeries().empty());
}

// A static image of the board cannot be clicked: its timeline lane says what it shows, and the
// "click one to go there" of the board on screen stays on screen.
TEST_F(IncidentBoardTest, TheBoardsImagesDoNotAskToBeClicked) {
    QTemporaryDir dir;
    QString error;
    for (const char* ext : {"svg", "pdf", "png"})
        ASSERT_TRUE(board_->exportBoard(dir.filePath(QString("board.%1").arg(ext)), &error)) << error.toStdString();
    QString svg = QString::fromStdString(readFile(dir.filePath("board.svg")));
    EXPECT_TRUE(svg.contains("Timeline: faults, knob changes and phases"));
    EXPECT_FALSE(svg.contains("click", Qt::CaseInsensitive))
        << svg.mid(std::max<qsizetype>(0, svg.indexOf("click", 0, Qt::CaseInsensitive) - 80), 160).toStdString();
    EXPECT_TRUE(chart(incident_charts::kLane)->drawnTitle().contains("click one to go there"))
        << chart(incident_charts::kLane)->drawnTitle().toStdString();
}

TEST_F(IncidentBoardTest, ExportsTheBoardAndItsDataWithTheCaption) {
    QTemporaryDir dir;
    const QString caption = board_->exportCaption();
    EXPECT_TRUE(caption.contains("A: incident-eu-capacity"));
    EXPECT_TRUE(caption.contains("seed 1"));
    EXPECT_TRUE(caption.contains("Tue 09:00"));
    EXPECT_TRUE(board_->exportNotes().join("\n").contains("Tue 06:55–Tue 08:20  fault: EU loses all"));
    for (const char* ext : {"png", "svg", "pdf", "csv", "json"}) {
        const QString path = dir.filePath(QString("board.%1").arg(ext));
        QString error;
        ASSERT_TRUE(board_->exportBoard(path, &error)) << ext << ": " << error.toStdString();
        EXPECT_GT(QFile(path).size(), 1000) << ext;
    }
    EXPECT_FALSE(QImage(dir.filePath("board.png")).isNull());
    const std::string svg = readFile(dir.filePath("board.svg"));
    EXPECT_NE(svg.find("Incident board"), std::string::npos);
    const std::string csv = readFile(dir.filePath("board.csv"));
    EXPECT_NE(csv.find("# chart: incident_error_rate"), std::string::npos);
    EXPECT_NE(csv.find(caption.toStdString()), std::string::npos);
    // Every chart's section names it, its axes and their units (as the lab's and gateway's CSV
    // do), and its rows name their chart: the "EU" of queue depth is not the "EU" of shares.
    {
        std::istringstream in(csv);
        std::string line, chartLine;
        int sections = 0;
        while (std::getline(in, line)) {
            if (line.rfind("# chart: ", 0) == 0) {
                ++sections;
                chartLine = line;
                ASSERT_TRUE(std::getline(in, line));
                EXPECT_TRUE(line.rfind("# ", 0) == 0 && line.find("; x: ") != std::string::npos &&
                            line.find("; y: ") != std::string::npos)
                    << chartLine << " is followed by " << line;
            }
            EXPECT_NE(line, "series,role,x,y") << "a section whose rows do not say their chart: " << chartLine;
            EXPECT_EQ(line.find(",nan"), std::string::npos) << line;
        }
        EXPECT_EQ(sections, static_cast<int>(board_->chartIds().size()) - 1);
    }
    EXPECT_NE(csv.find("# Error rate: truth and what clients saw"), std::string::npos);
    EXPECT_NE(csv.find("; x: Simulated time (s since Mon 00:00 UTC); y: Failed (%)\n"), std::string::npos);
    // B is a second simulated run, not theory: its rows are "simulated" as A's are, named apart.
    EXPECT_NE(csv.find("incident_error_rate,\"all, truth [B]\",simulated,"), std::string::npos);
    EXPECT_EQ(csv.find(" [B]\",closed_form,"), std::string::npos);
    EXPECT_NE(csv.find("incident_queue_depth,EU,simulated,"), std::string::npos);
    // The normal depth is a line to read the depth against, not a model's prediction.
    EXPECT_NE(csv.find("incident_queue_depth,EU normal,reference,"), std::string::npos);
    EXPECT_EQ(csv.find("closed_form"), std::string::npos) << "the board draws no closed form";
    // The strips are spans: a lane by name, its state, from when to when.
    EXPECT_NE(csv.find("chart,lane,state,start_s,end_s,start,end\n"), std::string::npos);
    EXPECT_NE(csv.find("incident_breakers,EU / region breaker,closed,"), std::string::npos);
    EXPECT_NE(csv.find("incident_probes_standby,EU / probes on A,normal,"), std::string::npos);
    EXPECT_NE(csv.find(",Tue 00:00,Tue 09:00\n"), std::string::npos) << "a lane normal all along";
    const auto json = nlohmann::json::parse(readFile(dir.filePath("board.json")));
    EXPECT_EQ(json["caption"], caption.toStdString());
    EXPECT_EQ(json["charts"].size(), board_->chartIds().size() - 1);
    EXPECT_EQ(json["normal_queue_depth"]["basis"], "median of the windows before the first fault");
    // Each of B's series has the role of A's series of the same name: the export says what the
    // data is, whichever run it came from.
    int bSeries = 0;
    for (const auto& c : json["charts"]) {
        if (!c.contains("series")) continue;
        std::map<std::string, std::string> roleOfA;
        for (const auto& s : c["series"]) {
            const std::string name = s["name"];
            if (name.size() < 4 || name.compare(name.size() - 4, 4, " [B]") != 0) roleOfA[name] = s["role"];
        }
        for (const auto& s : c["series"]) {
            const std::string name = s["name"];
            if (name.size() < 4 || name.compare(name.size() - 4, 4, " [B]") != 0) continue;
            ++bSeries;
            const auto a = roleOfA.find(name.substr(0, name.size() - 4));
            ASSERT_NE(a, roleOfA.end()) << c["id"] << ": " << name << " has no A series";
            EXPECT_EQ(s["role"], a->second) << c["id"] << ": " << name;
        }
    }
    EXPECT_GT(bSeries, 10);
    QString error;
    EXPECT_FALSE(board_->exportBoard(dir.filePath("board.txt"), &error));
    EXPECT_TRUE(error.contains(".png"));
}

TEST_F(IncidentBoardTest, APickedMomentFillsTheAttributionPanel) {
    AttributionPanel* panel = board_->attribution();
    board_->pickMoment(kTue + 7 * 3600 + 20 * 60);  // Tue 07:20, during the fault
    EXPECT_TRUE(board_->tabs()->tabText(1).contains("Tue 07:20"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->busy() && panel->result().has_value(); }, kTimeoutMs));
    const auto& r = *panel->result();
    EXPECT_DOUBLE_EQ(r.t0_s, 7 * 3600 + 20 * 60);
    EXPECT_DOUBLE_EQ(r.t1_s, 7 * 3600 + 25 * 60);  // the scenario's 300 s window
    EXPECT_GT(r.requests, 0u);
    EXPECT_EQ(panel->stageTable()->rowCount(), gateway::kSegments);
    EXPECT_GT(panel->slowestTable()->rowCount(), 0);
    EXPECT_TRUE(panel->summary()->text().contains("Tue 07:20"));
    const QStringList rows = panel->waterfall()->rowTexts();
    ASSERT_FALSE(rows.isEmpty());
    EXPECT_TRUE(rows.front().startsWith("edge")) << rows.front().toStdString();
    EXPECT_TRUE(panel->verdict()->text().contains(QString::number(r.slowest.front().status)));
    // EU has no CPU left: the slowest request's edge never answered, so the stages after it were
    // never reached, engines and merge included, and are said to be, not given times: because
    // it was still at the edge, not because it had been answered before them.
    const QString all = rows.join("\n");
    EXPECT_TRUE(rows.front().contains("(unfinished)")) << all.toStdString();
    for (const char* stage : {"gateway", "compiler", "cache", "router", "engines", "merge"})
        EXPECT_EQ(rows.count(QString("%1: not reached, still waiting at edge when the response went out")
                                 .arg(stage)),
                  1)
            << stage << "\n" << all.toStdString();
    EXPECT_FALSE(all.contains("answered before")) << all.toStdString();
    EXPECT_EQ(rows.size(), gateway::kStages) << all.toStdString();
    EXPECT_FALSE(all.contains("no CPU")) << all.toStdString();
    EXPECT_FALSE(all.contains("deadline left 0.00 ms")) << all.toStdString();
    EXPECT_TRUE(panel->verdict()->text().contains("503 deadline missed")) << panel->verdict()->text().toStdString();
    EXPECT_EQ(panel->slowestTable()->item(0, 2)->text(), "deadline missed");
    // B's window too.
    board_->findChild<QComboBox*>("incidentAttributeRun")->setCurrentIndex(1);
    board_->pickMoment(kTue + 7 * 3600 + 20 * 60, true);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->busy(); }, kTimeoutMs));
    EXPECT_TRUE(panel->summary()->text().contains("B: "));
}

// v3's error path: a request out of time is answered 200 with no results. The attribution still
// names the failure (the truth), in words, and a 10 s latency is written as the app writes
// numbers.
TEST_F(IncidentBoardTest, AFailureAnsweredAsAnEmpty200IsStillNamedInTheAttribution) {
    AttributionPanel* panel = board_->attribution();
    Params params = board_->runSpec().a.params;
    params.set("deadline_ms", 10000);
    params.setJson("timeout_reply", "200 with empty results (v3 bug)");
    panel->attribute(params, board_->runSpec().a.seed, board_->runSpec().a.timeline, 7 * 3600 + 20 * 60,
                     7 * 3600 + 25 * 60, "Tue 07:20, v3's error path");
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->busy() && panel->result().has_value(); }, kTimeoutMs));
    const auto& r = *panel->result();
    ASSERT_GT(r.disguised, 0u);
    ASSERT_TRUE(r.slowest.front().disguised);
    QTableWidget* table = panel->slowestTable();
    EXPECT_EQ(table->item(0, 0)->text(), "10,000");
    EXPECT_EQ(table->item(0, 1)->text(), "200 (empty)");
    for (int row = 0; row < table->rowCount(); ++row)
        if (r.slowest[static_cast<std::size_t>(row)].disguised) {
            EXPECT_EQ(table->item(row, 2)->text(), "deadline missed") << row;
        }
    const QString verdict = panel->verdict()->text();
    EXPECT_TRUE(verdict.contains("(10,000 ms)")) << verdict.toStdString();
    EXPECT_TRUE(verdict.contains("in truth deadline missed")) << verdict.toStdString();
    EXPECT_FALSE(verdict.contains("_")) << verdict.toStdString();
}

// A call's wait in its engine's queue is drawn in the queued colour and said in its row; a call
// given up in the queue (the hedge that won answered first) is drawn with its wait alone.
TEST(IncidentWaterfall, DrawsAndSaysACallsWaitInItsEnginesQueue) {
    gateway::RequestWaterfall w;
    w.latency_ms = 400;
    w.deadline_ms = 600;
    w.stages = {{gateway::Stage::Edge, 0, 2}, {gateway::Stage::Router, 2, 3}, {gateway::Stage::Merge, 390, 400}};
    gateway::CallSpan primary;
    primary.engine_name = "atlas";
    primary.start_ms = 103;  // waited 100 ms for a slot
    primary.queued_ms = 100;
    primary.end_ms = 390;
    primary.budget_ms = 578;
    gateway::CallSpan hedge;
    hedge.engine_name = "borealis";
    hedge.role = gateway::CallRole::Hedge;
    hedge.start_ms = 390;  // still waiting when the primary answered
    hedge.end_ms = 390;
    hedge.queued_ms = 337;
    hedge.launched = false;
    hedge.cancelled_ms = 390;
    hedge.budget_ms = 525;
    w.calls = {primary, hedge};
    WaterfallWidget view;
    view.resize(900, 300);
    view.setRequest(w);
    const QStringList rows = view.rowTexts();
    ASSERT_EQ(rows.size(), 5);
    EXPECT_TRUE(rows[3].contains("queued 100 ms at atlas")) << rows[3].toStdString();
    EXPECT_FALSE(rows[3].contains("given up")) << rows[3].toStdString();
    EXPECT_TRUE(rows[4].contains("queued 337 ms at borealis")) << rows[4].toStdString();
    EXPECT_TRUE(rows[4].contains("given up in the queue at 390 ms")) << rows[4].toStdString();
    // Both waits are drawn in the queued colour; the given-up hedge has no flight bar.
    const QImage image = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    auto pixels = [&](QRgb rgb, int y0, int y1) {
        int n = 0;
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < image.width(); ++x) n += (image.pixel(x, y) & 0xffffff) == (rgb & 0xffffff);
        return n;
    };
    const int lineH = view.fontMetrics().height() + 4, top = lineH + 4;
    const int primaryRow = top + 3 * lineH, hedgeRow = top + 4 * lineH;
    EXPECT_GT(pixels(WaterfallWidget::kQueuedColor, primaryRow, primaryRow + lineH), 20);
    EXPECT_GT(pixels(WaterfallWidget::kQueuedColor, hedgeRow, hedgeRow + lineH), 20);
    EXPECT_GT(pixels(QColor(0xf5, 0x85, 0x18).rgb(), primaryRow, primaryRow + lineH), 20);  // the flight
    EXPECT_EQ(pixels(QColor(0xe4, 0x57, 0x56).rgb(), hedgeRow, hedgeRow + lineH), 0);
}

// A request failed with no call in the air (every engine's breaker open) was answered at the
// router: the stages after it were not reached because it had failed, not because it waited.
TEST(IncidentWaterfall, SaysWhyAStageWasNotReached) {
    gateway::RequestWaterfall w;
    w.latency_ms = 5;
    w.deadline_ms = 600;
    w.outcome = gateway::Outcome::NoEngine;
    w.stages = {{gateway::Stage::Edge, 0, 1}, {gateway::Stage::Router, 1, 5}};
    gateway::markUnreachedStages(w);
    WaterfallWidget view;
    view.setRequest(w);
    const QStringList rows = view.rowTexts();
    const QString all = rows.join("\n");
    EXPECT_EQ(rows.count("engines: not reached, failed before it got here"), 1) << all.toStdString();
    EXPECT_EQ(rows.count("merge: not reached, failed before it got here"), 1) << all.toStdString();
    EXPECT_FALSE(all.contains("answered before")) << all.toStdString();
}

TEST(IncidentCommandLine, RunsFromAScriptAndRefusesBadArguments) {
    QTemporaryDir dir;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    const QString scenario = QString::fromStdString(kScenario);
    const QString png = dir.filePath("board.png");
    p.start(TAILLAB_GUI_PATH, {"--incident", scenario, "--set", QString::fromStdString(kThreeProviders), "--until",
                               "Tue 03:00", "--export", png});
    ASSERT_TRUE(p.waitForFinished(kTimeoutMs));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    EXPECT_FALSE(QImage(png).isNull());
    // --pick: the window at that moment attributed, and the Attribution tab grabbed.
    const QString shot = dir.filePath("attribution.png");
    p.start(TAILLAB_GUI_PATH, {"--incident", scenario, "--until", "Tue 08:00", "--pick", "Tue 07:20",
                               "--screenshot", shot});
    ASSERT_TRUE(p.waitForFinished(kTimeoutMs));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    EXPECT_FALSE(QImage(shot).isNull());
    auto refused = [&](const QStringList& args, const char* says) {
        p.start(TAILLAB_GUI_PATH, args);
        ASSERT_TRUE(p.waitForFinished(60000 * kSlowdown));
        EXPECT_EQ(p.exitCode(), 2) << args.join(' ').toStdString();
        const std::string err = p.readAllStandardError().toStdString();
        EXPECT_NE(err.find(says), std::string::npos) << err;
    };
    refused({"--incident", scenario, "--until", "Fri 07:30", "--screenshot", png}, "the run covers 1 day(s) from Tue");
    refused({"--incident", scenario, "--until", "soon", "--screenshot", png}, "--until expects");
    refused({"--incident", scenario, "--compare", "no-such-scenario", "--screenshot", png}, "no gateway scenario 'no-such-scenario'");
    refused({"--incident", scenario, "--set", "nonsense", "--screenshot", png}, "--set expects KNOB=VALUE");
    refused({"--incident", scenario, "--export", dir.filePath("x.txt")}, "--export needs");
    refused({"--incident", scenario, "--focus", "sev9", "--screenshot", png},
            "has no phase 'sev9'; its phases: outage");
    refused({"--incident", scenario, "--until", "Tue 09:00", "--pick", "Tue 10:00", "--screenshot", png},
            "--pick expects a moment of the run no later than --until");
    refused({"--incident", scenario, "--pick", "Tue 07:20", "--export", png}, "--pick goes with --screenshot");
    refused({"--compare", scenario}, "--compare, --set, --focus and --pick go with --incident");
    refused({"--focus", "outage"}, "--compare, --set, --focus and --pick go with --incident");
}

}  // namespace
}  // namespace taillab::ui::test
