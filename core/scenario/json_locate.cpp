#include "scenario/json_locate.h"

#include <string>
#include <vector>

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

}  // namespace

TextPosition positionOfOffset(std::string_view text, std::size_t offset) {
    TextPosition pos;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++pos.line;
            pos.column = 1;
        } else {
            ++pos.column;
        }
    }
    return pos;
}

std::optional<TextPosition> locateJson(std::string_view text,
                                       const nlohmann::json::json_pointer& pointer,
                                       LocateTarget target) {
    Walker w(text);
    w.skipWs();
    std::size_t keyPos = w.pos();
    for (const auto& token : tokens(pointer)) {
        if (!w.descend(token, keyPos)) return std::nullopt;
    }
    w.skipWs();
    return positionOfOffset(text, target == LocateTarget::Key ? keyPos : w.pos());
}

}  // namespace taillab
