// Latency logs recorded into an HDR histogram, fed block by block so that a log of tens of
// millions of values is never held in memory and no per-line stream machinery runs. The reader
// does no I/O itself: the caller reads blocks (of any size, split anywhere) and hands them over.
//
// Formats:
//   Text   one value a line. Integers go through a hand-written digit loop; anything else that is a
//          number (a sign, a decimal point, an exponent) goes through std::from_chars and is
//          rounded to the nearest integer, halves away from zero. Spaces, tabs and a trailing '\r'
//          around a value are ignored; blank lines and lines whose first non-blank character is
//          '#' are skipped. Any other line is an error naming its line number and text.
//   U64Le  raw little-endian unsigned 64-bit values, no header; a trailing partial value is an
//          error.
// Values the histogram cannot hold (negative, above its highest trackable value, too large for
// 64 bits) are numbers, not errors: they are counted in the histogram's outOfRangeCount().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "metrics/hdr_histogram.h"

namespace taillab {

enum class LatencyLogFormat { Text, U64Le };

// A malformed log. line is 1-based for text logs and 0 for binary ones; text is the offending
// line (shortened if long), empty for binary logs.
class LatencyLogError : public std::runtime_error {
  public:
    LatencyLogError(std::int64_t line, std::string reason, std::string text);
    std::int64_t line() const { return line_; }
    const std::string& reason() const { return reason_; }
    const std::string& text() const { return text_; }
    // The message for a log read from `source` (a file name, "<stdin>"), as every reader of a
    // file prints it: "a.log:5: not a number: '3O0'", "a.u64le: size is not a multiple of 8 ...".
    std::string describe(const std::string& source) const;

  private:
    std::int64_t line_;
    std::string reason_;
    std::string text_;
};

class LatencyLogReader {
  public:
    // Longest text line accepted; longer ones are an error rather than unbounded buffering.
    static constexpr std::size_t kMaxLineLength = 4096;

    LatencyLogReader(LatencyLogFormat format, HdrHistogram& target);

    // Parses the next block of the log. Throws LatencyLogError on malformed input.
    void feed(std::string_view block);
    // Parses what is left after the last block (a last line without a newline). Throws
    // LatencyLogError if it is malformed or, for U64Le, if a partial value remains.
    void finish();

    // Values parsed so far, recorded or out of range.
    std::int64_t valuesRead() const { return values_; }
    // Complete text lines consumed so far (0 for U64Le).
    std::int64_t linesRead() const { return lines_; }

  private:
    void feedText(std::string_view block);
    void feedBinary(std::string_view block);
    // Parses a complete line (without its newline); line number lines_ + 1.
    void parseLine(std::string_view line);
    void recordUnsigned(std::uint64_t value);

    LatencyLogFormat format_;
    HdrHistogram& target_;
    std::string carry_;  // an incomplete line or value left from the previous block
    std::int64_t values_ = 0;
    std::int64_t lines_ = 0;
};

}  // namespace taillab
