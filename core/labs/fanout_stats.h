// Tolerances justified by sample size, shared by the fan-out and idle-hedging labs (they would
// move to a common header if more labs need them).
//
//  - A proportion estimated from n trials has standard error sqrt(P(1-P)/n); the variance is
//    floored at one event in n so that a rare event seen once is not a "failure".
//  - A quantile estimated from n samples has standard error sqrt(p(1-p)/n) / density(x_p) (the
//    delta method); the density is taken numerically from the CDF. HDR histograms report the top
//    of a bucket, up to 0.1% above the value at three significant digits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "labs/lab_common.h"
#include "labs/lab_result.h"

namespace taillab {

inline double proportionTolerance(double p, double n, double sigmas = kSigmas) {
    const double var = std::max(p * (1.0 - p), 0.0) + 1.0 / n;
    return sigmas * std::sqrt(var / n);
}

// The trials at which proportionTolerance(p, n) comes down to `share` of p: the positive root of
// (share·p)² n² - sigmas² p(1-p) n - sigmas² = 0.
inline double proportionTrialsFor(double p, double share, double sigmas = kSigmas) {
    const double a = share * p * share * p, b = sigmas * sigmas * p * (1.0 - p);
    const double c = sigmas * sigmas;
    return a > 0 ? (b + std::sqrt(b * b + 4 * a * c)) / (2 * a) : INFINITY;
}

// A proportion check decides only when its tolerance is within kMaxToleranceShare of the
// expected share (a rare event seen once or never would pass); otherwise it is inconclusive and
// names the trials (requests) that would decide it.
inline void requireProportionResolution(Check& c) {
    const double trials = std::min(proportionTrialsFor(c.closed_form, kMaxToleranceShare), 9e18);
    requireResolution(c, runAtLeast(static_cast<std::int64_t>(std::ceil(trials))));
}

// Two independent estimates (ours from n1 trials, a published one from n2) of the same P.
inline double proportionDifferenceTolerance(double p, double n1, double n2,
                                            double sigmas = kSigmas) {
    const double a = proportionTolerance(p, n1, 1.0), b = proportionTolerance(p, n2, 1.0);
    return sigmas * std::sqrt(a * a + b * b);
}

// The part of quantileTolerance that does not shrink with n: the HDR bucket, as a share of x.
constexpr double kQuantileHdrShare = 0.002;

inline double quantileTolerance(const std::function<double(double)>& cdf, double x, double p,
                                double n, double sigmas = kSigmas) {
    const double h = 0.01;
    const double density = (cdf(x * (1 + h)) - cdf(x * (1 - h))) / (2 * h * x);
    const double se = density > 0 ? std::sqrt(p * (1 - p) / n) / density : INFINITY;
    return sigmas * se + kQuantileHdrShare * x;
}

// The sample quantile p, `simulated`, of `n` samples against `expected`, the model's quantile p
// (`cdf` its CDF), within 4 SE (delta method) + HDR; of that only the SE part shrinks with n.
// Listed whatever the run: one whose tolerance is wider than kMaxToleranceShare of its value is
// inconclusive, naming the samples that would decide it (`run` says what to raise). Where the model
// has next to no density, in a gap between its modes, no sample size does: the reason says so (with
// no density at all the delta method gives no tolerance).
inline void addQuantileCheck(LabResult& r, std::string name, double simulated, double expected,
                             double p, const std::function<double(double)>& cdf, std::int64_t n,
                             std::string source, const RunKnob& run = {}) {
    const double tol = quantileTolerance(cdf, expected, p, static_cast<double>(n));
    r.checks.push_back(makeCheck(std::move(name), simulated, expected, tol, false,
                                 std::move(source)));
    Check& c = r.checks.back();
    const double sePart = tol - kQuantileHdrShare * expected;
    if (toleranceShare(c) > kMaxToleranceShare && !samplesToDecide(c, n, sePart))
        c.inconclusive =
            "no run length decides it: the model has next to no density at this quantile (it "
            "falls in a gap between its modes), so its standard error stays wider than a quarter "
            "of the value however many samples there are";
    else
        requireSampleResolution(c, n, sePart, run);
}

}  // namespace taillab
