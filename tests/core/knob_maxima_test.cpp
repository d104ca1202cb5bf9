// Every lab at its knobs' maxima (README, "Limits") stays cancellable: cancelled at its first
// progress report, a run stops at its next checkpoint and says it was cancelled. How long a full
// run at the maxima takes is a benchmark (tests/bench/bench_knob_maxima.cpp), not a test.
#include <gtest/gtest.h>

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

std::vector<std::string> labIds() {
    std::vector<std::string> ids;
    for (const auto& lab : allLabs()) ids.push_back(lab->id());
    return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryLab, AtKnobMaxima, ::testing::ValuesIn(labIds()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace taillab
