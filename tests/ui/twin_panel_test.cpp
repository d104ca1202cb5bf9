// The twin panel in a real widget: a short twin run (simulated, then live over loopback with real
// sockets) fills the table with each figure, and Cancel ends a long one early without hanging.
#include <gtest/gtest.h>

#include <cstdlib>

#include <QAction>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>

#include "gateway/live_view.h"
#include "gateway/twin_panel.h"
#include "scenario/scenario.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

Scenario smallScenario() {
    return parseScenario(R"({"schema_version": 1, "name": "twin-ui", "title": "t", "lab": "gateway", "seed": 3,
        "params": {"days": 1}})",
                         "twin-ui.json");
}

TEST(TwinPanelTest, AShortTwinFillsTheTableWithEachFigureSideBySide) {
    TwinPanel panel;
    panel.resize(980, 520);  // as the Run menu opens it
    panel.show();
    EXPECT_FALSE(panel.start());  // no scenario yet
    EXPECT_NE(panel.statusLabel()->text().indexOf("scenario"), -1);
    panel.setScenario(smallScenario());
    panel.rateBox()->setValue(20);
    panel.durationBox()->setValue(2);
    panel.startBox()->setValue(14);
    QSignalSpy finished(&panel, &TwinPanel::finished);
    ASSERT_TRUE(panel.start());
    EXPECT_TRUE(panel.running());
    EXPECT_FALSE(panel.rateBox()->isEnabled());
    EXPECT_FALSE(panel.start());  // one at a time
    ASSERT_TRUE(finished.wait(30000 * kSlowdown));
    EXPECT_TRUE(finished.at(0).at(0).toBool()) << panel.statusLabel()->text().toStdString();
    ASSERT_TRUE(panel.result());
    const QTableWidget* t = panel.table();
    ASSERT_EQ(t->rowCount(), static_cast<int>(panel.result()->rows.size()));
    EXPECT_EQ(t->item(0, 0)->text(), "requests");
    EXPECT_EQ(t->item(0, 1)->text(), t->item(0, 2)->text());  // every planned request, both sides
    EXPECT_EQ(t->item(0, 5)->text(), "within");
    EXPECT_NE(t->item(3, 0)->text().indexOf("p99"), -1);
    EXPECT_TRUE(t->item(3, 1)->text().endsWith(" ms"));
    // The stage times: a row per stage, both sides in ms.
    const QTableWidget* stages = panel.stageTable();
    ASSERT_EQ(stages->rowCount(), static_cast<int>(panel.result()->stages.size()));
    ASSERT_GT(stages->rowCount(), 0);
    EXPECT_EQ(stages->item(0, 0)->text().toStdString(), panel.result()->stages[0].stage);
    EXPECT_TRUE(stages->item(0, 1)->text().endsWith(" ms"));
    EXPECT_TRUE(stages->item(0, 2)->text().endsWith(" ms"));
    // The start reads as a time on the scenario's clock, in the status line too.
    EXPECT_EQ(panel.startBox()->text(), "Mon 14:00");
    EXPECT_NE(panel.statusLabel()->text().indexOf("from Mon 14:00"), -1)
        << panel.statusLabel()->text().toStdString();
    EXPECT_TRUE(panel.rateBox()->isEnabled());
    saveScreenshot(panel, "twin_panel");
}

TEST(TwinPanelTest, TheRunMenuOpensItForTheGatewayScenario) {
    MainWindow window(scenarioDirectory());
    window.show();
    QAction* act = window.findChild<QAction*>("twinAction");
    ASSERT_NE(act, nullptr);
    act->trigger();
    auto* dialog = window.findChild<QDialog*>("twinDialog");
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    auto* panel = dialog->findChild<TwinPanel*>("twinPanel");
    ASSERT_NE(panel, nullptr);
    EXPECT_NE(panel->statusLabel()->text().indexOf("week-v4-september"), -1)
        << panel->statusLabel()->text().toStdString();
    EXPECT_FALSE(panel->running());
}

TEST(TwinPanelTest, TheLiveTabsTwinButtonTwinsThePickedScenario) {
    MainWindow window(scenarioDirectory());
    window.show();
    LiveView* live = window.openLive();
    ASSERT_NE(live, nullptr);
    ASSERT_TRUE(live->selectScenario("day-eu-atlas-slow"));
    auto* button = live->findChild<QPushButton*>("liveTwin");
    ASSERT_NE(button, nullptr);
    button->click();
    auto* panel = window.findChild<TwinPanel*>("twinPanel");
    ASSERT_NE(panel, nullptr);
    EXPECT_NE(panel->statusLabel()->text().indexOf("day-eu-atlas-slow"), -1)
        << panel->statusLabel()->text().toStdString();
}

TEST(TwinPanelTest, CancelEndsALongRunEarly) {
    TwinPanel panel;
    panel.setScenario(smallScenario());
    panel.rateBox()->setValue(10);
    panel.durationBox()->setValue(120);
    panel.startBox()->setValue(14);
    QSignalSpy finished(&panel, &TwinPanel::finished);
    ASSERT_TRUE(panel.start());
    QTest::qWait(500);
    panel.cancel();
    ASSERT_TRUE(finished.wait(20000 * kSlowdown));  // a release build: far sooner than the run's 120 s
    EXPECT_FALSE(finished.at(0).at(0).toBool());
    EXPECT_NE(panel.statusLabel()->text().indexOf("cancelled"), -1) << panel.statusLabel()->text().toStdString();
    EXPECT_FALSE(panel.running());
}

TEST(TwinPanelTest, ClosingThePanelDuringARunDoesNotHang) {
    auto panel = std::make_unique<TwinPanel>();
    panel->setScenario(smallScenario());
    panel->rateBox()->setValue(10);
    panel->durationBox()->setValue(120);
    ASSERT_TRUE(panel->start());
    QTest::qWait(300);
    panel.reset();  // cancels and joins; the test times out if it hangs
    SUCCEED();
}

}  // namespace
}  // namespace taillab::ui::test
