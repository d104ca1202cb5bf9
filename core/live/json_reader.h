// readJson's reader as a template over its events (live/json_text.h says what it reads): the
// page reader on serve's answer path instantiates it with its own final class, so its ~100
// events a page are direct calls rather than virtual ones. Included by json_text.cpp and by the
// readers that want that; everyone else calls readJson.
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/utf8.h"
#include "live/json_text.h"

namespace taillab::live {
namespace detail {

// The end of the run from s[i] of bytes a JSON string holds as they are: printable ASCII other
// than quote and backslash (the first byte that is a control, non-ASCII, '"' or '\\', or s's end).
// Pages and answers are mostly such runs, so it tests sixteen bytes at a time where SSE2 is there
// (every x86-64), the last fewer than sixteen of a longer string in one overlapping step; else
// eight at a time in a word, the position of the first byte that stops the run coming from the
// flags, and the last bytes (fewer than 8) one by one. Inline here, so the readers' string scans
// need no call for it.
inline std::size_t plainRunEnd(std::string_view s, std::size_t i) {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    // One bit per byte of the 16 at p that stops a run.
    const auto stops = [&](const char* p) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // Signed, bytes from 0x80 up are negative, so "below a space" flags them too.
        const __m128i stop = _mm_or_si128(_mm_cmplt_epi8(x, space),
                                          _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
        return static_cast<unsigned>(_mm_movemask_epi8(stop));
    };
    while (s.size() - i >= 16) {
        if (const unsigned m = stops(s.data() + i)) return i + static_cast<std::size_t>(std::countr_zero(m));
        i += 16;
    }
    // The last bytes (fewer than 16) of a string of at least 16 in one step: the 16 bytes that
    // end it, the ones before i shifted out (a written string is short, so this is most of its
    // tail; a byte at a time it was most of the cost).
    if (i < s.size() && s.size() >= 16) {
        const std::size_t from = s.size() - 16;
        const unsigned m = stops(s.data() + from) >> (i - from);
        return m ? i + static_cast<std::size_t>(std::countr_zero(m)) : s.size();
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

// '{' or '[' of each container the reader is in: the first levels in place (a page is three
// deep), deeper ones on the heap, so nesting depth still costs heap, never stack.
class OpenContainers {
public:
    bool empty() const { return n_ == 0; }
    char back() const { return n_ <= kInPlace ? inPlace_[n_ - 1] : deeper_.back(); }
    void push_back(char c) {
        if (n_ < kInPlace) inPlace_[n_] = c;
        else deeper_.push_back(c);
        ++n_;
    }
    void pop_back() {
        if (n_ > kInPlace) deeper_.pop_back();
        --n_;
    }

private:
    static constexpr std::size_t kInPlace = 16;
    char inPlace_[kInPlace];
    std::vector<char> deeper_;
    std::size_t n_ = 0;
};

// One pass over the text; `at` is the next byte. Events is JsonEvents (readJson), or a final
// class of its own, whose events then are direct calls the compiler can inline: the engine
// page's reader, on every upstream answer. Every method returns false at the first byte
// that cannot continue a JSON text, leaving `at` on it.
template <class Events>
class JsonReader {
public:
    JsonReader(std::string_view text, Events& events) : t_(text), ev_(events) {}

    std::optional<std::size_t> run() {
        if (t_.starts_with("\xef\xbb\xbf")) at_ = 3;  // a byte order mark, as nlohmann allows
        if (!document()) return at_ + 1;
        return std::nullopt;
    }

private:
    bool document() {
        OpenContainers open;
        for (;;) {
            // A value.
            skipSpace();
            if (at_ == t_.size()) return false;
            switch (t_[at_]) {
                case '{':
                    ++at_;
                    ev_.startObject();
                    skipSpace();
                    if (peek('}')) {
                        ++at_;
                        ev_.endObject();
                        break;
                    }
                    open.push_back('{');
                    if (!member()) return false;
                    continue;  // its value
                case '[':
                    ++at_;
                    ev_.startArray();
                    skipSpace();
                    if (peek(']')) {
                        ++at_;
                        ev_.endArray();
                        break;
                    }
                    open.push_back('[');
                    continue;  // its first element
                case '"':
                    if (!string()) return false;
                    ev_.string(value_);
                    break;
                case 't':
                    if (!literal("true")) return false;
                    ev_.boolean(true);
                    break;
                case 'f':
                    if (!literal("false")) return false;
                    ev_.boolean(false);
                    break;
                case 'n':
                    if (!literal("null")) return false;
                    ev_.null();
                    break;
                default:
                    if (!number()) return false;
            }
            // After a value: close what it ends, or go on to the next member or element.
            for (;;) {
                skipSpace();
                if (open.empty()) return at_ == t_.size();
                if (at_ == t_.size()) return false;
                const char c = t_[at_];
                const char close = open.back() == '{' ? '}' : ']';
                if (c == close) {
                    ++at_;
                    open.pop_back();
                    if (close == '}') ev_.endObject();
                    else ev_.endArray();
                    continue;
                }
                if (c != ',') return false;
                ++at_;
                if (open.back() == '{') {
                    skipSpace();
                    if (!member()) return false;
                }
                break;
            }
        }
    }

    // "key": (the value follows)
    bool member() {
        if (!peek('"') || !string()) return false;
        ev_.key(value_);
        skipSpace();
        if (!peek(':')) return false;
        ++at_;
        return true;
    }

    bool peek(char c) const { return at_ < t_.size() && t_[at_] == c; }

    void skipSpace() {
        while (at_ < t_.size()) {
            const char c = t_[at_];
            // Every JSON space is at most ' ': one test ends the usual case, no space at all.
            if (static_cast<unsigned char>(c) > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) return;
            ++at_;
        }
    }

    bool literal(std::string_view word) {
        for (const char c : word) {
            if (at_ == t_.size() || t_[at_] != c) return false;
            ++at_;
        }
        return true;
    }

    bool digits() {
        const std::size_t from = at_;
        while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
        return at_ > from;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    bool number() {
        const std::size_t from = at_;
        if (peek('-')) ++at_;
        if (peek('0')) {
            ++at_;
        } else if (at_ < t_.size() && t_[at_] >= '1' && t_[at_] <= '9') {
            digits();
        } else {
            return false;
        }
        if (peek('.')) {
            ++at_;
            if (!digits()) return false;
        }
        if (peek('e') || peek('E')) {
            ++at_;
            if (peek('+') || peek('-')) ++at_;
            if (!digits()) return false;
        }
        double v = 0;
        if (shortDecimal(t_.substr(from, at_ - from), v)) {
            ev_.number(v, t_.substr(from, at_ - from));
            return true;
        }
        const auto r = std::from_chars(t_.data() + from, t_.data() + at_, v);
        if (r.ec == std::errc::result_out_of_range) {
            // Below the smallest double it reads as (nearly) zero; beyond the largest it is
            // refused, as nlohmann refuses it: no double holds it.
            const std::string copy(t_.substr(from, at_ - from));
            v = std::strtod(copy.c_str(), nullptr);
            if (!std::isfinite(v)) {
                at_ = from;
                return false;
            }
        }
        ev_.number(v, t_.substr(from, at_ - from));
        return true;
    }

    // A number of at most 15 digits and no exponent (scores, counts, milliseconds) read without
    // from_chars: its digits m are a whole number below 2^53 and 10^k (k digits after the point)
    // is exact too, so m / 10^k, one correctly rounded division, is the double nearest the
    // decimal: what from_chars gives (JsonText.ShortNumbersReadAsFromCharsReadsThem). False for
    // any other number, which from_chars then reads.
    static bool shortDecimal(std::string_view s, double& v) {
        static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
        std::size_t i = 0;
        const bool negative = !s.empty() && s[0] == '-';
        if (negative) ++i;
        std::uint64_t m = 0;
        int digits = 0, fraction = -1;  // fraction: digits after the point, -1 before it
        for (; i < s.size(); ++i) {
            const char c = s[i];
            if (c == '.') {
                fraction = 0;
                continue;
            }
            if (c < '0' || c > '9') return false;  // an exponent
            m = m * 10 + static_cast<std::uint64_t>(c - '0');
            if (++digits > 15) return false;
            if (fraction >= 0) ++fraction;
        }
        const double whole = static_cast<double>(m);
        v = fraction > 0 ? whole / kPow10[fraction] : whole;
        if (negative) v = -v;
        return true;
    }

    static int hexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    // Four hex digits after "\u".
    bool hex4(unsigned& v) {
        if (t_.size() - at_ < 4) {
            while (at_ < t_.size() && hexDigit(t_[at_]) >= 0) ++at_;
            return false;
        }
        v = 0;
        for (int k = 0; k < 4; ++k, ++at_) {
            const int d = hexDigit(t_[at_]);
            if (d < 0) return false;
            v = v * 16 + static_cast<unsigned>(d);
        }
        return true;
    }

    // A string, into value_ (at_ on its opening quote): a view of the text itself while no
    // escape has come; from the first escape on, the unescaped bytes are copied into text_.
    // Inline, the usual string (printable ASCII to its closing quote) with no call; the rest
    // (escapes, UTF-8, controls, the end of the text) in restOfString.
    bool string() {
        const std::size_t start = ++at_;
        const std::size_t end = detail::plainRunEnd(t_, start);
        if (end < t_.size() && t_[end] == '"') {
            value_ = t_.substr(start, end - start);
            at_ = end + 1;
            return true;
        }
        at_ = end;
        return restOfString(start);
    }

    // From at_ (past the plain bytes of the string that starts at `start`) to its end.
    [[gnu::noinline]] bool restOfString(std::size_t start) {
        bool escaped = false;  // text_ holds the string's bytes up to `from`
        for (;;) {
            const std::size_t from = at_;
            at_ = detail::plainRunEnd(t_, at_);
            if (at_ == t_.size()) return false;
            const auto c = static_cast<unsigned char>(t_[at_]);
            if (c < 0x20) return false;
            if (c >= 0x80) {
                const std::size_t n = utf8SequenceLength(t_, at_);
                if (n == 0) return false;
                at_ += n;
                if (escaped) text_.append(t_.data() + from, at_ - from);
                continue;
            }
            if (escaped) text_.append(t_.data() + from, at_ - from);
            if (c == '"') {
                value_ = escaped ? std::string_view(text_) : t_.substr(start, at_ - start);
                ++at_;
                return true;
            }
            if (!escaped) text_.assign(t_.data() + start, at_ - start);
            escaped = true;
            if (!escape()) return false;
        }
    }

    // One escape (at_ on its backslash), unescaped onto text_.
    bool escape() {
        ++at_;
        if (at_ == t_.size()) return false;
        const char e = t_[at_++];
        switch (e) {
            case '"': text_ += '"'; return true;
            case '\\': text_ += '\\'; return true;
            case '/': text_ += '/'; return true;
            case 'b': text_ += '\b'; return true;
            case 'f': text_ += '\f'; return true;
            case 'n': text_ += '\n'; return true;
            case 'r': text_ += '\r'; return true;
            case 't': text_ += '\t'; return true;
            case 'u': {
                unsigned cp = 0;
                if (!hex4(cp)) return false;
                if (cp >= 0xdc00 && cp <= 0xdfff) return false;  // a low surrogate alone
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    // A high surrogate: a low one must follow.
                    if (!literal("\\u")) return false;
                    unsigned low = 0;
                    if (!hex4(low)) return false;
                    if (low < 0xdc00 || low > 0xdfff) return false;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                }
                appendUtf8(text_, cp);
                return true;
            }
            default:
                --at_;
                return false;
        }
    }

    std::string_view t_;
    Events& ev_;
    std::size_t at_ = 0;
    std::string text_;        // the unescaped bytes of a string with escapes
    std::string_view value_;  // the string just read
};

}  // namespace detail
}  // namespace taillab::live
