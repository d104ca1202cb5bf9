// Percentile ticks and the .hgrm output, against the HdrHistogram_c reference file and against
// the tick rule computed from sorted samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/rng.h"
#include "cli_support.h"
#include "metrics/hgrm.h"

namespace taillab {
namespace {

using test::lines;

const std::string kDataDir = std::string(TAILLAB_SOURCE_DIR) + "/tests/data/hdr/";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::int64_t> referenceValues() {
    const std::string bytes = readFile(kDataDir + "lognormal_seed42_n100k.u64le");
    std::vector<std::int64_t> values(bytes.size() / 8);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(bytes[i * 8 + b]);
        values[i] = static_cast<std::int64_t>(v);
    }
    return values;
}

HdrHistogram referenceHistogram() {
    HdrHistogram h(HdrConfig{1, 60'000'000, 3});
    for (auto v : referenceValues()) EXPECT_TRUE(h.record(v));
    return h;
}

TEST(Hgrm, ReproducesHdrHistogramCReferenceByteForByte) {
    const auto values = referenceValues();
    ASSERT_EQ(values.size(), 100'000u);
    const HdrHistogram h = referenceHistogram();
    const std::string expected = readFile(kDataDir + "lognormal_seed42_n100k.hgrm");
    const std::string got = formatHgrm(h, HgrmOptions{5, 1.0});
    const auto expectedLines = lines(expected);
    const auto gotLines = lines(got);
    ASSERT_EQ(gotLines.size(), expectedLines.size());
    for (std::size_t i = 0; i < gotLines.size(); ++i)
        EXPECT_EQ(gotLines[i], expectedLines[i]) << "line " << i + 1;
    EXPECT_EQ(got, expected);
}

// Rows of a classic .hgrm: value, percentile fraction, total count.
struct Row {
    double value;
    double fraction;
    long long count;
};

std::vector<Row> rows(const std::string& text) {
    std::vector<Row> out;
    for (const auto& line : lines(text)) {
        Row r{};
        if (!line.empty() && line[0] != '#' &&
            std::sscanf(line.c_str(), "%lf %lf %lld", &r.value, &r.fraction, &r.count) == 3)
            out.push_back(r);
    }
    return out;
}

TEST(Hgrm, ValueScaleDividesValuesAndFooter) {
    const HdrHistogram h = referenceHistogram();
    const auto reference = rows(readFile(kDataDir + "lognormal_seed42_n100k.hgrm"));
    const std::string scaled = formatHgrm(h, HgrmOptions{5, 1000.0});
    const auto got = rows(scaled);
    ASSERT_EQ(got.size(), reference.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i].value, reference[i].value / 1000.0, 0.0005) << "row " << i;
        EXPECT_EQ(got[i].fraction, reference[i].fraction);
        EXPECT_EQ(got[i].count, reference[i].count);
    }
    EXPECT_NE(scaled.find("#[Max     =    10158.079,"), std::string::npos) << scaled;
}

// Found by tests/fuzz/fuzz_hgrm: rows longer than 255 characters were cut, newline included.
TEST(Hgrm, HugeScaledValuesKeepWholeRows) {
    HdrHistogram h;
    h.record(1000);
    const std::string text = formatHgrm(h, HgrmOptions{5, 1e-300});
    const auto got = lines(text);
    ASSERT_EQ(got.size(), 7u) << text;  // header, blank, two rows, three footer lines
    char expected[400];
    std::snprintf(expected, sizeof expected, "%12.3f", 1000.0 / 1e-300);
    EXPECT_EQ(got[2].substr(0, std::strlen(expected)), expected);
    EXPECT_TRUE(got[3].ends_with("inf")) << got[3];
    EXPECT_TRUE(got[4].starts_with("#[Mean")) << got[4];
}

TEST(PercentileTicks, FollowTheHalvingScheduleAndTheCumulativeRule) {
    Rng rng(17, "hgrm-ticks");
    std::vector<std::int64_t> values;
    for (int i = 0; i < 20'000; ++i)
        values.push_back(static_cast<std::int64_t>(rng.exponential(3000.0)));
    HdrHistogram h;
    for (auto v : values) h.record(v);
    std::sort(values.begin(), values.end());
    const double n = static_cast<double>(values.size());
    // share[i]: percentage of samples in sample i's bucket or below.
    std::vector<double> share;
    for (auto v : values) {
        const auto at = std::upper_bound(values.begin(), values.end(), h.highestEquivalent(v));
        share.push_back(100.0 * static_cast<double>(at - values.begin()) / n);
    }

    for (int ticksPerHalf : {1, 2, 5, 10}) {
        const auto ticks = percentileTicks(h, ticksPerHalf);
        ASSERT_GE(ticks.size(), 3u);
        EXPECT_EQ(ticks.front().percentile, 0.0);
        EXPECT_EQ(ticks.back().percentile, 100.0);
        EXPECT_EQ(ticks.back().cumulative_count, h.totalCount());
        EXPECT_EQ(ticks.back().value, h.max());
        // The first half (0..50%) is cut into ticksPerHalf equal steps, the next quarter too.
        EXPECT_DOUBLE_EQ(ticks[1].percentile, 50.0 / ticksPerHalf);
        EXPECT_DOUBLE_EQ(ticks[static_cast<std::size_t>(ticksPerHalf)].percentile, 50.0);
        EXPECT_DOUBLE_EQ(ticks[static_cast<std::size_t>(ticksPerHalf) + 1].percentile,
                         50.0 + 25.0 / ticksPerHalf);
        for (std::size_t i = 0; i + 1 < ticks.size(); ++i) {
            const auto& t = ticks[i];
            if (i > 0) {
                ASSERT_GT(t.percentile, ticks[i - 1].percentile);
            }
            // The first sample whose cumulative share reaches the tick, reported by its bucket.
            const auto first = std::lower_bound(share.begin(), share.end(), t.percentile);
            ASSERT_NE(first, share.end());
            EXPECT_EQ(t.value,
                      h.highestEquivalent(values[static_cast<std::size_t>(first - share.begin())]))
                << "tick " << t.percentile;
            const auto atOrBelow =
                std::upper_bound(values.begin(), values.end(), t.value) - values.begin();
            EXPECT_EQ(t.cumulative_count, atOrBelow) << "tick " << t.percentile;
        }
    }
}

TEST(PercentileTicks, EmptyHistogramHasOnlyTheFinalTick) {
    HdrHistogram h;
    const auto ticks = percentileTicks(h, 5);
    ASSERT_EQ(ticks.size(), 1u);
    EXPECT_EQ(ticks[0].percentile, 100.0);
    EXPECT_EQ(ticks[0].cumulative_count, 0);
    EXPECT_THROW(PercentileTicks(h, 0), std::invalid_argument);
}

TEST(PercentileTicks, OneValueGivesOneRowAndTheFinalRow) {
    HdrHistogram h;
    h.record(5000);
    const auto ticks = percentileTicks(h, 5);
    ASSERT_EQ(ticks.size(), 2u);
    EXPECT_EQ(ticks[0].percentile, 0.0);
    EXPECT_EQ(ticks[1].percentile, 100.0);
    for (const auto& t : ticks) {
        EXPECT_EQ(t.value, h.highestEquivalent(5000));
        EXPECT_EQ(t.cumulative_count, 1);
    }
}

// What formatHgrm writes reads back as its ticks: values at the printed precision, fractions,
// counts, in order; the footer and header are skipped.
TEST(HgrmParse, ReadsBackWhatFormatHgrmWrites) {
    HdrHistogram h;
    Rng rng(3, "hgrm-parse");
    for (int i = 0; i < 50'000; ++i) h.record(static_cast<std::int64_t>(rng.exponential(2000.0)) + 1);
    HgrmOptions options;
    options.value_scale = 1000.0;  // µs written as ms
    const std::vector<HgrmRow> rows = parseHgrm(formatHgrm(h, options));
    const std::vector<PercentileTick> ticks = percentileTicks(h, options.ticks_per_half_distance);
    ASSERT_EQ(rows.size(), ticks.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_NEAR(rows[i].value, static_cast<double>(ticks[i].value) / 1000.0, 0.0006) << i;
        EXPECT_NEAR(rows[i].fraction, ticks[i].percentile / 100.0, 5.1e-7) << i;  // 6 decimals
        EXPECT_EQ(rows[i].total_count, ticks[i].cumulative_count) << i;
    }
    EXPECT_EQ(rows.back().fraction, 1.0);
}

TEST(HgrmParse, SaysWhereAndWhatIsWrong) {
    const auto errorOf = [](const std::string& text) {
        try {
            parseHgrm(text);
        } catch (const HgrmError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string header = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
    EXPECT_EQ(errorOf(header + "   1.000 0.000 1 1.00\n   2.000 0.500 x 2.00\n"),
              "4:16: expected a total count, found 'x'");
    EXPECT_EQ(errorOf(header + "   1.000 1.500 1 1.00\n"),
              "3:10: expected a percentile fraction in [0, 1], found '1.500'");
    EXPECT_EQ(errorOf(header + "   2.000 0.100 1 1.00\n   1.000 0.200 2 1.00\n"),
              "4:4: the value goes down from the row before");
    EXPECT_EQ(errorOf(header + "   2.000 0.100 1\n"),
              "3:4: expected 4 fields (value, percentile, total count, 1/(1-percentile)), found 3");
    EXPECT_EQ(errorOf(header + "#[Mean = 1]\n"), "4:1: no percentile rows (is this a .hgrm file?)");
    EXPECT_EQ(errorOf("not a histogram at all\n"),
              "1:1: expected 4 fields (value, percentile, total count, 1/(1-percentile)), found 5");
    EXPECT_EQ(errorOf("this is not one\n"), "1:1: expected a value, found 'this'");
    // CRLF line ends and a last line without a newline read fine.
    EXPECT_EQ(parseHgrm("1.0 0.5 1 2.0\r\n2.0 1.0 2 inf").size(), 2u);
}

}  // namespace
}  // namespace taillab
