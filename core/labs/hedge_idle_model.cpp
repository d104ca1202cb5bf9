#include "labs/hedge_idle_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

namespace taillab {
namespace {

double lognormalTail(const LognormalParams& p, double t) { return 1.0 - lognormalCdf(p, t); }

double exponentialSurvival(double mean, double t) { return t <= 0 ? 1.0 : std::exp(-t / mean); }

// ∫_a^b g(t) dt on a grid dense near a (midpoint rule in log(t - a + h)).
template <class F>
double integrate(const F& g, double a, double b, double h) {
    constexpr int kSteps = 4000;
    const double lo = std::log(h), hi = std::log(b - a + h);
    double sum = 0;
    for (int i = 0; i < kSteps; ++i) {
        const double y0 = std::exp(lo + (hi - lo) * i / kSteps) - h;
        const double y1 = std::exp(lo + (hi - lo) * (i + 1) / kSteps) - h;
        sum += g(a + 0.5 * (y0 + y1)) * (y1 - y0);
    }
    return sum;
}

}  // namespace

double HedgeIdleConfig::exponentialMean() const { return body.median_ms / std::numbers::ln2; }

ServiceModel hedgeIdleServiceModel(const HedgeIdleConfig& c) {
    switch (c.service) {
        case HedgeIdleService::Lognormal:
            return LognormalWithSlowMode{c.body, 0.0, c.slow};
        case HedgeIdleService::Exponential:
            return ExponentialModel{c.exponentialMean()};
        case HedgeIdleService::Mixture:
            break;
    }
    return LognormalWithSlowMode{c.body, c.slow_probability, c.slow};
}

double HedgeIdleModel::survival(double t) const {
    switch (c_.service) {
        case HedgeIdleService::Lognormal:
            return lognormalTail(c_.body, t);
        case HedgeIdleService::Exponential:
            return exponentialSurvival(c_.exponentialMean(), t);
        case HedgeIdleService::Mixture:
            break;
    }
    return (1 - c_.slow_probability) * lognormalTail(c_.body, t) +
           c_.slow_probability * lognormalTail(c_.slow, t);
}

double HedgeIdleModel::independentSurvival(double t) const {
    const CorrelatedSlowness cs{c_.slow_probability, c_.shared_fraction};
    const double q = cs.independentProbability();
    return (1 - q) * lognormalTail(c_.body, t) + q * lognormalTail(c_.slow, t);
}

double HedgeIdleModel::hedgedSurvival(double t, double d) const {
    if (t < d) return survival(t);
    switch (c_.service) {
        case HedgeIdleService::Lognormal:
            return survival(t) * survival(t - d);
        case HedgeIdleService::Exponential:
            return std::exp(-(2 * t - d) / c_.exponentialMean());
        case HedgeIdleService::Mixture:
            break;
    }
    const double s = c_.slow_probability * c_.shared_fraction;
    return (1 - s) * independentSurvival(t) * independentSurvival(t - d) +
           s * lognormalTail(c_.slow, t) * lognormalTail(c_.slow, t - d);
}

double HedgeIdleModel::quantile(double p) const {
    switch (c_.service) {
        case HedgeIdleService::Lognormal:
            return lognormalQuantile(c_.body, p);
        case HedgeIdleService::Exponential:
            return p >= 1 ? std::numeric_limits<double>::infinity()
                          : -c_.exponentialMean() * std::log1p(-std::max(p, 0.0));
        case HedgeIdleService::Mixture:
            break;
    }
    return quantileByInversion(p);
}

double HedgeIdleModel::hedgedQuantile(double p, double d) const {
    if (c_.service != HedgeIdleService::Exponential) return hedgedQuantileByInversion(p, d);
    const double unhedged = quantile(p);
    return unhedged <= d ? unhedged : 0.5 * (d + unhedged);
}

double HedgeIdleModel::backupWorkShare(double d) const {
    if (c_.service != HedgeIdleService::Exponential) return backupWorkShareByQuadrature(d);
    const double backups = survival(d);
    return backups / (2 - backups);
}

double HedgeIdleModel::meanService() const {
    auto mean = [](const LognormalParams& l) {
        return l.median_ms * std::exp(l.sigma * l.sigma / 2);
    };
    switch (c_.service) {
        case HedgeIdleService::Lognormal:
            return mean(c_.body);
        case HedgeIdleService::Exponential:
            return c_.exponentialMean();
        case HedgeIdleService::Mixture:
            break;
    }
    return (1 - c_.slow_probability) * mean(c_.body) + c_.slow_probability * mean(c_.slow);
}

double HedgeIdleModel::quantileByInversion(double p) const {
    return invertCdf([&](double t) { return cdf(t); }, p);
}

double HedgeIdleModel::hedgedQuantileByInversion(double p, double d) const {
    return invertCdf([&](double t) { return hedgedCdf(t, d); }, p);
}

double HedgeIdleModel::farTailMs() const {
    // The slower component's: the "slow" mode need not be the slower one.
    switch (c_.service) {
        case HedgeIdleService::Mixture:
            return std::max(lognormalQuantile(c_.body, 1 - 1e-12),
                            lognormalQuantile(c_.slow, 1 - 1e-12));
        case HedgeIdleService::Lognormal:
            return lognormalQuantile(c_.body, 1 - 1e-12);
        case HedgeIdleService::Exponential:
            break;
    }
    return quantile(1 - 1e-12);
}

HdrConfig hedgeIdleLatencyRange(const HedgeIdleConfig& c) {
    const double far = HedgeIdleModel(c).farTailMs();
    HdrConfig h{1, 3'600'000'000LL, 3};
    h.highest_trackable = static_cast<std::int64_t>(std::clamp(2000.0 * far, 3.6e9, 1e15));
    return h;
}

// ∫_a^b g(t)·P(T > t) dt under delay d; b = +∞ stops far past the slowest component's
// 1 - 1e-12 quantile, where P(T > t) is negligible.
template <class G>
double HedgeIdleModel::integrateSurvival(double d, double a, double b, const G& g) const {
    const double far = std::isinf(b) ? 20 * farTailMs() : b;
    const double h = 1e-3 * c_.body.median_ms;
    return integrate([&](double t) { return g(t) * hedgedSurvival(t, d); }, a, far, h);
}

double HedgeIdleModel::backupWorkShareByQuadrature(double d) const {
    const double inf = std::numeric_limits<double>::infinity();
    auto one = [](double) { return 1.0; };
    const double backup = integrateSurvival(d, d, inf, one);
    const double primary = integrateSurvival(d, 0.0, d, one) + backup;
    return primary > 0 ? backup / primary : 0.0;
}

double HedgeIdleModel::backupWorkShareStandardError(double d, std::int64_t n) const {
    const double inf = std::numeric_limits<double>::infinity();
    auto one = [](double) { return 1.0; };
    auto twice = [](double t) { return 2 * t; };
    const double meanB = integrateSurvival(d, d, inf, one);
    const double meanT = integrateSurvival(d, 0.0, d, one) + meanB;
    const double t2 = integrateSurvival(d, 0.0, d, twice) + integrateSurvival(d, d, inf, twice);
    const double b2 = integrateSurvival(d, d, inf, [d](double t) { return 2 * (t - d); });
    const double bt = b2 + d * meanB;  // B·T = B² + d·B: T = d + B whenever B > 0
    if (!(meanT > 0) || n < 1) return std::numeric_limits<double>::infinity();
    const double r = meanB / meanT;
    const double var = std::max(b2 - 2 * r * bt + r * r * t2, 0.0);
    return std::sqrt(var / static_cast<double>(n)) / meanT;
}

double HedgeIdleModel::netExtraWork(double d) const {
    if (c_.service == HedgeIdleService::Exponential) return 0.0;
    const double inf = std::numeric_limits<double>::infinity();
    auto one = [](double) { return 1.0; };
    const double backup = integrateSurvival(d, d, inf, one);
    const double primary = integrateSurvival(d, 0.0, d, one) + backup;
    return (primary + backup) / meanService() - 1;
}

HedgeIdleModel::PairMoments HedgeIdleModel::pairMoments(double d) const {
    // The parts within which the two replicas are independent, each with its weight and survival:
    // the shared cause (both in the slow mode) and the rest (each slow with probability q).
    struct Part {
        double weight;
        std::function<double(double)> survival;
    };
    std::vector<Part> parts;
    const double s = c_.slowProbability() * c_.shared_fraction;
    if (c_.service != HedgeIdleService::Mixture || s == 0) {
        parts.push_back({1.0, [this](double t) { return survival(t); }});
    } else {
        parts.push_back({1 - s, [this](double t) { return independentSurvival(t); }});
        parts.push_back({s, [this](double t) { return lognormalTail(c_.slow, t); }});
    }
    const double far = 20 * farTailMs();
    const double h = 1e-3 * c_.body.median_ms;
    PairMoments m;
    for (const Part& part : parts) {
        const auto& S = part.survival;
        m.x += part.weight * integrate(S, 0.0, far, h);
        m.x2 += part.weight * integrate([&](double x) { return 2 * x * S(x); }, 0.0, far, h);
        if (!(far > d)) continue;
        // Past d, over u = x - d on integrate's grid (dense near u = 0), with g(u) accumulated
        // along it.
        constexpr int kSteps = 4000;
        const double lo = std::log(h), hi = std::log(far - d + h);
        double g = 0, md = 0, md2 = 0, mdx = 0;
        for (int i = 0; i < kSteps; ++i) {
            const double u0 = std::exp(lo + (hi - lo) * i / kSteps) - h;
            const double u1 = std::exp(lo + (hi - lo) * (i + 1) / kSteps) - h;
            const double u = 0.5 * (u0 + u1), du = u1 - u0, x = d + u;
            const double su = S(u), sx = S(x), gu = g + su * (u - u0);
            md += (2 * su - 1) * sx * du;                            // (E[D | x])'
            md2 += (4 * u * su - 4 * gu + 2 * u) * sx * du;          // (E[D² | x])'
            mdx += ((2 * gu - u) + x * (2 * su - 1)) * sx * du;  // (x·E[D | x])'
            g += su * du;
        }
        m.d += part.weight * md;
        m.d2 += part.weight * md2;
        m.dx += part.weight * mdx;
    }
    return m;
}

double HedgeIdleModel::netExtraWorkByPairs(double d) const {
    const PairMoments m = pairMoments(d);
    return m.x > 0 ? m.d / m.x : 0.0;
}

double HedgeIdleModel::netExtraWorkStandardError(double d, std::int64_t n) const {
    const PairMoments m = pairMoments(d);
    if (!(m.x > 0) || n < 1) return std::numeric_limits<double>::infinity();
    const double w = m.d / m.x;
    const double var = std::max(m.d2 - 2 * w * m.dx + w * w * m.x2, 0.0);
    return std::sqrt(var / static_cast<double>(n)) / m.x;
}

HedgeIdleDraw drawHedgeIdle(const HedgeIdleConfig& c, Rng& rng) {
    // Without a slow mode nothing is ever slow: the decisions are left at 1 (u < p never holds)
    // and only the two service times are drawn.
    if (c.service == HedgeIdleService::Exponential) {
        const double m = c.exponentialMean();
        return HedgeIdleDraw{1.0, 1.0, 1.0, rng.exponential(m), rng.exponential(m)};
    }
    if (c.service == HedgeIdleService::Lognormal)
        return HedgeIdleDraw{1.0, 1.0, 1.0, lognormalSample(c.body, rng),
                             lognormalSample(c.body, rng)};
    HedgeIdleDraw d{rng.uniform(), rng.uniform(), rng.uniform(), lognormalSample(c.body, rng),
                    lognormalSample(c.body, rng)};
    // A replica can be slow under some f only if the shared cause fires at f = 1 (uShared < p)
    // or it is independently slow at f = 0 (u < p); otherwise its slow time is never read.
    const double p = c.slow_probability;
    if (d.uShared < p || d.u1 < p) d.slow1 = lognormalSample(c.slow, rng);
    if (d.uShared < p || d.u2 < p) d.slow2 = lognormalSample(c.slow, rng);
    return d;
}

HedgeIdleOutcome replayHedgeIdle(const HedgeIdleConfig& c, const HedgeIdleDraw& draw,
                                 double delay_ms, double shared_fraction) {
    const CorrelatedSlowness cs{c.slowProbability(), shared_fraction};
    const bool shared = draw.uShared < cs.sharedProbability();
    const double q = cs.independentProbability();
    const double x1 = shared || draw.u1 < q ? draw.slow1 : draw.body1;
    HedgeIdleOutcome o{x1, x1, false, 0.0};
    if (x1 <= delay_ms) return o;
    const double x2 = shared || draw.u2 < q ? draw.slow2 : draw.body2;
    o.backup_sent = true;
    o.response_ms = std::min(x1, delay_ms + x2);
    o.backup_busy_ms = o.response_ms - delay_ms;
    return o;
}

}  // namespace taillab
