// printf-style text for messages and notes that format one or two numbers.
#pragma once

#include <cstdio>
#include <string>

namespace taillab {

// `format` with up to two double conversions; the result is cut at 159 characters.
inline std::string formatNumbers(const char* format, double a, double b = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, format, a, b);
    return buf;
}

}  // namespace taillab
