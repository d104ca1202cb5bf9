// What the labs share: the tolerance their checks allow, the resolution of the HDR histograms
// they read percentiles from, how a run is cut into steps for progress and partial results, and
// the conversion of recorded microseconds into the milliseconds they report.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "metrics/hdr_histogram.h"

namespace taillab {

// Checks allow 4 standard errors (a two-sided miss about once in 16,000 checks).
constexpr double kSigmas = 4.0;
// 3 significant digits: a bucket's width over its value.
constexpr double kHdrResolution = 1.0 / 1024;
// Requests simulated between two looks at progress and cancellation.
constexpr std::int64_t kChunk = 4096;
// Partial results a run reports, when asked for.
constexpr int kPartials = 8;

// The sample size at which a tolerance of `seTolerance` from `n` samples, shrinking like 1/√n,
// comes down to `target` (n itself when it already has).
inline std::int64_t sampleForTolerance(std::int64_t n, double seTolerance, double target) {
    if (seTolerance <= target) return n;
    if (target <= 0) return std::numeric_limits<std::int64_t>::max();
    const double ratio = seTolerance / target;
    return static_cast<std::int64_t>(std::ceil(static_cast<double>(n) * ratio * ratio));
}

// 341764 as "341,764".
inline std::string groupedCount(std::int64_t v) {
    const std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out = v < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

inline double usToMs(std::int64_t us) { return static_cast<double>(us) / 1000.0; }
// A percentile of a histogram of microseconds, in milliseconds.
inline double percentileMs(const HdrHistogram& h, double percentile) {
    return usToMs(h.valueAtPercentile(percentile));
}

}  // namespace taillab
