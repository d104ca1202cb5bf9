// The gateway view and the run's timeline: knob edits are timeline events (an edit after a seek
// back drops the edits recorded after it, the scenario's own events stay); a scenario file opens
// with its timeline (File → Open, loadGatewayRun, `taillab --gateway FILE`), and one the parser
// refuses shows the parser's message; a run saved as a scenario replays byte for byte through
// the real `taillab-cli run` and through the core runner.
#include <gtest/gtest.h>

#include <QAction>
#include <QDoubleSpinBox>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway/gateway_charts.h"
#include "gateway/gateway_scenario.h"
#include "gateway_sim/gateway_lab.h"
#include "gateway_test_support.h"
#include "knob_panel.h"
#include "run/runner.h"

namespace taillab::ui::test {
namespace {

void writeFile(const QString& path, const std::string& text) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << text;
}

const std::string kScenarioDay = scenarioDirectory() + "/gateway/day-eu-atlas-slow.json";

TEST_F(GatewayViewTest, AnEditAfterASeekBackDropsTheEditsRecordedAfterIt) {
    GatewayRunSpec spec = gatewayRunFromScenario(loadScenarioFile(kScenarioDay));
    spec.params.set("load_multiplier", 0.2);
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_EQ(view_->latestFrame()->timeline->events.size(), 3u);
    ASSERT_TRUE(seekAndWait(2 * kHour));
    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_percentile", 95}})));
    ASSERT_TRUE(seekAndWait(16 * kHour));
    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_percentile", 80}})));
    EXPECT_EQ(view_->latestFrame()->timeline->events.size(), 5u);

    // Back to 05:00: both edits are replayed from the run's own timeline...
    ASSERT_TRUE(seekAndWait(5 * kHour));
    const GatewayFramePtr back = view_->latestFrame();
    EXPECT_EQ(back->timeline->events.size(), 5u);
    EXPECT_EQ(back->params.real("hedge_percentile"), 95) << "the 02:00 edit applies again";
    // ...and an edit there replaces the one at 16:00, not the scenario's events after it.
    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_percentile", 99}})));
    const Timeline& t = *view_->latestFrame()->timeline;
    ASSERT_EQ(t.events.size(), 5u);
    std::vector<double> at;
    for (const TimelineEvent& e : t.events) at.push_back(e.at_s);
    EXPECT_EQ(at, (std::vector<double>{2 * kHour, 5 * kHour, 7 * kHour, 9.5 * kHour, 15 * kHour}));
    EXPECT_EQ(t.events[1].label, "hedge_percentile 99");
    for (const TimelineEvent& e : spec.timeline.events)
        EXPECT_NE(std::find(t.events.begin(), t.events.end(), e), t.events.end()) << e.label;

    // The replay agrees with the record: at 20:00 the knobs are the 05:00 edit's and the
    // scenario's.
    ASSERT_TRUE(seekAndWait(20 * kHour));
    const Params& now = view_->latestFrame()->params;
    EXPECT_EQ(now.real("hedge_percentile"), 99);
    EXPECT_EQ(now.real("hedge_budget"), 0.075);
}

TEST_F(GatewayViewTest, FileOpenShowsAGatewayScenarioWithItsTimelineOnEveryTimeChart) {
    EXPECT_TRUE(window_->openFile(QString::fromStdString(kScenarioDay)));
    EXPECT_TRUE(window_->gatewayShown());
    EXPECT_EQ(view_->runSpec().name, "day-eu-atlas-slow");
    ASSERT_EQ(view_->runSpec().timeline.events.size(), 3u);
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.timeline->events.size() == 3; }));
    ASSERT_TRUE(seekAndWait(16 * kHour));
    const gateway::GatewaySnapshot& s = *view_->latestFrame()->snapshot;
    const double tuesday = 86400;
    for (const std::string& id : view_->chartIds()) {
        // Neither the sweep nor the nines chart has a time axis to mark.
        if (id == gateway_charts::kSweep || id == gateway_charts::kLatencyNines) continue;
        const std::vector<Annotation>& a = view_->chartView(id)->annotations();
        ASSERT_EQ(a.size(), 3u) << id;
        EXPECT_EQ(a[0].kind, "knob");
        EXPECT_EQ(a[0].x0, tuesday + 7 * kHour);
        EXPECT_EQ(a[0].label, "operator: fixed 300 ms hedge");
        EXPECT_EQ(a[1].kind, "fault");
        EXPECT_EQ(a[1].x0, tuesday + 9.5 * kHour);
        EXPECT_EQ(a[1].x1, tuesday + 13 * kHour);
        // The knob as its panel names it, from and to (the result file keeps the key).
        EXPECT_EQ(a[2].label, "Hedge budget 0.15 → 0.075 of primary rate");
    }
    // Breaker marks are not annotations: they stay on the breaker strips.
    EXPECT_EQ(gateway_charts::annotations(s, 0).size(), 3u);
}

// A scenario with a mistake in its timeline, one event per line from line 7 (as the core's
// timeline tests write them), the mistake at the column of "sluggish".
std::string badScenario() {
    return "{\n"
           "  \"schema_version\": 1,\n"
           "  \"name\": \"bad\",\n"
           "  \"lab\": \"gateway\",\n"
           "  \"params\": {\"days\": 1},\n"
           "  \"timeline\": [\n"
           "    {\"at\": 3600, \"fault\": {\"effect\": \"sluggish\"}}\n"
           "  ]\n"
           "}\n";
}

TEST_F(GatewayViewTest, AScenarioTheParserRefusesShowsTheParsersMessage) {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    writeFile(path, badScenario());
    const std::string where = path.toStdString() + ":7:";
    try {
        loadGatewayRun(path.toStdString(), {});
        ADD_FAILURE() << "the parser accepted it";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("/timeline/0/fault/effect"), std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(window_->openFile(path));
    EXPECT_TRUE(window_->gatewayShown());
    EXPECT_TRUE(view_->message().contains(QString::fromStdString(where)))
        << view_->message().toStdString();
    EXPECT_TRUE(view_->message().contains("/timeline/0/fault/effect"));
    EXPECT_EQ(view_->runSpec().name, "gateway") << "the run shown is unchanged";

    QProcess p;
    p.start(TAILLAB_GUI_PATH, {"--gateway", path, "--screenshot", dir.filePath("x.png")});
    ASSERT_TRUE(p.waitForFinished(30000 * kSlowdown));
    EXPECT_EQ(p.exitCode(), 2);
    EXPECT_TRUE(p.readAllStandardError().contains(QByteArray::fromStdString(where)));
}

TEST_F(GatewayViewTest, ASavedRunReplaysIdenticallyFromTheCliAndTheGui) {
    GatewayRunSpec spec = oneDay();
    spec.params.set("load_multiplier", 0.2);
    ASSERT_TRUE(startAndWait(spec));
    EXPECT_TRUE(window_->saveRunAction()->isEnabled());

    // Two edits at moments no scenario would pick: paused wherever playback got to.
    session().setSpeed(10000);
    auto pauseAfter = [&](double t_s) {
        session().play();
        if (!waitDrawn([t_s](const GatewayFrame& f) { return f.snapshot->now_s > t_s; }))
            return false;
        return waitSettled(session().pause());
    };
    ASSERT_TRUE(pauseAfter(3 * kHour));
    const double first = view_->latestFrame()->snapshot->now_s;
    auto* spin = view_->knobPanel()->findChild<QDoubleSpinBox*>("knob_spin_hedge_budget");
    ASSERT_NE(spin, nullptr);
    spin->setValue(0.3);  // as typed: debounced, then applied mid-run
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) {
        return std::abs(f.params.real("hedge_budget") - 0.3) < 1e-9;
    }));
    ASSERT_TRUE(pauseAfter(first + 5 * kHour));
    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_delay_ms", 260}, {"hedge_mode", 1}})));
    ASSERT_TRUE(playToEnd());

    const GatewayFramePtr end = view_->latestFrame();
    ASSERT_EQ(end->timeline->events.size(), 2u);
    EXPECT_EQ(end->timeline->events[0].at_s, first);
    EXPECT_GT(end->timeline->events[1].at_s, first + 5 * kHour);
    EXPECT_EQ(end->snapshot->in_flight, 0u) << "the requests in flight at the end finish";

    QTemporaryDir dir;
    const QString path = dir.filePath("Two edits.json");
    QString error;
    ASSERT_TRUE(view_->saveRun(path, &error)) << error.toStdString();
    const Scenario saved = loadScenarioFile(path.toStdString());
    EXPECT_EQ(saved.name, "two-edits");
    EXPECT_EQ(saved.params, spec.params);
    ASSERT_EQ(saved.timeline.events.size(), end->timeline->events.size());
    for (std::size_t i = 0; i < saved.timeline.events.size(); ++i) {
        const TimelineEvent& a = saved.timeline.events[i];
        const TimelineEvent& b = end->timeline->events[i];
        EXPECT_EQ(a.at_s, b.at_s) << i;
        EXPECT_EQ(a.label, b.label) << i;
        ASSERT_EQ(a.set.size(), b.set.size()) << i;
        for (std::size_t k = 0; k < a.set.size(); ++k) {
            EXPECT_EQ(a.set[k].key, b.set[k].key) << i;
            EXPECT_EQ(a.set[k].value, b.set[k].value) << i << " " << a.set[k].key;
        }
    }

    LabResult gui = gateway::gatewayResult(*end->snapshot, end->initialParams, end->seed);
    gui.scenario = saved.name;
    gui.timeline = recordedTimeline(saved);  // as a run of the saved scenario records it
    const std::string expected = toJson(gui).dump(2) + "\n";

    QProcess cli;
    const QString out = dir.filePath("result.json");
    cli.start(TAILLAB_CLI_PATH, {"run", path, "--out", out});
    ASSERT_TRUE(cli.waitForFinished(kGatewayTimeoutMs));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    EXPECT_TRUE(readFile(out) == expected) << "taillab-cli run differs from the GUI's run";
    EXPECT_TRUE(toJson(runScenario(saved)).dump(2) + "\n" == expected)
        << "the core runner differs from the GUI's run";
}

TEST_F(GatewayViewTest, SaveRunIsOfferedOnlyWhileTheGatewayTabShowsARun) {
    EXPECT_TRUE(window_->saveRunAction()->isEnabled());
    window_->findChild<QTabWidget*>("mainTabs")->setCurrentIndex(0);
    EXPECT_FALSE(window_->saveRunAction()->isEnabled());
    window_->openGateway();
    EXPECT_TRUE(window_->saveRunAction()->isEnabled());
}

// A run saved as it started (the scenario's knobs and timeline, no edits) keeps the file's
// published figures; an edit during the run or a moved knob leaves them out, and saving that
// over the file is what File → Save Run as Scenario asks about (keepsExpectationsOf).
TEST(GatewayScenarioTest, ARunSavedAsItStartedKeepsThePublishedFigures) {
    const std::string file = scenarioDirectory() + "/incidents/july-v4.json";
    const Scenario there = loadScenarioFile(file);
    ASSERT_FALSE(there.expect.empty());
    const GatewayRunSpec spec = gatewayRunFromScenario(there);

    const Scenario unedited = runAsScenario(spec, "july-v4", spec.params, spec.seed, spec.timeline);
    EXPECT_TRUE(keepsExpectationsOf(unedited, there));
    const Scenario back = parseScenario(writeScenarioJson(unedited), "saved.json");
    EXPECT_EQ(back.expect, there.expect) << "written and read back, as taillab-cli reads it";

    Timeline edited = spec.timeline;
    TimelineEvent change;
    change.at_s = edited.events.back().at_s;  // last, so the events stay sorted
    change.label = "hedge_delay_ms=300";
    change.set = {KnobSetting{"hedge_delay_ms", 300}};
    edited.events.push_back(change);
    const Scenario withEdit = runAsScenario(spec, "july-v4", spec.params, spec.seed, edited);
    EXPECT_FALSE(keepsExpectationsOf(withEdit, there)) << "a knob change during the run";
    EXPECT_TRUE(parseScenario(writeScenarioJson(withEdit), "saved.json").expect.empty());

    Params moved = spec.params;
    moved.set("hedge_delay_ms", spec.params.real("hedge_delay_ms") + 1);
    EXPECT_FALSE(
        keepsExpectationsOf(runAsScenario(spec, "july-v4", moved, spec.seed, spec.timeline), there))
        << "a knob moved before the run";
}

TEST(GatewayScenarioTest, ScenarioNamesComeFromFileNames) {
    EXPECT_EQ(scenarioNameFor("/tmp/My run 2.json"), "my-run-2");
    EXPECT_EQ(scenarioNameFor("week_v4.json"), "week_v4");
    EXPECT_EQ(scenarioNameFor("((().json"), "gateway-run");
}

// File → Open, a drop and Open Recent ask isGatewayScenarioFile first. It read the whole file
// with no bound: a pipe was opened and waited on (and read as a scenario), and a file of any
// size was read whole. It reads through the scenario reader now, which takes regular files of
// at most kMaxScenarioBytes.
TEST(GatewayScenarioTest, OnlyARegularFileWithinTheCapIsTakenForAGatewayScenario) {
    QTemporaryDir dir;
    const std::string gateway = R"({"schema_version": 1, "name": "g", "lab": "gateway"})";
    const std::string regular = dir.filePath("g.json").toStdString();
    std::ofstream(regular) << gateway;
    EXPECT_TRUE(isGatewayScenarioFile(regular));

    const std::string big = dir.filePath("big.json").toStdString();
    std::ofstream(big) << R"({"lab": "gateway", "pad": ")" << std::string(kMaxScenarioBytes, 'x')
                       << "\"}";
    EXPECT_FALSE(isGatewayScenarioFile(big)) << "over the cap: not read";

    // A pipe with a gateway scenario's text waiting in it: a writer blocks until a reader opens.
    const std::string fifo = dir.filePath("pipe.json").toStdString();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd < 0) return;
        [[maybe_unused]] const auto n = ::write(fd, gateway.data(), gateway.size());
        ::close(fd);
    });
    EXPECT_FALSE(isGatewayScenarioFile(fifo)) << "a pipe is no scenario file";
    // Lets the writer through when nothing else opened the pipe.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    writer.join();
    if (reader >= 0) ::close(reader);
}

}  // namespace
}  // namespace taillab::ui::test
