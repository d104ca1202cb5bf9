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

namespace taillab::live {

namespace {

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

}  // namespace

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

namespace {

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

// One pass over the text; `at` is the next byte. Every method returns false at the first byte
// that cannot continue a JSON text, leaving `at` on it.
class Reader {
public:
    Reader(std::string_view text, JsonEvents& events) : t_(text), ev_(events) {}

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
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
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
    bool string() {
        const std::size_t start = ++at_;
        bool escaped = false;  // text_ holds the string's bytes up to `from`
        for (;;) {
            const std::size_t from = at_;
            at_ = plainRunEnd(t_, at_);
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
    JsonEvents& ev_;
    std::size_t at_ = 0;
    std::string text_;        // the unescaped bytes of a string with escapes
    std::string_view value_;  // the string just read
};

}  // namespace

std::optional<std::size_t> readJson(std::string_view text, JsonEvents& events) {
    return Reader(text, events).run();
}

}  // namespace taillab::live
