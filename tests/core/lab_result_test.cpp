// What a check is: pass, fail, or undecided when its tolerance is too wide to tell anything.
#include <gtest/gtest.h>

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
