#include "metrics/hdr_histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace taillab {

HdrHistogram::HdrHistogram(const HdrConfig& config) : config_(config) {
    if (config.lowest_discernible < 1)
        throw std::invalid_argument("HDR histogram: lowest discernible value must be >= 1");
    if (config.significant_digits < 1 || config.significant_digits > 5)
        throw std::invalid_argument("HDR histogram: significant digits must be in 1..5");
    if (config.highest_trackable < 2 * config.lowest_discernible)
        throw std::invalid_argument(
            "HDR histogram: highest trackable value must be >= 2 x lowest discernible");

    std::int64_t largestSingleUnit = 2;
    for (int i = 0; i < config.significant_digits; ++i) largestSingleUnit *= 10;
    const int subBucketCountMagnitude =
        static_cast<int>(std::ceil(std::log2(static_cast<double>(largestSingleUnit))));
    subBucketHalfCountMagnitude_ = std::max(subBucketCountMagnitude, 1) - 1;
    unitMagnitude_ = static_cast<int>(std::floor(std::log2(static_cast<double>(config.lowest_discernible))));
    subBucketCount_ = 1 << (subBucketHalfCountMagnitude_ + 1);
    subBucketHalfCount_ = subBucketCount_ / 2;
    subBucketMask_ = (static_cast<std::uint64_t>(subBucketCount_) - 1) << unitMagnitude_;
    if (unitMagnitude_ + subBucketHalfCountMagnitude_ > 61)
        throw std::invalid_argument("HDR histogram: range and precision do not fit in 64 bits");

    std::int64_t smallestUntrackable = static_cast<std::int64_t>(subBucketCount_) << unitMagnitude_;
    int buckets = 1;
    while (smallestUntrackable <= config.highest_trackable) {
        if (smallestUntrackable > std::numeric_limits<std::int64_t>::max() / 2) {
            ++buckets;
            break;
        }
        smallestUntrackable <<= 1;
        ++buckets;
    }
    bucketCount_ = buckets;
    counts_.assign(static_cast<std::size_t>(bucketCount_ + 1) * subBucketHalfCount_, 0);
}

bool HdrHistogram::recordCorrected(std::int64_t value, std::int64_t expected_interval) {
    if (!record(value)) return false;
    if (expected_interval <= 0) return true;
    for (std::int64_t missing = value - expected_interval; missing >= expected_interval;
         missing -= expected_interval) {
        record(missing);
    }
    return true;
}

std::int64_t HdrHistogram::merge(const HdrHistogram& other) {
    std::int64_t dropped = other.outOfRange_;
    outOfRange_ += other.outOfRange_;
    if (other.empty()) return dropped;
    const bool sameLayout = other.unitMagnitude_ == unitMagnitude_ &&
                            other.subBucketCount_ == subBucketCount_ &&
                            other.counts_.size() <= counts_.size();
    if (sameLayout) {
        for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
        totalCount_ += other.totalCount_;
        min_ = std::min(min_, other.min_);
        max_ = std::max(max_, other.max_);
        return dropped;
    }
    for (std::size_t i = 0; i < other.counts_.size(); ++i) {
        if (other.counts_[i] == 0) continue;
        if (!record(other.valueFromIndex(i), other.counts_[i])) dropped += other.counts_[i];
    }
    return dropped;
}

void HdrHistogram::reset() {
    std::fill(counts_.begin(), counts_.end(), 0);
    totalCount_ = 0;
    outOfRange_ = 0;
    min_ = std::numeric_limits<std::int64_t>::max();
    max_ = 0;
}

std::int64_t HdrHistogram::valueFromIndex(std::size_t index) const {
    int bucket = static_cast<int>(index >> subBucketHalfCountMagnitude_) - 1;
    int sub = static_cast<int>(index & (subBucketHalfCount_ - 1)) + subBucketHalfCount_;
    if (bucket < 0) {
        sub -= subBucketHalfCount_;
        bucket = 0;
    }
    return static_cast<std::int64_t>(sub) << (bucket + unitMagnitude_);
}

std::int64_t HdrHistogram::sizeOfEquivalentRange(std::int64_t value) const {
    const int bucket = bucketIndexOf(value);
    const int sub = subBucketIndexOf(value, bucket);
    const int adjusted = sub >= subBucketCount_ ? bucket + 1 : bucket;
    return std::int64_t{1} << (unitMagnitude_ + adjusted);
}

std::int64_t HdrHistogram::lowestEquivalent(std::int64_t value) const {
    const int bucket = bucketIndexOf(value);
    const int sub = subBucketIndexOf(value, bucket);
    return static_cast<std::int64_t>(sub) << (bucket + unitMagnitude_);
}

std::int64_t HdrHistogram::highestEquivalent(std::int64_t value) const {
    return lowestEquivalent(value) + sizeOfEquivalentRange(value) - 1;
}

std::int64_t HdrHistogram::medianEquivalent(std::int64_t value) const {
    return lowestEquivalent(value) + (sizeOfEquivalentRange(value) >> 1);
}

std::int64_t HdrHistogram::min() const { return empty() ? 0 : lowestEquivalent(min_); }
std::int64_t HdrHistogram::max() const { return empty() ? 0 : highestEquivalent(max_); }

double HdrHistogram::mean() const {
    if (empty()) return 0.0;
    double total = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] == 0) continue;
        total += static_cast<double>(counts_[i]) *
                 static_cast<double>(medianEquivalent(valueFromIndex(i)));
    }
    return total / static_cast<double>(totalCount_);
}

double HdrHistogram::stddev() const {
    if (empty()) return 0.0;
    const double m = mean();
    double geometric = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] == 0) continue;
        const double dev = static_cast<double>(medianEquivalent(valueFromIndex(i))) - m;
        geometric += dev * dev * static_cast<double>(counts_[i]);
    }
    return std::sqrt(geometric / static_cast<double>(totalCount_));
}

std::int64_t HdrHistogram::valueAtPercentile(double percentile) const {
    if (empty()) return 0;
    const double p = std::clamp(percentile, 0.0, 100.0);
    std::int64_t target =
        static_cast<std::int64_t>((p / 100.0) * static_cast<double>(totalCount_) + 0.5);
    target = std::max<std::int64_t>(target, 1);
    std::int64_t running = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        running += counts_[i];
        if (running >= target) return highestEquivalent(valueFromIndex(i));
    }
    return max();
}

std::int64_t HdrHistogram::countAtOrBelow(std::int64_t value) const {
    if (value < 0) return 0;
    const std::size_t limit =
        value > config_.highest_trackable ? counts_.size() - 1 : countsIndexFor(value);
    std::int64_t running = 0;
    for (std::size_t i = 0; i <= limit && i < counts_.size(); ++i) running += counts_[i];
    return running;
}

void HdrHistogram::forEachBucket(
    const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& fn) const {
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] == 0) continue;
        const std::int64_t v = valueFromIndex(i);
        fn(lowestEquivalent(v), highestEquivalent(v), counts_[i]);
    }
}

}  // namespace taillab
