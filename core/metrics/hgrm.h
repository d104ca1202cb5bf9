// Percentile ticks and the classic HdrHistogram percentile distribution (.hgrm), as printed by
// HdrHistogram_c's hdr_percentiles_print(CLASSIC) and Java's outputPercentileDistribution.
//
// Ticks: the walk reports percentiles that crowd toward 100%. The interval [0, 100) is cut into
// halves, quarters, eighths, ... of the remaining distance to 100% (0-50, 50-75, 75-87.5, ...), and
// each of those gets ticks_per_half_distance evenly spaced ticks: after reporting percentile P the
// next one is P + 100 / (ticks_per_half_distance * 2^(floor(log2(100 / (100 - P))) + 1)). The
// walk goes through the counts in ascending order and, at each non-empty bucket, reports every
// pending tick whose percentile the cumulative count has reached (100 * cumulative / N >= P):
// the tick's value is that bucket's highest equivalent value and its count the cumulative count
// there. Once every count has been reached, one last tick at exactly 100% repeats the final bucket.
// The floating-point steps are those of the C library, so the same histogram gives the same rows.
//
// .hgrm layout: a header "Value Percentile TotalCount 1/(1-Percentile)", a blank line, one row per
// tick (value / value_scale with significant_digits decimals, percentile as a fraction, cumulative
// count, 1 / (1 - fraction), "inf" on the 100% row), then a footer with the mean and standard
// deviation (bucket medians), max (highest equivalent of the largest value), total count, bucket
// count and sub-bucket count.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <string>
#include <vector>

#include "metrics/hdr_histogram.h"

namespace taillab {

struct PercentileTick {
    double percentile = 0.0;            // in [0, 100]
    std::int64_t value = 0;             // highest equivalent value of the bucket reached
    std::int64_t cumulative_count = 0;  // recorded values at or below that bucket
};

// Walks a histogram's percentile ticks; the histogram must outlive the walk and not change
// during it. An empty histogram yields the single 100% tick (value 0, count 0).
class PercentileTicks {
  public:
    // Throws std::invalid_argument if ticks_per_half_distance < 1.
    PercentileTicks(const HdrHistogram& histogram, int ticks_per_half_distance);

    std::optional<PercentileTick> next();

  private:
    bool advanceBucket();

    const HdrHistogram& h_;
    int ticksPerHalfDistance_;
    std::size_t index_ = 0;  // current bucket (valid once started_)
    bool started_ = false;
    std::int64_t bucketCount_ = 0;  // count at the current bucket
    std::int64_t cumulative_ = 0;   // counts up to and including the current bucket
    std::int64_t value_ = 0;        // highest equivalent value of the current bucket
    double nextPercentile_ = 0.0;
    bool finished_ = false;
};

// All ticks of a histogram, in order.
std::vector<PercentileTick> percentileTicks(const HdrHistogram& histogram,
                                            int ticks_per_half_distance);

struct HgrmOptions {
    int ticks_per_half_distance = 5;
    // Printed values (and mean, stddev, max) are divided by this, e.g. 1000 for µs shown as ms.
    double value_scale = 1.0;
};

// The classic percentile distribution text, byte-compatible with hdr_percentiles_print(CLASSIC).
std::string formatHgrm(const HdrHistogram& histogram, const HgrmOptions& options = {});

// One row of a .hgrm file as read back: the value (in the file's own unit), the percentile as a
// fraction in [0, 1], and the cumulative count.
struct HgrmRow {
    double value = 0;
    double fraction = 0;
    std::int64_t total_count = 0;
};

// A .hgrm file that does not read: the 1-based line and column of the field at fault and what
// was expected there.
class HgrmError : public std::runtime_error {
  public:
    HgrmError(int line, int column, const std::string& what);
    int line() const { return line_; }
    int column() const { return column_; }

  private:
    int line_, column_;
};

// Reads the classic percentile distribution (formatHgrm's text, HdrHistogram_c's and Java's):
// blank lines and '#' lines (the footer) are skipped, an optional header line starting with
// "Value", then rows of four fields: value, percentile fraction, total count, 1/(1-percentile)
// ("inf" on the last). Throws HgrmError when a row has another number of fields, a field is not
// a number, a fraction lies outside [0, 1], a value, fraction or count goes down from the row
// before, or there is no row at all.
std::vector<HgrmRow> parseHgrm(std::string_view text);

}  // namespace taillab
