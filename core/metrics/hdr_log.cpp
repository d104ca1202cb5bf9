#include "metrics/hdr_log.h"

#include <zlib.h>

#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>

namespace taillab {
namespace {

constexpr std::uint32_t kEncodingCookie = 0x1c849303u | 0x10u;     // V2, word size 1 (LEB128)
constexpr std::uint32_t kCompressionCookie = 0x1c849304u | 0x10u;  // V2 compressed
constexpr std::size_t kEncodingHeaderSize = 40;
constexpr std::size_t kCompressionHeaderSize = 8;
constexpr std::size_t kMaxLeb128 = 9;

void putBe32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}
void putBe64(std::string& out, std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}
std::uint64_t getBe(const unsigned char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

void putZigZag(std::string& out, std::int64_t signedValue) {
    std::uint64_t v = (static_cast<std::uint64_t>(signedValue) << 1) ^
                      static_cast<std::uint64_t>(signedValue >> 63);
    // Eight 7-bit groups, then a ninth byte that carries the remaining 8 bits whole.
    for (int i = 0; i < 8; ++i) {
        if (v < 0x80) {
            out.push_back(static_cast<char>(v));
            return;
        }
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// Reads one zig-zag LEB128 at p[*at] (bounded by end); throws when it runs past the end.
std::int64_t getZigZag(const unsigned char* p, std::size_t& at, std::size_t end) {
    std::uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
        if (at >= end) throw HdrLogError(0, "a count is truncated at the end of the payload");
        const std::uint64_t byte = p[at++];
        if (i == 8) {
            v |= byte << 56;
            break;
        }
        v |= (byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) break;
    }
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

// The index one past the largest non-zero count (at least 1, as Java encodes an empty histogram).
std::size_t countsLimit(const HdrHistogram& h) {
    std::size_t limit = h.countsLength();
    while (limit > 1 && h.countAtIndex(limit - 1) == 0) --limit;
    return limit == 0 ? 1 : limit;
}

std::string inflateExactly(z_stream& z, std::size_t size) {
    std::string out(size, '\0');
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(size);
    const int rc = inflate(&z, Z_SYNC_FLUSH);
    if ((rc != Z_OK && rc != Z_STREAM_END) || z.avail_out != 0)
        throw HdrLogError(0, "the zlib stream does not inflate to the length its header names");
    return out;
}

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64Value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

std::string formatFixed3(double v) {
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3f", v);
    return buf.data();
}

double parseNumber(std::string_view field, int line, std::string_view what) {
    double v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc{} || end != field.data() + field.size())
        throw HdrLogError(line, std::string(what) + " is not a number: '" + std::string(field) + "'");
    return v;
}

// The number after `prefix` in a "#[Prefix: 123.456 ..." comment line.
std::optional<double> headerTime(std::string_view line, std::string_view prefix, int lineNo) {
    if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::string_view rest = line.substr(prefix.size());
    const std::size_t end = rest.find_first_of(" ]");
    return parseNumber(rest.substr(0, end), lineNo, prefix.substr(2, prefix.size() - 4));
}

}  // namespace

HdrLogError::HdrLogError(int line, const std::string& what)
    : std::runtime_error(line > 0 ? "line " + std::to_string(line) + ": " + what : what),
      line_(line), reason_(what) {}

std::string encodeCompressedHistogram(const HdrHistogram& h) {
    const std::size_t limit = countsLimit(h);
    std::string payload;
    payload.reserve(limit * 2);
    for (std::size_t i = 0; i < limit;) {
        const std::int64_t count = h.countAtIndex(i++);
        if (count != 0) {
            putZigZag(payload, count);
            continue;
        }
        std::int64_t zeros = 1;
        while (i < limit && h.countAtIndex(i) == 0) {
            ++zeros;
            ++i;
        }
        putZigZag(payload, zeros > 1 ? -zeros : 0);
    }
    std::string encoded;
    encoded.reserve(kEncodingHeaderSize + payload.size());
    putBe32(encoded, kEncodingCookie);
    putBe32(encoded, static_cast<std::uint32_t>(payload.size()));
    putBe32(encoded, 0);  // normalizing index offset: TailLab never shifts a histogram
    putBe32(encoded, static_cast<std::uint32_t>(h.config().significant_digits));
    putBe64(encoded, static_cast<std::uint64_t>(h.config().lowest_discernible));
    putBe64(encoded, static_cast<std::uint64_t>(h.config().highest_trackable));
    putBe64(encoded, std::bit_cast<std::uint64_t>(1.0));
    encoded += payload;

    uLongf zlen = compressBound(static_cast<uLong>(encoded.size()));
    std::string out(kCompressionHeaderSize + zlen, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data() + kCompressionHeaderSize), &zlen,
                  reinterpret_cast<const Bytef*>(encoded.data()),
                  static_cast<uLong>(encoded.size()), Z_BEST_COMPRESSION) != Z_OK)
        throw std::runtime_error("zlib could not compress a histogram");
    out.resize(kCompressionHeaderSize + zlen);
    std::string header;
    putBe32(header, kCompressionCookie);
    putBe32(header, static_cast<std::uint32_t>(zlen));
    out.replace(0, kCompressionHeaderSize, header);
    return out;
}

std::string encodeCompressedHistogramBase64(const HdrHistogram& h) {
    return base64Encode(encodeCompressedHistogram(h));
}

HdrHistogram decodeCompressedHistogram(std::string_view bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() < kCompressionHeaderSize)
        throw HdrLogError(0, "a compressed histogram needs at least 8 bytes");
    const auto cookie = static_cast<std::uint32_t>(getBe(p, 4));
    if (cookie != kCompressionCookie)
        throw HdrLogError(0, "not a V2 compressed histogram (cookie " + std::to_string(cookie) + ")");
    const std::uint64_t zlen = getBe(p + 4, 4);
    if (zlen > bytes.size() - kCompressionHeaderSize)
        throw HdrLogError(0, "the compressed length runs past the end of the input");

    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw std::runtime_error("zlib inflateInit failed");
    struct End {
        z_stream& z;
        ~End() { inflateEnd(&z); }
    } end{z};
    z.next_in = const_cast<Bytef*>(p + kCompressionHeaderSize);
    z.avail_in = static_cast<uInt>(zlen);

    const std::string head = inflateExactly(z, kEncodingHeaderSize);
    const auto* hp = reinterpret_cast<const unsigned char*>(head.data());
    if (static_cast<std::uint32_t>(getBe(hp, 4)) != kEncodingCookie)
        throw HdrLogError(0, "the inflated histogram has no V2 encoding cookie");
    const std::uint64_t payloadLen = getBe(hp + 4, 4);
    if (getBe(hp + 8, 4) != 0)
        throw HdrLogError(0, "a normalizing index offset other than 0 is not supported");
    HdrConfig config;
    config.significant_digits = static_cast<std::int32_t>(getBe(hp + 12, 4));
    config.lowest_discernible = static_cast<std::int64_t>(getBe(hp + 16, 8));
    config.highest_trackable = static_cast<std::int64_t>(getBe(hp + 24, 8));
    std::optional<HdrHistogram> h;
    try {
        h.emplace(config);
    } catch (const std::invalid_argument& e) {
        throw HdrLogError(0, std::string("the encoded configuration is impossible: ") + e.what());
    }
    const std::size_t length = h->countsLength();
    if (payloadLen > length * kMaxLeb128)
        throw HdrLogError(0, "the payload is longer than any encoding of this histogram");
    const std::string payload = inflateExactly(z, static_cast<std::size_t>(payloadLen));
    const auto* cp = reinterpret_cast<const unsigned char*>(payload.data());
    std::size_t at = 0;
    std::size_t index = 0;
    std::int64_t total = 0;
    while (at < payload.size()) {
        const std::int64_t v = getZigZag(cp, at, payload.size());
        if (v < 0) {
            if (v == std::numeric_limits<std::int64_t>::min() ||
                static_cast<std::uint64_t>(-v) > length - index)
                throw HdrLogError(0, "a run of zero counts runs past the end of the histogram");
            index += static_cast<std::size_t>(-v);
            continue;
        }
        if (index >= length) throw HdrLogError(0, "more counts than the histogram holds");
        // Each index is visited once, so only the total can overflow.
        if (v > std::numeric_limits<std::int64_t>::max() - total)
            throw HdrLogError(0, "the counts add up to more than a 64-bit total can hold");
        total += v;
        if (v > 0) h->record(h->valueFromIndex(index), v);
        ++index;
    }
    return std::move(*h);
}

HdrHistogram decodeCompressedHistogramBase64(std::string_view base64) {
    return decodeCompressedHistogram(base64Decode(base64));
}

std::string base64Encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                                (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                                static_cast<unsigned char>(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::string base64Decode(std::string_view text) {
    if (text.size() % 4 != 0)
        throw HdrLogError(0, "base64 text of length " + std::to_string(text.size()) +
                                 " is not a multiple of 4");
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text[i + k];
            const int d = (k >= 4 - pad) ? 0 : base64Value(c);
            if (d < 0)
                throw HdrLogError(0, std::string("'") + c + "' at " + std::to_string(i + k) +
                                         " is not base64");
            v = (v << 6) | static_cast<std::uint32_t>(d);
        }
        out.push_back(static_cast<char>(v >> 16));
        if (pad < 2) out.push_back(static_cast<char>(v >> 8));
        if (pad < 1) out.push_back(static_cast<char>(v));
    }
    return out;
}

HdrLogWriter::HdrLogWriter(std::int64_t start_epoch_ms, double max_unit_ratio)
    : startEpochMs_(start_epoch_ms), maxUnitRatio_(max_unit_ratio) {}

std::string HdrLogWriter::header() const {
    const double startS = static_cast<double>(startEpochMs_) / 1000.0;
    const std::time_t t = static_cast<std::time_t>(startEpochMs_ / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::array<char, 64> date{};
    std::strftime(date.data(), date.size(), "%a %b %d %H:%M:%S UTC %Y", &tm);
    return "#[Histogram log format version 1.3]\n#[StartTime: " + formatFixed3(startS) +
           " (seconds since epoch), " + date.data() + "]\n#[BaseTime: " + formatFixed3(startS) +
           " (seconds since epoch)]\n"
           "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
           "\"Interval_Compressed_Histogram\"\n";
}

std::string HdrLogWriter::interval(double start_s, double length_s, const HdrHistogram& h,
                                   std::string_view tag) const {
    if (tag.find_first_of(", \r\n") != std::string_view::npos)
        throw std::invalid_argument("an hlog tag cannot hold a comma, space or line break: '" +
                                    std::string(tag) + "'");
    std::string line;
    if (!tag.empty()) line = "Tag=" + std::string(tag) + ",";
    line += formatFixed3(start_s) + "," + formatFixed3(length_s) + "," +
            formatFixed3(static_cast<double>(h.max()) / maxUnitRatio_) + "," +
            encodeCompressedHistogramBase64(h) + "\n";
    return line;
}

HdrLog parseHdrLog(std::string_view text) {
    HdrLog log;
    int lineNo = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        if (line.front() == '#') {
            if (auto t = headerTime(line, "#[StartTime: ", lineNo)) log.start_time_s = t;
            if (auto t = headerTime(line, "#[BaseTime: ", lineNo)) log.base_time_s = t;
            continue;
        }
        if (line.front() == '"') continue;  // the legend
        HdrLogInterval interval;
        if (line.substr(0, 4) == "Tag=") {
            const std::size_t comma = line.find(',');
            if (comma == std::string_view::npos) throw HdrLogError(lineNo, "a tag with no fields after it");
            interval.tag = std::string(line.substr(4, comma - 4));
            line.remove_prefix(comma + 1);
        }
        std::array<std::string_view, 4> fields;
        for (std::size_t k = 0; k < 4; ++k) {
            const std::size_t comma = k < 3 ? line.find(',') : line.size();
            if (comma == std::string_view::npos)
                throw HdrLogError(lineNo, "expected 4 comma-separated fields, found " + std::to_string(k + 1));
            fields[k] = line.substr(0, comma);
            line.remove_prefix(k < 3 ? comma + 1 : comma);
        }
        interval.start_s = parseNumber(fields[0], lineNo, "StartTimestamp");
        interval.length_s = parseNumber(fields[1], lineNo, "Interval_Length");
        interval.max = parseNumber(fields[2], lineNo, "Interval_Max");
        try {
            interval.histogram = decodeCompressedHistogramBase64(fields[3]);
        } catch (const HdrLogError& e) {
            throw HdrLogError(lineNo, e.what());
        }
        log.intervals.push_back(std::move(interval));
    }
    return log;
}

std::size_t mergeIntervals(const HdrLog& log, std::string_view tag,
                           std::optional<HdrHistogram>& merged) {
    std::size_t n = 0;
    for (const HdrLogInterval& i : log.intervals) {
        if (i.tag != tag) continue;
        if (!merged) {
            merged.emplace(i.histogram.config());
        } else if (const HdrConfig wider = covering(merged->config(), i.histogram.config());
                   !(wider == merged->config())) {
            HdrHistogram grown(wider);
            grown.merge(*merged);
            merged = std::move(grown);
        }
        merged->merge(i.histogram);
        ++n;
    }
    return n;
}

}  // namespace taillab
