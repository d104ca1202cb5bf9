#include "live/json_text.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/utf8.h"
#include "live/json_reader.h"
#include "scenario/json_locate.h"

namespace taillab::live {

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
    // Else written in place, into room for the bound, which is then cut to what was written.
    const std::size_t at = out.size();
    out.resize(at + jsonStringBound(s.size()));
    char* const start = out.data() + at;
    out.resize(at + static_cast<std::size_t>(putJsonString(start, s) - start));
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

std::string notJsonMessage(std::string_view body, std::size_t stop) {
    const std::size_t at = std::min(stop == 0 ? 0 : stop - 1, body.size());
    const TextPosition p = positionOfOffset(body, at);
    std::string message = "the body is not valid JSON at line " + std::to_string(p.line) + ", column " +
                          std::to_string(p.column) + ": ";
    if (at == body.size()) return message + "it ends early";
    message += "unexpected '";
    message += body[at];  // may not be UTF-8: the reply writer replaces it
    return message + "'";
}

std::optional<std::string> notJsonMessage(std::string_view body) {
    struct Ignore final : JsonEvents {
        void null() override {}
        void boolean(bool) override {}
        void number(double, std::string_view) override {}
        void string(std::string_view) override {}
        void key(std::string_view) override {}
        void startObject() override {}
        void endObject() override {}
        void startArray() override {}
        void endArray() override {}
    } ignore;
    const std::optional<std::size_t> stop = readJson(body, ignore);
    if (!stop) return std::nullopt;
    return notJsonMessage(body, *stop);
}

}  // namespace taillab::live
