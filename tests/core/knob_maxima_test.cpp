// Every lab at its knobs' maxima (README, "Limits") stays cancellable: cancelled at its first
// progress report, a run stops at its next checkpoint and says it was cancelled. How long a full
// run at the maxima takes is a benchmark (tests/bench/bench_knob_maxima.cpp), not a test.
#include <gtest/gtest.h>

#include <algorithm>

#include "labs/lab.h"

namespace taillab {
namespace {

class AtKnobMaxima : public ::testing::TestWithParam<std::string> {};

TEST_P(AtKnobMaxima, ARunCancelledAtItsFirstProgressReportStopsAndSaysSo) {
    const Lab* lab = findLab(GetParam());
    ASSERT_NE(lab, nullptr);
    Params params = lab->defaultParams();
    for (const auto& k : params.specs())
        if (k.kind == KnobKind::Real || k.kind == KnobKind::Integer) params.set(k.key, k.max);
    RunControl control;
    int reports = 0;
    control.onProgress = [&](double) {
        ++reports;
        control.requestCancel();
    };
    const LabResult r = lab->run(params, 1, control, {});
    EXPECT_GE(reports, 1) << "a long run must report its progress";
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.progress, 1.0);
}

// A knob's usedWhen names a knob of the same lab and values that knob can take, and the knob is
// used with some value of it: the GUI disables a knob on these conditions, so a typo would
// disable a knob for good, or never.
TEST_P(AtKnobMaxima, UsedWhenConditionsNameRealKnobsAndValues) {
    const Lab* lab = findLab(GetParam());
    const Params defaults = lab->defaultParams();
    for (const auto& k : defaults.specs()) {
        if (k.used_when_key.empty()) continue;
        SCOPED_TRACE(k.key);
        const KnobSpec* on = defaults.spec(k.used_when_key);
        ASSERT_NE(on, nullptr) << "unknown knob " << k.used_when_key;
        ASSERT_TRUE(on->kind == KnobKind::Choice || on->kind == KnobKind::Boolean);
        const std::vector<std::string> values =
            on->kind == KnobKind::Choice ? on->choices : std::vector<std::string>{"off", "on"};
        ASSERT_FALSE(k.used_when_values.empty());
        for (const auto& v : k.used_when_values)
            EXPECT_NE(std::find(values.begin(), values.end(), v), values.end()) << v;
        // Each value of the controlling knob either uses the knob or says why not.
        for (std::size_t i = 0; i < values.size(); ++i) {
            Params p = defaults;
            p.set(k.used_when_key, static_cast<double>(i));
            std::string why;
            const bool used = p.used(k.key, &why);
            const bool listed = std::find(k.used_when_values.begin(), k.used_when_values.end(),
                                          values[i]) != k.used_when_values.end();
            EXPECT_EQ(used, listed) << values[i];
            if (!used) {
                EXPECT_EQ(why, "not used while " + on->label + " is " + values[i]);
            }
        }
    }
}

std::vector<std::string> labIds() {
    std::vector<std::string> ids;
    for (const auto& lab : allLabs()) ids.push_back(lab->id());
    return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryLab, AtKnobMaxima, ::testing::ValuesIn(labIds()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace taillab
