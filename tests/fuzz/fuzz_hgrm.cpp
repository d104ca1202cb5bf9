// Fuzz target: a latency log recorded into an HDR histogram, written as .hgrm, and read back.
//
// The input's tail (FuzzedDataProvider takes numbers from the end) chooses the histogram's
// configuration (digits 1..5, lowest, highest), the ticks per half distance, the value scale and
// the log format; the rest is the log, read as `taillab-cli hdr` reads it (a malformed log keeps
// what was read before the error). This target parses the text on its own and holds it to the
// histogram and its percentile ticks; TailLab's reader (parseHgrm) must read it back, and must
// read or refuse (HgrmError with a position) the raw input itself:
//   - a header, a blank line, one row per tick, and three footer lines, each ending in '\n';
//   - rows of four fields: values, percentiles (fractions in [0, 1]) and counts that never
//     decrease, each count the tick's cumulative count, the last row 100% ("inf") at the total;
//   - each tick's count is the number of values at or below its value;
//   - the footer's total count, buckets and sub-buckets are the histogram's.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "metrics/hdr_histogram.h"
#include "metrics/hgrm.h"
#include "metrics/latency_log.h"

namespace {

using namespace taillab;
using fuzz::check;

constexpr std::size_t kCountedTicks = 8;

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        check(nl != std::string::npos, "the .hgrm does not end in a newline", text.substr(start));
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && line[i] == ' ') ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

double number(const std::string& text, const std::string& line) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    check(!text.empty() && *end == '\0', "not a number in a .hgrm row", line);
    return v;
}

// The integer after `label` in a footer line ("Total count    =        42]").
std::int64_t footerField(const std::string& line, const std::string& label) {
    const auto at = line.find(label);
    check(at != std::string::npos, "footer field missing", label + " in " + line);
    const auto eq = line.find('=', at);
    check(eq != std::string::npos, "footer field without '='", line);
    return std::strtoll(line.c_str() + eq + 1, nullptr, 10);
}

void checkTicks(const HdrHistogram& h, const std::vector<PercentileTick>& ticks) {
    check(!ticks.empty() && ticks.back().percentile == 100.0, "the ticks do not end at 100%");
    check(ticks.back().cumulative_count == h.totalCount(), "the 100% tick is not the total");
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const auto& t = ticks[i];
        check(t.percentile >= 0 && t.percentile <= 100, "a tick's percentile is outside 0..100");
        if (i > 0) {
            check(t.percentile >= ticks[i - 1].percentile, "tick percentiles decrease");
            check(t.value >= ticks[i - 1].value, "tick values decrease");
            check(t.cumulative_count >= ticks[i - 1].cumulative_count, "tick counts decrease");
        }
    }
    // countAtOrBelow walks the counts, so only some ticks (evenly spread, the last included).
    if (h.empty()) return;
    const std::size_t step = ticks.size() / kCountedTicks + 1;
    for (std::size_t i = ticks.size() - 1;; i -= step) {
        check(h.countAtOrBelow(ticks[i].value) == ticks[i].cumulative_count,
              "a tick's count is not the count at or below its value");
        if (i < step) break;
    }
}

void checkHgrm(const HdrHistogram& h, const std::vector<PercentileTick>& ticks,
               const std::string& text) {
    const auto lines = splitLines(text);
    check(lines.size() == ticks.size() + 5, "the .hgrm has the wrong number of lines", text);
    check(fields(lines[0]) ==
              std::vector<std::string>{"Value", "Percentile", "TotalCount", "1/(1-Percentile)"},
          "bad .hgrm header", lines[0]);
    check(lines[1].empty(), "no blank line after the .hgrm header", lines[1]);
    double lastValue = -1, lastFraction = -1;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const std::string& line = lines[2 + i];
        const auto f = fields(line);
        check(f.size() == 4, "a .hgrm row without four fields", line);
        const double value = number(f[0], line);
        const double fraction = number(f[1], line);
        const double count = number(f[2], line);
        check(value >= lastValue, "the .hgrm values decrease", line);
        check(fraction >= lastFraction && fraction >= 0 && fraction <= 1,
              "the .hgrm percentiles decrease or leave [0, 1]", line);
        check(count == static_cast<double>(ticks[i].cumulative_count),
              "a .hgrm row's count is not its tick's", line);
        lastValue = value;
        lastFraction = fraction;
    }
    const auto& last = fields(lines[1 + ticks.size()]);
    check(last[1] == "1.000000" && last[3] == "inf", "the last .hgrm row is not 100%",
          lines[1 + ticks.size()]);
    const std::string& mean = lines[2 + ticks.size()];
    const std::string& max = lines[3 + ticks.size()];
    const std::string& buckets = lines[4 + ticks.size()];
    check(mean.starts_with("#[Mean    = ") && mean.ends_with("]"), "bad .hgrm mean line", mean);
    check(max.starts_with("#[Max     = ") && max.ends_with("]"), "bad .hgrm max line", max);
    check(buckets.starts_with("#[Buckets = ") && buckets.ends_with("]"), "bad .hgrm buckets line",
          buckets);
    check(footerField(max, "Total count") == h.totalCount(), "the .hgrm total count is wrong", max);
    check(footerField(buckets, "Buckets") == h.bucketCount() &&
              footerField(buckets, "SubBuckets") == h.subBucketCount(),
          "the .hgrm bucket counts are wrong", buckets);
}

HdrConfig chooseConfig(FuzzedDataProvider& in) {
    HdrConfig c;
    c.significant_digits = in.ConsumeIntegralInRange(1, 5);
    c.lowest_discernible = in.ConsumeIntegralInRange<std::int64_t>(1, 1'000'000);
    // Every check walks the counts (2^(digits * 3.3) per power of two of range), so the range
    // shrinks as digits grow and one execution stays near a millisecond.
    const int topBits = c.significant_digits <= 2 ? 62 : c.significant_digits == 3 ? 44 : 20;
    const std::int64_t top = c.significant_digits <= 3 ? std::int64_t{1} << topBits
                                                       : c.lowest_discernible << topBits;
    c.highest_trackable = in.ConsumeIntegralInRange<std::int64_t>(1, top);
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const HdrConfig config = chooseConfig(in);
    HgrmOptions options;
    options.ticks_per_half_distance = in.ConsumeIntegralInRange(1, 64);
    // Any positive finite scale, as `taillab-cli hdr --scale` accepts, 1 half the time; drawn by
    // binary exponent so that tiny and huge scales are as likely as ordinary ones.
    if (in.ConsumeBool()) {
        const double mantissa = 1.0 + in.ConsumeProbability<double>();
        options.value_scale = std::ldexp(mantissa, in.ConsumeIntegralInRange(-1074, 1023));
        if (!std::isfinite(options.value_scale) || options.value_scale <= 0)
            options.value_scale = 1.0;
    }
    const auto format = in.ConsumeBool() ? LatencyLogFormat::U64Le : LatencyLogFormat::Text;

    std::optional<HdrHistogram> h;
    try {
        h.emplace(config);
    } catch (const std::invalid_argument&) {
        return 0;  // an impossible configuration, refused as documented
    }
    const std::string raw = in.ConsumeRemainingBytesAsString();
    // The same bytes as a .hgrm (what the GUI's overlay reads): rows that keep their invariants,
    // or an HgrmError naming a line and column; nothing else.
    try {
        const std::vector<HgrmRow> rows = parseHgrm(raw);
        check(!rows.empty(), "parseHgrm returned no rows without an error");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            check(std::isfinite(rows[i].value), "a parsed value is not finite");
            check(rows[i].fraction >= 0 && rows[i].fraction <= 1, "a parsed fraction outside [0, 1]");
            check(i == 0 || (rows[i].value >= rows[i - 1].value &&
                             rows[i].fraction >= rows[i - 1].fraction &&
                             rows[i].total_count >= rows[i - 1].total_count),
                  "parsed rows go down");
        }
    } catch (const HgrmError& e) {
        check(e.line() >= 1 && e.column() >= 1, "an HgrmError without a position", e.what());
    }
    LatencyLogReader reader(format, *h);
    try {
        reader.feed(raw);
        reader.finish();
    } catch (const LatencyLogError&) {
        // The CLI stops here; the histogram still holds what was read before.
    }

    const auto ticks = percentileTicks(*h, options.ticks_per_half_distance);
    checkTicks(*h, ticks);
    const std::string text = formatHgrm(*h, options);
    checkHgrm(*h, ticks, text);
    // What TailLab writes at its own scale, TailLab reads back: one row per tick.
    if (options.value_scale == 1.0)
        check(parseHgrm(text).size() == ticks.size(), "parseHgrm does not read back formatHgrm");
    return 0;
}
