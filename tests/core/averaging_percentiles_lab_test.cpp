// The averaging-percentiles lab: the mixture quantile, the sign of the averaging error in both
// built-in cases, exact additivity of counts, and the lab contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "lab_test_support.h"
#include "labs/averaging_percentiles_model.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

using avg::Fleet;

const Lab& averagingLab() {
    const Lab* l = findLab("averaging_percentiles");
    EXPECT_NE(l, nullptr);
    return *l;
}

LabResult runAveraging(const std::vector<std::pair<std::string, double>>& set,
                       std::uint64_t seed = 1) {
    Params p = averagingLab().defaultParams();
    for (const auto& [k, v] : set) p.set(k, v);
    RunControl control;
    return averagingLab().run(p, seed, control, {});
}

TEST(AveragingClosedForm, PooledQuantileSolvesTheMixture) {
    const Fleet f{4, 0.01, 10, {10.0, 0.5}};
    const double q = f.pooledQuantile(0.99);
    EXPECT_NEAR(f.pooledCdf(q), 0.99, 1e-12);
    EXPECT_GT(q, f.hostQuantile(1, 0.99));
    EXPECT_LT(q, f.hostQuantile(0, 0.99));
    EXPECT_NEAR(f.hostQuantile(1, 0.99), 10.0 * std::exp(0.5 * 2.3263478740), 1e-6);
    EXPECT_NEAR(f.hostQuantile(0, 0.99), 10 * f.hostQuantile(1, 0.99), 1e-9);
}

TEST(AveragingClosedForm, ErrorIsZeroForIdenticalHostsAndChangesSignWithShare) {
    EXPECT_NEAR((Fleet{4, 0.3, 1, {10.0, 0.5}}).error(0.99), 0.0, 1e-9);
    const Fleet quiet{4, 0.01, 10, {10.0, 0.5}};
    const Fleet busy{4, 0.9, 3, {10.0, 0.5}};
    EXPECT_GT(quiet.error(0.99), 50.0);  // mean of p99s 104 ms against a pooled 49 ms
    EXPECT_LT(busy.error(0.99), -40.0);  // 48 ms against 94 ms
    const auto w = avg::zeroCrossingShare(quiet, 0.99, 0.001, 0.99);
    ASSERT_TRUE(w);
    Fleet at = quiet;
    at.odd_share = *w;
    EXPECT_NEAR(at.error(0.99), 0.0, 1e-6);
}

TEST(AveragingClosedForm, SplitGivesEveryHostRequestsAndSumsExactly) {
    const Fleet f{100, 0.99, 3, {10.0, 0.5}};
    const auto n = f.split(1000);
    EXPECT_EQ(std::accumulate(n.begin(), n.end(), std::int64_t{0}), 1000);
    for (auto v : n) EXPECT_GE(v, 1);
    const auto m = Fleet{4, 0.01, 10, {10.0, 0.5}}.split(100000);
    EXPECT_EQ(m[0], 1000);
    EXPECT_EQ(m[1], 33000);
}

TEST(AveragingPercentilesLab, DefaultOverstatesAndCountsAddExactly) {
    const LabResult r = runAveraging({});
    test::expectAllChecksPass(r);
    EXPECT_GT(*r.figure("error_ms"), 0);
    EXPECT_EQ(*r.figure("over_threshold_sum_of_hosts"), *r.figure("over_threshold_pooled"));
    EXPECT_EQ(r.distribution("pooled")->totalCount(), 1000000);
    for (const Check& c : r.checks) EXPECT_TRUE(c.applies()) << c.name << ": " << c.inconclusive;
    ASSERT_FALSE(r.charts.empty());
    EXPECT_EQ(r.charts.front().id, "error_vs_share");  // the key chart
    EXPECT_NE(r.chart("distributions"), nullptr);
}

TEST(AveragingPercentilesLab, BusyModerateHostUnderstates) {
    const LabResult r = runAveraging({{"odd_share", 0.9}, {"odd_slowness", 3}});
    test::expectAllChecksPass(r);
    EXPECT_LT(*r.figure("error_ms"), 0);
}

TEST(AveragingPercentilesLab, ChecksHoldAcrossKnobs) {
    test::expectAllChecksPass(
        runAveraging({{"hosts", 20}, {"odd_share", 0.2}, {"odd_slowness", 5}}));
    test::expectAllChecksPass(runAveraging({{"percentile", 99.9}, {"requests", 1000000}}));
    test::expectAllChecksPass(runAveraging({{"percentile", 50}, {"odd_share", 0.5}}));
}

// The explanation said the pooled p99 "barely moves" in the overstating case, where it rises
// from the healthy hosts' 32.0 ms to 48.8 ms (+52%). It says how far, as the closed forms give it.
TEST(AveragingPercentilesLab, ExplanationSaysHowFarThePooledP99Moves) {
    const std::string text = averagingLab().explanation();
    EXPECT_EQ(text.find("barely moves"), std::string::npos);
    const Fleet f{4, 0.01, 10, {10.0, 0.5}};
    EXPECT_NEAR(f.hostQuantile(1, 0.99), 32, 0.5);
    EXPECT_NEAR(f.pooledQuantile(0.99), 49, 0.5);
    EXPECT_NEAR(f.meanOfHostQuantiles(0.99), 104, 0.5);
    EXPECT_NE(text.find("(32 to 49 ms)"), std::string::npos);
    EXPECT_NE(text.find("(104 ms)"), std::string::npos);
}

TEST(AveragingPercentilesLab, DeterministicAndSeeded) {
    const std::string a = toJson(runAveraging({}, 5)).dump();
    EXPECT_EQ(a, toJson(runAveraging({}, 5)).dump());
    EXPECT_NE(a, toJson(runAveraging({}, 6)).dump());
}

TEST(AveragingPercentilesLab, CancellationStopsEarly) {
    Params p = averagingLab().defaultParams();
    p.set("requests", 10000000);
    RunControl control;
    control.requestCancel();
    const LabResult r = averagingLab().run(p, 1, control, {});
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.progress, 1.0);
    EXPECT_TRUE(r.checks.empty());
}

TEST(AveragingPercentilesLab, StreamsPartialResults) {
    std::vector<double> progress;
    RunControl control;
    averagingLab().run(averagingLab().defaultParams(), 1, control, [&](const LabResult& p) {
        progress.push_back(p.progress);
        EXPECT_LT(p.progress, 1.0);
        EXPECT_NE(p.chart("error_vs_share"), nullptr);
    });
    EXPECT_GE(progress.size(), 5u);
    EXPECT_LE(progress.size(), 10u);
}

// The lab decided checks whatever their tolerance: at 2,000 requests the pooled p99 passed at
// ±54 ms on 49 ms, at 10,000 at ±50%, and the shipped 100,000 decided "mean minus pooled" at ±50%.
// Every check that decides now resolves within a quarter of its value, as in the other labs; the
// rest are inconclusive and name the run that decides them, which does, where a tenth less does
// not.
TEST(AveragingPercentilesLab, EveryCheckDecidesWithinAQuarterOrNamesTheRunThatWould) {
    for (const std::int64_t requests : {2000, 10000, 100000}) {
        const LabResult r = test::runLabFileWithRequests("averaging-percentiles", requests);
        for (const Check& c : r.checks)
            if (c.applies() && c.closed_form != 0) {
                EXPECT_LE(toleranceShare(c), kMaxToleranceShare) << requests << ": " << c.name;
            }
    }
    const LabResult r = test::runLabFileWithRequests("averaging-percentiles", 10000);
    for (const char* name : {"pooled p99 from merged HDR (ms)", "mean minus pooled (ms)"}) {
        const Check* c = test::checkNamed(r, name);
        ASSERT_NE(c, nullptr) << name;
        test::expectAdvisedRunDecides("averaging-percentiles", *c);
    }
}

// At a run too short for the odd host's p99 (20 of its requests at 2,000, none past its p99)
// the odd host's and the mean's checks, and the sign claim, vanished from the list. They stay,
// inconclusive, saying why and naming the run that decides them.
TEST(AveragingPercentilesLab, AHostTooThinForItsPercentileKeepsItsChecksListed) {
    const LabResult r = test::runLabFileWithRequests("averaging-percentiles", 2000);
    for (const char* name : {"odd host p99 (ms)", "mean of host p99 (ms)",
                             "mean of host p99 overstates the pooled p99"}) {
        const Check* c = test::checkNamed(r, name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_NE(c->inconclusive.find("the odd host drew too few requests"), std::string::npos)
            << name << ": " << c->inconclusive;
    }
    test::expectAdvisedRunDecides("averaging-percentiles",
                                  *test::checkNamed(r, "odd host p99 (ms)"));
}

// The shipped scenarios decide their own checks: none is inconclusive.
TEST(AveragingPercentilesScenarios, ShippedRunsDecideEveryCheck) {
    for (const char* name : {"averaging-percentiles", "averaging-percentiles-understates"}) {
        const LabResult r = test::runLabFile(name);
        for (const Check& c : r.checks) EXPECT_TRUE(c.applies()) << name << ": " << c.name;
    }
}


TEST(AveragingPercentilesScenarios, BothCasesPassWithTheirSign) {
    for (const auto& [name, sign] : std::vector<std::pair<std::string, int>>{
             {"averaging-percentiles", 1}, {"averaging-percentiles-understates", -1}}) {
        const Scenario s =
            loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/" + name + ".json");
        const LabResult r = runScenario(s);
        test::expectAllChecksPass(r);
        EXPECT_EQ(*r.figure("error_ms") > 0 ? 1 : -1, sign) << name;
        EXPECT_EQ(*r.figure("closed_form_error_ms") > 0 ? 1 : -1, sign) << name;
    }
}

}  // namespace
}  // namespace taillab
