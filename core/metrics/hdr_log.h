// HdrHistogram's interval log (.hlog) and its compressed histogram encoding, so that the logs
// TailLab writes open in HdrHistogram's own tools (HistogramLogProcessor, HistogramLogAnalyzer,
// hdr_log_reader in HdrHistogram_c).
//
// Compressed histogram (the V2 encoding, as Java's encodeIntoCompressedByteBuffer writes it):
//   compression header, big-endian:  cookie 0x1c849314 (i32), zlib length (i32), then a zlib
//                                    stream (deflate at level 9, as HistogramLogWriter uses)
//   inflated, big-endian:            cookie 0x1c849313 (i32), payload length (i32), normalizing
//                                    index offset (i32, always 0 here), significant digits (i32),
//                                    lowest discernible (i64), highest trackable (i64),
//                                    integer-to-double conversion ratio (f64 bits, 1.0)
//   payload:                         counts from index 0 up to the index of the largest value,
//                                    each a zig-zag LEB128 (at most 9 bytes, the ninth carrying
//                                    8 bits); a run of n > 1 zero counts is written as -n, a single
//                                    zero as 0 (Java's choice; HdrHistogram_c writes -1, and both
//                                    read either)
// The counts index is HdrHistogram_c's and Java's (core/metrics/hdr_histogram.h), so a histogram
// decoded here has the counts the writer had.
//
// Interval log (format 1.3, HistogramLogWriter):
//   #[Histogram log format version 1.3]
//   #[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 15:24:39 UTC 2015]
//   #[BaseTime: 1441812279.474 (seconds since epoch)]
//   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//   [Tag=NAME,]START,LENGTH,MAX,BASE64
// START is seconds since BaseTime, LENGTH seconds, MAX the interval's max() divided by a unit ratio
// (1000 for histograms in microseconds, so the column reads in milliseconds as Java's default
// does for nanoseconds), all with three decimals.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/hdr_histogram.h"

namespace taillab {

// Input that does not decode: what is wrong, and for a log the 1-based line (0 otherwise).
class HdrLogError : public std::runtime_error {
  public:
    HdrLogError(int line, const std::string& what);
    int line() const { return line_; }
    const std::string& reason() const { return reason_; }  // what(), without "line N: "

  private:
    int line_;
    std::string reason_;
};

// The compressed V2 encoding of `histogram` as raw bytes, and as base64 (what a log line holds).
std::string encodeCompressedHistogram(const HdrHistogram& histogram);
std::string encodeCompressedHistogramBase64(const HdrHistogram& histogram);

// Decodes either form (V2 only, the only one HdrHistogram has written since 2015). The result has
// the configuration the encoding names. Throws HdrLogError on a wrong cookie, a truncated or
// overlong payload, a count index beyond the histogram, bad base64 or a zlib stream that does
// not inflate. Counts above the encoded highest trackable value land in outOfRangeCount().
HdrHistogram decodeCompressedHistogram(std::string_view bytes);
HdrHistogram decodeCompressedHistogramBase64(std::string_view base64);

std::string base64Encode(std::string_view bytes);
// Throws HdrLogError on a character outside the alphabet or a length that is not a multiple of 4.
std::string base64Decode(std::string_view text);

// Writes an interval log as text, one line at a time; the caller puts the text where it wants.
class HdrLogWriter {
  public:
    // start_epoch_ms: wall-clock time of the log's time zero, milliseconds since the epoch.
    // max_unit_ratio divides each interval's max for the Interval_Max column.
    explicit HdrLogWriter(std::int64_t start_epoch_ms, double max_unit_ratio = 1000.0);

    // The four header lines (format version, StartTime, BaseTime, legend).
    std::string header() const;
    // One interval line; start and length in seconds since the start. `tag` (optional) must not
    // hold a comma, a space or a line break (std::invalid_argument otherwise).
    std::string interval(double start_s, double length_s, const HdrHistogram& histogram,
                         std::string_view tag = {}) const;

  private:
    std::int64_t startEpochMs_;
    double maxUnitRatio_;
};

struct HdrLogInterval {
    std::string tag;  // empty when the line has none
    double start_s = 0;
    double length_s = 0;
    double max = 0;  // as written (already divided by the writer's unit ratio)
    HdrHistogram histogram;
};

struct HdrLog {
    std::optional<double> start_time_s;  // #[StartTime: ...], seconds since the epoch
    std::optional<double> base_time_s;   // #[BaseTime: ...]
    std::vector<HdrLogInterval> intervals;
};

// Reads an interval log: '#' lines (StartTime and BaseTime are kept), the legend line, blank
// lines, and interval lines. Throws HdrLogError naming the line of a malformed field.
HdrLog parseHdrLog(std::string_view text);

// Merges the intervals of `log` tagged `tag` ("" for the untagged ones) into `merged`, which
// takes the first one's layout and grows to cover every interval's (covering()): a log written by
// an auto-resizing recorder names a larger range as values grow, and merged into the first
// interval's layout a later tail would be counted out of range and lost. Every order of the
// intervals, and of the logs merged one after another, gives the same counts. Returns the number
// of intervals merged.
std::size_t mergeIntervals(const HdrLog& log, std::string_view tag,
                           std::optional<HdrHistogram>& merged);

}  // namespace taillab
