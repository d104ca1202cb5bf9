#include "metrics/latency_log.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace taillab {

namespace {

constexpr std::size_t kShownTextLength = 80;
// Any negative value is refused and counted as out of range by the histogram.
constexpr std::int64_t kOutOfRange = -1;

std::string_view trim(std::string_view s) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

std::string shown(std::string_view text) {
    if (text.size() <= kShownTextLength) return std::string(text);
    return std::string(text.substr(0, kShownTextLength)) + "...";
}

bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

std::uint64_t loadLittleEndian(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}

// Value of a number token that std::from_chars reported as out of range for a double: huge
// magnitudes cannot be held, tiny ones round to 0.
std::int64_t outOfRangeDouble(std::string_view token) {
    const auto e = token.find_first_of("eE");
    const bool tiny = e != std::string_view::npos && e + 1 < token.size() && token[e + 1] == '-';
    return tiny ? 0 : kOutOfRange;
}

}  // namespace

LatencyLogError::LatencyLogError(std::int64_t line, std::string reason, std::string text)
    : std::runtime_error(
          line > 0 ? "line " + std::to_string(line) + ": " + reason + ": '" + text + "'" : reason),
      line_(line),
      reason_(std::move(reason)),
      text_(std::move(text)) {}

std::string LatencyLogError::describe(const std::string& source) const {
    if (line_ > 0) return source + ":" + std::to_string(line_) + ": " + reason_ + ": '" + text_ + "'";
    return source + ": " + reason_;
}

LatencyLogReader::LatencyLogReader(LatencyLogFormat format, HdrHistogram& target)
    : format_(format), target_(target) {}

void LatencyLogReader::feed(std::string_view block) {
    if (format_ == LatencyLogFormat::Text) {
        feedText(block);
    } else {
        feedBinary(block);
    }
}

void LatencyLogReader::finish() {
    if (carry_.empty()) return;
    if (format_ == LatencyLogFormat::U64Le) {
        throw LatencyLogError(0,
                              "size is not a multiple of 8 bytes (" +
                                  std::to_string(carry_.size()) + " trailing bytes)",
                              "");
    }
    parseLine(carry_);
    ++lines_;
    carry_.clear();
}

void LatencyLogReader::recordUnsigned(std::uint64_t value) {
    ++values_;
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    target_.record(value > kMax ? kOutOfRange : static_cast<std::int64_t>(value));
}

void LatencyLogReader::feedText(std::string_view block) {
    const char* p = block.data();
    const char* const end = p + block.size();
    if (!carry_.empty()) {
        const auto* nl = static_cast<const char*>(std::memchr(p, '\n', block.size()));
        carry_.append(p, nl ? nl : end);
        if (carry_.size() > kMaxLineLength)
            throw LatencyLogError(lines_ + 1, "line too long", shown(carry_));
        if (!nl) return;
        parseLine(carry_);
        ++lines_;
        carry_.clear();
        p = nl + 1;
    }
    while (p < end) {
        // Fast path: a plain integer of up to 18 digits (cannot overflow) ending the line.
        const char* const start = p;
        std::uint64_t v = 0;
        while (p < end && isDigit(*p)) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
        if (p < end && *p == '\n' && p != start && p - start <= 18) {
            recordUnsigned(v);
            ++lines_;
            ++p;
            continue;
        }
        const auto* nl = static_cast<const char*>(
            std::memchr(start, '\n', static_cast<std::size_t>(end - start)));
        if (!nl) {
            carry_.assign(start, end);
            if (carry_.size() > kMaxLineLength)
                throw LatencyLogError(lines_ + 1, "line too long", shown(carry_));
            return;
        }
        const std::string_view line(start, static_cast<std::size_t>(nl - start));
        // The same limit as for a line carried over from an earlier block, so that where the
        // blocks are cut never changes whether a log is accepted.
        if (line.size() > kMaxLineLength)
            throw LatencyLogError(lines_ + 1, "line too long", shown(line));
        parseLine(line);
        ++lines_;
        p = nl + 1;
    }
}

void LatencyLogReader::parseLine(std::string_view line) {
    // A UTF-8 byte-order mark before the first line (editors on Windows write one) is no part of
    // the text, as for scenario files; it was refused as "not a number: '1'", the mark invisible.
    // The fast path never takes a first line that starts with one (not a digit): it comes here.
    constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
    if (lines_ == 0 && line.starts_with(kByteOrderMark)) line.remove_prefix(kByteOrderMark.size());
    const std::string_view token = trim(line);
    if (token.empty() || token.front() == '#') return;
    const char* const b = token.data();
    const char* const e = b + token.size();

    std::int64_t integer = 0;
    const auto asInteger = std::from_chars(b, e, integer);
    if (asInteger.ptr == e && asInteger.ec == std::errc()) {
        ++values_;
        target_.record(integer);
        return;
    }
    if (asInteger.ptr == e && asInteger.ec == std::errc::result_out_of_range) {
        ++values_;
        target_.record(kOutOfRange);
        return;
    }

    double real = 0.0;
    const auto asReal = std::from_chars(b, e, real);
    if (asReal.ptr != e || (asReal.ec == std::errc() && !std::isfinite(real)))
        throw LatencyLogError(lines_ + 1, "not a number", shown(token));
    ++values_;
    if (asReal.ec == std::errc::result_out_of_range) {
        target_.record(outOfRangeDouble(token));
    } else if (real < -0.5 || real >= 0x1p62) {
        target_.record(kOutOfRange);
    } else {
        target_.record(std::llround(real));
    }
}

void LatencyLogReader::feedBinary(std::string_view block) {
    constexpr std::size_t kWidth = sizeof(std::uint64_t);
    if (!carry_.empty()) {
        const std::size_t needed = kWidth - carry_.size();
        carry_.append(block.substr(0, needed));
        if (carry_.size() < kWidth) return;
        recordUnsigned(loadLittleEndian(carry_.data()));
        carry_.clear();
        block.remove_prefix(needed);
    }
    const std::size_t whole = block.size() / kWidth;
    const char* p = block.data();
    for (std::size_t i = 0; i < whole; ++i, p += kWidth) recordUnsigned(loadLittleEndian(p));
    carry_.assign(p, block.size() - whole * kWidth);
}

}  // namespace taillab
