// Word-level rules of the query compiler (predicates, phrases, URL stripping), shared by the ICU
// reference and the fast path.
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <climits>

#include "gateway/ascii.h"
#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"

namespace taillab::gateway::detail {
namespace {

bool isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

bool isAscii(std::string_view bytes) {
    const char* p = bytes.data();
    std::size_t n = bytes.size();
    std::uint64_t high = 0;  // the top bit of every byte seen, eight at a time
    for (; n >= 8; p += 8, n -= 8) high |= loadLe64(p);
    for (; n > 0; ++p, --n) high |= static_cast<unsigned char>(*p);
    return (high & 0x8080808080808080ULL) == 0;
}

bool hasDigit(std::string_view w) { return std::any_of(w.begin(), w.end(), isDigit); }

bool hasYear(std::string_view w) {
    std::size_t i = 0;
    while (i < w.size()) {
        if (!isDigit(w[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < w.size() && isDigit(w[i])) ++i;
        if (i - start == 4 && w[start] == '2' && w[start + 1] == '0') return true;
    }
    return false;
}

bool isVersion(std::string_view w) {
    const bool v = !w.empty() && w.front() == 'v';
    if (v) w.remove_prefix(1);
    if (w.empty() || !isDigit(w.front()) || !isDigit(w.back())) return false;
    int dots = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        if (w[i] == '.') {
            if (!isDigit(w[i - 1])) return false;
            ++dots;
        } else if (!isDigit(w[i])) {
            return false;
        }
    }
    return v || dots > 0;
}

bool isAmount(std::string_view w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
        return isDigit(c) || c == '.' || c == ',';
    }) && hasDigit(w);
}

bool hasCurrencySymbol(std::string_view w) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(w.data());
    const auto n = static_cast<std::int32_t>(std::min<std::size_t>(w.size(), INT32_MAX));
    std::int32_t i = 0;
    while (i < n) {
        UChar32 c;
        U8_NEXT(p, i, n, c);
        if (c >= 0 && u_charType(c) == U_CURRENCY_SYMBOL) return true;
    }
    return false;
}

bool looksLikeDomain(std::string_view w) {
    if (w.starts_with("https://"))
        w.remove_prefix(8);
    else if (w.starts_with("http://"))
        w.remove_prefix(7);
    const std::size_t end = findFirstOf(w, "/?#:");
    const std::string_view host = w.substr(0, end);
    const std::size_t last_dot = host.rfind('.');
    if (last_dot == std::string_view::npos || last_dot == 0) return false;
    const std::string_view tld = host.substr(last_dot + 1);
    if (tld.size() < 2 || tld.size() > 24) return false;
    if (!std::all_of(tld.begin(), tld.end(), isAsciiLetter)) return false;
    // Every label before the TLD is non-empty and has no ASCII punctuation except '-'.
    std::size_t start = 0;
    while (start <= last_dot) {
        const std::size_t dot = host.find('.', start);
        const std::string_view label = host.substr(start, dot - start);
        if (label.empty()) return false;
        for (char c : label) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x80 && !isAsciiLetter(c) && !isDigit(c) && c != '-') return false;
        }
        start = dot + 1;
    }
    return true;
}

std::size_t findUrlStart(std::string_view w, std::size_t from) {
    const std::size_t a = w.find("http://", from);
    const std::size_t b = w.find("https://", from);
    return std::min(a, b);
}

bool isOperatorWord(std::string_view w) {
    if (!w.empty() && w.front() == '-') w.remove_prefix(1);
    const std::size_t colon = w.find(':');
    if (colon == std::string_view::npos || colon + 1 >= w.size()) return false;
    const std::string_view name = w.substr(0, colon);
    return std::find(kOperatorNames.begin(), kOperatorNames.end(), name) != kOperatorNames.end();
}

bool hasNonEmptyPhrase(std::string_view text) {
    std::size_t open = std::string_view::npos;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '"') continue;
        if (open == std::string_view::npos) {
            open = i;
            continue;
        }
        const std::string_view inside = text.substr(open + 1, i - open - 1);
        if (inside.find_first_not_of(' ') != std::string_view::npos) return true;
        open = std::string_view::npos;
    }
    return false;
}

std::size_t stripTrackingParamsTo(std::string_view url, char* out) {
    const std::size_t hash = std::min(url.find('#'), url.size());
    const std::size_t question = url.substr(0, hash).find('?');
    if (question == std::string_view::npos) {
        std::memcpy(out, url.data(), url.size());
        return url.size();
    }
    std::size_t size = question;
    std::memcpy(out, url.data(), size);
    bool kept = false;
    for (std::size_t pos = question + 1;;) {
        const std::size_t amp = std::min(url.find('&', pos), hash);
        const std::string_view piece = url.substr(pos, amp - pos);
        if (!piece.empty() && !isTrackingParam(piece.substr(0, piece.find('=')))) {
            out[size++] = kept ? '&' : '?';
            std::memcpy(out + size, piece.data(), piece.size());
            size += piece.size();
            kept = true;
        }
        if (amp == hash) break;
        pos = amp + 1;
    }
    std::memcpy(out + size, url.data() + hash, url.size() - hash);
    return size + url.size() - hash;
}

std::size_t stripUrlsInWordTo(std::string_view w, char* out) {
    std::size_t size = 0;
    const auto copy = [&](std::string_view piece) {
        std::memcpy(out + size, piece.data(), piece.size());
        size += piece.size();
    };
    std::size_t pos = 0;
    while (pos < w.size()) {
        const std::size_t start = findUrlStart(w, pos);
        if (start == std::string_view::npos) {
            copy(w.substr(pos));
            break;
        }
        copy(w.substr(pos, start - pos));
        std::size_t end = start;
        while (end < w.size() && w[end] != '"' && w[end] != '<' && w[end] != '>') ++end;
        if (start > 0 && end > start) {
            const char open = w[start - 1];
            const char close = open == '(' ? ')' : open == '[' ? ']' : '\0';
            if (close != '\0' && w[end - 1] == close) --end;
        }
        size += stripTrackingParamsTo(w.substr(start, end - start), out + size);
        pos = end;
    }
    return size;
}

}  // namespace taillab::gateway::detail
