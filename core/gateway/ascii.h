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

}  // namespace taillab::gateway
