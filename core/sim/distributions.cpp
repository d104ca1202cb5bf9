#include "sim/distributions.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "metrics/hdr_histogram.h"

namespace taillab {

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalQuantileFast(double p) {
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                   -2.759285104469687e+02, 1.383577518672690e+02,
                                   -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                   -1.556989798598866e+02, 6.680131188771972e+01,
                                   -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                   -2.400758277161838e+00, -2.549732539343734e+00,
                                   4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                   2.445134137142996e+00, 3.754408661907416e+00};
    if (p <= 0) return -INFINITY;
    if (p >= 1) return INFINITY;
    auto tail = [&](double q) {
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    };
    constexpr double kLow = 0.02425;
    if (p < kLow) return tail(std::sqrt(-2 * std::log(p)));
    if (p > 1 - kLow) return -tail(std::sqrt(-2 * std::log1p(-p)));
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double normalQuantile(double p) {
    if (p <= 0.0) return -INFINITY;
    if (p >= 1.0) return INFINITY;
    const double x = normalQuantileFast(p);
    // One Halley refinement step brings the error to machine precision.
    const double e = normalCdf(x) - p;
    const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double lognormalCdf(const LognormalParams& p, double x) {
    if (x <= 0) return 0.0;
    if (p.sigma <= 0) return x >= p.median_ms ? 1.0 : 0.0;
    return normalCdf(std::log(x / p.median_ms) / p.sigma);
}

double lognormalQuantile(const LognormalParams& p, double q) {
    return p.median_ms * std::exp(p.sigma * normalQuantile(q));
}

double lognormalSample(const LognormalParams& p, Rng& rng) {
    return p.median_ms * std::exp(p.sigma * rng.normal());
}

EmpiricalModel EmpiricalModel::fromHistogram(const HdrHistogram& h, double unit_to_ms) {
    EmpiricalModel m;
    const double total = static_cast<double>(h.totalCount());
    if (total <= 0) return m;
    double cum = 0;
    h.forEachBucket([&](std::int64_t lowest, std::int64_t highest, std::int64_t count) {
        cum += static_cast<double>(count);
        m.lower_ms.push_back(static_cast<double>(lowest) * unit_to_ms);
        m.upper_ms.push_back(static_cast<double>(highest + 1) * unit_to_ms);
        m.cumulative.push_back(cum / total);
    });
    return m;
}

namespace {

template <class... Ts>
struct Overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

double empiricalSample(const EmpiricalModel& m, double u) {
    if (m.cumulative.empty()) return 0.0;
    const auto it = std::lower_bound(m.cumulative.begin(), m.cumulative.end(), u);
    const std::size_t i = std::min<std::size_t>(it - m.cumulative.begin(), m.cumulative.size() - 1);
    const double lo_c = i == 0 ? 0.0 : m.cumulative[i - 1];
    const double span = m.cumulative[i] - lo_c;
    const double frac = span > 0 ? (u - lo_c) / span : 0.5;
    return m.lower_ms[i] + frac * (m.upper_ms[i] - m.lower_ms[i]);
}

}  // namespace

double ServiceModel::sample(Rng& rng) const {
    return std::visit(
        Overloaded{
            [&](const LognormalWithSlowMode& m) {
                if (m.slow_probability > 0 && rng.uniform() < m.slow_probability)
                    return lognormalSample(m.slow, rng);
                return lognormalSample(m.body, rng);
            },
            [&](const ExponentialModel& m) { return rng.exponential(m.mean_ms); },
            [&](const ConstantModel& m) { return m.value_ms; },
            [&](const std::shared_ptr<const EmpiricalModel>& m) {
                return empiricalSample(*m, rng.uniform());
            }},
        v_);
}

double ServiceModel::sampleFast(Rng& rng) const {
    if (auto* m = std::get_if<LognormalWithSlowMode>(&v_)) return lognormalSample(m->body, rng);
    return sample(rng);
}

double ServiceModel::sampleSlow(Rng& rng) const {
    if (auto* m = std::get_if<LognormalWithSlowMode>(&v_)) return lognormalSample(m->slow, rng);
    return sample(rng);
}

double ServiceModel::cdf(double x) const {
    return std::visit(
        Overloaded{[&](const LognormalWithSlowMode& m) {
                       return (1 - m.slow_probability) * lognormalCdf(m.body, x) +
                              m.slow_probability * lognormalCdf(m.slow, x);
                   },
                   [&](const ExponentialModel& m) {
                       return x <= 0 ? 0.0 : 1.0 - std::exp(-x / m.mean_ms);
                   },
                   [&](const ConstantModel& m) { return x >= m.value_ms ? 1.0 : 0.0; },
                   [&](const std::shared_ptr<const EmpiricalModel>& m) {
                       const auto& e = *m;
                       if (e.cumulative.empty() || x <= e.lower_ms.front()) return 0.0;
                       const auto it = std::upper_bound(e.upper_ms.begin(), e.upper_ms.end(), x);
                       const std::size_t i = it - e.upper_ms.begin();
                       if (i >= e.upper_ms.size()) return 1.0;
                       const double lo_c = i == 0 ? 0.0 : e.cumulative[i - 1];
                       const double w = e.upper_ms[i] - e.lower_ms[i];
                       const double frac =
                           w > 0 ? std::clamp((x - e.lower_ms[i]) / w, 0.0, 1.0) : 1.0;
                       return lo_c + frac * (e.cumulative[i] - lo_c);
                   }},
        v_);
}

double ServiceModel::quantile(double p) const {
    if (auto* m = std::get_if<ExponentialModel>(&v_)) return -m->mean_ms * std::log1p(-p);
    if (auto* m = std::get_if<ConstantModel>(&v_)) return m->value_ms;
    if (auto* m = std::get_if<LognormalWithSlowMode>(&v_); m && m->slow_probability <= 0)
        return lognormalQuantile(m->body, p);
    double hi = 1.0;
    while (cdf(hi) < p && hi < 1e12) hi *= 2;
    return invertCdf([this](double x) { return cdf(x); }, p, 1e-9, hi);
}

double ServiceModel::mean() const {
    return std::visit(
        Overloaded{[&](const LognormalWithSlowMode& m) {
                       auto mean = [](const LognormalParams& l) {
                           return l.median_ms * std::exp(l.sigma * l.sigma / 2);
                       };
                       return (1 - m.slow_probability) * mean(m.body) +
                              m.slow_probability * mean(m.slow);
                   },
                   [&](const ExponentialModel& m) { return m.mean_ms; },
                   [&](const ConstantModel& m) { return m.value_ms; },
                   [&](const std::shared_ptr<const EmpiricalModel>& m) {
                       double s = 0, prev = 0;
                       for (std::size_t i = 0; i < m->cumulative.size(); ++i) {
                           s += (m->cumulative[i] - prev) * 0.5 * (m->lower_ms[i] + m->upper_ms[i]);
                           prev = m->cumulative[i];
                       }
                       return s;
                   }},
        v_);
}

double ServiceModel::slowProbability() const {
    if (auto* m = std::get_if<LognormalWithSlowMode>(&v_)) return m->slow_probability;
    return 0.0;
}

std::string ServiceModel::describe() const {
    std::ostringstream out;
    std::visit(Overloaded{[&](const LognormalWithSlowMode& m) {
                              out << "lognormal(median " << m.body.median_ms << " ms, sigma "
                                  << m.body.sigma << ")";
                              if (m.slow_probability > 0)
                                  out << " + slow mode p=" << m.slow_probability << " (median "
                                      << m.slow.median_ms << " ms, sigma " << m.slow.sigma << ")";
                          },
                          [&](const ExponentialModel& m) {
                              out << "exponential(mean " << m.mean_ms << " ms)";
                          },
                          [&](const ConstantModel& m) { out << "constant(" << m.value_ms << " ms)"; },
                          [&](const std::shared_ptr<const EmpiricalModel>& m) {
                              out << "empirical(" << m->cumulative.size() << " buckets)";
                          }},
               v_);
    return out.str();
}

double CorrelatedSlowness::requestSlowProbability(int n) const {
    return 1.0 - (1.0 - sharedProbability()) * std::pow(1.0 - independentProbability(), n);
}

double CorrelatedSlowness::requestSlowProbabilityHedged(int n) const {
    const double q = independentProbability();
    return 1.0 - (1.0 - sharedProbability()) * std::pow(1.0 - q * q, n);
}

}  // namespace taillab
