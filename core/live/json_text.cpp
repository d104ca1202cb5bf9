#include "live/json_text.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/utf8.h"
#include "live/json_reader.h"

namespace taillab::live {

namespace detail {

// The end of the run from s[i] of bytes a JSON string holds as they are: printable ASCII other
// than quote and backslash (the first byte that is a control, non-ASCII, '"' or '\\', or s's end).
// Pages and answers are mostly such runs, so it tests sixteen bytes at a time where SSE2 is there
// (every x86-64), then eight at a time in a word, the position of the first byte that stops the
// run coming from the flags; the last bytes (fewer than 8) are tested one by one.
std::size_t plainRunEnd(std::string_view s, std::size_t i) {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    while (s.size() - i >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
        // Signed, bytes from 0x80 up are negative, so "below a space" flags them too.
        const __m128i stop = _mm_or_si128(_mm_cmplt_epi8(x, space),
                                          _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
        if (const int m = _mm_movemask_epi8(stop)) return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(m)));
        i += 16;
    }
#endif
    constexpr std::uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
    // Nonzero when some byte of x is below n (n <= 128), or is zero.
    const auto below = [](std::uint64_t x, std::uint64_t n) { return (x - ones * n) & ~x & highs; };
    while (s.size() - i >= 8) {
        std::uint64_t x;
        std::memcpy(&x, s.data() + i, 8);
        if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
        // The lowest flagged byte is always a true one (a borrow only flags bytes above it), so
        // its position is the first byte that needs handling.
        const std::uint64_t stop =
            (x & highs) | below(x, 0x20) | below(x ^ (ones * '"'), 1) | below(x ^ (ones * '\\'), 1);
        if (stop) return i + static_cast<std::size_t>(std::countr_zero(stop) >> 3);
        i += 8;
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    }
    return i;
}

}  // namespace detail

using detail::plainRunEnd;

bool jsonPlain(std::string_view s) { return plainRunEnd(s, 0) == s.size(); }

char* putJsonString(char* p, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    *p++ = '"';
    std::size_t i = 0;
    while (i < s.size()) {
        // The run of bytes that need nothing: printable ASCII other than quote and backslash.
        const std::size_t j = plainRunEnd(s, i);
        std::memcpy(p, s.data() + i, j - i);
        p += j - i;
        if (j == s.size()) break;
        i = j;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8SequenceLength(s, i);
            if (n == 0) {
                std::memcpy(p, "\xef\xbf\xbd", 3);
                p += 3;
                ++i;
            } else {
                std::memcpy(p, s.data() + i, n);
                p += n;
                i += n;
            }
            continue;
        }
        *p++ = '\\';
        switch (c) {
            case '"': *p++ = '"'; break;
            case '\\': *p++ = '\\'; break;
            case '\b': *p++ = 'b'; break;
            case '\f': *p++ = 'f'; break;
            case '\n': *p++ = 'n'; break;
            case '\r': *p++ = 'r'; break;
            case '\t': *p++ = 't'; break;
            default:
                std::memcpy(p, "u00", 3);
                p[3] = kHex[c >> 4];
                p[4] = kHex[c & 15];
                p += 5;
        }
        ++i;
    }
    *p++ = '"';
    return p;
}

void appendJsonString(std::string& out, std::string_view s) {
    // Most strings are one plain run: appended as they are, with no room to reserve.
    if (plainRunEnd(s, 0) == s.size()) {
        out += '"';
        out.append(s);
        out += '"';
        return;
    }
    std::string scratch;
    scratch.resize(jsonStringBound(s.size()));
    out.append(scratch.data(), putJsonString(scratch.data(), s));
}

namespace {

// The shortest form of v when it is a decimal with at most three digits after the point and a
// magnitude from 0.001 to below 100,000 (scores, milliseconds), at a fraction of to_chars' cost.
// For k = 0..3, the candidate is r = v * 10^k rounded to a whole number, and r / 10^k == v is
// exactly "the decimal r * 10^-k reads back to v" (the division rounds correctly). If any
// k-digit decimal reads back to v, it is within 1e-11 of v, so r is its numerator: the least
// such k is found, and with it the fewest digits (two decimals with at most three digits after
// the point are 0.001 apart, far more than doubles of this size). In this range fixed notation
// is never longer than scientific. Writes nothing and returns nullptr for every other v.
char* putShortDecimal(char* out, double v) {
    const double a = std::fabs(v);
    if (!(a >= 0.001 && a < 100000.0)) return nullptr;
    constexpr double kScale[] = {1, 10, 100, 1000};
    for (int k = 0; k <= 3; ++k) {
        const double r = std::nearbyint(a * kScale[k]);
        if (r / kScale[k] != a) continue;
        char buf[16];
        char* end = buf + sizeof buf;
        char* p = end;
        auto n = static_cast<std::uint64_t>(r);
        for (int d = 0; d < k; ++d, n /= 10) *--p = static_cast<char>('0' + n % 10);
        if (k > 0) *--p = '.';
        do {
            *--p = static_cast<char>('0' + n % 10);
            n /= 10;
        } while (n != 0);
        if (v < 0) *--p = '-';
        const auto length = static_cast<std::size_t>(end - p);
        std::memcpy(out, p, length);
        return out + length;
    }
    return nullptr;
}

}  // namespace

char* putJsonNumber(char* p, double v) {
    if (!std::isfinite(v)) {
        std::memcpy(p, "null", 4);
        return p + 4;
    }
    if (char* end = putShortDecimal(p, v)) return end;
    return std::to_chars(p, p + kJsonNumberBound, v).ptr;
}

void appendJsonNumber(std::string& out, double v) {
    char buf[kJsonNumberBound];
    out.append(buf, putJsonNumber(buf, v));
}

void appendJsonNumber(std::string& out, std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

std::optional<std::size_t> readJson(std::string_view text, JsonEvents& events) {
    return detail::JsonReader<JsonEvents>(text, events).run();
}

}  // namespace taillab::live
