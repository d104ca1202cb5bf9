// The Run menu, its shortcuts and Export Whole Result act on the tab shown. They were the labs'
// alone and stayed live behind the other tabs: on the gateway tab Ctrl+B pinned the hidden lab
// result ("Pinned fanout as the baseline"), Reset Knobs reset the labs' knobs, Ctrl+R ran the
// lab and Export Whole Result wrote the lab's result.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>

#include "export_actions.h"
#include "gateway/gateway_view.h"
#include "gateway/live_view.h"
#include "gateway_test_support.h"
#include "knob_editor.h"
#include "knob_panel.h"

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

}  // namespace
}  // namespace taillab::ui::test
