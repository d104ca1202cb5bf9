// Fuzz target: LatencyLogReader, text and u64le, as `taillab-cli hdr` feeds it.
//
// The first input byte picks the format (lowest bit) and how the rest is cut into blocks (the
// other bits seed the block sizes, 1 to 64 bytes). The log is read twice into fresh histograms:
// once in those blocks, once as a single block. The reader promises that blocks may be split
// anywhere, so both reads must agree: the same error (message included) or the same histogram,
// the same number of values and lines. Every value read is recorded or counted out of range,
// once.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "metrics/hdr_histogram.h"
#include "metrics/latency_log.h"

namespace {

using taillab::HdrHistogram;
using taillab::LatencyLogError;
using taillab::LatencyLogFormat;
using taillab::LatencyLogReader;

// The CLI's range (highest 60 s in µs) decides what is out of range; one significant digit keeps
// the counts at a few hundred entries, so comparing two histograms costs little per execution.
const taillab::HdrConfig kConfig{1, 60'000'000, 1};

struct Read {
    HdrHistogram histogram{kConfig};
    std::optional<std::string> error;
    std::int64_t values = 0;
    std::int64_t lines = 0;
};

// Reads `log` in blocks whose sizes follow `pattern` (0: one block).
Read readLog(LatencyLogFormat format, std::string_view log, unsigned pattern) {
    Read r;
    LatencyLogReader reader(format, r.histogram);
    try {
        unsigned state = pattern;
        while (!log.empty()) {
            std::size_t n = log.size();
            if (pattern != 0) {
                state = state * 1103515245u + 12345u;
                n = std::min<std::size_t>(n, 1 + (state >> 16) % 64);
            }
            reader.feed(log.substr(0, n));
            log.remove_prefix(n);
        }
        reader.finish();
    } catch (const LatencyLogError& e) {
        r.error = e.what();
    }
    r.values = reader.valuesRead();
    r.lines = reader.linesRead();
    return r;
}

bool sameHistogram(const HdrHistogram& a, const HdrHistogram& b) {
    if (a.totalCount() != b.totalCount() || a.outOfRangeCount() != b.outOfRangeCount() ||
        a.minRecorded() != b.minRecorded() || a.maxRecorded() != b.maxRecorded())
        return false;
    for (std::size_t i = 0; i < a.countsLength(); ++i)
        if (a.countAtIndex(i) != b.countAtIndex(i)) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using taillab::fuzz::check;
    if (size == 0) return 0;
    const auto format = (data[0] & 1) ? LatencyLogFormat::U64Le : LatencyLogFormat::Text;
    const unsigned pattern = (data[0] >> 1) + 1u;
    const std::string_view log(reinterpret_cast<const char*>(data + 1), size - 1);

    const Read whole = readLog(format, log, 0);
    const Read blocks = readLog(format, log, pattern);

    check(whole.error == blocks.error, "the error depends on how the log is cut into blocks",
          whole.error.value_or("(none)") + " | " + blocks.error.value_or("(none)"));
    if (whole.error) return 0;
    check(sameHistogram(whole.histogram, blocks.histogram),
          "the histogram depends on how the log is cut into blocks");
    check(whole.values == blocks.values && whole.lines == blocks.lines,
          "values or lines read depend on how the log is cut into blocks");
    check(whole.values == whole.histogram.totalCount() + whole.histogram.outOfRangeCount(),
          "a value was not recorded or counted out of range exactly once");
    if (format == LatencyLogFormat::U64Le)
        check(whole.values == static_cast<std::int64_t>(log.size() / 8),
              "a u64le log of n*8 bytes did not give n values");
    return 0;
}
