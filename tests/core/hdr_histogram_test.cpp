// HdrHistogram: layout and equivalence ranges against HdrHistogram's published values, percentiles
// against sorted samples, merge, countAtOrBelow, edge cases and the standard stall fixture.
#include "metrics/hdr_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "base/rng.h"

namespace taillab {
namespace {

constexpr std::int64_t kHourUs = 3600LL * 1000 * 1000;

// Samples from a few shapes, clamped to [0, highest].
enum class Shape { Uniform, Lognormal, Exponential, Pareto };

std::vector<std::int64_t> samples(Shape shape, std::size_t n, std::int64_t highest,
                                  std::uint64_t seed) {
    Rng rng(seed, "hdr-test-samples");
    std::vector<std::int64_t> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        double x = 0;
        switch (shape) {
            case Shape::Uniform:
                x = rng.uniform() * 1e6;
                break;
            case Shape::Lognormal:
                x = 2000.0 * std::exp(2.0 * rng.normal());
                break;
            case Shape::Exponential:
                x = rng.exponential(5000.0);
                break;
            case Shape::Pareto:
                x = 100.0 / std::pow(rng.uniformOpen(), 1.0 / 1.2);
                break;
        }
        out.push_back(std::clamp<std::int64_t>(std::llround(x), 0, highest));
    }
    return out;
}

HdrHistogram recordAll(const HdrConfig& config, const std::vector<std::int64_t>& values) {
    HdrHistogram h(config);
    for (auto v : values) EXPECT_TRUE(h.record(v));
    return h;
}

void expectSameCounts(const HdrHistogram& a, const HdrHistogram& b) {
    ASSERT_EQ(a.countsLength(), b.countsLength());
    EXPECT_EQ(a.totalCount(), b.totalCount());
    for (std::size_t i = 0; i < a.countsLength(); ++i)
        ASSERT_EQ(a.countAtIndex(i), b.countAtIndex(i)) << "index " << i;
}

TEST(HdrHistogram, LayoutMatchesHdrHistogramC) {
    // Figures printed by HdrHistogram_c: the reference .hgrm footer and its test suite.
    HdrHistogram def;
    EXPECT_EQ(def.bucketCount(), 16);
    EXPECT_EQ(def.subBucketCount(), 2048);
    EXPECT_EQ(def.countsLength(), 17u * 1024u);
    HdrHistogram hour(HdrConfig{1, kHourUs, 3});
    EXPECT_EQ(hour.countsLength(), 23552u);
    HdrHistogram twoDigits(HdrConfig{1, kHourUs, 2});
    EXPECT_EQ(twoDigits.subBucketCount(), 256);
}

TEST(HdrHistogram, EquivalenceRangesMatchHdrHistogram) {
    // Expected values from HdrHistogram's own tests (1 to 3600e6, 3 digits).
    HdrHistogram h(HdrConfig{1, kHourUs, 3});
    EXPECT_EQ(h.sizeOfEquivalentRange(1), 1);
    EXPECT_EQ(h.sizeOfEquivalentRange(2500), 2);
    EXPECT_EQ(h.sizeOfEquivalentRange(8191), 4);
    EXPECT_EQ(h.sizeOfEquivalentRange(8192), 8);
    EXPECT_EQ(h.sizeOfEquivalentRange(10000), 8);
    EXPECT_EQ(h.lowestEquivalent(10007), 10000);
    EXPECT_EQ(h.lowestEquivalent(10009), 10008);
    EXPECT_EQ(h.highestEquivalent(8180), 8183);
    EXPECT_EQ(h.highestEquivalent(8191), 8191);
    EXPECT_EQ(h.highestEquivalent(8193), 8199);
    EXPECT_EQ(h.highestEquivalent(9995), 9999);
    EXPECT_EQ(h.highestEquivalent(10007), 10007);
    EXPECT_EQ(h.highestEquivalent(10008), 10015);
    EXPECT_EQ(h.medianEquivalent(4), 4);
    EXPECT_EQ(h.medianEquivalent(5), 5);
    EXPECT_EQ(h.medianEquivalent(4000), 4001);
    EXPECT_EQ(h.medianEquivalent(8000), 8002);
    EXPECT_EQ(h.medianEquivalent(10007), 10004);
    EXPECT_TRUE(h.valuesAreEquivalent(10008, 10015));
    EXPECT_FALSE(h.valuesAreEquivalent(10007, 10008));
}

TEST(HdrHistogram, EveryIndexRoundTripsThroughItsLowestValue) {
    for (const HdrConfig config :
         {HdrConfig{}, HdrConfig{1000, kHourUs, 2}, HdrConfig{1, 1 << 20, 5}}) {
        HdrHistogram h(config);
        std::int64_t previous = -1;
        for (std::size_t i = 0; i < h.countsLength(); ++i) {
            const std::int64_t v = h.valueFromIndex(i);
            if (v > config.highest_trackable) break;
            ASSERT_GT(v, previous) << "index " << i;
            ASSERT_EQ(h.lowestEquivalent(v), v);
            ASSERT_EQ(h.lowestEquivalent(h.highestEquivalent(v)), v);
            ASSERT_EQ(h.highestEquivalent(v) + 1 - v, h.sizeOfEquivalentRange(v));
            previous = v;
        }
    }
}

struct PercentileCase {
    Shape shape;
    HdrConfig config;
};

void PrintTo(const PercentileCase& c, std::ostream* os) {
    const char* names[] = {"uniform", "lognormal", "exponential", "pareto"};
    *os << names[static_cast<int>(c.shape)] << " in [" << c.config.lowest_discernible << ", "
        << c.config.highest_trackable << "] with " << c.config.significant_digits << " digits";
}

class PercentilesOfSortedSamples : public ::testing::TestWithParam<PercentileCase> {};

TEST_P(PercentilesOfSortedSamples, MatchTheRankRuleWithinPrecision) {
    const auto& [shape, config] = GetParam();
    auto values = samples(shape, 33'333, config.highest_trackable, 42 + static_cast<int>(shape));
    const HdrHistogram h = recordAll(config, values);
    std::sort(values.begin(), values.end());
    const double n = static_cast<double>(values.size());
    const double relative = std::pow(10.0, -config.significant_digits);
    // 33,333 samples: most of these percentiles fall between ranks, so rounding matters.
    for (double p :
         {0.0, 0.001, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.5, 99.9, 99.99, 99.999, 100.0}) {
        const auto rank = std::max<std::int64_t>(1, std::llround(p / 100.0 * n));
        const std::int64_t exact = values[static_cast<std::size_t>(rank - 1)];
        const std::int64_t got = h.valueAtPercentile(p);
        // The rank-th smallest sample's bucket, reported by its top (its bottom at p = 0).
        EXPECT_EQ(got, p == 0.0 ? h.lowestEquivalent(exact) : h.highestEquivalent(exact))
            << "p" << p;
        const double error = std::abs(static_cast<double>(got - exact));
        EXPECT_LE(error, std::max(relative * static_cast<double>(exact),
                                  static_cast<double>(config.lowest_discernible)))
            << "p" << p << " exact " << exact << " got " << got;
    }
    EXPECT_EQ(h.minRecorded(), values.front());
    EXPECT_EQ(h.maxRecorded(), values.back());
    EXPECT_EQ(h.max(), h.highestEquivalent(values.back()));
    EXPECT_EQ(h.min(), h.lowestEquivalent(values.front()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PercentilesOfSortedSamples,
    ::testing::Values(PercentileCase{Shape::Uniform, HdrConfig{}},
                      PercentileCase{Shape::Lognormal, HdrConfig{}},
                      PercentileCase{Shape::Exponential, HdrConfig{1, 60'000'000, 2}},
                      PercentileCase{Shape::Pareto, HdrConfig{1, kHourUs, 4}},
                      PercentileCase{Shape::Lognormal, HdrConfig{1000, kHourUs, 3}},
                      PercentileCase{Shape::Uniform, HdrConfig{1, 2'000'000, 1}},
                      PercentileCase{Shape::Pareto, HdrConfig{1, 60'000'000, 5}}));

TEST(HdrHistogram, MeanAndStddevUseBucketMedians) {
    const auto values = samples(Shape::Lognormal, 20'000, 60'000'000, 7);
    const HdrHistogram h = recordAll(HdrConfig{}, values);
    double sum = 0;
    for (auto v : values) sum += static_cast<double>(h.medianEquivalent(v));
    const double mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (auto v : values) {
        const double d = static_cast<double>(h.medianEquivalent(v)) - mean;
        squares += d * d;
    }
    EXPECT_NEAR(h.mean(), mean, 1e-9 * mean);
    EXPECT_NEAR(h.stddev(), std::sqrt(squares / static_cast<double>(values.size())),
                1e-9 * h.stddev());
}

TEST(HdrHistogram, CountAtOrBelowCountsWholeBuckets) {
    const auto values = samples(Shape::Exponential, 20'000, 60'000'000, 11);
    const HdrHistogram h = recordAll(HdrConfig{}, values);
    for (std::int64_t q :
         {0LL, 1LL, 999LL, 1000LL, 4096LL, 5000LL, 12345LL, 50'000LL, 59'999'999LL}) {
        const std::int64_t top = h.highestEquivalent(q);
        const auto expected =
            std::count_if(values.begin(), values.end(), [&](std::int64_t v) { return v <= top; });
        EXPECT_EQ(h.countAtOrBelow(q), expected) << "q " << q;
    }
    EXPECT_EQ(h.countAtOrBelow(-1), 0);
    EXPECT_EQ(h.countAtOrBelow(std::numeric_limits<std::int64_t>::max()), h.totalCount());
}

TEST(HdrHistogram, MergeOfPartsEqualsHistogramOfTheWhole) {
    const auto values = samples(Shape::Pareto, 60'000, 60'000'000, 3);
    const HdrHistogram whole = recordAll(HdrConfig{}, values);
    std::vector<HdrHistogram> parts(7);
    Rng pick(5, "hdr-merge-split");
    for (auto v : values) parts[pick.below(parts.size())].record(v);
    HdrHistogram merged;
    for (const auto& part : parts) EXPECT_EQ(merged.merge(part), 0);
    expectSameCounts(merged, whole);
    EXPECT_EQ(merged.minRecorded(), whole.minRecorded());
    EXPECT_EQ(merged.maxRecorded(), whole.maxRecorded());
    EXPECT_EQ(merged.max(), whole.max());
    EXPECT_EQ(merged.valueAtPercentile(99.9), whole.valueAtPercentile(99.9));
    EXPECT_DOUBLE_EQ(merged.mean(), whole.mean());
}

TEST(HdrHistogram, MergeIntoCoarserConfigEqualsRecordingThere) {
    const auto values = samples(Shape::Lognormal, 30'000, 60'000'000, 9);
    const HdrHistogram fine = recordAll(HdrConfig{1, 60'000'000, 4}, values);
    for (const HdrConfig coarse :
         {HdrConfig{1, 60'000'000, 2}, HdrConfig{1000, kHourUs, 3}, HdrConfig{1, kHourUs, 3}}) {
        HdrHistogram merged(coarse);
        EXPECT_EQ(merged.merge(fine), 0);
        expectSameCounts(merged, recordAll(coarse, values));
        EXPECT_EQ(merged.maxRecorded(), fine.maxRecorded());
        EXPECT_EQ(merged.minRecorded(), fine.minRecorded());
        EXPECT_EQ(merged.max(), merged.highestEquivalent(fine.maxRecorded()));
    }
}

TEST(HdrHistogram, MergeIntoFinerConfigKeepsCountsAndSourcePrecision) {
    const auto values = samples(Shape::Exponential, 30'000, 60'000'000, 13);
    const HdrHistogram coarse = recordAll(HdrConfig{1, 60'000'000, 2}, values);
    HdrHistogram fine(HdrConfig{1, kHourUs, 4});
    EXPECT_EQ(fine.merge(coarse), 0);
    EXPECT_EQ(fine.totalCount(), coarse.totalCount());
    EXPECT_EQ(fine.maxRecorded(), coarse.maxRecorded());
    for (double p : {1.0, 50.0, 90.0, 99.0, 99.99}) {
        const std::int64_t expected = coarse.valueAtPercentile(p);
        EXPECT_LE(std::abs(fine.valueAtPercentile(p) - expected),
                  coarse.sizeOfEquivalentRange(expected))
            << "p" << p;
    }
}

TEST(HdrHistogram, MergeCountsValuesOutsideTheTargetRange) {
    HdrHistogram wide(HdrConfig{1, kHourUs, 3});
    for (int i = 0; i < 100; ++i) wide.record(1000 + i);
    wide.record(70'000'000, 3);
    wide.record(-5);
    HdrHistogram narrow;  // up to 60,000,000
    EXPECT_EQ(narrow.merge(wide), 3);
    EXPECT_EQ(narrow.totalCount(), 100);
    EXPECT_EQ(narrow.outOfRangeCount(), 4);
    EXPECT_EQ(narrow.maxRecorded(), 1099);

    // Same layout (same bucket count), but the source range reaches past the target's bound.
    HdrHistogram sameLayoutWider(HdrConfig{1, 65'000'000, 3});
    ASSERT_TRUE(sameLayoutWider.sameLayoutAs(narrow));
    ASSERT_EQ(sameLayoutWider.countsLength(), narrow.countsLength());
    sameLayoutWider.record(64'000'000);
    sameLayoutWider.record(500);
    HdrHistogram target;
    EXPECT_EQ(target.merge(sameLayoutWider), 1);
    EXPECT_EQ(target.totalCount(), 1);
    EXPECT_EQ(target.outOfRangeCount(), 1);
    EXPECT_EQ(target.maxRecorded(), 500);
}

TEST(HdrHistogram, EmptyHistogramReportsZeros) {
    HdrHistogram h;
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.max(), 0);
    EXPECT_EQ(h.mean(), 0.0);
    EXPECT_EQ(h.stddev(), 0.0);
    EXPECT_EQ(h.valueAtPercentile(50), 0);
    EXPECT_EQ(h.countAtOrBelow(1000), 0);
    HdrHistogram other;
    EXPECT_EQ(h.merge(other), 0);
    EXPECT_TRUE(h.empty());
}

TEST(HdrHistogram, OneValueIsEveryPercentile) {
    HdrHistogram h;
    ASSERT_TRUE(h.record(12'345));
    const std::int64_t top = h.highestEquivalent(12'345);
    EXPECT_GT(top, 12'345);  // 12,345 is past the first bucket: its range is wider than 1
    for (double p : {0.1, 50.0, 99.0, 100.0}) EXPECT_EQ(h.valueAtPercentile(p), top);
    EXPECT_EQ(h.valueAtPercentile(0), h.lowestEquivalent(12'345));
    EXPECT_EQ(h.min(), h.lowestEquivalent(12'345));
    EXPECT_EQ(h.max(), top);
    EXPECT_EQ(h.mean(), static_cast<double>(h.medianEquivalent(12'345)));
    EXPECT_EQ(h.stddev(), 0.0);
}

TEST(HdrHistogram, ZeroIsRecordable) {
    HdrHistogram h;
    EXPECT_TRUE(h.record(0, 3));
    EXPECT_TRUE(h.record(5));
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.valueAtPercentile(50), 0);
    EXPECT_EQ(h.valueAtPercentile(100), 5);
    EXPECT_EQ(h.countAtOrBelow(0), 3);
}

TEST(HdrHistogram, OutOfRangeValuesAreCountedNotRecorded) {
    HdrHistogram h;
    EXPECT_FALSE(h.record(-1));
    EXPECT_FALSE(h.record(std::numeric_limits<std::int64_t>::min()));
    EXPECT_FALSE(h.record(60'000'001));
    EXPECT_FALSE(h.record(std::numeric_limits<std::int64_t>::max(), 5));
    EXPECT_FALSE(h.record(100, 0));
    EXPECT_FALSE(h.record(100, -3));
    EXPECT_EQ(h.outOfRangeCount(), 8);
    EXPECT_TRUE(h.empty());
    EXPECT_FALSE(h.recordCorrected(-10, 5));
    EXPECT_EQ(h.outOfRangeCount(), 9);
}

TEST(HdrHistogram, HighestTrackableValueItselfIsRecorded) {
    HdrHistogram h;
    EXPECT_TRUE(h.record(60'000'000));
    EXPECT_EQ(h.maxRecorded(), 60'000'000);
    EXPECT_GE(h.max(), 60'000'000);
    EXPECT_EQ(h.valueAtPercentile(100), h.max());

    const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    HdrHistogram full(HdrConfig{1, kMax, 2});
    EXPECT_TRUE(full.record(kMax));
    EXPECT_TRUE(full.record(kMax / 3));
    EXPECT_EQ(full.max(), kMax);  // the top bucket ends at 2^63: saturated, not overflowed
    EXPECT_EQ(full.valueAtPercentile(100), kMax);
    EXPECT_EQ(full.countAtOrBelow(kMax), 2);
}

TEST(HdrHistogram, ImpossibleConfigurationsThrow) {
    EXPECT_THROW(HdrHistogram(HdrConfig{0, 1000, 3}), std::invalid_argument);
    EXPECT_THROW(HdrHistogram(HdrConfig{1, 1000, 0}), std::invalid_argument);
    EXPECT_THROW(HdrHistogram(HdrConfig{1, 1000, 6}), std::invalid_argument);
    EXPECT_THROW(HdrHistogram(HdrConfig{10, 19, 3}), std::invalid_argument);
    EXPECT_NO_THROW(HdrHistogram(HdrConfig{10, 20, 3}));
    EXPECT_THROW(
        HdrHistogram(HdrConfig{std::int64_t{1} << 50, std::numeric_limits<std::int64_t>::max(), 5}),
        std::invalid_argument);
}

TEST(HdrHistogram, ResetForgetsEverything) {
    HdrHistogram h;
    h.record(10);
    h.record(-1);
    h.reset();
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.outOfRangeCount(), 0);
    EXPECT_EQ(h.max(), 0);
    h.record(7);
    EXPECT_EQ(h.min(), 7);
}

// HdrHistogram's standard fixture: 10,000 one-millisecond responses and one 100 s stall, measured
// by a sampler that expected a response every 10 ms. Units: µs.
class StallFixture : public ::testing::Test {
  protected:
    void SetUp() override {
        for (int i = 0; i < 10'000; ++i) {
            raw_.record(1000);
            corrected_.recordCorrected(1000, 10'000);
        }
        raw_.record(100'000'000);
        corrected_.recordCorrected(100'000'000, 10'000);
    }
    static void expectNear(std::int64_t got, double expected) {
        EXPECT_NEAR(static_cast<double>(got), expected, expected * 0.001);
    }
    HdrHistogram raw_{HdrConfig{1, kHourUs, 3}};
    HdrHistogram corrected_{HdrConfig{1, kHourUs, 3}};
};

TEST_F(StallFixture, RawHistogramHidesTheStall) {
    EXPECT_EQ(raw_.totalCount(), 10'001);
    EXPECT_NEAR(static_cast<double>(raw_.countAtOrBelow(1000)) / raw_.totalCount(), 0.9999, 1e-4);
    expectNear(raw_.valueAtPercentile(30), 1000);
    expectNear(raw_.valueAtPercentile(99), 1000);
    expectNear(raw_.valueAtPercentile(99.99), 1000);
    expectNear(raw_.valueAtPercentile(99.999), 100'000'000);
    expectNear(raw_.valueAtPercentile(100), 100'000'000);
    expectNear(raw_.max(), 100'000'000);
    EXPECT_EQ(raw_.min(), 1000);
    const double mean = (1000.0 * 10'000 + 100'000'000.0) / 10'001;
    EXPECT_NEAR(raw_.mean(), mean, mean * 0.001);
    const double sd =
        std::sqrt((10'000 * std::pow(1000.0 - mean, 2) + std::pow(1e8 - mean, 2)) / 10'001);
    EXPECT_NEAR(raw_.stddev(), sd, sd * 0.001);
}

TEST_F(StallFixture, CorrectedHistogramShowsTheStall) {
    EXPECT_EQ(corrected_.totalCount(), 20'000);
    EXPECT_NEAR(static_cast<double>(corrected_.countAtOrBelow(1000)) / corrected_.totalCount(), 0.5,
                1e-9);
    expectNear(corrected_.valueAtPercentile(30), 1000);
    expectNear(corrected_.valueAtPercentile(50), 1000);
    expectNear(corrected_.valueAtPercentile(75), 50'000'000);
    expectNear(corrected_.valueAtPercentile(90), 80'000'000);
    expectNear(corrected_.valueAtPercentile(99), 98'000'000);
    expectNear(corrected_.valueAtPercentile(99.999), 100'000'000);
    expectNear(corrected_.valueAtPercentile(100), 100'000'000);
    const double mean = (1000.0 + 50'000'000.0) / 2;
    EXPECT_NEAR(corrected_.mean(), mean, mean * 0.001);
}

TEST_F(StallFixture, StallDoesNotFitTheDefaultRange) {
    HdrHistogram sixtySeconds;
    EXPECT_FALSE(sixtySeconds.recordCorrected(100'000'000, 10'000));
    EXPECT_EQ(sixtySeconds.outOfRangeCount(), 1);
    EXPECT_TRUE(sixtySeconds.empty());
    // Merging re-records each source bucket at its lowest value: what lies in buckets that start
    // above 60 s is dropped and counted (about the 4,000 corrected samples from 60 s to 100 s).
    std::int64_t above = 0;
    for (std::int64_t k = 1; k <= 10'000; ++k)
        above += corrected_.lowestEquivalent(k * 10'000) > 60'000'000 ? 1 : 0;
    EXPECT_NEAR(static_cast<double>(above), 4000.0, 10.0);
    EXPECT_EQ(sixtySeconds.merge(corrected_), above);
    EXPECT_EQ(sixtySeconds.outOfRangeCount(), 1 + above);
    EXPECT_EQ(sixtySeconds.totalCount(), corrected_.totalCount() - above);
}

// Reads, merges and resets walk only the buckets between the smallest and largest recorded
// value: a histogram reused across narrow, distant windows must still read exactly.
TEST(HdrHistogramTest, ResetAndReuseAcrossDistantRanges) {
    HdrHistogram h;
    std::vector<std::int64_t> lows, highs;
    for (std::int64_t v = 3; v < 900; v += 7) lows.push_back(v);
    for (std::int64_t v = 40'000'000; v < 41'000'000; v += 9'973) highs.push_back(v);
    for (int round = 0; round < 3; ++round) {
        const std::vector<std::int64_t>& values = round % 2 == 0 ? highs : lows;
        for (std::int64_t v : values) ASSERT_TRUE(h.record(v));
        HdrHistogram fresh;
        for (std::int64_t v : values) fresh.record(v);
        EXPECT_EQ(h.totalCount(), static_cast<std::int64_t>(values.size()));
        for (double p : {0.0, 1.0, 50.0, 99.0, 100.0})
            EXPECT_EQ(h.valueAtPercentile(p), fresh.valueAtPercentile(p)) << "round " << round;
        EXPECT_EQ(h.mean(), fresh.mean());
        EXPECT_EQ(h.countAtOrBelow(values.front()), fresh.countAtOrBelow(values.front()));
        EXPECT_EQ(h.countAtOrBelow(100'000'000), fresh.countAtOrBelow(100'000'000));
        h.reset();
        for (std::size_t i = 0; i < h.countsLength(); ++i) ASSERT_EQ(h.countAtIndex(i), 0) << i;
    }
}

TEST(HdrHistogramTest, SeveralPercentilesInOneWalkMatchOneAtATime) {
    HdrHistogram h;
    for (std::int64_t v : samples(Shape::Lognormal, 20'000, h.config().highest_trackable, 11))
        h.record(v);
    const std::vector<double> ps{99.9, 0.0, 50.0, 50.0, 100.0, 90.0, std::nan(""), 120.0, -3.0};
    std::vector<std::int64_t> got(ps.size(), -1);
    h.valuesAtPercentiles(ps, got);
    for (std::size_t k = 0; k < ps.size(); ++k)
        EXPECT_EQ(got[k], h.valueAtPercentile(ps[k])) << "percentile " << ps[k];
    std::vector<std::int64_t> tooFew(2);
    EXPECT_THROW(h.valuesAtPercentiles(ps, tooFew), std::invalid_argument);
    HdrHistogram none;
    none.valuesAtPercentiles(ps, got);
    for (std::int64_t v : got) EXPECT_EQ(v, 0);
}

// Percentiles against the rank rule read through countAtOrBelow, which walks bucket by bucket:
// the first bucket whose running count reaches round(p% of N) (at least 1), as its highest
// equivalent value. Histograms from one value to thousands, sparse and dense, so that targets
// fall at every offset inside the eight-bucket blocks the percentile walk skips through.
TEST(HdrHistogramTest, PercentilesFollowTheRankRuleBucketByBucket) {
    Rng rng(23, "hdr-test-rank-rule");
    for (int round = 0; round < 300; ++round) {
        HdrHistogram h(HdrConfig{1, 60'000'000, 3});
        const std::size_t n = 1 + rng.below(round % 3 == 0 ? 4000 : 40);
        for (std::size_t i = 0; i < n; ++i)
            h.record(std::llround(50.0 * std::exp(3.0 * rng.normal())), 1 + static_cast<std::int64_t>(rng.below(3)));
        std::vector<double> ps;
        for (int k = 0; k < 25; ++k) ps.push_back(100.0 * rng.uniform());
        ps.push_back(100.0);
        std::vector<std::int64_t> several(ps.size());
        h.valuesAtPercentiles(ps, several);
        for (std::size_t k = 0; k < ps.size(); ++k) {
            const std::int64_t target = std::max<std::int64_t>(
                1, static_cast<std::int64_t>(ps[k] / 100.0 * static_cast<double>(h.totalCount()) + 0.5));
            const std::int64_t v = h.valueAtPercentile(ps[k]);
            ASSERT_EQ(v, h.highestEquivalent(v)) << "round " << round << ", p" << ps[k];
            ASSERT_GE(h.countAtOrBelow(v), target) << "round " << round << ", p" << ps[k];
            ASSERT_LT(h.countAtOrBelow(h.lowestEquivalent(v) - 1), target) << "round " << round << ", p" << ps[k];
            ASSERT_EQ(several[k], v) << "round " << round << ", p" << ps[k];
        }
    }
}

}  // namespace
}  // namespace taillab
