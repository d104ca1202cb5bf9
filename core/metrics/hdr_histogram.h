// HDR histogram: constant-time recording of integer values with a fixed number of significant
// decimal digits over a configurable range, after Gil Tene's HdrHistogram (and compatible with
// HdrHistogram_c's bucket layout, percentile semantics, mean/stddev and .hgrm output).
//
// Layout (identical to HdrHistogram_c, so indices, bucket counts and printed values agree):
//   sub_bucket_count   = 2^ceil(log2(2 * 10^digits))     (2048 for 3 digits)
//   unit_magnitude     = floor(log2(lowest_discernible))
//   bucket b covers values below sub_bucket_count << (b + unit_magnitude); bucket 0 uses all of
//   its sub-buckets, later buckets only their upper half (the lower half is bucket b-1), so the
//   counts array holds (bucket_count + 1) * sub_bucket_count / 2 entries and every value is
//   held within a relative error of 10^-digits. A value's slot is found with one count-leading-
//   zeros, two shifts and an add: record() is a handful of instructions and never allocates.
//
// Semantics (as HdrHistogram_c and Java):
//   - valueAtPercentile(p): let target = max(1, round(p/100 * N)); find the first bucket whose
//     cumulative count reaches target; return its highest equivalent value (its lowest for p == 0).
//   - min() is the lowest and max() the highest value equivalent to the smallest / largest value
//     recorded (so max() can exceed the exact maximum by less than one bucket width; the exact
//     extremes are available as minRecorded() / maxRecorded(), which is what HdrHistogram's
//     JavaScript port reports as max).
//   - mean() and stddev() weight each bucket's median equivalent value by its count; the mean's
//     sum is accumulated exactly in integers, as the C library does.
//
// Values outside [0, highest_trackable] are never undefined behaviour: record() refuses them,
// counts them in outOfRangeCount() and leaves the distribution unchanged. (HdrHistogram_c
// silently accepts values up to the top of its last bucket, which may lie above
// highest_trackable; TailLab keeps the configured bound exact.) merge() of histograms with a
// different configuration re-records each source bucket and counts what does not fit.
//
// Units are the caller's; TailLab records microseconds (1 µs to 60 s by default).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace taillab {

struct HdrConfig {
    std::int64_t lowest_discernible = 1;
    std::int64_t highest_trackable = 60'000'000;  // 60 s in µs
    int significant_digits = 3;

    bool operator==(const HdrConfig&) const = default;
};

// The layout that holds both: the finer lowest value, the higher highest, the more digits.
HdrConfig covering(const HdrConfig& a, const HdrConfig& b);

class HdrHistogram {
  public:
    HdrHistogram() : HdrHistogram(HdrConfig{}) {}
    // Throws std::invalid_argument on an impossible configuration (lowest < 1, digits outside
    // 1..5, highest < 2 * lowest, or a range and precision that do not fit in 64 bits).
    explicit HdrHistogram(const HdrConfig& config);

    // Records value `count` times. Returns false when nothing was recorded: the value is negative
    // or above highest_trackable (then `count` is added to outOfRangeCount()), or count <= 0.
    bool record(std::int64_t value, std::int64_t count = 1) {
        if (static_cast<std::uint64_t>(value) > highestTrackableUnsigned_ || count <= 0)
            [[unlikely]] {
            return refuse(count);
        }
        counts_[countsIndexFor(value)] += count;
        totalCount_ += count;
        if (value < min_) min_ = value;
        if (value > max_) max_ = value;
        return true;
    }
    // Starts loading the count that record(value) would add to (no effect on the contents), so
    // that a caller recording a batch into large histograms overlaps their cache misses.
    void prefetch(std::int64_t value) const {
        if (static_cast<std::uint64_t>(value) <= highestTrackableUnsigned_)
            __builtin_prefetch(&counts_[countsIndexFor(value)]);
    }
    // Records a value measured by a closed-loop sampler that expected one sample every
    // expected_interval: also records the samples a stall would have hidden (value - interval,
    // value - 2*interval, ... down to expected_interval), each `count` times. HdrHistogram's
    // coordinated-omission correction. Returns false if `value` itself could not be recorded.
    bool recordCorrected(std::int64_t value, std::int64_t expected_interval,
                         std::int64_t count = 1);

    // Adds every count of `other`, whatever its configuration. With the same layout this is an
    // element-wise sum; otherwise each source bucket is re-recorded at its lowest equivalent
    // value (exact whenever this histogram is at least as coarse as `other`). Source counts that
    // fall outside this histogram's range are added to outOfRangeCount(), as are other's own
    // out-of-range counts. Returns the number of other's recorded values that did not fit.
    std::int64_t merge(const HdrHistogram& other);
    void reset();

    std::int64_t totalCount() const { return totalCount_; }
    std::int64_t outOfRangeCount() const { return outOfRange_; }
    bool empty() const { return totalCount_ == 0; }
    // Lowest / highest equivalent value of the smallest / largest recorded value; 0 when empty.
    std::int64_t min() const;
    std::int64_t max() const;
    // The exact smallest / largest value recorded; 0 when empty.
    std::int64_t minRecorded() const { return empty() ? 0 : min_; }
    std::int64_t maxRecorded() const { return empty() ? 0 : max_; }
    // 0 when empty.
    double mean() const;
    double stddev() const;
    // percentile in [0, 100] (clamped); 0 when empty.
    std::int64_t valueAtPercentile(double percentile) const;
    // The same for several percentiles in one walk over the buckets: out[k] is
    // valueAtPercentile(percentiles[k]). Throws std::invalid_argument if the sizes differ.
    void valuesAtPercentiles(std::span<const double> percentiles,
                             std::span<std::int64_t> out) const;
    // Number of recorded values whose bucket lies at or below `value`'s bucket (so every value
    // equivalent to `value` counts). 0 for negative values, totalCount() above the range.
    std::int64_t countAtOrBelow(std::int64_t value) const;

    // Equivalence ranges: the bucket holding `value`, with `value` clamped to
    // [0, highest_trackable].
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
    // Lowest value of the bucket at counts index i.
    std::int64_t valueFromIndex(std::size_t i) const;
    // True when both histograms map every value to the same counts index.
    bool sameLayoutAs(const HdrHistogram& other) const {
        return unitMagnitude_ == other.unitMagnitude_ && subBucketCount_ == other.subBucketCount_;
    }

  private:
    bool refuse(std::int64_t count);
    // The counts indices [first, last) that can be non-zero: every recorded value lies in
    // [min_, max_]. Loops walk only these, so a histogram with a wide range but a narrow spread
    // of values is cheap to read, merge and reset.
    std::pair<std::size_t, std::size_t> filled() const {
        if (empty()) return {0, 0};
        return {countsIndexFor(min_), countsIndexFor(max_) + 1};
    }
    // The first counts index from `i` (below `hi`) at which `running` plus the counts from `i`
    // on reaches `target`, with `running` then including that index's count; `hi` when none does
    // (running then includes every count to hi).
    std::size_t reach(std::size_t i, std::size_t hi, std::int64_t& running, std::int64_t target) const;
    static double clampPercentile(double percentile);
    std::int64_t rankTarget(double p) const;
    std::int64_t clampToRange(std::int64_t value) const {
        return value < 0 ? 0
                         : (value > config_.highest_trackable ? config_.highest_trackable : value);
    }

    int bucketIndexOf(std::int64_t value) const {
        const int pow2ceiling =
            64 - __builtin_clzll(static_cast<std::uint64_t>(value) | subBucketMask_);
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
    std::uint64_t highestTrackableUnsigned_ = 0;  // config_.highest_trackable, for one compare
    int unitMagnitude_ = 0;
    int subBucketHalfCountMagnitude_ = 0;
    int subBucketCount_ = 0;
    int subBucketHalfCount_ = 0;
    std::uint64_t subBucketMask_ = 0;
    int bucketCount_ = 0;
    std::vector<std::int64_t> counts_;
    std::int64_t totalCount_ = 0;
    std::int64_t outOfRange_ = 0;
    // Exact extremes of the recorded values (min_ > max_ while empty).
    std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_ = 0;
};

}  // namespace taillab
