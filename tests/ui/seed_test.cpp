// A scenario's seed is a std::uint64_t: the window keeps every value of it exactly. The seed box
// was a QSpinBox (an int), which clamped 3,000,000,000 to 2,147,483,647: the labs ran and saved
// the clamped seed and showed the scenario as edited, and the gateway tab took the first knob
// edit for a new seed and restarted the run.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QTemporaryDir>
#include <QValidator>
#include <fstream>
#include <limits>

#include "gateway_test_support.h"
#include "knob_panel.h"
#include "scenario/scenario.h"
#include "seed_edit.h"

namespace taillab::ui::test {
namespace {

constexpr std::uint64_t kBigSeed = 3000000000ULL;  // above INT_MAX
constexpr std::uint64_t kMaxSeed = std::numeric_limits<std::uint64_t>::max();

std::string bigSeedFanout() {
    return "{\"schema_version\": 1, \"name\": \"big-seed\", \"lab\": \"fanout\", "
           "\"seed\": 3000000000, \"params\": {\"requests\": 2000}}\n";
}

TEST(SeedTest, TheKnobPanelKeepsASeedAboveTwoToThe31Exactly) {
    const Scenario s = parseScenario(bigSeedFanout(), "big-seed.json");
    ASSERT_EQ(s.seed, kBigSeed);
    KnobPanel panel;
    panel.setScenario(s, "backends");
    EXPECT_EQ(panel.editedScenario().seed, kBigSeed);
    EXPECT_FALSE(panel.isEdited()) << "an untouched seed is not an edit";
    EXPECT_EQ(panel.seedBox()->text().toStdString(), "3000000000");

    // Typed: the largest seed a scenario may hold is taken as it is...
    QSignalSpy edited(&panel, &KnobPanel::edited);
    panel.seedBox()->selectAll();
    QTest::keyClicks(panel.seedBox(), "18446744073709551615");
    QTest::keyClick(panel.seedBox(), Qt::Key_Return);
    EXPECT_EQ(panel.editedScenario().seed, kMaxSeed);
    EXPECT_TRUE(panel.isEdited());
    EXPECT_EQ(edited.count(), 1);
    // ...and one more than it cannot be typed.
    QString tooBig = "18446744073709551616";
    int pos = 0;
    EXPECT_EQ(panel.seedBox()->validator()->validate(tooBig, pos), QValidator::Invalid);
    QString letters = "12a";
    EXPECT_EQ(panel.seedBox()->validator()->validate(letters, pos), QValidator::Invalid);

    panel.resetToScenario();
    EXPECT_EQ(panel.editedScenario().seed, kBigSeed);
    EXPECT_FALSE(panel.isEdited());
}

TEST(SeedTest, ALabScenarioRunsAndSavesItsSeedAboveTwoToThe31) {
    QTemporaryDir dir;
    const QString path = dir.filePath("big-seed.json");
    std::ofstream(path.toStdString()) << bigSeedFanout();
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, path));
    EXPECT_EQ(window.latestResult()->seed, kBigSeed) << "the run used the scenario's seed";
    EXPECT_FALSE(window.isWindowModified()) << "nothing was edited";

    const QString saved = dir.filePath("saved.json");
    QString error;
    ASSERT_TRUE(window.saveScenarioAs(saved, &error)) << error.toStdString();
    EXPECT_EQ(loadScenarioFile(saved.toStdString()).seed, kBigSeed);
}

TEST_F(GatewayViewTest, AKnobEditKeepsARunWhoseSeedIsAboveTwoToThe31) {
    GatewayRunSpec spec = oneDay();
    spec.seed = kBigSeed;
    ASSERT_TRUE(startAndWait(spec));
    const GatewayFramePtr before = view_->latestFrame();
    ASSERT_EQ(before->seed, kBigSeed);
    ASSERT_TRUE(seekAndWait(2 * kHour));

    auto* spin = view_->knobPanel()->findChild<QDoubleSpinBox*>("knob_spin_hedge_budget");
    ASSERT_NE(spin, nullptr);
    spin->setValue(0.3);  // as typed
    ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) {
        return std::abs(f.params.real("hedge_budget") - 0.3) < 1e-9;
    }));
    const GatewayFramePtr after = view_->latestFrame();
    EXPECT_EQ(after->runId, before->runId) << "the edit restarted the run";
    EXPECT_EQ(after->seed, kBigSeed);
    EXPECT_GE(after->snapshot->now_s, 2 * kHour) << "the run went back to 00:00";
}

}  // namespace
}  // namespace taillab::ui::test
