#include "metrics/hdr_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace taillab {

namespace {

// Smallest m with 2^m >= n, for n >= 1.
int ceilLog2(std::uint64_t n) { return n <= 1 ? 0 : 64 - std::countl_zero(n - 1); }
// Largest m with 2^m <= n, for n >= 1.
int floorLog2(std::uint64_t n) { return 63 - std::countl_zero(n); }

// Buckets needed so that the top of the last one lies above `highest`.
int bucketsToCover(std::int64_t highest, int subBucketCount, int unitMagnitude) {
    std::int64_t smallestUntrackable = static_cast<std::int64_t>(subBucketCount) << unitMagnitude;
    int buckets = 1;
    while (smallestUntrackable <= highest) {
        if (smallestUntrackable > std::numeric_limits<std::int64_t>::max() / 2) return buckets + 1;
        smallestUntrackable <<= 1;
        ++buckets;
    }
    return buckets;
}

}  // namespace

HdrHistogram::HdrHistogram(const HdrConfig& config) : config_(config) {
    if (config.lowest_discernible < 1)
        throw std::invalid_argument("HDR histogram: lowest discernible value must be >= 1");
    if (config.significant_digits < 1 || config.significant_digits > 5)
        throw std::invalid_argument("HDR histogram: significant digits must be in 1..5");
    if (config.highest_trackable / 2 < config.lowest_discernible)
        throw std::invalid_argument(
            "HDR histogram: highest trackable value must be >= 2 x lowest discernible");

    std::uint64_t largestSingleUnit = 2;
    for (int i = 0; i < config.significant_digits; ++i) largestSingleUnit *= 10;
    subBucketHalfCountMagnitude_ = std::max(ceilLog2(largestSingleUnit), 1) - 1;
    unitMagnitude_ = floorLog2(static_cast<std::uint64_t>(config.lowest_discernible));
    if (unitMagnitude_ + subBucketHalfCountMagnitude_ > 61)
        throw std::invalid_argument("HDR histogram: range and precision do not fit in 64 bits");
    subBucketCount_ = 1 << (subBucketHalfCountMagnitude_ + 1);
    subBucketHalfCount_ = subBucketCount_ / 2;
    subBucketMask_ = (static_cast<std::uint64_t>(subBucketCount_) - 1) << unitMagnitude_;
    highestTrackableUnsigned_ = static_cast<std::uint64_t>(config.highest_trackable);

    bucketCount_ = bucketsToCover(config.highest_trackable, subBucketCount_, unitMagnitude_);
    counts_.assign(static_cast<std::size_t>(bucketCount_ + 1) * subBucketHalfCount_, 0);
}

bool HdrHistogram::refuse(std::int64_t count) {
    if (count > 0) outOfRange_ += count;
    return false;
}

bool HdrHistogram::recordCorrected(std::int64_t value, std::int64_t expected_interval,
                                   std::int64_t count) {
    if (!record(value, count)) return false;
    if (expected_interval <= 0) return true;
    for (std::int64_t missing = value - expected_interval; missing >= expected_interval;
         missing -= expected_interval) {
        record(missing, count);
    }
    return true;
}

HdrConfig covering(const HdrConfig& a, const HdrConfig& b) {
    return HdrConfig{std::min(a.lowest_discernible, b.lowest_discernible),
                     std::max(a.highest_trackable, b.highest_trackable),
                     std::max(a.significant_digits, b.significant_digits)};
}

std::int64_t HdrHistogram::merge(const HdrHistogram& other) {
    outOfRange_ += other.outOfRange_;
    if (other.empty()) return 0;
    // Same layout and every recorded value inside this range: add counts index by index.
    if (sameLayoutAs(other) && other.counts_.size() <= counts_.size() &&
        other.max_ <= config_.highest_trackable) {
        const auto [lo, hi] = other.filled();
        for (std::size_t i = lo; i < hi; ++i) counts_[i] += other.counts_[i];
        totalCount_ += other.totalCount_;
        min_ = std::min(min_, other.min_);
        max_ = std::max(max_, other.max_);
        return 0;
    }
    const std::int64_t ownMin = min_;
    const std::int64_t ownMax = max_;
    std::int64_t dropped = 0;
    const auto [lo, hi] = other.filled();
    for (std::size_t i = lo; i < hi; ++i) {
        const std::int64_t n = other.counts_[i];
        if (n != 0 && !record(other.valueFromIndex(i), n)) dropped += n;
    }
    // Re-recording at bucket representatives moves the extremes to bucket starts; restore the
    // exact ones wherever they lie inside this range (then their buckets were recorded).
    if (other.min_ <= config_.highest_trackable) min_ = std::min(ownMin, other.min_);
    if (other.max_ <= config_.highest_trackable) max_ = std::max(ownMax, other.max_);
    return dropped;
}

void HdrHistogram::reset() {
    const auto [lo, hi] = filled();
    std::fill(counts_.begin() + static_cast<std::ptrdiff_t>(lo),
              counts_.begin() + static_cast<std::ptrdiff_t>(hi), 0);
    totalCount_ = 0;
    outOfRange_ = 0;
    min_ = std::numeric_limits<std::int64_t>::max();
    max_ = 0;
}

std::int64_t HdrHistogram::valueFromIndex(std::size_t index) const {
    int bucket = static_cast<int>(index >> subBucketHalfCountMagnitude_) - 1;
    int sub = static_cast<int>(index & static_cast<std::size_t>(subBucketHalfCount_ - 1)) +
              subBucketHalfCount_;
    if (bucket < 0) {
        sub -= subBucketHalfCount_;
        bucket = 0;
    }
    return static_cast<std::int64_t>(sub) << (bucket + unitMagnitude_);
}

std::int64_t HdrHistogram::sizeOfEquivalentRange(std::int64_t value) const {
    value = clampToRange(value);
    const int bucket = bucketIndexOf(value);
    const int sub = subBucketIndexOf(value, bucket);
    const int adjusted = sub >= subBucketCount_ ? bucket + 1 : bucket;
    return std::int64_t{1} << (unitMagnitude_ + adjusted);
}

std::int64_t HdrHistogram::lowestEquivalent(std::int64_t value) const {
    value = clampToRange(value);
    const int bucket = bucketIndexOf(value);
    const int sub = subBucketIndexOf(value, bucket);
    return static_cast<std::int64_t>(sub) << (bucket + unitMagnitude_);
}

std::int64_t HdrHistogram::highestEquivalent(std::int64_t value) const {
    // The top bucket of a range reaching INT64_MAX ends at 2^63: saturate instead of overflowing.
    const std::uint64_t next = static_cast<std::uint64_t>(lowestEquivalent(value)) +
                               static_cast<std::uint64_t>(sizeOfEquivalentRange(value));
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return static_cast<std::int64_t>(std::min(next - 1, kMax));
}

std::int64_t HdrHistogram::medianEquivalent(std::int64_t value) const {
    return lowestEquivalent(value) + (sizeOfEquivalentRange(value) >> 1);
}

std::int64_t HdrHistogram::min() const { return empty() ? 0 : lowestEquivalent(min_); }
std::int64_t HdrHistogram::max() const { return empty() ? 0 : highestEquivalent(max_); }

double HdrHistogram::mean() const {
    if (empty()) return 0.0;
    // Exact integer sum (128 bits: count * value can exceed 64 bits), converted once at the end,
    // as the C library's int64 sum is whenever it does not overflow.
    __extension__ using Int128 = __int128;
    Int128 total = 0;
    const auto [lo, hi] = filled();
    for (std::size_t i = lo; i < hi; ++i) {
        if (counts_[i] == 0) continue;
        total += static_cast<Int128>(counts_[i]) * medianEquivalent(valueFromIndex(i));
    }
    return static_cast<double>(total) / static_cast<double>(totalCount_);
}

double HdrHistogram::stddev() const {
    if (empty()) return 0.0;
    const double m = mean();
    double sumSquares = 0;
    const auto [lo, hi] = filled();
    for (std::size_t i = lo; i < hi; ++i) {
        if (counts_[i] == 0) continue;
        const double dev = static_cast<double>(medianEquivalent(valueFromIndex(i))) - m;
        sumSquares += (dev * dev) * static_cast<double>(counts_[i]);
    }
    return std::sqrt(sumSquares / static_cast<double>(totalCount_));
}

// Counts are never negative, so a block whose sum leaves `running` short of the target holds no
// index that reaches it: the walk adds eight counts at a time (a sum the compiler unrolls) and
// goes one by one only inside the block that gets there. A percentile walks tens of thousands
// of buckets at three significant digits; a chart window asks several.
std::size_t HdrHistogram::reach(std::size_t i, std::size_t hi, std::int64_t& running,
                                std::int64_t target) const {
    constexpr std::size_t kBlock = 8;
    const std::int64_t* const c = counts_.data();
    while (hi - i >= kBlock) {
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < kBlock; ++k) sum += c[i + k];
        if (running + sum >= target) break;
        running += sum;
        i += kBlock;
    }
    for (; i < hi; ++i) {
        running += c[i];
        if (running >= target) return i;
    }
    return hi;
}

// A percentile as the walks read it: NaN as 0, the rest clamped to [0, 100].
double HdrHistogram::clampPercentile(double percentile) {
    return std::isnan(percentile) ? 0.0 : std::clamp(percentile, 0.0, 100.0);
}

// The rank the percentile p (clamped) asks for: round(p% of the count), at least 1.
std::int64_t HdrHistogram::rankTarget(double p) const {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>((p / 100.0) * static_cast<double>(totalCount_) + 0.5));
}

std::int64_t HdrHistogram::valueAtPercentile(double percentile) const {
    if (empty()) return 0;
    const double p = clampPercentile(percentile);
    const std::int64_t target = rankTarget(p);
    std::int64_t running = 0;
    const auto [lo, hi] = filled();
    const std::size_t i = reach(lo, hi, running, target);
    if (i == hi) return max();
    const std::int64_t v = valueFromIndex(i);
    return p == 0.0 ? lowestEquivalent(v) : highestEquivalent(v);
}

void HdrHistogram::valuesAtPercentiles(std::span<const double> percentiles,
                                       std::span<std::int64_t> out) const {
    if (out.size() != percentiles.size())
        throw std::invalid_argument("valuesAtPercentiles: " + std::to_string(percentiles.size()) +
                                    " percentiles but room for " + std::to_string(out.size()));
    if (empty()) {
        std::fill(out.begin(), out.end(), 0);
        return;
    }
    // One walk over the filled buckets answers every percentile, taken in ascending order.
    struct Ask {
        std::int64_t target;
        bool lowest;  // the 0th percentile reports its bucket's lowest value
        std::size_t slot;
    };
    std::vector<Ask> asks;
    asks.reserve(percentiles.size());
    for (std::size_t k = 0; k < percentiles.size(); ++k) {
        const double p = clampPercentile(percentiles[k]);
        asks.push_back(Ask{rankTarget(p), p == 0.0, k});
    }
    std::sort(asks.begin(), asks.end(),
              [](const Ask& a, const Ask& b) { return a.target < b.target; });
    std::int64_t running = 0;
    const auto [lo, hi] = filled();
    std::size_t at = hi;    // the bucket where `running` last reached a target
    std::size_t next = lo;  // the first bucket not yet in `running`
    for (const Ask& ask : asks) {
        if (at == hi || running < ask.target) {
            at = reach(next, hi, running, ask.target);
            next = at == hi ? hi : at + 1;
        }
        if (at == hi) {
            out[ask.slot] = max();
            continue;
        }
        const std::int64_t v = valueFromIndex(at);
        out[ask.slot] = ask.lowest ? lowestEquivalent(v) : highestEquivalent(v);
    }
}

std::int64_t HdrHistogram::countAtOrBelow(std::int64_t value) const {
    if (value < 0) return 0;
    if (value > config_.highest_trackable) return totalCount_;
    const auto [lo, hi] = filled();
    const std::size_t limit = std::min(countsIndexFor(value) + 1, hi);
    std::int64_t running = 0;
    for (std::size_t i = lo; i < limit; ++i) running += counts_[i];
    return running;
}

void HdrHistogram::forEachBucket(
    const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& fn) const {
    const auto [lo, hi] = filled();
    for (std::size_t i = lo; i < hi; ++i) {
        if (counts_[i] == 0) continue;
        const std::int64_t v = valueFromIndex(i);
        fn(lowestEquivalent(v), highestEquivalent(v), counts_[i]);
    }
}

}  // namespace taillab
