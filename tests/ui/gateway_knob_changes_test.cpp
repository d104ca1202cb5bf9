// What a knob edit on the simulated gateway tab sends: only the knobs the user moved. The panel
// shows the knobs in force (after the timeline's `set` events) and lags the run by a frame or
// more; when the view sent the whole panel, an edit carried stale values back as edits (undoing
// the timeline's changes), and a restart took the knobs in force as the run's first knobs, on
// which the timeline then applied again, and Save Run wrote them.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QToolButton>

#include "gateway/gateway_scenario.h"
#include "gateway/transport_bar.h"
#include "gateway_test_support.h"
#include "knob_editor.h"
#include "knob_panel.h"

namespace taillab::ui::test {
namespace {


// The events of the run's timeline that the scenario did not bring: the edits.
std::vector<TimelineEvent> edits(const GatewayFrame& f, const GatewayRunSpec& spec) {
    std::vector<TimelineEvent> out;
    for (const TimelineEvent& e : f.timeline->events)
        if (std::find(spec.timeline.events.begin(), spec.timeline.events.end(), e) ==
            spec.timeline.events.end())
            out.push_back(e);
    return out;
}

TEST_F(GatewayViewTest, AnEditWhileThePanelLagsSendsOnlyTheKnobMoved) {
    const GatewayRunSpec spec = atlasDay();
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(16 * kHour));
    KnobPanel* panel = view_->knobPanel();
    ASSERT_EQ(panel->editor("hedge_mode")->value(), 1) << "the panel shows the 07:00 change";
    ASSERT_EQ(panel->editor("hedge_budget")->value(), 0.075) << "and the 15:00 one";

    // Back before 07:00, and an edit before the panel has caught up: it still shows 16:00's knobs.
    session().seek(6 * kHour);
    auto* spin = panel->findChild<QDoubleSpinBox*>("knob_spin_hedge_budget");
    ASSERT_NE(spin, nullptr);
    spin->setValue(0.3);
    ASSERT_TRUE(waitSettled(session().lastCommand()));

    const std::vector<TimelineEvent> made = edits(*view_->latestFrame(), spec);
    ASSERT_EQ(made.size(), 1u);
    ASSERT_EQ(made[0].set.size(), 1u) << made[0].label;
    EXPECT_EQ(made[0].set[0].key, "hedge_budget");
    EXPECT_EQ(made[0].set[0].value, 0.3);
    const Params& at6 = view_->latestFrame()->params;
    EXPECT_EQ(at6.real("hedge_mode"), spec.params.real("hedge_mode")) << "not the 07:00 value";
    EXPECT_EQ(at6.real("hedge_delay_ms"), spec.params.real("hedge_delay_ms"));
    EXPECT_EQ(at6.real("hedge_budget"), 0.3);
    ASSERT_TRUE(seekAndWait(8 * kHour));
    EXPECT_EQ(view_->latestFrame()->params.real("hedge_mode"), 1) << "07:00 still applies";
    EXPECT_EQ(view_->latestFrame()->params.real("hedge_delay_ms"), 300);
}

TEST_F(GatewayViewTest, ARestartStartsFromTheRunsFirstKnobsNotTheOnesInForce) {
    const GatewayRunSpec spec = atlasDay();
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(16 * kHour));
    ASSERT_EQ(view_->knobPanel()->editor("hedge_budget")->value(), 0.075);

    // The Restart button: the run's first knobs, and the timeline applies once on top of them.
    std::uint64_t run = view_->latestFrame()->runId;
    view_->transport()->restartButton()->click();
    ASSERT_TRUE(waitDrawn([run](const GatewayFrame& f) { return f.runId > run; }));
    EXPECT_EQ(view_->latestFrame()->initialParams.toJson(), spec.params.toJson());
    EXPECT_EQ(view_->latestFrame()->params.real("hedge_mode"), spec.params.real("hedge_mode"));
    ASSERT_TRUE(seekAndWait(16 * kHour));
    EXPECT_EQ(view_->latestFrame()->params.real("hedge_budget"), 0.075);
    QTemporaryDir dir;
    QString error;
    ASSERT_TRUE(view_->saveRun(dir.filePath("restarted.json"), &error)) << error.toStdString();
    EXPECT_EQ(loadScenarioFile(dir.filePath("restarted.json").toStdString()).params.toJson(),
              spec.params.toJson())
        << "Save Run writes the run's first knobs";

    // A knob that restarts the run: the first knobs with that one knob changed.
    run = view_->latestFrame()->runId;
    view_->knobPanel()->applyValue("days", 2);
    ASSERT_TRUE(waitDrawn([run](const GatewayFrame& f) { return f.runId > run; }));
    Params expected = spec.params;
    expected.set("days", 2);
    EXPECT_EQ(view_->latestFrame()->initialParams.toJson(), expected.toJson());
}

// A knob the scenario's own timeline changed is not the user's edit: the panel shows the value in
// force, with neither the edited dot nor a reset button, and says what set it; the user's edit
// of it still shows as one, and its reset goes back to the value in force; Restart goes back to
// the scenario's first values.
TEST_F(GatewayViewTest, AKnobTheTimelineChangedIsNoEdit) {
    const GatewayRunSpec spec = atlasDay();
    ASSERT_TRUE(startAndWait(spec));
    KnobPanel* knobs = view_->knobPanel();
    ASSERT_TRUE(seekAndWait(16 * kHour));
    ASSERT_TRUE(QTest::qWaitFor([&] { return knobs->editor("hedge_budget")->value() == 0.075; },
                                5000 * kSlowdown));
    EXPECT_EQ(knobs->editor("hedge_delay_ms")->value(), 300);
    for (const char* key : {"hedge_mode", "hedge_delay_ms", "hedge_budget"}) {
        EXPECT_FALSE(knobs->editor(key)->property("modified").toBool()) << key;
        EXPECT_TRUE(knobs->resetButton(key)->isHidden()) << key;
    }
    EXPECT_FALSE(knobs->isEdited());
    QLabel* budgetLabel = knobs->editor("hedge_budget")->parentWidget()->findChild<QLabel*>(
        QString(), Qt::FindDirectChildrenOnly);
    ASSERT_NE(budgetLabel, nullptr);
    EXPECT_FALSE(budgetLabel->text().startsWith(QChar(0x25CF))) << budgetLabel->text().toStdString();
    EXPECT_TRUE(budgetLabel->toolTip().contains("timeline at Tue 15:00"))
        << budgetLabel->toolTip().toStdString();

    // The user's own edit is one, and its reset goes back to the value in force.
    knobs->applyValue("hedge_budget", 0.2);
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.params.real("hedge_budget") == 0.2; }));
    EXPECT_TRUE(knobs->editor("hedge_budget")->property("modified").toBool());
    EXPECT_FALSE(knobs->resetButton("hedge_budget")->isHidden());
    knobs->resetButton("hedge_budget")->click();
    EXPECT_EQ(knobs->editor("hedge_budget")->value(), 0.075);
    EXPECT_TRUE(knobs->resetButton("hedge_budget")->isHidden());
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.params.real("hedge_budget") == 0.075; }));

    // Restart: the scenario's first values, and no mark left from the timeline.
    const std::uint64_t run = view_->latestFrame()->runId;
    view_->transport()->restartButton()->click();
    ASSERT_TRUE(waitDrawn([run](const GatewayFrame& f) { return f.runId > run && f.snapshot->now_s < kHour; }));
    EXPECT_EQ(view_->latestFrame()->initialParams.toJson(), spec.params.toJson());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return knobs->editor("hedge_budget")->value() == spec.params.real("hedge_budget"); },
        5000 * kSlowdown));
    EXPECT_EQ(knobs->editor("hedge_mode")->value(), spec.params.real("hedge_mode"));
    EXPECT_FALSE(budgetLabel->toolTip().contains("timeline")) << budgetLabel->toolTip().toStdString();
    EXPECT_TRUE(knobs->resetButton("hedge_budget")->isHidden());
}

}  // namespace
}  // namespace taillab::ui::test
