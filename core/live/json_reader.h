// readJson's reader as a template over its events (live/json_text.h says what it reads): the
// page reader on serve's answer path instantiates it with its own final class, so its ~100
// events a page are direct calls rather than virtual ones. Included by json_text.cpp and by the
// readers that want that; everyone else calls readJson.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8.h"
#include "live/json_text.h"

namespace taillab::live {
namespace detail {

// The end of the run from s[i] of bytes a JSON string holds as they are (json_text.cpp).
std::size_t plainRunEnd(std::string_view s, std::size_t i);

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
