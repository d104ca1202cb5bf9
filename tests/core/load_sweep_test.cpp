// The queueing labs run the chosen load first: the first partial result a GUI draws already holds
// that load's distributions and its point on every sweep chart, and the finished result is the
// same whatever the order (each load draws from its own streams).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "labs/lab.h"
#include "labs/load_sweep.h"

namespace taillab {
namespace {

TEST(LoadSweep, TheChosenLoadRunsFirstThenTheGridFromTheBottom) {
    const std::vector<double> loads = sweepLoads(0.73);
    ASSERT_EQ(loads.size(), 10u);
    EXPECT_DOUBLE_EQ(loads[7], 0.73);
    const std::vector<std::size_t> order = chosenFirst(loads, 0.73);
    EXPECT_EQ(order, (std::vector<std::size_t>{7, 0, 1, 2, 3, 4, 5, 6, 8, 9}));
    EXPECT_EQ(sweepLoads(0.5).size(), 9u) << "a grid load is not added twice";
    EXPECT_EQ(chosenFirst(sweepLoads(0.5), 0.5).front(), 4u);
}

// A load's key names its figures, checks and random streams: two loads a hundredth apart must
// never share one (0.07 once became "0_7", the key of 0.7, and its figures overwrote 0.7's).
TEST(LoadSweep, EveryLoadAHundredthApartHasItsOwnKey) {
    EXPECT_EQ(loadKey(0.9), "0_9");
    EXPECT_EQ(loadKey(0.07), "0_07");
    EXPECT_EQ(loadKey(0.73), "0_73");
    EXPECT_EQ(loadKey(1.0), "1_0");
    std::set<std::string> keys;
    for (int h = 1; h <= 100; ++h) EXPECT_TRUE(keys.insert(loadKey(h / 100.0)).second) << h;
}

// Check names read in words: they showed the key ("load 0_1", "load 0_75"); they show the load.
// In percent, as the load knob and the figures table show a load.
TEST(LoadSweep, CheckNamesShowTheLoadInPercent) {
    EXPECT_EQ(loadLabel(0.1), "10 %");
    EXPECT_EQ(loadLabel(0.75), "75 %");
    EXPECT_EQ(loadLabel(0.07), "7 %");
    EXPECT_EQ(loadLabel(0.99), "99 %");
    const Lab* lab = findLab("power_of_d");
    ASSERT_NE(lab, nullptr);
    Params params = lab->defaultParams();
    params.set("requests", 4000);
    RunControl control;
    const LabResult r = lab->run(params, 1, control, {});
    ASSERT_FALSE(r.checks.empty());
    for (const Check& c : r.checks) EXPECT_EQ(c.name.find('_'), std::string::npos) << c.name;
}

class ChosenFirst : public ::testing::TestWithParam<const char*> {};

TEST_P(ChosenFirst, TheFirstPartialHoldsTheChosenLoad) {
    const Lab* lab = findLab(GetParam());
    ASSERT_NE(lab, nullptr);
    Params params = lab->defaultParams();
    params.set("load", 0.73);
    params.set("requests", 4000);
    std::vector<LabResult> partials;
    RunControl control;
    const LabResult final = lab->run(params, 7, control, [&](const LabResult& r) { partials.push_back(r); });
    ASSERT_FALSE(partials.empty());
    const LabResult& first = partials.front();
    EXPECT_NEAR(first.progress, 0.1, 1e-9) << "one load of ten";
    ASSERT_FALSE(first.distributions.empty()) << "the chosen load's distributions come first";
    ASSERT_EQ(first.distributions.size(), final.distributions.size());
    for (std::size_t i = 0; i < final.distributions.size(); ++i) {
        EXPECT_EQ(first.distributions[i].name, final.distributions[i].name);
        EXPECT_EQ(first.distributions[i].histogram.totalCount(),
                  final.distributions[i].histogram.totalCount());
    }
    int sweepCharts = 0;
    for (const Chart& c : first.charts)
        for (const Series& s : c.series)
            if (s.role == SeriesRole::Simulated && s.x.size() == 1 && s.x[0] == 0.73) ++sweepCharts;
    EXPECT_GT(sweepCharts, 0) << "a sweep chart shows the chosen load's point alone";
    // Later partials add loads in order; none loses the chosen one.
    for (const LabResult& p : partials) EXPECT_EQ(p.distributions.size(), final.distributions.size());
}

INSTANTIATE_TEST_SUITE_P(Labs, ChosenFirst, ::testing::Values("power_of_d", "hedge_loaded"));

}  // namespace
}  // namespace taillab
