// HDR histogram: constant-time recording of integer values with a fixed number of significant
// decimal digits over a configurable range, after Gil Tene's HdrHistogram (and compatible with
// HdrHistogram_c's bucket layout, percentile semantics and .hgrm output).
//
// Layout: values are split into buckets of powers of two; each bucket has sub_bucket_count linear
// sub-buckets (the first bucket uses all of them, later ones their upper half), so every value is
// held within a relative error of 10^-significant_digits. Percentile semantics are HdrHistogram's:
// the value at percentile p is the highest value equivalent to the bucket in which the cumulative
// count first reaches max(1, round(p/100 * N)). max() reports the highest equivalent value of the
// largest recorded value, as the C and Java libraries do.
//
// Values outside [0, highest_trackable] are never undefined behaviour: record() refuses them,
// counts them in outOfRangeCount() and leaves the histogram unchanged.
//
// Units are the caller's; TailLab records microseconds (1 µs to 60 s by default).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace taillab {

struct HdrConfig {
    std::int64_t lowest_discernible = 1;
    std::int64_t highest_trackable = 60'000'000;  // 60 s in µs
    int significant_digits = 3;
};

class HdrHistogram {
public:
    HdrHistogram() : HdrHistogram(HdrConfig{}) {}
    // Throws std::invalid_argument on an impossible configuration.
    explicit HdrHistogram(const HdrConfig& config);

    // Records value `count` times. Returns false (and counts it as out of range) when the value is
    // negative or above highest_trackable.
    bool record(std::int64_t value, std::int64_t count = 1) {
        if (value < 0 || value > config_.highest_trackable) [[unlikely]] {
            outOfRange_ += count;
            return false;
        }
        counts_[countsIndexFor(value)] += count;
        totalCount_ += count;
        if (value < min_) min_ = value;
        if (value > max_) max_ = value;
        return true;
    }
    // Records a value measured by a closed-loop sampler that expected one sample every
    // expected_interval: also records the samples a stall would have hidden (value - interval,
    // value - 2*interval, ... down to expected_interval). HdrHistogram's coordinated-omission
    // correction.
    bool recordCorrected(std::int64_t value, std::int64_t expected_interval);

    // Adds every count of `other`. Returns the number of values that fell outside this
    // histogram's range (they are counted as out of range, never dropped silently).
    std::int64_t merge(const HdrHistogram& other);
    void reset();

    std::int64_t totalCount() const { return totalCount_; }
    std::int64_t outOfRangeCount() const { return outOfRange_; }
    bool empty() const { return totalCount_ == 0; }
    // 0 when empty.
    std::int64_t min() const;
    std::int64_t max() const;
    double mean() const;
    double stddev() const;
    // percentile in [0, 100]; 0 when empty.
    std::int64_t valueAtPercentile(double percentile) const;
    // Number of recorded values whose bucket lies at or below `value`'s bucket.
    std::int64_t countAtOrBelow(std::int64_t value) const;

    // Equivalence ranges.
    std::int64_t lowestEquivalent(std::int64_t value) const;
    std::int64_t highestEquivalent(std::int64_t value) const;
    std::int64_t medianEquivalent(std::int64_t value) const;
    std::int64_t sizeOfEquivalentRange(std::int64_t value) const;
    bool valuesAreEquivalent(std::int64_t a, std::int64_t b) const {
        return lowestEquivalent(a) == lowestEquivalent(b);
    }

    // Iterates non-empty buckets in ascending order: (lowest, highest equivalent, count).
    void forEachBucket(
        const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& fn) const;

    const HdrConfig& config() const { return config_; }
    int bucketCount() const { return bucketCount_; }
    int subBucketCount() const { return subBucketCount_; }
    std::size_t countsLength() const { return counts_.size(); }
    std::int64_t countAtIndex(std::size_t i) const { return counts_[i]; }
    std::int64_t valueFromIndex(std::size_t i) const;

private:
    int bucketIndexOf(std::int64_t value) const {
        const int pow2ceiling = 64 - __builtin_clzll(static_cast<std::uint64_t>(value) | subBucketMask_);
        return pow2ceiling - unitMagnitude_ - (subBucketHalfCountMagnitude_ + 1);
    }
    int subBucketIndexOf(std::int64_t value, int bucket) const {
        return static_cast<int>(value >> (bucket + unitMagnitude_));
    }
    std::size_t countsIndex(int bucket, int sub) const {
        return (static_cast<std::size_t>(bucket + 1) << subBucketHalfCountMagnitude_) +
               static_cast<std::size_t>(sub - subBucketHalfCount_);
    }
    std::size_t countsIndexFor(std::int64_t value) const {
        const int bucket = bucketIndexOf(value);
        return countsIndex(bucket, subBucketIndexOf(value, bucket));
    }

    HdrConfig config_;
    int unitMagnitude_ = 0;
    int subBucketHalfCountMagnitude_ = 0;
    int subBucketCount_ = 0;
    int subBucketHalfCount_ = 0;
    std::uint64_t subBucketMask_ = 0;
    int bucketCount_ = 0;
    std::vector<std::int64_t> counts_;
    std::int64_t totalCount_ = 0;
    std::int64_t outOfRange_ = 0;
    std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_ = 0;
};

}  // namespace taillab
