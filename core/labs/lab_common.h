// What the labs share: the tolerance their checks allow, the resolution of the HDR histograms
// they read percentiles from, how a run is cut into steps for progress and partial results, and
// the conversion of recorded microseconds into the milliseconds they report.
#pragma once

#include <cstdint>

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

inline double usToMs(std::int64_t us) { return static_cast<double>(us) / 1000.0; }
// A percentile of a histogram of microseconds, in milliseconds.
inline double percentileMs(const HdrHistogram& h, double percentile) {
    return usToMs(h.valueAtPercentile(percentile));
}

}  // namespace taillab
