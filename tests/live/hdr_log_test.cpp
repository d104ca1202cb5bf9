#include "metrics/hdr_log.h"

#include <gtest/gtest.h>

#include <string>

namespace taillab {
namespace {

// Two interval lines of jHiccup-2.0.7S.logV2.hlog, a V2 log written by Java's HistogramLogWriter,
// from HdrHistogram_c's test resources (test/jHiccup-2.0.7S.logV2.hlog, lines 5 and 14): values in
// nanoseconds, 2 significant digits, lowest discernible 20000, Interval_Max in milliseconds.
constexpr const char* kJavaLine1 =
    "0.127,1.007,2.769,HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=";
constexpr const char* kJavaLine2 =
    "9.132,1.751,1551.892,HISTFAAAAJZ42pNpmSzMwMB0nQECmCCUnwIDA7ObwY4FDPYfYDJMXFxsbGwMbBwszDwsDDxsHFw6RWJMLJMZmcqBMJrJmskSiA2ZZJmkgRBCgmheIORGI1H5rEzMQAyDzFhY2EWRWUwMWCBxQtQQhAIWJiyAaEHyFbKwsLHAADYWAWmiFeKS5gACLsIEzdQICAgBIQShEfhFABXDF+M=";

std::string fieldAfterThirdComma(const std::string& line) {
    std::size_t at = 0;
    for (int i = 0; i < 3; ++i) at = line.find(',', at) + 1;
    return line.substr(at);
}

TEST(HdrLog, DecodesJavaWrittenHistograms) {
    const HdrLog log = parseHdrLog(std::string(kJavaLine1) + "\n" + kJavaLine2 + "\n");
    ASSERT_EQ(log.intervals.size(), 2u);
    const HdrHistogram& first = log.intervals[0].histogram;
    EXPECT_EQ(first.config(), (HdrConfig{20000, 3600000000000, 2}));
    EXPECT_EQ(first.totalCount(), 741);
    EXPECT_EQ(log.intervals[1].histogram.totalCount(), 1700);
    EXPECT_DOUBLE_EQ(log.intervals[1].start_s, 9.132);
    EXPECT_DOUBLE_EQ(log.intervals[1].length_s, 1.751);
    EXPECT_DOUBLE_EQ(log.intervals[1].max, 1551.892);
}

// Encoding what Java wrote gives Java's bytes back (same zero runs, same deflate level), and the
// line's max column agrees with the histogram's max.
TEST(HdrLog, ReencodesJavaHistogramsByteForByte) {
    for (const std::string line : {kJavaLine1, kJavaLine2}) {
        const HdrLog log = parseHdrLog(line);
        ASSERT_EQ(log.intervals.size(), 1u);
        const HdrLogInterval& in = log.intervals[0];
        EXPECT_EQ(encodeCompressedHistogramBase64(in.histogram), fieldAfterThirdComma(line));
        const HdrLogWriter nanoseconds(0, 1e6);
        EXPECT_EQ(nanoseconds.interval(in.start_s, in.length_s, in.histogram), line + "\n");
    }
}

TEST(HdrLog, RoundTripsMicrosecondHistograms) {
    HdrHistogram h;  // TailLab's default: 1 µs to 60 s, 3 digits
    for (std::int64_t v = 1; v < 2'000'000; v = v * 3 / 2 + 1) h.record(v, v % 7 + 1);
    h.record(59'000'000);
    const HdrHistogram back = decodeCompressedHistogram(encodeCompressedHistogram(h));
    EXPECT_EQ(back.config(), h.config());
    ASSERT_EQ(back.countsLength(), h.countsLength());
    for (std::size_t i = 0; i < h.countsLength(); ++i)
        ASSERT_EQ(back.countAtIndex(i), h.countAtIndex(i)) << "index " << i;
    EXPECT_EQ(back.totalCount(), h.totalCount());
    EXPECT_EQ(back.max(), h.max());

    const HdrHistogram empty;
    EXPECT_EQ(decodeCompressedHistogramBase64(encodeCompressedHistogramBase64(empty)).totalCount(), 0);

    HdrHistogram huge;  // counts that need all nine LEB128 bytes
    huge.record(1000, std::int64_t{1} << 62);
    EXPECT_EQ(decodeCompressedHistogram(encodeCompressedHistogram(huge)).totalCount(), std::int64_t{1} << 62);
}

TEST(HdrLog, WriterLinesReadBack) {
    const HdrLogWriter writer(1'441'812'279'474);
    HdrHistogram a, b;
    a.record(1500);
    b.record(250'000, 3);
    const std::string text = writer.header() + writer.interval(0, 1, a) +
                             writer.interval(1, 1, b, "uncorrected");
    EXPECT_NE(text.find("#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 15:24:39 UTC 2015]\n"),
              std::string::npos);
    EXPECT_NE(text.find("#[BaseTime: 1441812279.474 (seconds since epoch)]\n"), std::string::npos);
    EXPECT_NE(text.find("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"),
              std::string::npos);
    const HdrLog log = parseHdrLog(text);
    EXPECT_DOUBLE_EQ(*log.start_time_s, 1441812279.474);
    EXPECT_DOUBLE_EQ(*log.base_time_s, 1441812279.474);
    ASSERT_EQ(log.intervals.size(), 2u);
    EXPECT_EQ(log.intervals[0].tag, "");
    EXPECT_DOUBLE_EQ(log.intervals[0].max, a.max() / 1000.0);
    EXPECT_EQ(log.intervals[1].tag, "uncorrected");
    EXPECT_EQ(log.intervals[1].histogram.totalCount(), 3);
    EXPECT_THROW(writer.interval(0, 1, a, "two words"), std::invalid_argument);
}

TEST(HdrLog, BadInputIsAnErrorNamingTheLine) {
    auto errorOf = [](const std::string& text) -> std::string {
        try {
            parseHdrLog(text);
        } catch (const HdrLogError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(errorOf("#c\n0.1,1,2\n"), "line 2: expected 4 comma-separated fields, found 3");
    EXPECT_EQ(errorOf("x,1,2,HIST\n"), "line 1: StartTimestamp is not a number: 'x'");
    EXPECT_NE(errorOf("0,1,2,HIS*\n").find("line 1: '*' at 3 is not base64"), std::string::npos);
    EXPECT_NE(errorOf("0,1,2,AAAAAAAAAAAA\n").find("not a V2 compressed histogram"), std::string::npos);
    // A valid header whose zlib stream is cut short.
    std::string bytes = encodeCompressedHistogram(HdrHistogram{});
    EXPECT_THROW(decodeCompressedHistogram(bytes.substr(0, bytes.size() - 4)), HdrLogError);
    bytes[12] ^= 0x55;  // corrupt the deflate stream
    EXPECT_THROW(decodeCompressedHistogram(bytes), HdrLogError);
    // Found by fuzz_hlog (tests/fuzz/regressions/hlog/counts-overflow-total): counts whose sum
    // overflowed the histogram's 64-bit total.
    const std::string overflow =
        "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYIYCBvsPAQAAAyEuATGTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OT"
        "k5OTk5OTk5OTk5OTk5OTk5OTFzE9Di4BKSEhwx4nrxg9v2lMaxhvKOkILGZkKmcCAML2CsI=";
    try {
        decodeCompressedHistogramBase64(overflow);
        ADD_FAILURE() << "decoded";
    } catch (const HdrLogError& e) {
        EXPECT_NE(std::string(e.what()).find("more than a 64-bit total"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace taillab
