// Word predicates of the query compiler's rules, shared by the ICU reference and the fast path.
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <climits>

#include "gateway/compiler_detail.h"

namespace taillab::gateway::detail {
namespace {

bool isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

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
    const std::size_t end = w.find_first_of("/?#:");
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

std::string_view trimPunctuation(std::string_view w) {
    constexpr std::string_view kPunct = "\"'()[]{}<>,.;:!?";
    for (bool changed = true; changed && !w.empty();) {
        changed = false;
        if (kPunct.find(w.front()) != std::string_view::npos) {
            w.remove_prefix(1);
            changed = true;
        } else if (w.starts_with("\xC2\xA1") || w.starts_with("\xC2\xBF")) {
            w.remove_prefix(2);
            changed = true;
        }
        if (!w.empty() && kPunct.find(w.back()) != std::string_view::npos) {
            w.remove_suffix(1);
            changed = true;
        }
    }
    return w;
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

}  // namespace taillab::gateway::detail
