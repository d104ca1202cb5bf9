#include "labs/fanout_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace taillab {
namespace {

double powInt(double x, int n) { return std::pow(x, static_cast<double>(n)); }

}  // namespace

double FanoutModel::independentCallCdf(double x) const {
    const double q = c_.slowness.independentProbability();
    return (1 - q) * lognormalCdf(c_.body, x) + q * lognormalCdf(c_.slow, x);
}

double FanoutModel::backendCdf(double x) const {
    const double p = c_.slowness.slow_probability;
    return (1 - p) * lognormalCdf(c_.body, x) + p * lognormalCdf(c_.slow, x);
}

double FanoutModel::requestCdf(double x, int n, bool hedged) const {
    const double s = c_.slowness.sharedProbability();
    double h = independentCallCdf(x);
    double hs = lognormalCdf(c_.slow, x);
    if (hedged) {
        h = 1 - (1 - h) * (1 - h);
        hs = 1 - (1 - hs) * (1 - hs);
    }
    return (1 - s) * powInt(h, n) + s * powInt(hs, n);
}

double FanoutModel::backendQuantile(double p) const {
    return invertCdf([&](double x) { return backendCdf(x); }, p);
}

double FanoutModel::requestQuantile(double p, int n, bool hedged) const {
    return invertCdf([&](double x) { return requestCdf(x, n, hedged); }, p);
}

double FanoutModel::someCallSlowProbability(int n, bool hedged) const {
    return 1.0 - requestCdf(c_.threshold_ms, n, hedged);
}

double perBackendBudget(double request_budget, int n) {
    return -std::expm1(std::log1p(-request_budget) / n);
}

FanoutSampler::FanoutSampler(const FanoutConfig& c, bool hedged)
    : c_(c),
      hedged_(hedged),
      s_(c.slowness.sharedProbability()),
      q_(c.slowness.independentProbability()) {}

double FanoutSampler::toMs(const Call& call) const {
    const LognormalParams& l = call.slow ? c_.slow : c_.body;
    return l.median_ms * std::exp(l.sigma * normalQuantileFast(call.u));
}

// One call (or hedged pair) of a request in the state where a call is slow when its raw uniform
// is below qEff. Raw uniforms are compared within a mode, and rescaled only for the winners.
void FanoutSampler::addCall(Rng& rng, double qEff, Maxima& m) const {
    const double a = rng.uniform();
    if (!hedged_) {
        double& top = a < qEff ? m.slowRaw : m.bodyRaw;
        top = std::max(top, a);
        return;
    }
    const double b = rng.uniform();
    if ((a < qEff) == (b < qEff)) {
        double& top = a < qEff ? m.slowRaw : m.bodyRaw;
        top = std::max(top, std::min(a, b));
        return;
    }
    // One replica in each mode (rare): compare them in milliseconds.
    const double slowRaw = std::min(a, b), bodyRaw = std::max(a, b);
    const double ms =
        std::min(toMs({true, slowRaw / qEff}), toMs({false, (bodyRaw - qEff) / (1 - qEff)}));
    m.explicitMs = std::max(m.explicitMs, ms);
}

FanoutDraw FanoutSampler::drawMax(Rng& rng, bool shared) const {
    const double qEff = shared ? 1.0 : q_;
    Maxima first, rest;
    addCall(rng, qEff, first);
    if (hedged_) {
        for (int i = 1; i < c_.backends; ++i) addCall(rng, qEff, rest);
    } else {
        // The hot loop of the lab: one uniform and one compare per call.
        for (int i = 1; i < c_.backends; ++i) {
            const double u = rng.uniform();
            if (u < qEff) {
                rest.slowRaw = std::max(rest.slowRaw, u);
            } else {
                rest.bodyRaw = std::max(rest.bodyRaw, u);
            }
        }
    }
    FanoutDraw d;
    d.backend_ms = first.toMs(*this, qEff);
    d.latency_ms = std::max(d.backend_ms, rest.toMs(*this, qEff));
    d.some_call_slow = d.latency_ms >= c_.threshold_ms;
    return d;
}

double FanoutSampler::Maxima::toMs(const FanoutSampler& s, double qEff) const {
    double ms = explicitMs;
    if (slowRaw >= 0) ms = std::max(ms, s.toMs({true, slowRaw / qEff}));
    if (bodyRaw >= 0) ms = std::max(ms, s.toMs({false, (bodyRaw - qEff) / (1 - qEff)}));
    return ms;
}

FanoutDraw FanoutSampler::drawSum(Rng& rng, bool shared) const {
    auto replicaMs = [&] {
        const bool slow = rng.uniform() < (shared ? 1.0 : q_);
        return lognormalSample(slow ? c_.slow : c_.body, rng);
    };
    FanoutDraw d;
    for (int i = 0; i < c_.backends; ++i) {
        double ms = replicaMs();
        if (hedged_) ms = std::min(ms, replicaMs());
        if (i == 0) d.backend_ms = ms;
        d.latency_ms += ms;
        d.some_call_slow = d.some_call_slow || ms >= c_.threshold_ms;
    }
    return d;
}

FanoutDraw FanoutSampler::draw(Rng& rng) const {
    const bool shared = rng.uniform() < s_;
    return c_.sequential ? drawSum(rng, shared) : drawMax(rng, shared);
}

BernoulliStream::BernoulliStream(double p, Rng& rng)
    : logFail_(std::log1p(-std::clamp(p, 0.0, 1.0))),
      never_(p <= 0),
      always_(p >= 1),
      untilNext_(gap(rng)) {}

std::int64_t BernoulliStream::gap(Rng& rng) const {
    constexpr std::int64_t kFar = std::numeric_limits<std::int64_t>::max() / 4;
    if (never_) return kFar;
    if (always_) return 0;
    const double g = std::floor(std::log(rng.uniformOpen()) / logFail_);
    return g >= static_cast<double>(kFar) ? kFar : static_cast<std::int64_t>(g);
}

std::int64_t BernoulliStream::advance(std::int64_t n, Rng& rng) {
    std::int64_t hits = 0;
    while (untilNext_ < n) {
        ++hits;
        n -= untilNext_ + 1;
        untilNext_ = gap(rng);
    }
    untilNext_ -= n;
    return hits;
}

std::int64_t BernoulliStream::advanceBoth(std::int64_t n, double p2, Rng& rng) {
    std::int64_t hits = 0;
    while (untilNext_ < n) {
        if (rng.uniform() < p2) ++hits;
        n -= untilNext_ + 1;
        untilNext_ = gap(rng);
    }
    untilNext_ -= n;
    return hits;
}

double simulateSomeCallSlow(const FanoutModel& m, int n, bool hedged, std::int64_t requests,
                            Rng& rng) {
    const FanoutConfig& c = m.config();
    const double s = c.slowness.sharedProbability();
    const double q = c.slowness.independentProbability();
    // Per-replica probabilities of reaching the threshold in each state.
    const double a = 1 - ((1 - q) * lognormalCdf(c.body, c.threshold_ms) +
                          q * lognormalCdf(c.slow, c.threshold_ms));
    const double b = 1 - lognormalCdf(c.slow, c.threshold_ms);
    BernoulliStream independent(a, rng), sharedStream(b, rng);
    std::int64_t slow = 0;
    for (std::int64_t r = 0; r < requests; ++r) {
        const bool shared = rng.uniform() < s;
        BernoulliStream& stream = shared ? sharedStream : independent;
        const std::int64_t k =
            hedged ? stream.advanceBoth(n, shared ? b : a, rng) : stream.advance(n, rng);
        if (k > 0) ++slow;
    }
    return static_cast<double>(slow) / static_cast<double>(requests);
}

}  // namespace taillab
