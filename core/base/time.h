// Virtual time for the simulation core: integer nanoseconds, never double.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>

namespace taillab {

// A span of virtual time. Integer nanoseconds, so sums are exact and runs reproduce.
using Duration = std::chrono::duration<std::int64_t, std::nano>;
// A point on the virtual clock, as the time since the start of the run.
using Time = Duration;

constexpr Duration kZero{0};

// Rounds to the nearest integer, halves away from zero: exactly std::llround, inlined (the
// conversions below run several times per simulated request, and a libm call costs more than
// the rest of one). x minus its truncation is exact for every double, so no case rounds apart.
inline std::int64_t roundToInt64(double x) {
    const auto whole = static_cast<std::int64_t>(x);  // toward zero
    const double frac = x - static_cast<double>(whole);
    return whole + (frac >= 0.5 ? 1 : 0) - (frac <= -0.5 ? 1 : 0);
}

// Conversions at the edges (knobs are in ms, HDR histograms record µs).
inline Duration fromMs(double ms) { return Duration{roundToInt64(ms * 1e6)}; }
inline Duration fromUs(double us) { return Duration{roundToInt64(us * 1e3)}; }
inline Duration fromSeconds(double s) { return Duration{roundToInt64(s * 1e9)}; }
inline double toMs(Duration d) { return static_cast<double>(d.count()) / 1e6; }
inline double toSeconds(Duration d) { return static_cast<double>(d.count()) / 1e9; }
// Whole microseconds, rounded to nearest: the unit HDR histograms record.
inline std::int64_t toUs(Duration d) { return (d.count() + 500) / 1000; }

}  // namespace taillab
