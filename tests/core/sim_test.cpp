// The discrete-event core: event ordering, cancellation, RNG streams and service-time models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "sim/cdf_table.h"
#include "sim/distributions.h"
#include "sim/event_queue.h"
#include "base/rng.h"
#include "base/time.h"

namespace taillab {
namespace {

TEST(EventQueue, PopsInTimeOrderAndEqualTimesFifo) {
    EventQueue<int> q;
    q.schedule(Duration{30}, 1);
    q.schedule(Duration{10}, 2);
    q.schedule(Duration{20}, 3);
    q.schedule(Duration{10}, 4);
    q.schedule(Duration{10}, 5);
    std::vector<int> order;
    while (auto e = q.pop()) order.push_back(e->payload);
    EXPECT_EQ(order, (std::vector<int>{2, 4, 5, 3, 1}));
    EXPECT_TRUE(q.empty());
}

TEST(EventQueue, CancelledEventsNeverRunAndSizeCountsLiveOnes) {
    EventQueue<int> q;
    const TimerId a = q.schedule(Duration{5}, 1);
    q.schedule(Duration{6}, 2);
    const TimerId c = q.schedule(Duration{7}, 3);
    EXPECT_EQ(q.size(), 3u);
    EXPECT_TRUE(q.cancel(a));
    EXPECT_FALSE(q.cancel(a));  // twice is a no-op
    EXPECT_TRUE(q.cancel(c));
    EXPECT_EQ(q.size(), 1u);
    EXPECT_EQ(q.nextTime(), Duration{6});
    auto e = q.pop();
    ASSERT_TRUE(e);
    EXPECT_EQ(e->payload, 2);
    EXPECT_FALSE(q.pop());
}

TEST(EventQueue, StaleTimerIdDoesNotCancelAReusedSlot) {
    EventQueue<int> q;
    const TimerId a = q.schedule(Duration{1}, 1);
    ASSERT_TRUE(q.pop());
    const TimerId b = q.schedule(Duration{2}, 2);  // reuses a's slot
    EXPECT_EQ(a.slot, b.slot);
    EXPECT_FALSE(q.cancel(a));
    auto e = q.pop();
    ASSERT_TRUE(e);
    EXPECT_EQ(e->payload, 2);
}

TEST(EventQueue, RandomScheduleMatchesStableSort) {
    Rng rng(7, "test/queue");
    EventQueue<int> q;
    std::vector<std::pair<std::int64_t, int>> expected;
    std::vector<TimerId> ids;
    for (int i = 0; i < 5000; ++i) {
        const auto t = static_cast<std::int64_t>(rng.below(1000));
        ids.push_back(q.schedule(Duration{t}, i));
        expected.emplace_back(t, i);
    }
    std::set<int> cancelled;
    for (int i = 0; i < 5000; i += 7) {
        ASSERT_TRUE(q.cancel(ids[i]));
        cancelled.insert(i);
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<int> want, got;
    for (auto& [t, i] : expected)
        if (!cancelled.count(i)) want.push_back(i);
    while (auto e = q.pop()) got.push_back(e->payload);
    EXPECT_EQ(got, want);
}

TEST(Rng, SameSeedAndNameGiveTheSameStream) {
    Rng a(42, "fleet/engine-1"), b(42, "fleet/engine-1");
    for (int i = 0; i < 100; ++i) ASSERT_EQ(a.next(), b.next());
}

TEST(Rng, DifferentNamesOrSeedsGiveDifferentStreams) {
    Rng a(42, "fleet/engine-1"), b(42, "fleet/engine-2"), c(43, "fleet/engine-1");
    int same_ab = 0, same_ac = 0;
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next();
        same_ab += x == b.next();
        same_ac += x == c.next();
    }
    EXPECT_EQ(same_ab, 0);
    EXPECT_EQ(same_ac, 0);
}

TEST(Rng, AddingAStreamDoesNotShiftAnother) {
    // Streams are derived from (seed, name) only: drawing from a new stream leaves others alone.
    Rng lone(9, "workload/arrivals");
    const auto first = lone.next();
    Rng other(9, "fleet/new-engine");
    for (int i = 0; i < 1000; ++i) other.next();
    Rng again(9, "workload/arrivals");
    EXPECT_EQ(again.next(), first);
}

TEST(Rng, MomentsOfUniformExponentialNormal) {
    Rng rng(1, "test/moments");
    const int n = 400000;
    double su = 0, se = 0, sn = 0, sn2 = 0;
    for (int i = 0; i < n; ++i) {
        su += rng.uniform();
        se += rng.exponential(3.0);
        const double z = rng.normal();
        sn += z;
        sn2 += z * z;
    }
    // Tolerances: 5 standard errors of each mean.
    EXPECT_NEAR(su / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
    EXPECT_NEAR(se / n, 3.0, 5 * 3.0 / std::sqrt(n));
    EXPECT_NEAR(sn / n, 0.0, 5 / std::sqrt(n));
    EXPECT_NEAR(sn2 / n, 1.0, 5 * std::sqrt(2.0 / n));
}

TEST(Rng, BelowIsUniformOverSmallRange) {
    Rng rng(3, "test/below");
    std::vector<int> counts(6, 0);
    const int n = 600000;
    for (int i = 0; i < n; ++i) ++counts[rng.below(6)];
    for (int c : counts) EXPECT_NEAR(c, n / 6, 5 * std::sqrt(n / 6.0));
}

TEST(Distributions, NormalQuantileInvertsCdf) {
    for (double p : {1e-6, 0.001, 0.02, 0.3, 0.5, 0.9, 0.99, 0.999999})
        EXPECT_NEAR(normalCdf(normalQuantile(p)), p, 1e-12 + p * 1e-9);
}

TEST(Distributions, LognormalSampleMatchesQuantiles) {
    const ServiceModel m(LognormalWithSlowMode{{10.0, 0.3}, 0.0, {}});
    Rng rng(5, "test/lognormal");
    std::vector<double> xs(200000);
    for (auto& x : xs) x = m.sample(rng);
    std::sort(xs.begin(), xs.end());
    for (double p : {0.5, 0.9, 0.99}) {
        const double sim = xs[static_cast<std::size_t>(p * xs.size())];
        EXPECT_NEAR(sim, m.quantile(p), m.quantile(p) * 0.01) << p;
    }
}

TEST(Distributions, SlowModeMixtureQuantileAndCdfAgree) {
    const ServiceModel m(LognormalWithSlowMode{{10.0, 0.3}, 0.01, {1000.0, 0.2}});
    for (double p : {0.5, 0.99, 0.995, 0.999}) EXPECT_NEAR(m.cdf(m.quantile(p)), p, 1e-9);
    Rng rng(6, "test/mixture");
    int slow = 0;
    const int n = 500000;
    for (int i = 0; i < n; ++i) slow += m.sample(rng) > 200.0;
    EXPECT_NEAR(static_cast<double>(slow) / n, 1 - m.cdf(200.0), 5 * std::sqrt(0.01 / n));
}

TEST(Distributions, ExponentialAndConstantClosedForms) {
    const ServiceModel e(ExponentialModel{2.0});
    EXPECT_NEAR(e.quantile(0.99), -2.0 * std::log(0.01), 1e-12);
    EXPECT_NEAR(e.cdf(e.quantile(0.7)), 0.7, 1e-12);
    EXPECT_DOUBLE_EQ(e.mean(), 2.0);
    const ServiceModel c(ConstantModel{0.5});
    Rng rng(1, "x");
    EXPECT_DOUBLE_EQ(c.sample(rng), 0.5);
    EXPECT_DOUBLE_EQ(c.quantile(0.99), 0.5);
}

TEST(CorrelatedSlowness, KeepsEachBackendsMarginalRate) {
    for (double f : {0.0, 0.3, 0.5, 1.0}) {
        const CorrelatedSlowness c{0.01, f};
        const double marginal =
            1 - (1 - c.sharedProbability()) * (1 - c.independentProbability());
        EXPECT_NEAR(marginal, 0.01, 1e-15) << f;
        EXPECT_NEAR(c.requestSlowProbability(1), 0.01, 1e-15);
    }
}

TEST(CorrelatedSlowness, MatchesEssayTableFormulaValues) {
    // essay_003.hedging_idealised_immediate: the formula side of each row.
    EXPECT_NEAR((CorrelatedSlowness{0.01, 0.0}.requestSlowProbability(100)), 0.634, 0.0005);
    EXPECT_NEAR((CorrelatedSlowness{0.01, 0.5}.requestSlowProbability(100)), 0.398, 0.001);
    EXPECT_NEAR((CorrelatedSlowness{0.01, 1.0}.requestSlowProbability(100)), 0.010, 1e-12);
    EXPECT_NEAR((CorrelatedSlowness{0.01, 0.0}.requestSlowProbabilityHedged(100)), 0.010, 0.0005);
    EXPECT_NEAR((CorrelatedSlowness{0.01, 0.5}.requestSlowProbabilityHedged(100)), 0.0075, 0.0001);
    EXPECT_NEAR((CorrelatedSlowness{0.01, 1.0}.requestSlowProbabilityHedged(100)), 0.010, 1e-12);
}

}  // namespace
}  // namespace taillab

#include "metrics/hdr_histogram.h"

namespace taillab {
namespace {

TEST(Distributions, EmpiricalModelReproducesTheRecordedDistribution) {
    HdrHistogram h;
    Rng src(2, "test/empirical-source");
    const ServiceModel truth(LognormalWithSlowMode{{20.0, 0.5}, 0.02, {400.0, 0.2}});
    for (int i = 0; i < 200000; ++i) h.record(std::llround(truth.sample(src) * 1000.0));
    const ServiceModel empirical(
        std::make_shared<const EmpiricalModel>(EmpiricalModel::fromHistogram(h, 1e-3)));
    Rng rng(2, "test/empirical-draws");
    HdrHistogram drawn;
    for (int i = 0; i < 200000; ++i) drawn.record(std::llround(empirical.sample(rng) * 1000.0));
    for (double p : {50.0, 90.0, 99.0, 99.5}) {
        const double want = static_cast<double>(h.valueAtPercentile(p));
        EXPECT_NEAR(static_cast<double>(drawn.valueAtPercentile(p)), want, want * 0.03) << p;
    }
    EXPECT_NEAR(empirical.mean(), truth.mean(), truth.mean() * 0.02);
    EXPECT_NEAR(empirical.cdf(truth.quantile(0.9)), 0.9, 0.005);
}

// The guide table must give exactly std::lower_bound's index for every u: random u, u on and
// next to every cumulative value and band edge, the ends, and CDFs with flat runs (zero-weight
// categories), a heavy head (Zipf), a last entry short of 1 (rounding) and a single category.
TEST(CdfTable, AgreesWithLowerBoundEverywhere) {
    std::vector<std::vector<double>> cdfs;
    std::vector<double> zipf(5000);
    double s = 0;
    for (std::size_t k = 0; k < zipf.size(); ++k) zipf[k] = (s += 1.0 / (k + 1.0));
    for (double& x : zipf) x /= s;
    cdfs.push_back(zipf);
    cdfs.push_back({0.0, 0.0, 0.25, 0.25, 0.25, 0.9, 1.0});
    cdfs.push_back({0.1, 0.3, 0.6, 0.9999999});
    cdfs.push_back({1.0});
    Rng rng(3, "cdf_table_test");
    for (const std::vector<double>& cdf : cdfs) {
        const CdfTable table(cdf);
        std::vector<double> us{0.0, 1.0, 1.5, std::nextafter(1.0, 0.0)};
        for (double c : cdf) us.insert(us.end(), {c, std::nextafter(c, 0.0), std::nextafter(c, 2.0)});
        for (std::size_t k = 0; k <= cdf.size(); ++k) {
            const double edge = static_cast<double>(k) / static_cast<double>(cdf.size());
            us.insert(us.end(), {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 2.0)});
        }
        for (int i = 0; i < 200000; ++i) us.push_back(rng.uniform());
        for (double u : us) {
            const auto want = static_cast<std::size_t>(
                std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
            ASSERT_EQ(table.index(u), want) << "u " << u << " over " << cdf.size() << " categories";
        }
    }
}

// The inlined rounding behind fromMs/fromUs/fromSeconds rounds exactly as std::llround: halves
// away from zero, values a hair either side of a half, huge integral values, tiny fractions and
// random values across the ranges the conversions see.
TEST(Time, RoundToInt64IsLlround) {
    std::vector<double> xs{0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
                           -0.49999999999999994, 4503599627370495.5, 4503599627370497.0,
                           9007199254740993.0, -9007199254740993.0, 1e18, -1e18, 5e-324};
    for (double h = 0.5; h < 1e15; h = h * 2 + 1) {
        xs.insert(xs.end(), {h, -h, std::nextafter(h, 0.0), std::nextafter(h, 1e300),
                             std::nextafter(-h, 0.0), std::nextafter(-h, -1e300)});
    }
    Rng rng(9, "round_test");
    for (int i = 0; i < 100000; ++i) {
        const double scale = std::pow(10.0, static_cast<double>(rng.below(19)));
        xs.push_back((rng.uniform() * 2 - 1) * scale);
        xs.push_back(std::floor(rng.uniform() * scale) + 0.5);
    }
    for (double x : xs) ASSERT_EQ(roundToInt64(x), std::llround(x)) << x;
}

}  // namespace
}  // namespace taillab
