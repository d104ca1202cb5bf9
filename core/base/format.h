// Numbers in messages and notes, as people write them.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace taillab {

// `format` with up to two double conversions; the result is cut at 159 characters.
inline std::string formatNumbers(const char* format, double a, double b = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, format, a, b);
    return buf;
}

// One number as a person (or a scenario file) writes it, for a message: 10000000, not 1e+07;
// 0.25; 1.5e-07 only when it is that small (or 1e+20 that large). 15 significant digits: what
// was typed comes back as typed, and a computed 100 * 0.07 reads 7, not 7.000000000000001. No
// digit grouping: a range reads "[1000, 10000000]", and the numbers can be pasted back in.
// Messages only; result files keep their own exact numbers.
inline std::string formatNumber(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);  // fixed from 1e-4 to 1e15, else with an exponent
    return buf;
}

}  // namespace taillab
