// Small ASCII text helpers shared by the stages that look at result items (merge, validation).
#pragma once

#include <string_view>

namespace taillab::gateway {

constexpr bool isAsciiSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// `s` without leading and trailing ASCII whitespace.
constexpr std::string_view trimAscii(std::string_view s) {
    while (!s.empty() && isAsciiSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isAsciiSpace(s.back())) s.remove_suffix(1);
    return s;
}

// The first position in `s` of a byte of `set` (npos if none). std::string_view::find_first_of
// searches the set once per byte of `s` (a memchr call each); URLs are scanned on every answer.
constexpr std::size_t findFirstOf(std::string_view s, std::string_view set) {
    for (std::size_t i = 0; i < s.size(); ++i)
        for (const char c : set)
            if (s[i] == c) return i;
    return std::string_view::npos;
}

constexpr char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace taillab::gateway
