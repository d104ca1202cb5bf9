// The idle-hedging lab: the survival product, determinism, cancellation, partial results, the
// reading of the published "4.7% extra requests", and its scenario files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "labs/hedge_idle_model.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "test_support.h"

namespace taillab {
namespace {

const Lab& hedgeIdle() { return *findLab("hedge_idle"); }

LabResult runWith(std::initializer_list<std::pair<const char*, double>> set, std::uint64_t seed) {
    Params p = hedgeIdle().defaultParams();
    for (const auto& [k, v] : set) p.set(k, v);
    RunControl control;
    return hedgeIdle().run(p, seed, control, {});
}

const nlohmann::json& published() { return test::publishedFigures(); }
std::string scenarioPath(const std::string& name) { return test::labScenarioPath(name); }

TEST(HedgeIdleModel, TailIsTheTwoReplicaSurvivalProduct) {
    const HedgeIdleModel m(HedgeIdleConfig{});
    const double d = 20;
    EXPECT_DOUBLE_EQ(m.hedgedSurvival(15, d), m.survival(15));
    EXPECT_NEAR(m.hedgedSurvival(40, d), m.survival(40) * m.survival(20), 1e-15);
    EXPECT_NEAR(m.extraRequests(m.quantile(0.95)), 0.05, 1e-9);
}

TEST(HedgeIdleModel, FittedModelGivesThePublishedFiguresInClosedForm) {
    const HedgeIdleModel m(HedgeIdleConfig{});
    const double d = m.quantile(0.95);
    EXPECT_NEAR(m.quantile(0.999), 1555, 5);
    EXPECT_NEAR(m.hedgedQuantile(0.999, d), 34, 0.5);
    EXPECT_NEAR(m.extraWork(d), 0.015, 0.0005);
    const double e = m.extraRequests(d);
    EXPECT_NEAR(e / (1 + e), 0.047, 0.001);  // backups as a share of all calls sent
    EXPECT_GT(std::abs(e - 0.047), 0.002);   // not backups per primary
}

TEST(HedgeIdleModel, SharedCauseCollapsesTheBenefit) {
    HedgeIdleConfig c;
    c.shared_fraction = 1.0;
    const HedgeIdleModel shared(c);
    const double d = shared.quantile(0.95);
    EXPECT_GT(shared.hedgedQuantile(0.999, d), 500);
}

TEST(HedgeIdleLab, ReportsBothReadingsOfExtraRequests) {
    const LabResult r = runWith({{"requests", 50000}}, 2);
    EXPECT_TRUE(r.allChecksPass());
    const double e = *r.figure("extra_requests");
    EXPECT_NEAR(*r.figure("backup_share_of_calls"), e / (1 + e), 1e-15);
    EXPECT_NE(r.chart("p999_vs_hedge_percentile"), nullptr);
    EXPECT_EQ(hedgeIdle().mainKnob(), "hedge_percentile");
    EXPECT_GE(hedgeIdle().defaultParams().spec("requests")->max, 10'000'000);
}

TEST(HedgeIdleLab, FixedDelayMode) {
    const LabResult r =
        runWith({{"hedge_mode", 1}, {"hedge_delay_ms", 30}, {"requests", 50000}}, 2);
    EXPECT_TRUE(r.allChecksPass());
    EXPECT_DOUBLE_EQ(*r.figure("hedge_delay_ms"), 30);
}

TEST(HedgeIdleLab, SameSeedSameBytesOtherSeedOtherResult) {
    const auto a = toJson(runWith({{"requests", 20000}}, 9)).dump();
    const auto b = toJson(runWith({{"requests", 20000}}, 9)).dump();
    const auto c = toJson(runWith({{"requests", 20000}}, 10)).dump();
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(HedgeIdleLab, CancellationStopsEarlyAndPartialsStream) {
    Params p = hedgeIdle().defaultParams();
    p.set("requests", 1'000'000);
    RunControl control;
    control.onProgress = [&](double f) {
        if (f > 0.1) control.requestCancel();
    };
    const LabResult r = hedgeIdle().run(p, 1, control, {});
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.distribution("before")->totalCount(), 200'000);

    RunControl full;
    int partials = 0;
    p.set("requests", 100'000);
    hedgeIdle().run(p, 1, full, [&](const LabResult& part) {
        ++partials;
        EXPECT_LT(part.progress, 1.0);
        EXPECT_NE(part.chart("tail"), nullptr);
    });
    EXPECT_GE(partials, 5);
    EXPECT_LE(partials, 10);
}

TEST(HedgeIdleScenarios, EveryFilePassesItsChecks) {
    for (const char* name : {"hedge-idle", "hedge-idle-published", "hedge-idle-correlated"}) {
        const LabResult r = runScenario(loadScenarioFile(scenarioPath(name)));
        for (const auto& c : r.checks)
            EXPECT_TRUE(c.pass) << name << ": " << c.name << " " << c.simulated << " vs "
                                << c.closed_form << " ± " << c.tolerance;
    }
}

TEST(HedgeIdleScenarios, PublishedScenarioQuotesLab001Exactly) {
    const Scenario s = loadScenarioFile(scenarioPath("hedge-idle-published"));
    const auto& fig = published()["lab_001"]["hedge_idle_p95"];
    std::map<std::string, std::string> key{{"p999_before_ms", "p999_before_ms"},
                                           {"p999_after_ms", "p999_after_ms"},
                                           {"backup_share_of_calls", "extra_requests"},
                                           {"extra_work", "extra_work"}};
    ASSERT_EQ(s.expect.size(), key.size());
    for (const auto& e : s.expect) {
        ASSERT_TRUE(key.count(e.figure)) << e.figure;
        EXPECT_DOUBLE_EQ(*e.value, fig.at(key[e.figure]).get<double>()) << e.figure;
        EXPECT_NE(e.source.find("lab_001.hedge_idle_p95." + key[e.figure]), std::string::npos);
    }
}

}  // namespace
}  // namespace taillab
