#include "metrics/hgrm.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <charconv>
#include <stdexcept>

namespace taillab {

PercentileTicks::PercentileTicks(const HdrHistogram& histogram, int ticks_per_half_distance)
    : h_(histogram), ticksPerHalfDistance_(ticks_per_half_distance) {
    if (ticks_per_half_distance < 1)
        throw std::invalid_argument("percentile ticks: ticks per half distance must be >= 1");
}

bool PercentileTicks::advanceBucket() {
    if (cumulative_ >= h_.totalCount()) return false;
    if (started_) ++index_;
    started_ = true;
    if (index_ >= h_.countsLength()) return false;
    bucketCount_ = h_.countAtIndex(index_);
    if (bucketCount_ != 0) {
        cumulative_ += bucketCount_;
        value_ = h_.highestEquivalent(h_.valueFromIndex(index_));
    }
    return true;
}

std::optional<PercentileTick> PercentileTicks::next() {
    if (finished_) return std::nullopt;
    const std::int64_t total = h_.totalCount();
    if (cumulative_ < total && (started_ || advanceBucket())) {
        do {
            const double reached =
                (100.0 * static_cast<double>(cumulative_)) / static_cast<double>(total);
            if (bucketCount_ != 0 && nextPercentile_ <= reached) {
                const PercentileTick tick{nextPercentile_, value_, cumulative_};
                // Which halving of the distance to 100% the tick lies in sets the step.
                const double halving = std::log(100 / (100.0 - nextPercentile_)) / std::log(2);
                const int exponent = (halving < 1000.0 ? static_cast<int>(halving) : 1000) + 1;
                const double ticksInHalf =
                    static_cast<double>(ticksPerHalfDistance_) * std::ldexp(1.0, exponent);
                nextPercentile_ += 100.0 / ticksInHalf;
                return tick;
            }
        } while (advanceBucket());
    }
    finished_ = true;
    return PercentileTick{100.0, value_, cumulative_};
}

std::vector<PercentileTick> percentileTicks(const HdrHistogram& histogram,
                                            int ticks_per_half_distance) {
    std::vector<PercentileTick> ticks;
    PercentileTicks walk(histogram, ticks_per_half_distance);
    while (auto tick = walk.next()) ticks.push_back(*tick);
    return ticks;
}

namespace {

template <class... Args>
void appendf(std::string& out, const char* format, Args... args) {
    char buffer[256];
    const int n = std::snprintf(buffer, sizeof buffer, format, args...);
    if (n <= 0) return;
    const auto length = static_cast<std::size_t>(n);
    if (length < sizeof buffer) {
        out.append(buffer, length);
        return;
    }
    // A huge number (a tiny value_scale) prints hundreds of digits, as fprintf would in the C
    // library: format it again at its full length rather than cut the row and its newline.
    const std::size_t at = out.size();
    out.resize(at + length + 1);
    std::snprintf(out.data() + at, length + 1, format, args...);
    out.resize(at + length);
}

}  // namespace

std::string formatHgrm(const HdrHistogram& histogram, const HgrmOptions& options) {
    const double scale = options.value_scale;
    const int decimals = histogram.config().significant_digits;
    std::string out;
    appendf(out, "%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    PercentileTicks walk(histogram, options.ticks_per_half_distance);
    while (const auto tick = walk.next()) {
        const double fraction = tick->percentile / 100.0;
        appendf(out, "%12.*f %12f %12" PRId64 " %12.2f\n", decimals,
                static_cast<double>(tick->value) / scale, fraction, tick->cumulative_count,
                1.0 / (1.0 - fraction));
    }
    appendf(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", histogram.mean() / scale,
            histogram.stddev() / scale);
    appendf(out, "#[Max     = %12.3f, Total count    = %12" PRId64 "]\n",
            static_cast<double>(histogram.max()) / scale, histogram.totalCount());
    appendf(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", histogram.bucketCount(),
            histogram.subBucketCount());
    return out;
}

HgrmError::HgrmError(int line, int column, const std::string& what)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(column) + ": " + what),
      line_(line),
      column_(column) {}

namespace {

struct Field {
    std::string_view text;
    int column;  // 1-based
};

std::vector<Field> splitFields(std::string_view line) {
    std::vector<Field> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    return out;
}

double number(const Field& f, int line, const char* what) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
    if (ec != std::errc() || ptr != f.text.data() + f.text.size() || !std::isfinite(v))
        throw HgrmError(line, f.column,
                        std::string("expected ") + what + ", found '" + std::string(f.text) + "'");
    return v;
}

}  // namespace

std::vector<HgrmRow> parseHgrm(std::string_view text) {
    std::vector<HgrmRow> rows;
    int lineNumber = 0;
    bool headerAllowed = true;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::vector<Field> fields = splitFields(line);
        if (fields.empty() || fields[0].text.front() == '#') {
            if (end == text.size()) break;
            continue;
        }
        if (headerAllowed && fields[0].text == "Value") {
            headerAllowed = false;
            continue;
        }
        headerAllowed = false;
        if (fields.size() != 4)
            throw HgrmError(lineNumber, fields[0].column,
                            "expected 4 fields (value, percentile, total count, "
                            "1/(1-percentile)), found " + std::to_string(fields.size()));
        HgrmRow row;
        row.value = number(fields[0], lineNumber, "a value");
        row.fraction = number(fields[1], lineNumber, "a percentile fraction");
        if (row.fraction < 0 || row.fraction > 1)
            throw HgrmError(lineNumber, fields[1].column,
                            "expected a percentile fraction in [0, 1], found '" +
                                std::string(fields[1].text) + "'");
        const double count = number(fields[2], lineNumber, "a total count");
        if (count < 0 || count != std::floor(count))
            throw HgrmError(lineNumber, fields[2].column,
                            "expected a whole total count, found '" + std::string(fields[2].text) + "'");
        row.total_count = static_cast<std::int64_t>(count);
        if (fields[3].text != "inf") number(fields[3], lineNumber, "1/(1-percentile) or inf");
        if (!rows.empty()) {
            const HgrmRow& before = rows.back();
            const auto down = [&](int field, const char* what) {
                throw HgrmError(lineNumber, fields[static_cast<std::size_t>(field)].column,
                                std::string(what) + " goes down from the row before");
            };
            if (row.value < before.value) down(0, "the value");
            if (row.fraction < before.fraction) down(1, "the percentile");
            if (row.total_count < before.total_count) down(2, "the total count");
        }
        rows.push_back(row);
        if (end == text.size()) break;
    }
    if (rows.empty()) throw HgrmError(lineNumber, 1, "no percentile rows (is this a .hgrm file?)");
    return rows;
}

}  // namespace taillab
