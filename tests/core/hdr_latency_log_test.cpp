// LatencyLogReader: text and u64le logs fed in arbitrary blocks.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "metrics/latency_log.h"
#include "base/rng.h"

namespace taillab {
namespace {

// Feeds `log` cut into blocks of the given sizes (cycled), then finishes.
HdrHistogram readInBlocks(LatencyLogFormat format, const std::string& log,
                          const std::vector<std::size_t>& sizes, HdrConfig config = {}) {
    HdrHistogram h(config);
    LatencyLogReader reader(format, h);
    std::size_t at = 0;
    for (std::size_t i = 0; at < log.size(); ++i) {
        const std::size_t n = std::min(sizes[i % sizes.size()], log.size() - at);
        reader.feed(std::string_view(log).substr(at, n));
        at += n;
    }
    reader.finish();
    return h;
}

HdrHistogram readWhole(LatencyLogFormat format, const std::string& log, HdrConfig config = {}) {
    return readInBlocks(format, log, {log.size() + 1}, config);
}

void expectSameLogCounts(const HdrHistogram& a, const HdrHistogram& b) {
    ASSERT_EQ(a.countsLength(), b.countsLength());
    EXPECT_EQ(a.totalCount(), b.totalCount());
    EXPECT_EQ(a.outOfRangeCount(), b.outOfRangeCount());
    for (std::size_t i = 0; i < a.countsLength(); ++i)
        ASSERT_EQ(a.countAtIndex(i), b.countAtIndex(i));
}

std::string u64le(const std::vector<std::uint64_t>& values) {
    std::string out;
    for (auto v : values)
        for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
    return out;
}

TEST(LatencyLogReader, TextRecordsIntegersAndRoundedDecimals) {
    const HdrHistogram h =
        readWhole(LatencyLogFormat::Text,
                  "5\n 7 \n2.4\n2.5\r\n1e3\n# a comment\n\n  # indented\n\t9\t\n0\n.6");
    // 5, 7, 2, 3, 1000, 9, 0, 1 (the last line has no newline).
    EXPECT_EQ(h.totalCount(), 8);
    EXPECT_EQ(h.countAtOrBelow(0), 1);
    EXPECT_EQ(h.countAtOrBelow(1), 2);
    EXPECT_EQ(h.countAtOrBelow(2), 3);
    EXPECT_EQ(h.countAtOrBelow(3), 4);
    EXPECT_EQ(h.countAtOrBelow(9), 7);
    EXPECT_EQ(h.maxRecorded(), 1000);
    EXPECT_EQ(h.outOfRangeCount(), 0);
}

TEST(LatencyLogReader, UnrepresentableNumbersAreOutOfRangeNotErrors) {
    const HdrHistogram h = readWhole(
        LatencyLogFormat::Text, "-1\n60000001\n99999999999999999999999\n1e400\n-2.5\n1e-400\n42\n");
    EXPECT_EQ(h.totalCount(), 2);  // 42 and 1e-400 (rounds to 0)
    EXPECT_EQ(h.outOfRangeCount(), 5);
    EXPECT_EQ(h.countAtOrBelow(0), 1);
}

TEST(LatencyLogReader, TextErrorNamesLineAndText) {
    for (const std::string bad : {"abc", "12abc", "0x10", "nan", "inf", "1 2", "+", "-", "1..2"}) {
        HdrHistogram h;
        LatencyLogReader reader(LatencyLogFormat::Text, h);
        try {
            std::string log = "1\n# note\n\n";
            log += bad;
            log += "\n4\n";
            reader.feed(log);
            reader.finish();
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const LatencyLogError& e) {
            EXPECT_EQ(e.line(), 4) << bad;
            EXPECT_EQ(e.text(), bad);
            EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
        }
    }
}

TEST(LatencyLogReader, ErrorLineIsRightWhenTheLineSpansBlocks) {
    HdrHistogram h;
    LatencyLogReader reader(LatencyLogFormat::Text, h);
    reader.feed("10\n20\n3");
    reader.feed("0\n4");
    try {
        reader.feed("x\n50\n");
        ADD_FAILURE() << "accepted 4x";
    } catch (const LatencyLogError& e) {
        EXPECT_EQ(e.line(), 4);
        EXPECT_EQ(e.text(), "4x");
    }
    EXPECT_EQ(h.totalCount(), 3);
}

TEST(LatencyLogReader, OverlongLineIsAnError) {
    HdrHistogram h;
    LatencyLogReader reader(LatencyLogFormat::Text, h);
    const std::string longLine(LatencyLogReader::kMaxLineLength + 10, '1');
    EXPECT_THROW(
        {
            reader.feed("5\n");
            for (char c : longLine) reader.feed(std::string(1, c));
        },
        LatencyLogError);
}

// Found by tests/fuzz/fuzz_latency_log: a long line inside one block used to be accepted.
TEST(LatencyLogReader, OverlongLineIsAnErrorEvenWithinOneBlock) {
    const std::string log = "5\n" + std::string(LatencyLogReader::kMaxLineLength + 1, '#') + "\n";
    for (const std::vector<std::size_t>& sizes :
         std::vector<std::vector<std::size_t>>{{log.size()}, {1}, {3, 4000}}) {
        try {
            readInBlocks(LatencyLogFormat::Text, log, sizes);
            FAIL() << "a line of " << LatencyLogReader::kMaxLineLength + 1 << " bytes was accepted";
        } catch (const LatencyLogError& e) {
            EXPECT_EQ(e.line(), 2);
            EXPECT_EQ(e.reason(), "line too long");
        }
    }
    const std::string longest = "5\n" + std::string(LatencyLogReader::kMaxLineLength, '#') + "\n";
    EXPECT_EQ(readWhole(LatencyLogFormat::Text, longest).totalCount(), 1);
}

TEST(LatencyLogReader, TextBlockBoundariesDoNotMatter) {
    Rng rng(23, "latency-log-text");
    std::string log;
    for (int i = 0; i < 5000; ++i) {
        const double x = rng.exponential(4000.0);
        const std::string integer = std::to_string(static_cast<long long>(x));
        switch (rng.below(4)) {
            case 0:
                log.append(integer).append("\n");
                break;
            case 1:
                log.append(std::to_string(x)).append("\r\n");
                break;
            case 2:
                log.append("  ").append(integer).append(" \n# c\n");
                break;
            default:
                log.append("\n").append(integer).append("00000000\n");
                break;
        }
    }
    const HdrHistogram whole = readWhole(LatencyLogFormat::Text, log);
    EXPECT_EQ(whole.totalCount() + whole.outOfRangeCount(), 5000);
    for (const std::vector<std::size_t>& sizes :
         std::vector<std::vector<std::size_t>>{{1}, {2, 3}, {7}, {4096}, {1, 100, 3, 17}})
        expectSameLogCounts(readInBlocks(LatencyLogFormat::Text, log, sizes), whole);
}

// A UTF-8 byte-order mark opens the file only: the first line's value is read, in any cut of the
// blocks; one anywhere else is what it is, text that is not a number.
TEST(LatencyLogReader, AByteOrderMarkBeforeTheFirstLineIsSkipped) {
    const std::string bom = "\xEF\xBB\xBF";
    const HdrHistogram plain = readWhole(LatencyLogFormat::Text, "1\n2\n3");
    for (const std::vector<std::size_t>& sizes : std::vector<std::vector<std::size_t>>{{100}, {1}, {2, 1}})
        expectSameLogCounts(readInBlocks(LatencyLogFormat::Text, bom + "1\n2\n3", sizes), plain);
    EXPECT_EQ(readWhole(LatencyLogFormat::Text, bom + "7").totalCount(), 1) << "one line, no newline";
    EXPECT_EQ(readWhole(LatencyLogFormat::Text, bom + "# comment\n7\n").totalCount(), 1);
    try {
        readWhole(LatencyLogFormat::Text, "1\n" + bom + "2\n");
        FAIL() << "a mark on the second line was taken";
    } catch (const LatencyLogError& e) {
        EXPECT_EQ(e.line(), 2);
    }
}

TEST(LatencyLogReader, U64leRecordsValuesAcrossBlocks) {
    Rng rng(29, "latency-log-u64");
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 3000; ++i) values.push_back(rng.below(70'000'000));
    values.push_back(std::numeric_limits<std::uint64_t>::max());
    values.push_back(std::uint64_t{1} << 63);
    const std::string log = u64le(values);
    HdrHistogram direct;
    for (auto v : values) direct.record(v > 70'000'000 ? -1 : static_cast<std::int64_t>(v));
    for (const std::vector<std::size_t>& sizes :
         std::vector<std::vector<std::size_t>>{{log.size()}, {1}, {3, 5}, {13}, {8}})
        expectSameLogCounts(readInBlocks(LatencyLogFormat::U64Le, log, sizes), direct);
    EXPECT_GE(direct.outOfRangeCount(), 2);
}

TEST(LatencyLogReader, U64leTrailingBytesAreAnError) {
    HdrHistogram h;
    LatencyLogReader reader(LatencyLogFormat::U64Le, h);
    reader.feed(u64le({1, 2, 3}) + "abc");
    EXPECT_EQ(reader.valuesRead(), 3);
    try {
        reader.finish();
        ADD_FAILURE() << "accepted 3 trailing bytes";
    } catch (const LatencyLogError& e) {
        EXPECT_NE(e.reason().find("multiple of 8"), std::string::npos) << e.reason();
        EXPECT_EQ(e.line(), 0);
    }
}

}  // namespace
}  // namespace taillab
