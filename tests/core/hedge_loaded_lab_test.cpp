// The hedge_loaded lab: the hedged M/M/c-style model on the event core, its cancel rules, the
// M/M/1 closed form without hedging, the published claims, determinism and cancellation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lab_test_support.h"
#include "labs/hedge_loaded_sim.h"
#include "labs/lab.h"
#include "labs/queueing.h"
#include "labs/warmup.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

HedgeSimStreams streams(std::uint64_t seed) {
    return HedgeSimStreams{Rng(seed, "a"), Rng(seed, "r"), Rng(seed, "s"), Rng(seed, "br"),
                           Rng(seed, "bs")};
}

HedgeSimConfig config(double load, HedgeMode mode, CancelRule cancel, std::int64_t requests) {
    HedgeSimConfig c;
    c.servers = 10;
    c.load = load;
    c.requests = requests;
    c.warmup = requests / 10;
    c.mode = mode;
    c.hedgeDelay = fromMs(20);
    c.cancel = cancel;
    return c;
}

struct SimRun {
    HedgeSimStats stats;
    HdrHistogram response{hedgeResponseHdrConfig()};
};

SimRun simulate(const HedgeSimConfig& c, std::uint64_t seed = 7) {
    SimRun r;
    r.stats = runHedgeSim(c, streams(seed), r.response);
    return r;
}

double capacityCost(const HedgeSimStats& s) { return s.busyMs / s.demandMs - 1.0; }

TEST(HedgeLoadedSim, WithoutHedgingEachServerIsMm1) {
    const SimRun r = simulate(config(0.5, HedgeMode::None, CancelRule::Both, 200'000));
    const double mu = 1.0 / 10.0;  // per ms
    const double mean = queueing::mm1MeanResponse(0.5 * mu, mu);
    const double se = queueing::mm1MeanStandardError(0.5, mu, r.stats.measured);
    EXPECT_NEAR(r.response.mean() / 1000.0, mean, 4 * se);
    const double p99 = queueing::mm1ResponseQuantile(0.99, 0.5 * mu, mu);
    const double seP99 = queueing::mm1QuantileStandardError(0.99, 0.5, mu, r.stats.measured);
    EXPECT_NEAR(r.response.valueAtPercentile(99) / 1000.0, p99, 4 * seP99);
    EXPECT_EQ(r.stats.backupsSent, 0);
    EXPECT_NEAR(capacityCost(r.stats), 0.0, 1e-12);
}

TEST(HedgeLoadedSim, EveryRequestEndsExactlyOnceUnderEveryPolicy) {
    for (auto mode : {HedgeMode::None, HedgeMode::Delayed, HedgeMode::Immediate}) {
        for (auto cancel : {CancelRule::Both, CancelRule::BackupOnly, CancelRule::Nothing}) {
            const SimRun r = simulate(config(0.6, mode, cancel, 20'000));
            const HedgeSimStats& s = r.stats;
            EXPECT_EQ(s.arrived, 20'000);
            EXPECT_EQ(s.answered, s.arrived);
            EXPECT_EQ(s.measured, r.response.totalCount());
            EXPECT_EQ(s.copiesCreated, s.arrived + s.backupsSent);
            EXPECT_EQ(s.copiesCreated, s.copiesFinished + s.copiesDropped + s.copiesStopped);
            if (cancel == CancelRule::Nothing) {
                EXPECT_EQ(s.copiesDropped + s.copiesStopped, 0);
            }
            if (mode == HedgeMode::Immediate) {
                EXPECT_EQ(s.backupsSent, s.arrived);
            }
        }
    }
}

// Memorylessness: when either copy may be stopped, two exponential copies in service together
// finish at rate 2μ, so hedging spends no extra server time at all.
TEST(HedgeLoadedSim, CancellingBothCopiesCostsNothingWithExponentialService) {
    const SimRun r = simulate(config(0.3, HedgeMode::Immediate, CancelRule::Both, 100'000));
    EXPECT_NEAR(capacityCost(r.stats), 0.0, 0.01);
}

// Duplicate-all with backup_only: the primary always runs in full and the backup runs until the
// first answer; both exponential, so the backup's busy time averages 1/(2μ): a 50% cost.
TEST(HedgeLoadedSim, DuplicatingWithBackupOnlyCancelCostsHalfAService) {
    const SimRun r = simulate(config(0.3, HedgeMode::Immediate, CancelRule::BackupOnly, 100'000));
    EXPECT_NEAR(capacityCost(r.stats), 0.5, 0.02);
    const SimRun n = simulate(config(0.2, HedgeMode::Immediate, CancelRule::Nothing, 100'000));
    EXPECT_NEAR(capacityCost(n.stats), 1.0, 0.02);
}

TEST(HedgeLoadedLab, DefaultScenarioPassesItsChecks) {
    const LabResult r = test::runLabFile("hedge-loaded");
    EXPECT_TRUE(r.allChecksPass());
    ASSERT_NE(r.chart("p99_vs_load"), nullptr);
    ASSERT_NE(r.chart("median_vs_load"), nullptr);
    ASSERT_NE(r.chart("distribution"), nullptr);
    EXPECT_EQ(r.chart("p99_vs_load")->series.size(), 5u);  // four policies + M/M/1
    EXPECT_EQ(r.distributions.size(), 4u);
}

// The published claims hold with backup_only cancellation (the scenario file asserts them).
TEST(HedgeLoadedLab, PublishedClaimsHoldWhenOnlyTheBackupIsCancelled) {
    const LabResult r = test::runLabFile("hedge-loaded-published");
    for (const auto& c : r.checks) EXPECT_TRUE(c.pass) << c.name << " " << c.simulated;
    EXPECT_GE(*r.figure("pxx_capacity_cost_min"), 0.015);
    EXPECT_LE(*r.figure("pxx_capacity_cost_max"), 0.06);
    EXPECT_LT(*r.figure("dup_median_ratio_at_0_2"), 1.0);
    EXPECT_GE(*r.figure("dup_median_ratio_at_0_7"), 5.0);
}

// The verdict depends on what is cancelled: cancelling both copies makes duplicate-all win at
// every load (no 70% blow-up); cancelling nothing makes the p95 hedge itself diverge at high load.
TEST(HedgeLoadedLab, OtherCancelRulesDoNotReproduceThePublishedClaims) {
    const Lab* lab = findLab("hedge_loaded");
    ASSERT_NE(lab, nullptr);
    RunControl control;
    Params p = lab->defaultParams();
    p.set("requests", 20'000);
    p.set("cancel", 0);  // both
    const LabResult both = lab->run(p, 3, control, {});
    EXPECT_LT(*both.figure("dup_median_ratio_at_0_7"), 1.0);
    EXPECT_LT(*both.figure("pxx_capacity_cost_max"), 0.015);
    p.set("cancel", 2);  // nothing
    const LabResult nothing = lab->run(p, 3, control, {});
    EXPECT_GT(*nothing.figure("pxx_capacity_cost_max"), 0.06);
}

const Check* loadedCheck(const LabResult& r, const std::string& name) {
    for (const Check& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

// The default run (6,000 requests on 10 servers) left out 10% of its requests: 60 arrivals per
// server against an M/M/1 relaxation time of ~380 service times at load 0.9, and its tolerance
// was wider than the value. It reported p99 232.6 ms against 460.5 ±1,298 ms as a pass. Now a
// run too short to settle, or too short to resolve the figure within 25%, decides nothing.
TEST(HedgeLoadedLab, AShortRunDecidesNoCheckItCannotFail) {
    const LabResult r = test::runLabFileWithRequests("hedge-loaded", 6'000);
    const Check* p99 = loadedCheck(r, "no hedging: p99 response (ms) at load 90 %");
    ASSERT_NE(p99, nullptr);
    EXPECT_FALSE(p99->applies());
    EXPECT_FALSE(p99->passed());
    EXPECT_EQ(p99->inconclusive.rfind("too short to decide", 0), 0u) << p99->inconclusive;
    // The run that settles the queues is not enough to resolve a p99: the advice names more.
    const std::int64_t settle = warmupFor(0.9, 10, 6'000).neededRequests;
    EXPECT_GT(test::advisedRequests(*p99).value_or(0), settle) << p99->inconclusive;
    // Load 0.5 settles in 6,000 requests, but its p99 tolerance is ±44% of the value.
    const Check* half = loadedCheck(r, "no hedging: p99 response (ms) at load 50 %");
    ASSERT_NE(half, nullptr);
    EXPECT_FALSE(half->applies());
    EXPECT_EQ(half->inconclusive.rfind("too few samples to decide", 0), 0u) << half->inconclusive;
    for (const Check& c : r.checks)
        if (c.applies() && c.closed_form != 0) {
            EXPECT_LE(toleranceShare(c), kMaxToleranceShare) << c.name;
        }
    EXPECT_TRUE(r.allChecksPass());
}

// The default scenario ran 6,000 requests per load: its no-hedging p99 fell from 162.7 ms at
// load 0.6 to 140.7 ms at 0.7 and half its checks were inconclusive. At 20,000 the p99 it draws
// rises with load all the way, and fewer checks wait for a longer run.
TEST(HedgeLoadedLab, DefaultScenarioDrawsAP99ThatRisesWithLoad) {
    const LabResult r = test::runLabFile("hedge-loaded");
    double previous = 0;
    for (int tenth = 1; tenth <= 9; ++tenth) {
        const std::optional<double> p99 = r.figure("p99_ms_none_at_0_" + std::to_string(tenth));
        ASSERT_TRUE(p99.has_value()) << tenth;
        EXPECT_GT(*p99, previous) << "load 0." << tenth;
        previous = *p99;
    }
    int inconclusive = 0;
    for (const Check& c : r.checks) inconclusive += c.inconclusive.empty() ? 0 : 1;
    EXPECT_LE(inconclusive, 6);
    EXPECT_TRUE(r.allChecksPass());
}

// An unsettled check's advice named the run that settles the queues, not the one that also
// resolves the check: the default run's mean at load 0.8 said "run at least 7,178 requests", and
// a run of 7,178 requests was still inconclusive (tolerance 68% of the value). The advised run
// decides the check; one a tenth shorter does not.
TEST(HedgeLoadedLab, TheAdvisedRunDecidesTheCheck) {
    const std::string name = "no hedging: mean response (ms) at load 80 %";
    const LabResult r = test::runLabFile("hedge-loaded");
    const Check* advised = loadedCheck(r, name);
    ASSERT_NE(advised, nullptr);
    test::expectAdvisedRunDecides("hedge-loaded", *advised);
    if (HasFatalFailure()) return;
    // A run shorter than advised gives the same advice.
    const std::int64_t n = test::advisedRequests(*advised).value_or(0);
    const LabResult shorter = test::runLabFileWithRequests("hedge-loaded", n * 9 / 10);
    const Check* again = loadedCheck(shorter, name);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(test::advisedRequests(*again), n) << again->inconclusive;
}

// With two servers a run of 30,000 requests settles at load 0.8 (the warm-up is five relaxation
// times, 719 arrivals there) and resolves its mean within 25%: that check decides, and passes.
TEST(HedgeLoadedLab, ASettledRunDecidesItsChecks) {
    const Lab* lab = findLab("hedge_loaded");
    ASSERT_NE(lab, nullptr);
    RunControl control;
    Params p = lab->defaultParams();
    p.set("servers", 2);
    p.set("requests", 30'000);
    const LabResult r = lab->run(p, 5, control, {});
    const Check* mean = loadedCheck(r, "no hedging: mean response (ms) at load 80 %");
    ASSERT_NE(mean, nullptr);
    EXPECT_TRUE(mean->applies()) << mean->inconclusive;
    EXPECT_TRUE(mean->pass) << mean->simulated << " vs " << mean->closed_form;
    EXPECT_LE(toleranceShare(*mean), kMaxToleranceShare);
    const Check* p99 = loadedCheck(r, "no hedging: p99 response (ms) at load 90 %");
    ASSERT_NE(p99, nullptr);
    EXPECT_FALSE(p99->applies());
}

TEST(HedgeLoadedLab, SameSeedGivesIdenticalBytes) {
    const Lab* lab = findLab("hedge_loaded");
    RunControl control;
    Params p = lab->defaultParams();
    p.set("requests", 3000);
    const std::string a = toJson(lab->run(p, 11, control, {})).dump();
    const std::string b = toJson(lab->run(p, 11, control, {})).dump();
    EXPECT_EQ(a, b);
    EXPECT_NE(a, toJson(lab->run(p, 12, control, {})).dump());
}

TEST(HedgeLoadedLab, StreamsPartialResultsWithCharts) {
    const Lab* lab = findLab("hedge_loaded");
    RunControl control;
    Params p = lab->defaultParams();
    p.set("requests", 2000);
    int partials = 0;
    double lastProgress = 0;
    lab->run(p, 1, control, [&](const LabResult& r) {
        ++partials;
        EXPECT_LT(r.progress, 1.0);
        EXPECT_GT(r.progress, lastProgress);
        lastProgress = r.progress;
        EXPECT_NE(r.chart("p99_vs_load"), nullptr);
    });
    EXPECT_GE(partials, 5);
    EXPECT_LE(partials, 10);
}

TEST(HedgeLoadedLab, CancellationStopsEarly) {
    const Lab* lab = findLab("hedge_loaded");
    RunControl control;
    control.onProgress = [&](double f) {
        if (f > 0.2) control.requestCancel();
    };
    Params p = lab->defaultParams();
    p.set("requests", 1'000'000);
    const LabResult r = lab->run(p, 1, control, {});
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.progress, 0.5);
    EXPECT_LT(control.progress(), 0.5);
}

}  // namespace
}  // namespace taillab
