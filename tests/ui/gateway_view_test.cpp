// The Gateway view in a real window, driven as a user would (offscreen): it opens beside the
// labs; a one-day run played as fast as it goes fills every chart; pause stops simulated time;
// a knob change mid-run lands in the snapshot's timeline; seeking back gives exactly what a
// fresh run advanced to that moment gives; the hedge-delay sweep runs off the UI thread and is
// drawn beside the published points; every chart exports to PNG and CSV; and `taillab --gateway`
// exports from a script. No assertion depends on wall-clock speed.
#include "gateway/gateway_view.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <functional>

#include "gateway/gateway_charts.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_tables.h"
#include "gateway/stage_path_widget.h"
#include "gateway/sweep_panel.h"
#include "gateway/transport_bar.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway_test_support.h"
#include "knob_panel.h"
#include "plots/breaker_strip_chart.h"
#include "plots/gateway_time_chart.h"
#include "plots/sweep_chart.h"

namespace taillab::ui::test {
namespace {

TEST_F(GatewayViewTest, OpensBesideTheLabsWithTheRequestPathAndCharts) {
    EXPECT_TRUE(window_->gatewayShown());
    EXPECT_TRUE(view_->isVisible());
    EXPECT_TRUE(window_->windowTitle().contains("Gateway"));
    // Simulated, not live: the live driver gets a tab of its own.
    auto* mainTabs = window_->findChild<QTabWidget*>("mainTabs");
    ASSERT_NE(mainTabs, nullptr);
    EXPECT_EQ(mainTabs->tabText(mainTabs->currentIndex()), "Gateway (simulated)");
    EXPECT_TRUE(window_->windowTitle().contains("(simulated)"));
    QStringList viewItems;
    for (const QAction* a : window_->findChildren<QAction*>()) viewItems << a->text();
    EXPECT_TRUE(viewItems.contains("&Gateway (simulated)")) << viewItems.join(", ").toStdString();
    auto* toolbar = window_->findChild<QToolBar*>("mainToolBar");
    ASSERT_NE(toolbar, nullptr);
    EXPECT_FALSE(toolbar->isVisible()) << "the labs' toolbar does not apply to the gateway";

    const GatewayFramePtr f = view_->latestFrame();
    EXPECT_EQ(f->snapshot->now_s, 0);
    EXPECT_FALSE(f->playing);
    EXPECT_EQ(view_->chartIds(), gateway_charts::chartIds());
    for (const auto& id : view_->chartIds()) {
        ChartView* chart = view_->chartView(id);
        ASSERT_NE(chart, nullptr) << id;
        EXPECT_FALSE(chart->chart().x_label.empty()) << id;
        EXPECT_FALSE(chart->chart().y_label.empty()) << id;
    }
    for (int stage = 0; stage < gateway::kStages; ++stage)
        EXPECT_EQ(view_->stagePath()->stageLines(stage).first().toStdString(),
                  gateway::kStageNames[static_cast<std::size_t>(stage)]);
    EXPECT_NE(view_->knobPanel()->editor("hedge_delay_ms"), nullptr);
    // Run | Tables | Hedge-delay sweep: the tables have a tab, and the sweep is still found.
    QTabWidget* tabs = view_->tabs();
    EXPECT_EQ(tabs->tabText(tabs->indexOf(view_->tables())), "Tables");
    view_->showSweepTab(true);
    EXPECT_EQ(tabs->currentWidget(), view_->sweepPanel());
    view_->showSweepTab(false);
    EXPECT_EQ(tabs->currentIndex(), 0);

    // Back to the labs and again: the same view, the same run.
    window_->findChild<QTabWidget*>("mainTabs")->setCurrentIndex(0);
    EXPECT_TRUE(toolbar->isVisible());
    EXPECT_EQ(window_->openGateway(), view_);
}

TEST_F(GatewayViewTest, PlayingAShortRunFillsEveryChartAndTable) {
    session().setSpeed(0);
    session().play();
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.finished() && !f.playing; }))
        << "a one-day run did not finish";
    const gateway::GatewaySnapshot& s = *view_->latestFrame()->snapshot;
    EXPECT_GT(s.accepted, 0u);
    EXPECT_EQ(s.accepted, s.answered + s.rejected + s.failed + s.in_flight);
    EXPECT_FALSE(s.windows.empty());
    for (const std::string id : {gateway_charts::kPercentiles, gateway_charts::kLatencyNines,
                                 gateway_charts::kQueue, gateway_charts::kHedging,
                                 gateway_charts::kBreakers, gateway_charts::kCache}) {
        ChartView* chart = view_->chartView(id);
        for (const auto& series : chart->plottedSeries()) {
            if (id != gateway_charts::kBreakers || series.name == "closed") {
                EXPECT_GT(series.x.size(), 0) << id << " / " << series.name.toStdString();
            }
        }
        EXPECT_GT(points(*chart), 0u) << id;
    }
    EXPECT_GT(static_cast<BreakerStripChart*>(view_->chartView(gateway_charts::kBreakers))
                  ->stripCount(),
              0);
    EXPECT_GT(view_->tables()->customersTable()->rowCount(), 0);
    // The ranking says so when it cannot single anyone out: every customer at the global p99,
    // itself at the deadline (the default day's case).
    const double global = GatewayTables::customersGlobalP99_ms(s);
    ASSERT_FALSE(std::isnan(s.customers_global_p99_ms));
    bool same = true;
    for (const auto& c : s.worst_customers) same = same && std::abs(c.p99_ms / global - 1) < 0.03;
    const double deadline = view_->latestFrame()->params.real("deadline_ms");
    const QString note = view_->tables()->customersNote();
    if (same && global >= 0.9 * deadline) {
        EXPECT_TRUE(note.contains("deadline")) << note.toStdString();
        // The note's p99 is the one the rows show.
        QTableWidget* rows = view_->tables()->customersTable();
        for (int row = 0; row < rows->rowCount(); ++row)
            if (std::abs(s.worst_customers[static_cast<std::size_t>(row)].p99_ms - global) < 1e-9) {
                EXPECT_TRUE(note.contains(QString("(%1 ms)").arg(rows->item(row, 2)->text())))
                    << note.toStdString() << " / row " << row;
            }
    } else if (!same) {
        EXPECT_TRUE(note.isEmpty()) << note.toStdString();
    }
    EXPECT_GT(view_->tables()->countersTable()->rowCount(), 0);
    EXPECT_TRUE(view_->findChild<QLabel*>("gatewayConservation")->text().contains("✓"));
    EXPECT_GT(s.stages[0].entered, 0u);
    EXPECT_TRUE(view_->stagePath()->stageLines(0)[1].startsWith("in "));
    // The probes go through the path, and every card they reach says how many, not the edge's
    // alone.
    ASSERT_GT(s.probes, 0u);
    for (const gateway::Stage stage : {gateway::Stage::Edge, gateway::Stage::Gateway, gateway::Stage::Compiler,
                                       gateway::Stage::Cache, gateway::Stage::Merge}) {
        const int i = static_cast<int>(stage);
        EXPECT_TRUE(view_->stagePath()->stageLines(i)[4].startsWith("probes in ")) << i;
    }
}

// At 1280x720 the stage cards are narrow: each line still fits its card (the compact form when
// the long one does not), and the budget never runs into the stage name.
TEST_F(GatewayViewTest, StageCardsKeepTitlesBudgetsAndCountsApartAtSmallSizes) {
    session().setSpeed(0);
    session().play();
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.finished(); }));
    StagePathWidget* path = view_->stagePath();
    for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
        window_->resize(size);
        QApplication::processEvents();
        QFont bold = path->font();
        bold.setBold(true);
        const QFontMetrics fm(path->font()), bm(bold);
        bool compacted = false;
        QStringList budgetForms;  // "budget" or "≤": one for every card
        for (int stage = 0; stage < gateway::kStages; ++stage) {
            const QStringList lines = path->drawnLines(stage);
            const int width = path->textWidth(stage);
            for (int k : {1, 2, 4}) {  // counts, times, probes
                EXPECT_LE(fm.horizontalAdvance(lines[k]), width) << stage << " " << lines[k].toStdString();
                EXPECT_FALSE(lines[k].contains(QChar(0x2026))) << "elided: " << lines[k].toStdString();
                compacted = compacted || lines[k] != path->stageLines(stage)[k];
            }
            if (!lines[3].isEmpty()) {
                budgetForms << lines[3].section(' ', 0, 0);
                EXPECT_LE(bm.horizontalAdvance(lines[0]) + 8 + fm.horizontalAdvance(lines[3]), width)
                    << stage << " " << lines[0].toStdString() << " / " << lines[3].toStdString();
            }
        }
        budgetForms.removeDuplicates();
        EXPECT_LE(budgetForms.size(), 1) << size.width() << ": " << budgetForms.join(" and ").toStdString();
        if (size.width() >= 1600) {
            EXPECT_FALSE(compacted) << "a large window shows the long form";
        }
    }
}

// At 1280x720 the breaker chart's nine lanes (region x engine) are thinner than a line of the
// axis's text: each still has its own label, in a smaller font, not only its region's.
TEST_F(GatewayViewTest, EveryBreakerLaneIsLabelledAt1280x720) {
    session().setSpeed(0);
    session().play();
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.finished(); }));
    auto* breakers = static_cast<BreakerStripChart*>(view_->chartView(gateway_charts::kBreakers));
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        window_->resize(size);
        QApplication::processEvents();
        breakers->replotNow();
        QApplication::processEvents();
        EXPECT_EQ(breakers->laneLabels(), breakers->lanes()) << size.width();
        EXPECT_EQ(breakers->lanes().size(), 9) << size.width();
    }
}

// At 1280x720 the seek slider has room to seek a week: the state label and the baseline buttons
// used to sit on its row and left it about 75 px (a ruler of "Mon 00:00" alone).
TEST_F(GatewayViewTest, TheSeekSliderHasRoomForAWeekAt1280x720) {
    GatewayRunSpec week = gatewayRunFromScenario(
        loadScenarioFile(scenarioDirectory() + "/gateway/week-v4-september.json"));
    ASSERT_TRUE(startAndWait(week));
    for (const QSize size : {QSize(1280, 720), QSize(2560, 1440)}) {
        window_->resize(size);
        QApplication::processEvents();
        ASSERT_EQ(window_->size(), size) << "the window takes the size";
        EXPECT_GE(view_->transport()->seekSlider()->width(), 300) << size.width();
    }
    // A notice over the charts leaves the window its size as well: the charts scroll under it.
    window_->resize(1280, 720);
    view_->showMessage("A notice of two lines: the first says what happened,\nthe second what to do", false);
    QApplication::processEvents();
    EXPECT_EQ(window_->size(), QSize(1280, 720));
}

TEST_F(GatewayViewTest, PauseStopsSimulatedTime) {
    // 10,000x: the day takes hours of wall time to run out, so the pause lands mid-run however
    // the machine is loaded (nothing here depends on how fast it actually goes).
    session().setSpeed(10000);
    session().play();
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.snapshot->now_s > 0; }));
    const quint64 pause = session().pause();
    ASSERT_TRUE(waitSettled(pause));
    const double pausedAt = session().latest()->snapshot->now_s;
    EXPECT_FALSE(session().latest()->playing);
    EXPECT_LT(pausedAt, session().latest()->snapshot->end_s) << "finished before the pause";
    QTest::qWait(400);
    EXPECT_EQ(session().latest()->snapshot->now_s, pausedAt);
    EXPECT_EQ(view_->latestFrame()->snapshot->now_s, pausedAt);
}

// Space plays and pauses; a click on the seek bar jumps to the point clicked.
TEST_F(GatewayViewTest, SpacePlaysAndPausesAndAClickOnTheSeekBarJumpsThere) {
    session().setSpeed(10000);
    QApplication::setActiveWindow(window_.get());
    view_->setFocus();
    QTest::keyClick(view_, Qt::Key_Space);
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.playing; })) << "Space plays";
    QTest::keyClick(view_, Qt::Key_Space);
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return !f.playing; })) << "Space pauses";

    QSlider* bar = view_->transport()->seekSlider();
    ASSERT_GT(bar->maximum(), 0);
    QSignalSpy seeks(view_->transport(), &TransportBar::seekRequested);
    const QPoint at(bar->width() * 3 / 4, bar->height() / 2);
    QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier, at);
    ASSERT_GE(seeks.count(), 1);
    const double target = seeks.last().at(0).toDouble();
    const double end = static_cast<double>(bar->maximum()) * TransportBar::kSliderStep_s;
    // Three quarters of the way, give or take the handle's width: not one page (an hour) on.
    EXPECT_NEAR(target / end, 0.75, 0.05) << target << " of " << end;
    ASSERT_TRUE(waitDrawn([&](const GatewayFrame& f) {
        return !f.seeking && std::abs(f.snapshot->now_s - target) < 120;
    })) << "the run jumps there";
}

TEST_F(GatewayViewTest, KnobChangeMidRunAppearsInTheTimeline) {
    ASSERT_TRUE(seekAndWait(6 * kHour));
    const quint64 before = session().lastCommand();
    auto* spin = view_->knobPanel()->findChild<QDoubleSpinBox*>("knob_spin_hedge_delay_ms");
    ASSERT_NE(spin, nullptr);
    spin->setValue(300);  // as typed: the panel debounces, then the view applies it mid-run
    ASSERT_TRUE(waitDrawn([before](const GatewayFrame& f) {
        return f.commandSeq > before && f.params.real("hedge_delay_ms") == 300;
    }));
    const GatewayFramePtr f = view_->latestFrame();
    EXPECT_EQ(f->snapshot->now_s, 6 * kHour);
    ASSERT_NE(f->timeline, nullptr);
    ASSERT_EQ(f->timeline->events.size(), 1u) << "the edit is a timeline event";
    const TimelineEvent& edit = f->timeline->events.front();
    EXPECT_EQ(edit.at_s, 6 * kHour);
    EXPECT_EQ(edit.set, (std::vector<KnobSetting>{{"hedge_delay_ms", 300}}));
    EXPECT_EQ(edit.label, "hedge_delay_ms 300");
    bool found = false;
    for (const auto& e : f->snapshot->timeline)
        found = found || (e.t_s == 6 * kHour && e.what.find("hedge_delay_ms") != std::string::npos);
    EXPECT_TRUE(found) << "no hedge_delay_ms event at 06:00 in the timeline";
    EXPECT_GT(view_->tables()->timelineTable()->rowCount(), 0);

    ASSERT_TRUE(seekAndWait(8 * kHour));
    // Marked on every time chart, at its moment of the week (the run starts Monday 00:00).
    for (const std::string id : {gateway_charts::kPercentiles, gateway_charts::kQueue,
                                 gateway_charts::kHedging, gateway_charts::kBreakers,
                                 gateway_charts::kCache}) {
        const auto& drawn = view_->chartView(id)->annotations();
        ASSERT_EQ(drawn.size(), 1u) << id;
        EXPECT_EQ(drawn[0].x0, 6 * kHour) << id;
        EXPECT_FALSE(drawn[0].x1.has_value()) << id;
        EXPECT_EQ(drawn[0].kind, "knob") << id;
        EXPECT_EQ(drawn[0].label, "Fixed hedge delay 420 → 300 ms") << id;
    }
}

TEST_F(GatewayViewTest, SeekingBackGivesTheSameStateAsAFreshRun) {
    const GatewayRunSpec spec = oneDay();
    ASSERT_TRUE(seekAndWait(2 * kHour));
    Params changed = spec.params;
    changed.set("hedge_delay_ms", 250);
    changed.set("hedge_mode", 1);
    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_delay_ms", 250}, {"hedge_mode", 1}})));
    ASSERT_TRUE(seekAndWait(10 * kHour));
    ASSERT_TRUE(seekAndWait(5 * kHour));  // back: rebuilt, the 02:00 change re-applied
    const GatewayFramePtr seeked = view_->latestFrame();
    ASSERT_EQ(seeked->snapshot->now_s, 5 * kHour);
    EXPECT_EQ(seeked->params.real("hedge_delay_ms"), 250);

    gateway::GatewaySim fresh(spec.params, spec.seed);
    fresh.advanceTo(2 * kHour);
    fresh.applyParams(changed);
    fresh.advanceTo(5 * kHour);
    const gateway::GatewaySnapshot expected = fresh.snapshot();
    EXPECT_EQ(counters(*seeked->snapshot), counters(expected));
    EXPECT_EQ(seeked->snapshot->latency_us.totalCount(), expected.latency_us.totalCount());
    EXPECT_EQ(seeked->snapshot->latency_us.valueAtPercentile(99),
              expected.latency_us.valueAtPercentile(99));
}

// The time charts side by side share their time axis: from the run's start (the first window's
// point is at its end, 00:10; the breaker strips start at 00:00) to now, with a marker's room.
TEST_F(GatewayViewTest, TheTimeChartsShareTheRunsTimeAxis) {
    ASSERT_TRUE(seekAndWait(3 * kHour));
    const double now = view_->latestFrame()->snapshot->now_s;
    ASSERT_EQ(now, 3 * kHour);
    const double upper = view_->chartView(gateway_charts::kBreakers)->viewRange().xUpper;
    EXPECT_GE(upper, now);
    EXPECT_LT(upper, now + 0.05 * now);
    for (const std::string id : {gateway_charts::kPercentiles, gateway_charts::kQueue,
                                 gateway_charts::kHedging, gateway_charts::kCache}) {
        const ChartView::ViewRange r = view_->chartView(id)->viewRange();
        EXPECT_EQ(r.xLower, 0) << id << ": the run starts Monday 00:00";
        EXPECT_EQ(r.xUpper, upper) << id << ": as the breaker strips' beside it";
    }
}

// With the cache off nothing is looked up: the cache chart says so instead of drawing a hit
// rate of 0 on a meaningless axis (v3), and the counters name each outcome in words.
TEST_F(GatewayViewTest, ACacheThatIsOffIsSaidNotDrawnAsZero) {
    GatewayRunSpec spec = oneDay();
    spec.params.set("cache_tiers", 0);
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(3 * kHour));
    ChartView* cache = view_->chartView(gateway_charts::kCache);
    EXPECT_EQ(points(*cache), 0u);
    EXPECT_TRUE(cache->emptyShown());
    EXPECT_TRUE(cache->emptyText().contains("cache is off")) << cache->emptyText().toStdString();
    EXPECT_GT(points(*view_->chartView(gateway_charts::kPercentiles)), 0u);

    QStringList counters;
    QTableWidget* table = view_->tables()->countersTable();
    for (int row = 0; row < table->rowCount(); ++row) counters << table->item(row, 0)->text();
    EXPECT_TRUE(counters.contains("deadline missed (503)")) << counters.join(" | ").toStdString();
    EXPECT_TRUE(counters.contains("rate limited (429)")) << counters.join(" | ").toStdString();
    for (const QString& c : counters) EXPECT_FALSE(c.contains('_')) << c.toStdString();
}

// A knob the run cannot change mid-run (the workload's) starts it again, and the notice names
// the knobs as the panel does, not by their keys.
TEST_F(GatewayViewTest, AKnobFixedForTheRunRestartsItNamingTheKnobAsThePanelDoes) {
    ASSERT_TRUE(seekAndWait(2 * kHour));
    QSignalSpy notices(&session(), &GatewaySession::notice);
    ASSERT_TRUE(waitSettled(session().applyChanges({{"load_multiplier", 1.5}, {"agent_share", 0.2}})));
    ASSERT_EQ(notices.size(), 1);
    const QString notice = notices.front().front().toString();
    EXPECT_TRUE(notice.startsWith("Load multiplier and Agent bursts cannot change during a run: the run "
                                  "started again"))
        << notice.toStdString();
    EXPECT_FALSE(notice.contains("load_multiplier")) << notice.toStdString();
    EXPECT_EQ(view_->latestFrame()->params.real("load_multiplier"), 1.5);
}

TEST_F(GatewayViewTest, HedgeSweepRunsOffTheUiThreadBesideThePublishedPoints) {
    SweepPanel* sweep = view_->sweepPanel();
    view_->showSweepTab(true);
    const Chart& before = sweep->currentChart();
    ASSERT_EQ(before.series.size(), 2u) << "published-figures.json not found";
    EXPECT_EQ(before.series[1].role, SeriesRole::Published);
    EXPECT_EQ(before.series[1].x.size(), 6u);

    sweep->delaysEdit()->setText("200, 450");
    QSignalSpy done(sweep, &SweepPanel::finished);
    ASSERT_TRUE(sweep->run());
    EXPECT_TRUE(sweep->running());
    ASSERT_TRUE(done.wait(kGatewayTimeoutMs)) << "the sweep did not finish";
    EXPECT_FALSE(done.first().first().toBool()) << "cancelled";
    const QString status = sweep->findChild<QLabel*>("gatewaySweepStatus")->text();
    EXPECT_TRUE(status.contains("a full run of 1 simulated day with")) << status.toStdString();
    ASSERT_EQ(sweep->points().size(), 2u);
    for (const auto& p : sweep->points()) {
        EXPECT_GT(p.p99_ms, 0);
        EXPECT_GE(p.extra_load, 0);
    }
    const auto drawn = sweep->chart()->plottedSeries();
    ASSERT_EQ(drawn.size(), 2u);
    EXPECT_EQ(drawn[0].x.size(), 2);
    EXPECT_GE(sweep->chart()->labelCount(), 1 + 6);  // coinciding points share a label
    EXPECT_LE(sweep->chart()->labelCount(), 2 + 6);
}

// The sweep's delays field shows every delay the chart will draw, from the first, at 1280x720
// (it used to show its end: "350, 420, 500, 600" of six).
TEST_F(GatewayViewTest, TheSweepsDelaysFieldShowsEveryDelayAt1280x720) {
    window_->resize(1280, 720);
    view_->showSweepTab(true);
    QApplication::processEvents();
    EXPECT_EQ(window_->size(), QSize(1280, 720)) << "the sweep's controls fit the width";
    QLineEdit* delays = view_->sweepPanel()->delaysEdit();
    EXPECT_EQ(delays->cursorPosition(), 0);
    EXPECT_GE(delays->width() - 10, delays->fontMetrics().horizontalAdvance(delays->text()))
        << delays->text().toStdString();
}

TEST_F(GatewayViewTest, EveryChartExportsPngAndCsv) {
    ASSERT_TRUE(seekAndWait(6 * kHour));
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    for (const auto& id : view_->chartIds()) {
        const QString png = dir.filePath(QString::fromStdString(id) + ".png");
        const QString csv = dir.filePath(QString::fromStdString(id) + ".csv");
        QString error;
        ASSERT_TRUE(view_->exportChart(id, ExportFormat::Png, png, &error))
            << id << ": " << error.toStdString();
        const QImage image(png);
        ASSERT_FALSE(image.isNull()) << id;
        EXPECT_GE(image.width(), ChartView::kMinExportSize.width()) << id;
        ASSERT_TRUE(view_->exportChart(id, ExportFormat::Csv, csv, &error))
            << id << ": " << error.toStdString();
        QFile file(csv);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << id;
        const QList<QByteArray> lines = file.readAll().split('\n');
        ASSERT_GT(lines.size(), 4) << id << " exported no rows";
        EXPECT_TRUE(lines[0].startsWith("# ")) << id;
        EXPECT_TRUE(lines[0].contains(" · seed ")) << lines[0].toStdString();
        EXPECT_TRUE(lines[1].startsWith("# ")) << id;
        // The strips name each point's lane beside its index, the sweep each point's delay.
        const char* header = id == gateway_charts::kBreakers ? "series,role,x,y,lane"
                             : id == gateway_charts::kSweep  ? "series,role,x,y,hedge_delay_ms"
                                                             : "series,role,x,y";
        EXPECT_EQ(lines[2], header) << id;
    }
    EXPECT_FALSE(view_->exportChart("no_such_chart", ExportFormat::Png, dir.filePath("x.png")));
}

// Requests in flight sit two decades under their limit: on a log axis both read, with the
// in-flight series above the axis floor wherever a window had any.
// Early in a run (a live one's first seconds) no customer has enough requests for a p99 of its
// own: the empty table says why instead of looking broken.
TEST(GatewayTablesTest, AnEmptyCustomerRankingSaysWhy) {
    GatewayTables tables;
    auto snapshot = std::make_shared<gateway::GatewaySnapshot>();
    snapshot->accepted = 42;
    auto frame = std::make_shared<GatewayFrame>();
    frame->snapshot = snapshot;
    frame->params = Params(gateway::GatewaySim::knobs());
    tables.setFrame(frame);
    EXPECT_EQ(tables.customersTable()->rowCount(), 0);
    const QString note = tables.customersNote();
    EXPECT_TRUE(
        note.contains(QString("%1 requests of its own").arg(gateway::kCustomerTailMinRequests)))
        << note.toStdString();
    EXPECT_TRUE(note.contains("42 accepted")) << note.toStdString();
    // Once a customer is ranked, the note goes.
    gateway::CustomerTail c;
    c.name = "cust-001 (pro)";
    c.requests = gateway::kCustomerTailMinRequests;
    c.p99_ms = 300;
    snapshot->worst_customers.push_back(c);
    gateway::CustomerTail d = c;
    d.name = "cust-002 (free)";
    d.p99_ms = 120;
    snapshot->worst_customers.push_back(d);
    tables.setFrame(frame);
    EXPECT_EQ(tables.customersTable()->rowCount(), 2);
    EXPECT_TRUE(tables.customersNote().isEmpty()) << tables.customersNote().toStdString();
}

// Every customer at the deadline: the note said the global p99 was 578 ms while each row said
// 582 ms and "1.01 ×" (the customers' histograms have 2 significant digits, the global one 3).
// The note and the rows compare with the global p99 read at the customers' resolution.
TEST(GatewayTablesTest, TheNoteSaysTheP99TheRowsShow) {
    GatewayTables tables;
    auto snapshot = std::make_shared<gateway::GatewaySnapshot>();
    snapshot->latency_us = HdrHistogram(HdrConfig{1, 60'000'000, 3});
    snapshot->latency_us.record(578'000, 1000);
    snapshot->accepted = 1000;
    snapshot->customers_global_p99_ms =
        HdrHistogram(HdrConfig{1, 60'000'000, 2}).highestEquivalent(snapshot->latency_us.valueAtPercentile(99)) /
        1000.0;
    ASSERT_EQ(QString::number(GatewayTables::globalP99_ms(*snapshot), 'f', 0), "578");
    for (const char* name : {"cust-001 (pro)", "cust-002 (free)"}) {
        gateway::CustomerTail c;
        c.name = name;
        c.requests = 500;
        c.p99_ms = snapshot->customers_global_p99_ms;  // the same requests, the same bucket
        c.failed = 10;
        snapshot->worst_customers.push_back(c);
    }
    auto frame = std::make_shared<GatewayFrame>();
    frame->snapshot = snapshot;
    frame->params = Params(gateway::GatewaySim::knobs());
    frame->params.set("deadline_ms", 580);
    tables.setFrame(frame);
    const QString note = tables.customersNote();
    ASSERT_EQ(tables.customersTable()->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        const QString p99 = tables.customersTable()->item(row, 2)->text();
        EXPECT_TRUE(note.contains(QString("(%1 ms)").arg(p99))) << note.toStdString() << " / " << p99.toStdString();
        EXPECT_EQ(tables.customersTable()->item(row, 3)->text(), "1.00 ×") << row;
    }
}

// A scenario with no timeline events: the Timeline tab says so instead of a blank table.
TEST(GatewayTablesTest, AnEmptyTimelineSaysSo) {
    GatewayTables tables;
    auto snapshot = std::make_shared<gateway::GatewaySnapshot>();
    auto frame = std::make_shared<GatewayFrame>();
    frame->snapshot = snapshot;
    frame->params = Params(gateway::GatewaySim::knobs());
    tables.setFrame(frame);
    EXPECT_EQ(tables.timelineTable()->rowCount(), 0);
    EXPECT_TRUE(tables.timelineNote().contains("No timeline events")) << tables.timelineNote().toStdString();
    // Once an event comes, the note goes.
    gateway::TimelineMark m;
    m.t_s = 60;
    m.what = "hedge_delay_ms 420 -> 300";
    m.knobs = {{"hedge_delay_ms", 420, 300}};
    snapshot->timeline.push_back(m);
    tables.setFrame(frame);
    EXPECT_EQ(tables.timelineTable()->rowCount(), 1);
    EXPECT_TRUE(tables.timelineNote().isEmpty()) << tables.timelineNote().toStdString();
    // The row names the knob as its panel does, not by its key.
    EXPECT_EQ(tables.timelineTable()->item(0, 0)->text(), "Fixed hedge delay 420 → 300 ms");
}

// A knob change reads as the knob panel writes the knobs: label, values in the panel's units (a
// share in percent, a choice by name), the unit once; a change with a label of its own, and any
// other mark, by its text.
TEST(GatewayChartsTest, AKnobChangeIsNamedAsItsPanelNamesIt) {
    gateway::TimelineMark m;
    m.what = "hedge_mode rolling p90 per (region, engine) -> fixed, agent_share 0.15 -> 0.3";
    m.knobs = {{"hedge_mode", 2, 1}, {"agent_share", 0.15, 0.3}};
    EXPECT_EQ(gateway_charts::markLabel(m),
              "Hedge delay rolling p90 per (region, engine) → fixed, Agent bursts 15 → 30 %");
    m.knobs = {{"days", 1, 2}};
    EXPECT_EQ(gateway_charts::markLabel(m), "Days simulated 1 day → 2 days");
    m.knobs = {{"no_such_knob", 1, 2}};
    EXPECT_EQ(gateway_charts::markLabel(m), m.what) << "a key this view does not know: the run's text";
    m.knobs.clear();
    m.what = "operator: fixed 300 ms hedge";
    EXPECT_EQ(gateway_charts::markLabel(m), m.what);
    m.kind = gateway::MarkKind::Fault;
    m.what = "atlas down (EU)";
    m.knobs = {{"hedge_delay_ms", 420, 300}};
    EXPECT_EQ(gateway_charts::markLabel(m), m.what);
}

TEST(GatewayChartsTest, InFlightIsDrawnAgainstItsLimitOnALogAxis) {
    gateway::GatewaySnapshot s;
    s.now_s = 1200;
    for (double t : {600.0, 1200.0}) {
        gateway::WindowPoint w;
        w.t_s = t;
        w.inflight_peak = {3, 7, 1};
        w.admission_limit = {200, 200, 180};
        s.windows.push_back(w);
    }
    const Chart c = gateway_charts::queue(s, 0);
    EXPECT_TRUE(c.log_y);
    GatewayTimeChart view;
    view.resize(600, 300);
    view.show();
    view.setChart(c);
    const auto range = view.viewRange();
    EXPECT_LE(range.yLower, 1.0);
    EXPECT_GE(range.yUpper, 200.0);
}

TEST(GatewayChartsTest, BreakerLanesAreClosedBetweenTheirSpans) {
    gateway::GatewaySnapshot s;
    s.now_s = 100;
    s.engines = {"atlas", "borealis"};
    s.breaker_spans = {{1, 0, gateway::BreakerState::Open, 10, 15, false},
                       {1, 0, gateway::BreakerState::HalfOpen, 15, 20, false},
                       {2, 1, gateway::BreakerState::Open, 90, 90, true}};
    const Chart c = gateway_charts::breakers(s, 86400);  // a run that starts on Tuesday
    ASSERT_EQ(c.series.size(), 3u);
    const Series& open = c.series[1];
    EXPECT_EQ(open.x, (std::vector<double>{86410, 86415, 86490, 86500}));
    EXPECT_EQ(open.y, (std::vector<double>{2, 2, 5, 5}));  // lane = region * engines + engine
    EXPECT_EQ(c.series[2].x, (std::vector<double>{86415, 86420}));
    // Closed: every lane from the start to now, but US / atlas around its spans.
    const Series& closed = c.series[0];
    std::vector<double> lane2;
    for (std::size_t i = 0; i < closed.x.size(); ++i)
        if (closed.y[i] == 2) lane2.push_back(closed.x[i] - 86400);
    EXPECT_EQ(lane2, (std::vector<double>{0, 10, 20, 100}));
    EXPECT_EQ(gateway_charts::laneName(s, 5), "APAC / borealis");
}

TEST(GatewayAppTest, ExportsAGatewayChartFromTheCommandLine) {
    QTemporaryDir dir;
    const QString csv = dir.filePath("queue.csv");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(TAILLAB_GUI_PATH, {"--gateway", "--until", "3h", "--chart", "gateway_queue",
                               "--export", csv});
    ASSERT_TRUE(p.waitForFinished(kGatewayTimeoutMs));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    QFile file(csv);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_TRUE(file.readAll().contains("EU limit"));

    p.start(TAILLAB_GUI_PATH, {"--gateway", "--until", "soon", "--screenshot",
                               dir.filePath("x.png")});
    ASSERT_TRUE(p.waitForFinished(30000 * kSlowdown));
    EXPECT_EQ(p.exitCode(), 2);
}

}  // namespace
}  // namespace taillab::ui::test
