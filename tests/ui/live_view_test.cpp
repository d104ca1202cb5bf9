// The "Gateway (live)" tab in a real window (offscreen) over real sockets on 127.0.0.1: a live
// run of a gateway scenario at a low rate fills the charts from the gateway's snapshot and the
// client view from the load generator; a knob change and a fault land on the timeline and on the
// time charts; the run saves as a scenario that the simulated tab opens with those events; a
// workload-shape knob is refused and said so; stopping and closing the window while a run is up
// return. Waits are bounded by what happens (frames, counts), never by how fast it happens.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <functional>
#include <memory>

#include "gateway/gateway_charts.h"
#include "gateway/gateway_scenario.h"
#include "gateway/gateway_tables.h"
#include "gateway/gateway_view.h"
#include "gateway/live_session.h"
#include "gateway/live_view.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

// Only a bound for a run that never gets there: a wait ends when what it waits for is drawn.
// Under a sanitizer, on a loaded machine, a live run's first answers take about 10 s to be drawn
// (about 1.3 s in a release build).
constexpr int kLiveTimeoutMs = 60000 * kSlowdown;

// (Named apart from gateway_test_support.h's points(), which a unity batch may hold beside it.)
std::size_t livePoints(const ChartView& view) {
    std::size_t n = 0;
    for (const auto& s : view.plottedSeries()) n += static_cast<std::size_t>(s.x.size());
    return n;
}

bool hasMark(const gateway::GatewaySnapshot& s, gateway::MarkKind kind, const std::string& what) {
    return std::any_of(s.timeline.begin(), s.timeline.end(), [&](const gateway::TimelineMark& m) {
        return m.kind == kind && m.what.find(what) != std::string::npos;
    });
}

class LiveViewTest : public ::testing::Test {
  protected:
    void SetUp() override {
        window_ = std::make_unique<MainWindow>(scenarioDirectory());
        window_->resize(1280, 720);
        window_->show();
        view_ = window_->openLive();
        ASSERT_NE(view_, nullptr);
        ASSERT_TRUE(view_->selectScenario("week-v4-september"));
        view_->setRate(20);  // within what the scenario reaches from Mon 00:00 (about 37 req/s)
    }

    // Waits until the view has drawn a frame of the current run for which `pred` holds.
    bool waitDrawn(const std::function<bool(const LiveFrame&)>& pred,
                   int timeoutMs = kLiveTimeoutMs) {
        return QTest::qWaitFor(
            [&] {
                const LiveFramePtr f = view_->latestFrame();
                return f && f->commandSeq >= view_->session()->lastCommand() && pred(*f);
            },
            timeoutMs);
    }

    bool startAndWaitForAnswers() {
        view_->start();
        return waitDrawn([](const LiveFrame& f) {
            return f.running && f.gateway->snapshot->answered > 0 && f.load.counts.answered > 0;
        });
    }

    // What the view last drew, for a failed wait's message: whether a frame of this run came
    // at all, and how far its requests got.
    std::string lastFrame() const {
        const LiveFramePtr f = view_->latestFrame();
        if (!f) return "no frame drawn; message: " + view_->message().toStdString();
        std::string s = "last frame: command " + std::to_string(f->commandSeq) + " of " +
                        std::to_string(view_->session()->lastCommand()) +
                        (f->running ? ", running" : ", not running");
        if (f->gateway && f->gateway->snapshot)
            s += ", gateway accepted " + std::to_string(f->gateway->snapshot->accepted) + " answered " +
                 std::to_string(f->gateway->snapshot->answered);
        s += ", load sent " + std::to_string(f->load.counts.sent) + " answered " +
             std::to_string(f->load.counts.answered) + " failed " + std::to_string(f->load.counts.failed);
        return s + "; message: " + view_->message().toStdString();
    }

    std::unique_ptr<MainWindow> window_;
    LiveView* view_ = nullptr;
};

TEST_F(LiveViewTest, ARunDrawsTheChartsAndMarksKnobsAndFaultsThenSavesAScenario) {
    auto* mainTabs = window_->findChild<QTabWidget*>("mainTabs");
    ASSERT_NE(mainTabs, nullptr);
    EXPECT_EQ(mainTabs->tabText(mainTabs->currentIndex()), "Gateway (live)");
    EXPECT_TRUE(view_->isVisible());
    EXPECT_FALSE(view_->stopButton()->isEnabled()) << "nothing runs before Start";
    // The per-window charts say when they draw (not blank until the first window closes); the
    // breaker strips and the whole-run chart need no window.
    for (const char* id : {gateway_charts::kPercentiles, gateway_charts::kQueue, gateway_charts::kHedging,
                           gateway_charts::kCache}) {
        EXPECT_TRUE(view_->chartView(id)->emptyShown()) << id;
        EXPECT_EQ(view_->chartView(id)->emptyText(), "each 10 s window is drawn as it closes") << id;
    }
    EXPECT_TRUE(view_->chartView(gateway_charts::kBreakers)->emptyText().isEmpty());
    // The scenario box cuts the title at 1280x720; its tooltip has it whole.
    auto* scenarioBox = view_->findChild<QComboBox*>("liveScenario");
    ASSERT_NE(scenarioBox, nullptr);
    EXPECT_TRUE(scenarioBox->toolTip().startsWith(scenarioBox->currentText())) << scenarioBox->toolTip().toStdString();
    EXPECT_GT(scenarioBox->currentText().size(), 40) << "a title long enough to be cut";

    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    const LiveFramePtr first = view_->latestFrame();
    EXPECT_TRUE(view_->urlText().contains("http://127.0.0.1:")) << view_->urlText().toStdString();
    EXPECT_FALSE(view_->startButton()->isEnabled());
    EXPECT_TRUE(view_->stopButton()->isEnabled());
    // The conservation line and the whole-run percentile chart have the gateway's requests.
    auto* conservation = view_->findChild<QLabel*>("liveConservation");
    ASSERT_NE(conservation, nullptr);
    EXPECT_EQ(conservation->text(),
              "Gateway: " + GatewayTables::conservationLine(*first->gateway->snapshot));
    EXPECT_GT(first->gateway->snapshot->accepted, 0u);
    ASSERT_TRUE(waitDrawn([&](const LiveFrame&) {
        return livePoints(*view_->chartView(gateway_charts::kLatencyNines)) > 0 &&
               livePoints(*view_->chartView(LiveView::kClientChart)) > 0;
    }));
    EXPECT_TRUE(view_->statusText().contains("sent")) << view_->statusText().toStdString();
    // The clients' view: corrected latency runs from the intended send time, so it is never
    // below the uncorrected one.
    const live::LoadProgress& load = view_->latestFrame()->load;
    ASSERT_TRUE(load.corrected_p99_ms && load.uncorrected_p99_ms);
    EXPECT_GT(*load.corrected_p99_ms, 0);
    EXPECT_GE(*load.corrected_p99_ms + 1e-9, *load.uncorrected_p99_ms);

    // A knob edit applies to the running gateway and lands on the timeline and the charts.
    const Params before = view_->latestFrame()->gateway->params;
    const double budget = before.real("hedge_budget") > 0.1 ? 0.05 : 0.2;
    view_->knobPanel()->applyValue("hedge_budget", budget);
    ASSERT_TRUE(waitDrawn([&](const LiveFrame& f) {
        return f.gateway->params.real("hedge_budget") == budget &&
               hasMark(*f.gateway->snapshot, gateway::MarkKind::Knob, "hedge_budget");
    })) << view_->message().toStdString();
    const auto& knobMarks = view_->chartView(gateway_charts::kPercentiles)->annotations();
    EXPECT_TRUE(std::any_of(knobMarks.begin(), knobMarks.end(), [](const Annotation& a) {
        return a.kind == "knob" && a.label.find("Hedge budget") != std::string::npos;  // as the panel names it
    }));

    // A fault on the fleet, for a while: a shaded span on the time charts.
    Fault slow;
    slow.target.engine = "atlas";
    slow.effect = FaultEffect::Slow;
    slow.factor = 4;
    view_->injectFault(slow, 30.0);
    ASSERT_TRUE(waitDrawn([&](const LiveFrame& f) {
        return hasMark(*f.gateway->snapshot, gateway::MarkKind::Fault, "atlas");
    })) << view_->message().toStdString();
    EXPECT_TRUE(view_->message().isEmpty()) << view_->message().toStdString();
    // A look at each of the live tab's pages mid-run, at 1280x720.
    if (auto* pages = view_->findChild<QTabWidget*>("liveTabs")) {
        for (int i = 0; i < pages->count(); ++i) {
            pages->setCurrentIndex(i);
            saveScreenshot(*window_, "live_" + pages->tabText(i).toLower().replace(' ', '_'));
        }
        pages->setCurrentIndex(0);
    }

    view_->stop();
    ASSERT_TRUE(waitDrawn([](const LiveFrame& f) { return !f.running; }));
    EXPECT_TRUE(view_->startButton()->isEnabled());
    EXPECT_FALSE(view_->stopButton()->isEnabled());
    EXPECT_TRUE(view_->statusText().startsWith("Stopped")) << view_->statusText().toStdString();

    // Saved, it holds the run's first knobs, its seed and both events; the simulated tab opens it.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("My live run.json");
    QString error;
    ASSERT_TRUE(view_->saveRun(path, &error)) << error.toStdString();
    const GatewayRunSpec saved = loadGatewayRun(path.toStdString(), {});
    EXPECT_EQ(saved.name, "my-live-run");
    EXPECT_EQ(saved.params.real("hedge_budget"), before.real("hedge_budget"));
    // The live charts' 10 s window is the live tab's; the scenario keeps its own.
    EXPECT_EQ(before.real("window_s"), 10);
    EXPECT_EQ(saved.params.real("window_s"),
              loadGatewayRun("week-v4-september", scenarioDirectory()).params.real("window_s"));
    ASSERT_EQ(saved.timeline.events.size(), 2u);
    EXPECT_FALSE(saved.timeline.events[0].set.empty());
    EXPECT_EQ(saved.timeline.events[0].set[0].key, "hedge_budget");
    ASSERT_TRUE(saved.timeline.events[1].fault.has_value());
    EXPECT_EQ(saved.timeline.events[1].fault->effect, FaultEffect::Slow);
    EXPECT_LE(saved.timeline.events[0].at_s, saved.timeline.events[1].at_s);

    ASSERT_TRUE(window_->openFile(path));
    EXPECT_TRUE(window_->gatewayShown());
    ASSERT_NE(window_->gatewayView(), nullptr);
    EXPECT_EQ(window_->gatewayView()->runSpec().timeline, saved.timeline);
    EXPECT_TRUE(window_->gatewayView()->message().isEmpty())
        << window_->gatewayView()->message().toStdString();
}

TEST_F(LiveViewTest, EveryChartExportsAndFileExportTakesTheChartLastClicked) {
    view_->setStartHour(38);
    auto* from = view_->findChild<QSpinBox*>("liveStartAt");
    ASSERT_NE(from, nullptr);
    EXPECT_EQ(from->text(), "Tue 14:00");
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    ASSERT_TRUE(waitDrawn([&](const LiveFrame&) {
        return livePoints(*view_->chartView(gateway_charts::kLatencyNines)) > 0 &&
               livePoints(*view_->chartView(LiveView::kClientChart)) > 0;
    }));
    EXPECT_FALSE(from->isEnabled()) << "the start is fixed while a run is up";
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    for (const std::string& id : view_->chartIds()) {
        const QString png = dir.filePath(QString::fromStdString(id) + ".png");
        const QString csv = dir.filePath(QString::fromStdString(id) + ".csv");
        QString error;
        ASSERT_TRUE(view_->exportChart(id, ExportFormat::Png, png, &error)) << id << ": " << error.toStdString();
        EXPECT_FALSE(QImage(png).isNull()) << id;
        ASSERT_TRUE(view_->exportChart(id, ExportFormat::Csv, csv, &error)) << id << ": " << error.toStdString();
        QFile file(csv);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << id;
        const QByteArray text = file.readAll();
        EXPECT_TRUE(text.startsWith("# week-v4-september · seed ")) << text.left(80).toStdString();
        EXPECT_TRUE(text.contains("series,role,x,y")) << id;
    }
    EXPECT_FALSE(view_->exportChart("no_such_chart", ExportFormat::Png, dir.filePath("x.png")));
    // File → Export follows the tab: the chart last clicked here.
    emit view_->chartView(LiveView::kClientChart)->activated();
    const std::optional<ExportTarget> target = view_->exportTarget();
    ASSERT_TRUE(target);
    EXPECT_EQ(target->view, view_->chartView(LiveView::kClientChart));
    EXPECT_EQ(target->name, "gateway-live-client_percentiles");
    const nlohmann::ordered_json j = target->json();
    EXPECT_TRUE(j.contains("live_elapsed_s")) << j.dump().substr(0, 200);
    view_->stop();
}

// A knob edit sends only the knob moved: a change the running stack has taken and the panel has
// not drawn yet (here one sent straight to the session, as the timeline or another edit would
// make it) keeps its value. When the view sent the whole panel, the edit carried the panel's
// stale hedge_delay_ms back to the gateway and undid that change.
// The status line is the clients' tally and says so (as of when they made it, with the rate the
// run offers); the line beside the tabs is the gateway's own. A rate the scenario cannot reach from
// the start picked is not passed off as met: the load multiplier's note and a notice say what the
// run offers instead and how to get the rate asked for.
TEST_F(LiveViewTest, TheStatusSaysWhoseCountsAndARateOutOfReachSaysWhatTheRunOffers) {
    view_->setStartHour(0);
    view_->setRate(100);  // Mon 00:00, the quietest hour: a multiplier of 50 gives about 37 req/s
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    EXPECT_TRUE(view_->message().startsWith("This run offers about")) << view_->message().toStdString();
    EXPECT_TRUE(view_->message().contains("not the 100 asked")) << view_->message().toStdString();
    EXPECT_TRUE(view_->message().contains("is met From")) << view_->message().toStdString();
    KnobEditor* multiplier = view_->knobPanel()->editor("load_multiplier");
    ASSERT_NE(multiplier, nullptr);
    EXPECT_FALSE(multiplier->isEnabled()) << "the rate sets it";
    EXPECT_TRUE(multiplier->toolTip().contains("the knob stops at 50")) << multiplier->toolTip().toStdString();
    const QString status = view_->statusText();
    EXPECT_TRUE(status.contains("req/s, not the 100 asked")) << status.toStdString();
    EXPECT_TRUE(status.contains("clients by ")) << status.toStdString();
    EXPECT_TRUE(status.contains("without an answer")) << status.toStdString();
    // The clients' counts add up: what was sent is answered, without an answer, or in flight.
    const QRegularExpressionMatch counts =
        QRegularExpression("([0-9,]+) sent: ([0-9,]+) answered, ([0-9,]+) without an answer, ([0-9,]+) in flight")
            .match(status);
    ASSERT_TRUE(counts.hasMatch()) << status.toStdString();
    const auto number = [&](int i) { return counts.captured(i).remove(',').toULongLong(); };
    EXPECT_EQ(number(1), number(2) + number(3) + number(4)) << status.toStdString();
    // At 1280x720 this longest of status lines is shown whole on its row (wrapped if need be),
    // not cut with the rest in a tooltip; the address beside the fault row is whole too; and the
    // notice leaves the window its size (the charts scroll instead).
    QApplication::processEvents();
    auto* statusLabel = view_->findChild<QLabel*>("liveStatus");
    ASSERT_NE(statusLabel, nullptr);
    EXPECT_EQ(statusLabel->text(), view_->statusText());
    EXPECT_FALSE(statusLabel->text().contains(QChar(0x2026)));
    EXPECT_GE(statusLabel->height(), statusLabel->heightForWidth(statusLabel->width()))
        << "the line's wrapped height is cut";
    EXPECT_LE(statusLabel->geometry().right(), view_->width());
    auto* url = view_->findChild<QLabel*>("liveUrl");
    ASSERT_NE(url, nullptr);
    EXPECT_EQ(url->text(), view_->urlText());
    EXPECT_TRUE(url->text().contains("http://127.0.0.1:")) << url->text().toStdString();
    EXPECT_EQ(window_->size(), QSize(1280, 720));
    saveScreenshot(*window_, "live-status-1280");
    view_->stop();
    ASSERT_TRUE(waitDrawn([](const LiveFrame& f) { return !f.running; }));

    view_->setRate(10);
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    EXPECT_TRUE(view_->message().isEmpty()) << view_->message().toStdString();
    EXPECT_TRUE(view_->statusText().contains(" at 10 req/s · clients by ")) << view_->statusText().toStdString();
    EXPECT_TRUE(view_->knobPanel()->editor("load_multiplier")->toolTip().contains("set by the rate: 10 req/s"));
    view_->stop();
}

// Once the first 10 s window has closed and the run has gone on, every time chart's x axis runs
// to now, as the status line's seconds and the breaker strips do; it used to end at the last
// window (10 s) with its one point at the right edge.
TEST_F(LiveViewTest, TheTimeChartsRunToNowNotToTheLastWindow) {
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    ASSERT_TRUE(waitDrawn([](const LiveFrame& f) {
        return f.gateway->snapshot->now_s - f.startedAt_s >= 12 && !f.gateway->snapshot->windows.empty();
    })) << lastFrame();
    const LiveFramePtr f = view_->latestFrame();
    const double now = f->gateway->snapshot->now_s - f->startedAt_s;
    for (const char* id : {gateway_charts::kPercentiles, gateway_charts::kQueue, gateway_charts::kHedging,
                           gateway_charts::kCache, LiveView::kClientChart}) {
        const ChartView::ViewRange r = view_->chartView(id)->viewRange();
        EXPECT_EQ(r.xLower, 0) << id;
        EXPECT_GE(r.xUpper, now - 1e-9) << id << ": the axis ends before the run's " << now << " s";
    }
    EXPECT_GE(view_->chartView(gateway_charts::kBreakers)->viewRange().xUpper, now - 1);
    EXPECT_EQ(view_->chartView(gateway_charts::kBreakers)->viewRange().xLower, 0);
    view_->stop();
}

TEST_F(LiveViewTest, AnEditWhileThePanelLagsSendsOnlyTheKnobMoved) {
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    const Params before = view_->latestFrame()->gateway->params;
    const double delay = before.real("hedge_delay_ms") == 40 ? 60 : 40;
    const double budget = before.real("hedge_budget") > 0.1 ? 0.05 : 0.2;
    // The change behind the panel's back, then the user's edit before any frame is drawn.
    view_->session()->applyChanges({KnobSetting{"hedge_delay_ms", delay}});
    ASSERT_EQ(view_->knobPanel()->editor("hedge_delay_ms")->value(), before.real("hedge_delay_ms"))
        << "the panel has not caught up";
    view_->knobPanel()->applyValue("hedge_budget", budget);
    ASSERT_TRUE(waitDrawn([&](const LiveFrame& f) {
        return f.gateway->params.real("hedge_budget") == budget;
    })) << lastFrame();
    const Params& now = view_->latestFrame()->gateway->params;
    EXPECT_EQ(now.real("hedge_delay_ms"), delay) << "the edit did not undo the change in force";
    EXPECT_EQ(view_->knobPanel()->editor("hedge_delay_ms")->value(), delay)
        << "and the panel shows it";
    view_->stop();
}

TEST_F(LiveViewTest, AWorkloadShapeKnobIsRefusedAndTheFixedKnobsAreLockedWhileRunning) {
    // A start the core refuses says why and leaves Start usable.
    live::LiveStackOptions none;
    none.rate_per_s = 0;
    const quint64 refusedStart = view_->session()->start(view_->scenarios().front(), none);
    ASSERT_TRUE(QTest::qWaitFor([&] { return view_->session()->handled(refusedStart); },
                                kLiveTimeoutMs));
    EXPECT_TRUE(view_->message().contains("rate")) << view_->message().toStdString();
    EXPECT_FALSE(view_->running());
    EXPECT_TRUE(view_->startButton()->isEnabled());

    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    EXPECT_TRUE(view_->message().isEmpty()) << "a new start clears the banner";
    KnobEditor* days = view_->knobPanel()->editor("days");
    ASSERT_NE(days, nullptr);
    EXPECT_FALSE(days->isEnabled()) << "the days shape the workload from the start";
    QSignalSpy refused(view_->session(), &LiveSession::failed);
    const Params p = view_->latestFrame()->gateway->params;
    view_->session()->applyChanges({KnobSetting{"days", p.real("days") > 1 ? 1.0 : 2.0}});
    ASSERT_TRUE(QTest::qWaitFor([&] { return refused.count() > 0; }, kLiveTimeoutMs));
    EXPECT_TRUE(view_->message().contains("days")) << view_->message().toStdString();
    EXPECT_TRUE(view_->running()) << "a refused knob leaves the run up";
    view_->stop();
    ASSERT_TRUE(waitDrawn([](const LiveFrame& f) { return !f.running; }));
    EXPECT_TRUE(days->isEnabled());
}

TEST_F(LiveViewTest, StartsAgainAfterStopAndClosingWhileRunningReturns) {
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    const LiveFramePtr first = view_->latestFrame();
    view_->stop();
    ASSERT_TRUE(waitDrawn([](const LiveFrame& f) { return !f.running; }));
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    const LiveFramePtr second = view_->latestFrame();
    EXPECT_GT(second->runId, first->runId);
    EXPECT_LE(second->gateway->snapshot->timeline.size(), first->gateway->snapshot->timeline.size())
        << "a new run starts with a fresh gateway";
    // Closing the window with the fleet, the gateway and the load up ends them all.
    window_->close();
    window_.reset();
    SUCCEED();
}

// taillab --live PATH: a scenario file outside the scenario directory is offered in the picker,
// picked and run; the path of one the picker lists picks that one.
TEST_F(LiveViewTest, AScenarioFileIsPickedAndRun) {
    QTemporaryDir dir;
    const QString path = dir.filePath("mylive.json");
    {
        std::ifstream in(scenarioDirectory() + "/gateway/week-v4-september.json");
        nlohmann::json doc = nlohmann::json::parse(in);
        doc["name"] = "mylive";
        doc["title"] = "My own live week";
        std::ofstream(path.toStdString()) << doc.dump(1);
    }
    const std::size_t offered = view_->scenarios().size();
    view_->pickScenario(loadScenarioFile(
        findGatewayScenarioFile(path.toStdString(), scenarioDirectory())));
    ASSERT_NE(view_->currentScenario(), nullptr);
    EXPECT_EQ(view_->currentScenario()->name, "mylive");
    EXPECT_EQ(view_->currentScenario()->file, path.toStdString());
    EXPECT_EQ(view_->scenarios().size(), offered + 1);
    ASSERT_TRUE(startAndWaitForAnswers()) << lastFrame();
    EXPECT_EQ(view_->currentScenario()->name, "mylive");
    view_->stop();

    const std::string shipped = scenarioDirectory() + "/gateway/day-eu-atlas-slow.json";
    view_->pickScenario(loadScenarioFile(shipped));
    EXPECT_EQ(view_->currentScenario()->name, "day-eu-atlas-slow");
    EXPECT_EQ(view_->scenarios().size(), offered + 1) << "a file the picker lists is not added again";
}

}  // namespace
}  // namespace taillab::ui::test
