// The power_of_d lab: the supermarket model against M/M/1 and the fixed point, the published
// figures at 90% load, determinism, conservation and cancellation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "labs/lab.h"
#include "labs/power_of_d_sim.h"
#include "labs/queueing.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

SupermarketStats simulate(int d, double load, std::int64_t requests, HdrHistogram& h,
                          std::uint64_t seed = 5) {
    SupermarketConfig c;
    c.servers = 100;
    c.choices = d;
    c.load = load;
    c.requests = requests;
    c.warmup = requests / 10;
    return runSupermarket(c, SupermarketStreams{Rng(seed, "a"), Rng(seed, "s"), Rng(seed, "x")}, h);
}

LabResult runFile(const std::string& name) {
    return runScenario(
        loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/" + name + ".json"));
}

TEST(Supermarket, RandomRoutingIsMm1) {
    HdrHistogram h(supermarketHdrConfig());
    const SupermarketStats s = simulate(1, 0.5, 400'000, h);
    const double se = queueing::mm1MeanStandardError(0.5, 1.0, s.measured);
    EXPECT_NEAR(s.meanResponse(), 2.0, 4 * se);
    EXPECT_NEAR(h.mean() / 1000.0, s.meanResponse(), 0.01);
}

TEST(Supermarket, BestOfTwoAndThreeMatchTheFixedPoint) {
    HdrHistogram h(supermarketHdrConfig());
    for (int d : {2, 3}) {
        const SupermarketStats s = simulate(d, 0.7, 300'000, h);
        const double fp = queueing::supermarketMeanTime(0.7, d);
        // 4 standard errors plus the measured n = 100 excess (about 1% at λ = 0.7).
        EXPECT_NEAR(s.meanResponse(), fp, 0.03 * fp) << "d = " << d;
        EXPECT_GT(s.meanResponse(), fp * 0.995) << "finite n sits above the limit";
    }
}

TEST(Supermarket, EveryArrivalDepartsOnce) {
    HdrHistogram h(supermarketHdrConfig());
    const SupermarketStats s = simulate(2, 0.95, 50'000, h);
    EXPECT_EQ(s.arrived, 50'000);
    EXPECT_EQ(s.departed, s.arrived);
    EXPECT_EQ(h.totalCount(), s.measured);
    EXPECT_EQ(s.measured, 45'000);
}

TEST(PowerOfDLab, DefaultScenarioPassesAndDrawsTheKeyChart) {
    const LabResult r = runFile("power-of-d");
    EXPECT_TRUE(r.allChecksPass());
    const Chart* c = r.chart("mean_time_vs_load");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->series.size(), 6u);  // three simulated, three formula curves
    EXPECT_EQ(r.distributions.size(), 3u);
    // Best of two beats random by a wide margin at 90% load.
    EXPECT_LT(*r.figure("mean_time_d2_at_0_9") * 2.5, *r.figure("mean_time_d1_at_0_9"));
}

TEST(PowerOfDLab, PublishedScenarioReproducesLab001AtNinetyPercent) {
    const LabResult r = runFile("power-of-d-published");
    for (const auto& c : r.checks) EXPECT_TRUE(c.pass) << c.name << " " << c.simulated;
    EXPECT_NEAR(*r.figure("mean_time_d1_at_0_9"), 10.0, 0.5);
    EXPECT_NEAR(*r.figure("mean_time_d2_at_0_9"), 2.63, 0.03 * 2.63);
    EXPECT_NEAR(*r.figure("predicted_mean_time_d2_at_0_9"), 2.61, 0.005);
}

TEST(PowerOfDLab, SameSeedGivesIdenticalBytes) {
    const Lab* lab = findLab("power_of_d");
    RunControl control;
    Params p = lab->defaultParams();
    p.set("requests", 5000);
    const std::string a = toJson(lab->run(p, 4, control, {})).dump();
    EXPECT_EQ(a, toJson(lab->run(p, 4, control, {})).dump());
    EXPECT_NE(a, toJson(lab->run(p, 5, control, {})).dump());
}

TEST(PowerOfDLab, StreamsPartialResults) {
    const Lab* lab = findLab("power_of_d");
    RunControl control;
    Params p = lab->defaultParams();
    p.set("requests", 2000);
    int partials = 0;
    lab->run(p, 1, control, [&](const LabResult& r) {
        ++partials;
        EXPECT_LT(r.progress, 1.0);
        EXPECT_NE(r.chart("mean_time_vs_load"), nullptr);
    });
    EXPECT_GE(partials, 5);
    EXPECT_LE(partials, 10);
}

TEST(PowerOfDLab, CancellationStopsEarly) {
    const Lab* lab = findLab("power_of_d");
    RunControl control;
    control.onProgress = [&](double f) {
        if (f > 0.1) control.requestCancel();
    };
    Params p = lab->defaultParams();
    p.set("requests", 5'000'000);
    const LabResult r = lab->run(p, 1, control, {});
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.progress, 0.3);
}

}  // namespace
}  // namespace taillab
