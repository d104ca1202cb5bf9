#include "metrics/hgrm.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
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

}  // namespace taillab
