#include "scenario/json_locate.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/utf8.h"

namespace taillab {
namespace {

class Walker {
public:
    explicit Walker(std::string_view text) : t_(text) {}

    void skipWs() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
    }
    bool eof() const { return i_ >= t_.size(); }
    char peek() const { return eof() ? '\0' : t_[i_]; }
    std::size_t pos() const { return i_; }

    // Reads a JSON string at the cursor and returns its (unescaped, for simple escapes) content.
    bool readString(std::string& out) {
        if (peek() != '"') return false;
        ++i_;
        out.clear();
        while (!eof() && t_[i_] != '"') {
            if (t_[i_] == '\\' && i_ + 1 < t_.size()) {
                const char e = t_[i_ + 1];
                if (e == 'u' && i_ + 5 < t_.size()) {
                    out += '?';
                    i_ += 6;
                    continue;
                }
                out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
                i_ += 2;
                continue;
            }
            out += t_[i_++];
        }
        if (eof()) return false;
        ++i_;
        return true;
    }

    // Skips one value of any kind.
    bool skipValue() {
        skipWs();
        const char c = peek();
        if (c == '"') {
            std::string s;
            return readString(s);
        }
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++i_;
            skipWs();
            if (peek() == close) {
                ++i_;
                return true;
            }
            for (;;) {
                skipWs();
                if (c == '{') {
                    std::string k;
                    if (!readString(k)) return false;
                    skipWs();
                    if (peek() != ':') return false;
                    ++i_;
                }
                if (!skipValue()) return false;
                skipWs();
                if (peek() == ',') {
                    ++i_;
                    continue;
                }
                if (peek() == close) {
                    ++i_;
                    return true;
                }
                return false;
            }
        }
        while (!eof() && std::string_view(",]}: \n\r\t").find(t_[i_]) == std::string_view::npos) ++i_;
        return true;
    }

    // With the cursor on a value, descends to the member/element named `token`. On success the
    // cursor is on the child value and keyPos holds the key's offset (objects only).
    bool descend(const std::string& token, std::size_t& keyPos) {
        skipWs();
        if (peek() == '{') {
            ++i_;
            for (;;) {
                skipWs();
                if (peek() == '}') return false;
                const std::size_t here = i_;
                std::string k;
                if (!readString(k)) return false;
                skipWs();
                if (peek() != ':') return false;
                ++i_;
                skipWs();
                if (k == token) {
                    keyPos = here;
                    return true;
                }
                if (!skipValue()) return false;
                skipWs();
                if (peek() == ',') ++i_;
                else return false;
            }
        }
        if (peek() == '[') {
            std::size_t index = 0;
            try {
                index = std::stoul(token);
            } catch (...) {
                return false;
            }
            ++i_;
            for (std::size_t n = 0;; ++n) {
                skipWs();
                if (peek() == ']') return false;
                if (n == index) {
                    keyPos = i_;
                    return true;
                }
                if (!skipValue()) return false;
                skipWs();
                if (peek() == ',') ++i_;
                else return false;
            }
        }
        return false;
    }

private:
    std::string_view t_;
    std::size_t i_ = 0;
};

std::vector<std::string> tokens(const nlohmann::json::json_pointer& p) {
    std::vector<std::string> out;
    auto copy = p;
    while (!copy.empty()) {
        out.insert(out.begin(), copy.back());
        copy.pop_back();
    }
    return out;
}

constexpr std::size_t kNone = std::string_view::npos;

// 3 when the text starts with a UTF-8 byte-order mark, which the parser skips and an editor does
// not show, else 0.
std::size_t byteOrderMarkSize(std::string_view t) {
    return t.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

// Text saved as UTF-16 (some editors' "Unicode"): a UTF-16 byte-order mark, or ASCII with a NUL
// in every other byte of its first characters. Named as such: "a NUL byte" sent its readers
// looking for a binary file.
bool looksLikeUtf16(std::string_view t) {
    if (t.starts_with("\xFF\xFE") || t.starts_with("\xFE\xFF")) return true;
    if (t.size() < 4) return false;
    const auto nul = [&](std::size_t i) { return t[i] == '\0'; };
    return (!nul(0) && nul(1) && !nul(2) && nul(3)) || (nul(0) && !nul(1) && nul(2) && !nul(3));
}

bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool readHex4(std::string_view t, std::size_t i, unsigned& out) {
    if (i + 4 > t.size()) return false;
    out = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const char c = t[k];
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (d < 0) return false;
        out = out * 16 + static_cast<unsigned>(d);
    }
    return true;
}

// The JSON string whose opening quote is at t[i], decoded into `out` when given (escapes resolved,
// \u escapes and surrogate pairs to UTF-8, so that "a" and "\u0061" are the same key). Returns
// the offset after the closing quote, or kNone when the string is not well formed. A \u escape of
// a surrogate that is not half of a pair (JSON's grammar allows it, but it names no character,
// and the parser refuses it) sets `lone`, when given, to where the first such escape starts.
std::size_t scanString(std::string_view t, std::size_t i, std::string* out, std::size_t* lone = nullptr) {
    for (++i; i < t.size();) {
        const char c = t[i];
        if (c == '"') return i + 1;
        if (static_cast<unsigned char>(c) < 0x20) return kNone;
        if (c != '\\') {
            if (out) *out += c;
            ++i;
            continue;
        }
        if (i + 1 >= t.size()) return kNone;
        const char e = t[i + 1];
        if (e == 'u') {
            unsigned cp = 0, low = 0;
            if (!readHex4(t, i + 2, cp)) return kNone;
            i += 6;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < t.size() && t[i] == '\\' && t[i + 1] == 'u' &&
                readHex4(t, i + 2, low) && low >= 0xDC00 && low < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            } else if (cp >= 0xD800 && cp < 0xE000 && lone && *lone == kNone) {
                *lone = i - 6;
            }
            if (out) appendUtf8(*out, cp);
            continue;
        }
        const std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        const std::size_t k = from.find(e);
        if (k == kNone) return kNone;
        if (out) *out += to[k];
        i += 2;
    }
    return kNone;
}

std::string loneSurrogate(std::string_view t, std::size_t at) {
    return "a lone UTF-16 surrogate " + std::string(t.substr(at, 6)) + " is not a character";
}

std::string escapePointerToken(const std::string& token) {
    std::string out;
    for (const char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

}  // namespace

std::string dottedJsonPath(std::string_view pointer) {
    std::string dotted = "$";
    for (char c : pointer) dotted += c == '/' ? '.' : c;
    return dotted;
}

std::optional<JsonTextProblem> findJsonTextProblem(std::string_view t, std::string_view depthNote) {
    struct Frame {
        bool object;
        std::size_t index = 0;  // arrays: the element being read
        std::string key;        // objects: the member being read
        std::unordered_map<std::string, std::size_t> keys;  // objects: key -> offset
    };
    std::vector<Frame> stack;
    // The problem at offset `at`, at the value being read: its JSON pointer and its path.
    auto problem = [&](std::size_t at, std::string message) {
        JsonTextProblem p{at, "", std::move(message), "$"};
        for (const Frame& f : stack) {
            p.pointer += '/';
            p.pointer += f.object ? escapePointerToken(f.key) : std::to_string(f.index);
            if (f.object) {
                p.path += '.';
                p.path += f.key;
            } else {
                p.path += '[';
                p.path += std::to_string(f.index);
                p.path += ']';
            }
        }
        return p;
    };
    enum class Want { Value, Key, After } want = Want::Value;
    // The parser takes a NUL byte for the end of the text (as in a C string): whatever follows
    // one would be dropped without a word, so it is refused wherever it stands.
    if (looksLikeUtf16(t))
        return problem(0, "UTF-16 text: scenario files are UTF-8 (save it as UTF-8)");
    if (const std::size_t nul = t.find('\0'); nul != kNone)
        return problem(nul,
                       "a NUL byte: scenario text holds none (nothing after it would be "
                       "read; is this a binary file?)");
    // A UTF-8 byte-order mark before the text is skipped, as the parser skips it: were this scan to
    // stop there while the parser goes on, none of its checks (depth, duplicate keys, number
    // range) would apply to the text the parser reads.
    std::size_t i = byteOrderMarkSize(t);
    for (;;) {
        while (i < t.size() && isJsonSpace(t[i])) ++i;
        if (i >= t.size()) return std::nullopt;
        const char c = t[i];
        switch (want) {
            case Want::Value:
                if (c == '{' || c == '[') {
                    if (stack.size() >= static_cast<std::size_t>(kMaxJsonDepth))
                        return problem(i, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (" +
                                              std::string(depthNote) + ")");
                    stack.push_back(Frame{c == '{', 0, {}, {}});
                    ++i;
                    while (i < t.size() && isJsonSpace(t[i])) ++i;
                    if (i < t.size() && t[i] == (c == '{' ? '}' : ']')) {
                        ++i;
                        stack.pop_back();
                        want = Want::After;
                    } else {
                        want = c == '{' ? Want::Key : Want::Value;
                    }
                } else if (c == '"') {
                    std::size_t lone = kNone;
                    i = scanString(t, i, nullptr, &lone);
                    if (i == kNone) return std::nullopt;
                    if (lone != kNone) return problem(lone, loneSurrogate(t, lone));
                    want = Want::After;
                } else if (c == '-' || (c >= '0' && c <= '9')) {
                    const std::size_t start = i;
                    while (i < t.size() && std::string_view("+-.eE0123456789").find(t[i]) != kNone) ++i;
                    const std::string token(t.substr(start, i - start));
                    char* end = nullptr;
                    const double x = std::strtod(token.c_str(), &end);
                    if (end == token.c_str() + token.size() && std::isinf(x))
                        return problem(start, "the number " + elideText(token, 40) +
                                                  " is out of range (at most about 1.8e308 in size)");
                    want = Want::After;
                } else if (c >= 'a' && c <= 'z') {
                    while (i < t.size() && t[i] >= 'a' && t[i] <= 'z') ++i;
                    want = Want::After;
                } else {
                    return std::nullopt;
                }
                break;
            case Want::Key: {
                if (c != '"') return std::nullopt;
                const std::size_t at = i;
                std::string key;
                std::size_t lone = kNone;
                i = scanString(t, i, &key, &lone);
                if (i == kNone) return std::nullopt;
                if (lone != kNone) return problem(lone, loneSurrogate(t, lone));
                Frame& f = stack.back();
                f.key = key;
                const auto [first, fresh] = f.keys.emplace(std::move(key), at);
                if (!fresh) {
                    const TextPosition p = positionOfOffset(t, first->second);
                    return problem(at, "duplicate key \"" + elideText(f.key, 40) + "\" (first at line " +
                                           std::to_string(p.line) + ", column " + std::to_string(p.column) +
                                           "): a key may appear once in an object");
                }
                while (i < t.size() && isJsonSpace(t[i])) ++i;
                if (i >= t.size() || t[i] != ':') return std::nullopt;
                ++i;
                want = Want::Value;
                break;
            }
            case Want::After: {
                if (stack.empty()) return std::nullopt;  // trailing text: the parser says so
                Frame& f = stack.back();
                if (c == ',') {
                    ++i;
                    if (f.object) {
                        want = Want::Key;
                    } else {
                        ++f.index;
                        want = Want::Value;
                    }
                } else if (c == (f.object ? '}' : ']')) {
                    ++i;
                    stack.pop_back();
                } else {
                    return std::nullopt;
                }
                break;
            }
        }
    }
}

std::string elideText(std::string_view s, std::size_t limit) {
    if (s.size() <= limit) return std::string(s);
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes)";
}

TextPosition positionOfOffset(std::string_view text, std::size_t offset) {
    TextPosition pos;
    // Lines end as JSON's white space allows them to: LF, CR-LF, or CR alone (old Mac files),
    // each one line end; the byte-order mark takes no column. A column is a character, as an
    // editor counts it: the bytes that continue a UTF-8 sequence take none of their own, so a
    // mistake after "Zürich" or "東京" is at the column the editor's cursor shows.
    for (std::size_t i = byteOrderMarkSize(text); i < offset && i < text.size(); ++i) {
        const bool crlf = text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n';
        const bool continuation = (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
        if ((text[i] == '\n' || text[i] == '\r') && !crlf) {
            ++pos.line;
            pos.column = 1;
        } else if (!crlf && !continuation) {
            ++pos.column;
        }
    }
    return pos;
}

std::optional<TextPosition> locateJson(std::string_view text,
                                       const nlohmann::json::json_pointer& pointer,
                                       LocateTarget target) {
    // The walk starts after a byte-order mark, as the parser does; its offsets are from there.
    const std::size_t bom = byteOrderMarkSize(text);
    Walker w(text.substr(bom));
    w.skipWs();
    std::size_t keyPos = w.pos();
    for (const auto& token : tokens(pointer)) {
        if (!w.descend(token, keyPos)) return std::nullopt;
    }
    w.skipWs();
    return positionOfOffset(text, bom + (target == LocateTarget::Key ? keyPos : w.pos()));
}

}  // namespace taillab
