// The Run menu, its shortcuts and Export Whole Result act on the tab shown. They were the labs'
// alone and stayed live behind the other tabs: on the gateway tab Ctrl+B pinned the hidden lab
// result ("Pinned fanout as the baseline"), Reset Knobs reset the labs' knobs, Ctrl+R ran the
// lab, Export Whole Result wrote the lab's result and Reset Zoom fitted the lab's chart.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>

#include "chart_area.h"
#include "export_actions.h"
#include "gateway/gateway_view.h"
#include "gateway/live_view.h"
#include "gateway_test_support.h"
#include "incident/incident_board.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "plots/chart_view.h"

namespace taillab::ui::test {
namespace {

TEST(TabActionsTest, TheRunMenuActsOnTheTabShown) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    QApplication::setActiveWindow(&window);
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    QAction* resultJson = window.findChild<ExportActions*>()->action(ExportFormat::ResultJson);
    ASSERT_TRUE(window.pinBaselineAction()->isEnabled());
    ASSERT_TRUE(window.runAction()->isEnabled());
    ASSERT_TRUE(resultJson->isEnabled());

    GatewayView* gateway = window.openGateway(oneDay(), /*play=*/false);
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return gateway->latestFrame() && gateway->latestFrame()->snapshot; },
                        kGatewayTimeoutMs));
    EXPECT_FALSE(window.runAction()->isEnabled()) << "Ctrl+R would run the hidden lab";
    EXPECT_FALSE(window.cancelAction()->isEnabled());
    EXPECT_FALSE(resultJson->isEnabled()) << "it would write the hidden lab's result";

    // Ctrl+B pins the gateway run, not the lab result behind the tab.
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.pinBaselineAction()->isEnabled(); },
                                kGatewayTimeoutMs));
    QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier);
    EXPECT_EQ(window.baseline(), nullptr);
    EXPECT_TRUE(gateway->hasBaseline());
    EXPECT_FALSE(window.pinBaselineAction()->isEnabled()) << "this run is pinned already";
    EXPECT_TRUE(window.clearBaselineAction()->isEnabled());
    window.clearBaselineAction()->trigger();
    EXPECT_FALSE(gateway->hasBaseline());

    // Reset Knobs resets the gateway's knobs; the labs' edit stays.
    window.knobPanel()->applyValue("backends", 50);
    gateway->knobPanel()->applyValue("hedge_budget", 0.3);
    ASSERT_TRUE(window.resetKnobsAction()->isEnabled());
    window.resetKnobsAction()->trigger();
    EXPECT_FALSE(gateway->knobPanel()->isEdited());
    EXPECT_TRUE(window.knobPanel()->isEdited());

    // The live tab has knobs but no pin and no lab run.
    window.openLive();
    EXPECT_FALSE(window.pinBaselineAction()->isEnabled());
    EXPECT_FALSE(window.runAction()->isEnabled());
    EXPECT_FALSE(resultJson->isEnabled());
    EXPECT_TRUE(window.resetKnobsAction()->isEnabled());
    QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier);
    EXPECT_EQ(window.baseline(), nullptr);

    // Back on the labs, they are the labs' again.
    QTest::keyClick(&window, Qt::Key_L, Qt::ControlModifier);
    ASSERT_TRUE(window.labsShown());
    EXPECT_TRUE(window.runAction()->isEnabled());
    EXPECT_TRUE(resultJson->isEnabled());
    // (the labs' knob edit above ran the lab again: once it has finished, it can be pinned)
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return window.pinBaselineAction()->isEnabled(); }, kRunTimeoutMs));
    QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier);
    EXPECT_NE(window.baseline(), nullptr);
}

// Zooms `view` in as the mouse wheel over its plot does.
void wheelZoom(ChartView* view) {
    wheelZoomIn(*view);
    ASSERT_TRUE(view->hasUserView()) << view->objectName().toStdString();
}

// View → Reset Zoom (Ctrl+0) reset the labs' chart whatever tab showed: on a gateway tab the
// zoomed charts in view stayed zoomed and the hidden lab chart lost its zoom. It fits the charts
// of the tab shown.
TEST(TabActionsTest, ResetZoomFitsTheChartsOfTheTabShown) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.resize(1600, 1000);
    window.show();
    QApplication::setActiveWindow(&window);
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    ChartView* lab = window.chartArea()->currentView();
    ASSERT_NE(lab, nullptr);
    wheelZoom(lab);

    GatewayView* gateway = window.openGateway(oneDay(), /*play=*/false);
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return gateway->latestFrame() && gateway->latestFrame()->snapshot; },
                        kGatewayTimeoutMs));
    QTest::qWait(50);  // laid out
    // Two charts, neither of them clicked (a wheel zoom does not make a chart the current one).
    const std::vector<std::string> ids = gateway->chartIds();
    ASSERT_GE(ids.size(), 2u);
    for (const std::string& id : {ids[0], ids[1]}) wheelZoom(gateway->chartView(id));
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    for (const std::string& id : {ids[0], ids[1]})
        EXPECT_FALSE(gateway->chartView(id)->hasUserView()) << id << " stayed zoomed";
    EXPECT_TRUE(lab->hasUserView()) << "the hidden lab chart lost its zoom";

    LiveView* live = window.openLive();
    QTest::qWait(50);
    const std::string liveId = live->chartIds().front();
    wheelZoom(live->chartView(liveId));
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(live->chartView(liveId)->hasUserView()) << liveId << " stayed zoomed";
    EXPECT_TRUE(lab->hasUserView()) << "the hidden lab chart lost its zoom";

    // The incident board's charts share one time range: Reset Zoom forgets it.
    const IncidentRunSpec spec = loadIncidentRun(
        std::string(TAILLAB_SCENARIO_DIR) + "/../tests/data/incident-eu-capacity.json", "", {},
        scenarioDirectory());
    IncidentBoard* board = window.openIncident(&spec, /*play=*/false);
    board->setTimeRange(86400 + 3600, 86400 + 7200);
    ASSERT_TRUE(board->timeRange().has_value());
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(board->timeRange().has_value()) << "the incident board stayed zoomed";
    EXPECT_TRUE(lab->hasUserView()) << "the hidden lab chart lost its zoom";

    // On the labs it fits the labs' chart, and leaves the gateway's alone.
    wheelZoom(gateway->chartView(ids[0]));
    QTest::keyClick(&window, Qt::Key_L, Qt::ControlModifier);
    ASSERT_TRUE(window.labsShown());
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(lab->hasUserView());
    EXPECT_TRUE(gateway->chartView(ids[0])->hasUserView());
}

}  // namespace
}  // namespace taillab::ui::test
