// Service-time models, all in milliseconds (double) at the model boundary.
//
//  - Lognormal body with a rare slow mode: with probability slow_probability the draw comes from a
//    second lognormal (the "hiccup": a GC pause, a cold cache, a retransmit), otherwise from the body.
//    Quantiles have a closed form for each mode; the mixture's CDF is their weighted sum.
//  - Exponential with a mean.
//  - Constant.
//  - Empirical: sampled from a recorded HDR histogram (inverse CDF over its buckets, uniform within
//    a bucket), so a user's own latency log can drive a lab.
//
// CorrelatedSlowness models essay 003's shared stall: per request, a shared cause fires with
// probability p * shared_fraction and slows every backend (and every replica) of that request;
// each call is also independently slow with probability q chosen so that each backend's own slow
// rate stays exactly p:  1 - (1 - p*f)(1 - q) = p  =>  q = (p - p*f) / (1 - p*f).
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "base/rng.h"

namespace taillab {

class HdrHistogram;

struct LognormalParams {
    double median_ms = 10.0;
    double sigma = 0.3;
};

struct LognormalWithSlowMode {
    LognormalParams body;
    double slow_probability = 0.0;
    LognormalParams slow{1000.0, 0.1};
};

struct ExponentialModel {
    double mean_ms = 1.0;
};

struct ConstantModel {
    double value_ms = 1.0;
};

struct EmpiricalModel {
    // Cumulative bucket boundaries, built once from a histogram: value upper bounds (ms) and the
    // cumulative probability at each.
    std::vector<double> lower_ms;
    std::vector<double> upper_ms;
    std::vector<double> cumulative;
    static EmpiricalModel fromHistogram(const HdrHistogram& h, double unit_to_ms);
};

// One service-time model. Cheap to copy except Empirical (shared).
class ServiceModel {
public:
    using Variant = std::variant<LognormalWithSlowMode, ExponentialModel, ConstantModel,
                                 std::shared_ptr<const EmpiricalModel>>;

    ServiceModel() : v_(ConstantModel{}) {}
    ServiceModel(LognormalWithSlowMode m) : v_(m) {}
    ServiceModel(ExponentialModel m) : v_(m) {}
    ServiceModel(ConstantModel m) : v_(m) {}
    ServiceModel(std::shared_ptr<const EmpiricalModel> m) : v_(std::move(m)) {}

    // One draw, in ms.
    double sample(Rng& rng) const;
    // Draws from the body only (never the slow mode); equals sample() for other models.
    double sampleFast(Rng& rng) const;
    // Draws from the slow mode only; equals sample() for models without one.
    double sampleSlow(Rng& rng) const;
    // P(X <= x_ms).
    double cdf(double x_ms) const;
    // Inverse CDF by bisection on cdf() where no closed form exists.
    double quantile(double p) const;
    double mean() const;
    // The model's own slow probability (0 for models without a slow mode).
    double slowProbability() const;

    std::string describe() const;
    const Variant& variant() const { return v_; }

private:
    Variant v_;
};

// Lognormal helpers.
double lognormalCdf(const LognormalParams& p, double x);
double lognormalQuantile(const LognormalParams& p, double q);
double lognormalSample(const LognormalParams& p, Rng& rng);
// Standard normal CDF and its inverse (Acklam's rational approximation refined by one Halley step).
double normalCdf(double z);
double normalQuantile(double p);
// Acklam's approximation without the refinement step: relative error below 1.2e-9 and several
// times faster; for inverse-transform sampling, where that error is far below a microsecond.
double normalQuantileFast(double p);

// Smallest x in [lo, hi] with cdf(x) >= p, by bisection in log space (x > 0): for mixtures and
// order statistics whose quantile has no closed form.
template <class Cdf>
double invertCdf(const Cdf& cdf, double p, double lo = 1e-6, double hi = 1e9) {
    for (int i = 0; i < 200 && hi / lo > 1 + 1e-13; ++i) {
        const double mid = std::sqrt(lo * hi);
        (cdf(mid) < p ? lo : hi) = mid;
    }
    return std::sqrt(lo * hi);
}

// Shared-cause slowness across the calls of one request (essay 003).
struct CorrelatedSlowness {
    double slow_probability = 0.01;  // each call's marginal slow rate p
    double shared_fraction = 0.0;    // f: share of slow events that hit every call of the request

    double sharedProbability() const { return slow_probability * shared_fraction; }
    double independentProbability() const {
        const double s = sharedProbability();
        return s >= 1.0 ? 0.0 : (slow_probability - s) / (1.0 - s);
    }
    // P(at least one of n calls slow) = 1 - (1 - p f)(1 - q)^n.
    double requestSlowProbability(int n) const;
    // Same with every call hedged immediately to a second replica: a call is slow only if the
    // shared cause fires or both replicas are independently slow.
    double requestSlowProbabilityHedged(int n) const;
};

}  // namespace taillab
