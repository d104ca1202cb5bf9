// What a check is: pass, fail, or undecided when its tolerance is too wide to tell anything.
#include <gtest/gtest.h>

#include <stdexcept>

#include "labs/lab.h"
#include "labs/lab_result.h"

namespace taillab {
namespace {

// fanout-tail-at-scale's "hedged requests with a slow call": expected 1.0e-6, tolerance 1.5e-5
// from 300,000 requests. It passed whatever the run measured, 0 included.
TEST(CheckResolution, AToleranceWiderThanAQuarterOfTheValueDecidesNothing) {
    Check c = makeCheck("rare", 0.0, 1.0e-6, 1.5e-5, false, "closed form");
    EXPECT_TRUE(c.passed());
    requireResolution(c, "run at least 256,000,000 requests");
    EXPECT_FALSE(c.applies());
    EXPECT_FALSE(c.passed());
    EXPECT_FALSE(c.failed());
    EXPECT_NE(c.inconclusive.find("run at least 256,000,000 requests"), std::string::npos);
}

TEST(CheckResolution, ATightCheckStillPassesOrFails) {
    Check pass = makeCheck("p99", 100.0, 100.0, 20.0, false, "closed form");
    requireResolution(pass, "");
    EXPECT_TRUE(pass.passed());
    Check fail = makeCheck("p99", 130.0, 100.0, 25.0, false, "closed form");
    requireResolution(fail, "");
    EXPECT_TRUE(fail.failed());
    Check relative = makeCheck("share", 0.5, 1.0, 0.3, true, "closed form");
    requireResolution(relative, "");
    EXPECT_FALSE(relative.applies());
}

TEST(CheckResolution, AnEarlierReasonAndAZeroValueAreLeftAlone) {
    Check unsettled = makeCheck("p99", 100.0, 100.0, 80.0, false, "closed form");
    unsettled.inconclusive = "too short to decide";
    requireResolution(unsettled, "x");
    EXPECT_EQ(unsettled.inconclusive, "too short to decide");
    Check zero = makeCheck("extra work", 0.01, 0.0, 0.02, false, "closed form");
    requireResolution(zero, "x");
    EXPECT_TRUE(zero.passed());
}

// A check's advice names the knob settings of the run that would decide it; the runner says
// when one is above what its knob allows, once for all the knobs named, and leaves advice within
// the range as it was.
TEST(CheckAdvice, AnAdvisedRunAboveTheKnobsRangeSaysNoRunHereDecides) {
    const std::vector<KnobSpec> knobs{
        KnobSpec::integer("requests", "Requests", "requests", 1000, 10'000'000, 20'000, ""),
        KnobSpec::integer("servers", "Servers", "servers", 2, 10'000, 100, ""),
        KnobSpec::real("duration_s", "Duration", "s", 10, 3600, 240, "")};
    auto wide = [](const char* name) {
        return makeCheck(name, 1.0, 1.0, 0.5, false, "closed form");
    };
    LabResult r;
    r.checks = {wide("within"), wide("above"), wide("both"), wide("duration"), wide("none")};
    requireResolution(r.checks[0], runAtLeast(10'000'000));
    requireResolution(r.checks[1], runAtLeast(39'401'752));
    requireResolution(r.checks[2], "run with at least 20,000 servers and 12,000,000 requests",
                      {{"servers", 20'000}, {"requests", 12e6}});
    requireResolution(r.checks[3], "run at least 7315 s (duration_s)", {{"duration_s", 7315}});
    requireResolution(r.checks[4], kNoSampleSizeDecides);
    Check claim = makeClaim("sweep", 1, Bound::AtMost, 4.5, true,
                            "closed form; 2 points left out (run at least "
                            "12,000,000 requests)");
    claim.advice = {{"requests", 12e6}};
    r.checks.push_back(claim);
    const LabResult before = r;
    noteAdviceBeyondKnobs(r, knobs);
    const std::string noRun = ", so no run here decides it";
    EXPECT_EQ(r.checks[0].inconclusive, before.checks[0].inconclusive);
    EXPECT_EQ(
        r.checks[1].inconclusive,
        before.checks[1].inconclusive + " — above the 10,000,000 the requests knob allows" + noRun);
    EXPECT_EQ(r.checks[2].inconclusive, before.checks[2].inconclusive +
                                            " — above the 10,000 the servers knob allows and the "
                                            "10,000,000 the requests knob allows" +
                                            noRun);
    EXPECT_EQ(
        r.checks[3].inconclusive,
        before.checks[3].inconclusive + " — above the 3,600 s the duration_s knob allows" + noRun);
    EXPECT_EQ(r.checks[4].inconclusive, before.checks[4].inconclusive);
    EXPECT_TRUE(r.checks[5].inconclusive.empty());
    EXPECT_EQ(r.checks[5].source,
              before.checks[5].source + " — above the 10,000,000 the requests knob allows");
    // Advice on a knob the lab does not have is a mistake in the lab.
    r.checks[0].advice = {{"calibration_samples", 5}};
    EXPECT_THROW(noteAdviceBeyondKnobs(r, knobs), std::logic_error);
}

// A claim's expected value is a bound: the result says which side of it the run must be on (a
// reader would take "expected 15,785" for the value the run should have had); a two-sided check
// writes no bound, its result's bytes as before. A claim cannot be two-sided.
TEST(CheckBound, AClaimWritesItsSideAndACheckWritesNone) {
    LabResult r;
    r.checks.push_back(makeCheck("p99", 1, 1, 0.1, false, "closed form"));
    r.checks.push_back(makeClaim("hedges within the budget", 10, Bound::AtMost, 12, true, "invariant"));
    r.checks.push_back(makeClaim("overstates", 3, Bound::Above, 0, true, "sign"));
    const auto j = toJson(r);
    EXPECT_FALSE(j.at("checks").at(0).contains("bound"));
    EXPECT_EQ(j.at("checks").at(1).at("bound"), "at_most");
    EXPECT_EQ(j.at("checks").at(2).at("bound"), "above");
    EXPECT_STREQ(boundSymbol(Bound::AtMost), "\u2264");
    EXPECT_THROW(makeClaim("x", 1, Bound::Within, 1, true, ""), std::logic_error);
}

TEST(CheckRecordedInRange, DroppedSamplesAreAFailedInvariant) {
    LabResult r;
    checkRecordedInRange(r, 0, "request latencies");
    EXPECT_TRUE(r.checks.empty());
    checkRecordedInRange(r, 3, "request latencies");
    ASSERT_EQ(r.checks.size(), 1u);
    EXPECT_TRUE(r.checks[0].failed());
    EXPECT_EQ(r.checks[0].simulated, 3);
    EXPECT_FALSE(r.allChecksPass());
}

}  // namespace
}  // namespace taillab
