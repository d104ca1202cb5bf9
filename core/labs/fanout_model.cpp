#include "labs/fanout_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace taillab {
namespace {

double powInt(double x, int n) { return std::pow(x, static_cast<double>(n)); }

// P(X > x) of a lognormal, accurate far into the tail (no 1 - CDF cancellation).
double lognormalSurvival(const LognormalParams& p, double x) {
    if (x <= 0) return 1.0;
    if (p.sigma <= 0) return x >= p.median_ms ? 0.0 : 1.0;
    return normalCdf(-std::log(x / p.median_ms) / p.sigma);
}

// F(x) - p for the mixture (1-w)·F_b + w·F_s, written so its sign survives between the modes:
// each mode that has mostly been passed enters as its weight minus its tail, w_i - w_i·S_i(x),
// the weights are summed first, and the tails only then. Summed as CDFs, F_b rounds to 1 and F_s
// to 0 long before (1-w)·S_b and w·F_s cross, so a p at the gap's own mass (p = 1 - w) compared
// equal from the body's top to the slow mode's bottom and bisection stopped wherever F_b first
// rounded to 1 (120.34 ms for a body of 10 ms, σ 0.3, whatever the slow mode).
double mixtureCdfExcess(const LognormalParams& body, const LognormalParams& slow, double w,
                        double x, double p) {
    double passed = -p, tails = 0;
    auto add = [&](const LognormalParams& mode, double weight) {
        const double below = lognormalCdf(mode, x);
        if (below > 0.5) {
            passed += weight;
            tails -= weight * lognormalSurvival(mode, x);
        } else {
            tails += weight * below;
        }
    };
    add(body, 1 - w);
    add(slow, w);
    return passed + tails;
}

}  // namespace

double mixtureQuantile(const LognormalParams& body, const LognormalParams& slow, double w,
                       double p) {
    if (!(p > 0 && p < 1)) return std::numeric_limits<double>::quiet_NaN();
    auto excess = [&](double x) { return mixtureCdfExcess(body, slow, w, x, p); };
    // The smallest x with F(x) >= p, and the smallest with F(x) > p: apart only where F equals p
    // over a stretch (both tails underflow between far-apart narrow modes), and then any x in
    // it is a p-quantile.
    const double first = invertCdf(excess, 0.0);
    const double past = invertCdf([&](double x) { return excess(x) > 0 ? 1.0 : 0.0; }, 0.5);
    if (past > first * (1 + 1e-9)) return std::numeric_limits<double>::quiet_NaN();
    return first;
}

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
    return mixtureQuantile(c_.body, c_.slow, c_.slowness.slow_probability, p);
}

double FanoutModel::requestQuantile(double p, int n, bool hedged) const {
    return invertCdf([&](double x) { return requestCdf(x, n, hedged); }, p);
}

double FanoutModel::someCallSlowProbability(int n, bool hedged) const {
    return 1.0 - requestCdf(c_.threshold_ms, n, hedged);
}

double FanoutModel::independentCallSurvival(double x) const {
    const double q = c_.slowness.independentProbability();
    return (1 - q) * lognormalSurvival(c_.body, x) + q * lognormalSurvival(c_.slow, x);
}

double FanoutModel::hedgeDelay() const {
    switch (c_.hedge) {
        case FanoutHedge::Immediate:
            return 0.0;
        case FanoutHedge::Delayed:
            return c_.hedge_delay_ms;
        case FanoutHedge::None:
            break;
    }
    return std::numeric_limits<double>::infinity();
}

double FanoutModel::hedgedCallSurvival(double x, double delay, bool shared) const {
    auto survival = [&](double t) {
        return shared ? lognormalSurvival(c_.slow, t) : independentCallSurvival(t);
    };
    // x - delay <= 0 (including delay = infinity) gives S = 1: no backup has answered yet.
    return survival(x) * survival(x - delay);
}

double FanoutModel::requestCdfAfter(double x, int n, double delay) const {
    const double s = c_.slowness.sharedProbability();
    auto allFast = [&](bool shared) {
        return std::exp(n * std::log1p(-hedgedCallSurvival(x, delay, shared)));
    };
    return (1 - s) * allFast(false) + s * allFast(true);
}

double FanoutModel::requestQuantileAfter(double p, int n, double delay) const {
    return invertCdf([&](double x) { return requestCdfAfter(x, n, delay); }, p);
}

double FanoutModel::someCallSlowProbabilityAfter(int n, double delay) const {
    return 1.0 - requestCdfAfter(c_.threshold_ms, n, delay);
}

double FanoutModel::extraRequests(double delay) const {
    const double p = c_.slowness.slow_probability;
    return (1 - p) * lognormalSurvival(c_.body, delay) + p * lognormalSurvival(c_.slow, delay);
}

double perBackendBudget(double request_budget, int n) {
    return -std::expm1(std::log1p(-request_budget) / n);
}

FanoutSampler::FanoutSampler(const FanoutConfig& c, bool hedged)
    : c_(c),
      hedged_(hedged),
      s_(c.slowness.sharedProbability()),
      q_(c.slowness.independentProbability()),
      cuts_(cutsFor(q_)),
      sharedCuts_(cutsFor(1.0)) {}

FanoutSampler::Call FanoutSampler::rawCall(double u, double qEff) const {
    return u < qEff ? Call{true, u / qEff} : Call{false, (u - qEff) / (1 - qEff)};
}

// A call answers later than the delay when its quantile within its mode is above that mode's
// CDF at the delay: u > qEff·F_s(d) in the slow mode, u > qEff + (1 - qEff)·F_b(d) in the body.
FanoutSampler::Cuts FanoutSampler::cutsFor(double qEff) const {
    const double d = c_.hedge_delay_ms;
    return {qEff + (1 - qEff) * lognormalCdf(c_.body, d), qEff * lognormalCdf(c_.slow, d)};
}

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

struct FanoutSampler::DelayedMaxima {
    Maxima before;
    double afterMs = 0;  // largest min(X1, d + X2) over calls that sent a backup
    int backups = 0;
};

// One call under a delayed hedge: its first reply joins the per-mode maxima (the unhedged
// request); only when it is later than the delay is it resolved in ms against d + X2.
void FanoutSampler::addDelayedCall(Rng& rng, Rng& backupRng, double qEff, const Cuts& cut,
                                   DelayedMaxima& m) const {
    const double u = rng.uniform();
    const bool slow = u < qEff;
    double& top = slow ? m.before.slowRaw : m.before.bodyRaw;
    top = std::max(top, u);
    if (u <= (slow ? cut.slow : cut.body)) return;  // answered within the delay
    ++m.backups;
    const double backup = c_.hedge_delay_ms + toMs(rawCall(backupRng.uniform(), qEff));
    m.afterMs = std::max(m.afterMs, std::min(toMs(rawCall(u, qEff)), backup));
}

// Calls that answer within d are at most d and a call that sent a backup at least d, so the
// hedged request is the largest resolved call when there is one, else the unhedged maximum.
HedgedDraw FanoutSampler::drawMaxDelayed(Rng& rng, Rng& backupRng, bool shared) const {
    const double qEff = shared ? 1.0 : q_;
    const Cuts& cut = shared ? sharedCuts_ : cuts_;
    DelayedMaxima first, rest;
    addDelayedCall(rng, backupRng, qEff, cut, first);
    for (int i = 1; i < c_.backends; ++i) addDelayedCall(rng, backupRng, qEff, cut, rest);
    HedgedDraw h;
    h.backups = first.backups + rest.backups;
    h.before.backend_ms = first.before.toMs(*this, qEff);
    h.before.latency_ms = std::max(h.before.backend_ms, rest.before.toMs(*this, qEff));
    h.after.backend_ms = first.backups > 0 ? first.afterMs : h.before.backend_ms;
    h.after.latency_ms =
        h.backups > 0 ? std::max(first.afterMs, rest.afterMs) : h.before.latency_ms;
    h.before.some_call_slow = h.before.latency_ms >= c_.threshold_ms;
    h.after.some_call_slow = h.after.latency_ms >= c_.threshold_ms;
    return h;
}

HedgedDraw FanoutSampler::drawSumDelayed(Rng& rng, Rng& backupRng, bool shared) const {
    const double q = shared ? 1.0 : q_, d = c_.hedge_delay_ms;
    auto replicaMs = [&](Rng& r) {
        const bool slow = r.uniform() < q;
        return lognormalSample(slow ? c_.slow : c_.body, r);
    };
    HedgedDraw h;
    for (int i = 0; i < c_.backends; ++i) {
        const double first = replicaMs(rng);
        double ms = first;
        if (first > d) {
            ++h.backups;
            ms = std::min(first, d + replicaMs(backupRng));
        }
        if (i == 0) {
            h.before.backend_ms = first;
            h.after.backend_ms = ms;
        }
        h.before.latency_ms += first;
        h.after.latency_ms += ms;
        h.before.some_call_slow = h.before.some_call_slow || first >= c_.threshold_ms;
        h.after.some_call_slow = h.after.some_call_slow || ms >= c_.threshold_ms;
    }
    return h;
}

HedgedDraw FanoutSampler::drawDelayed(Rng& rng, Rng& backupRng) const {
    const bool shared = rng.uniform() < s_;
    return c_.sequential ? drawSumDelayed(rng, backupRng, shared)
                         : drawMaxDelayed(rng, backupRng, shared);
}

FanoutRequestSampler::FanoutRequestSampler(const FanoutConfig& c)
    : hedge_(c.hedge), backends_(c.backends), plain_(c, false), hedged_(c, true) {}

HedgedDraw FanoutRequestSampler::draw(Rng& rng, Rng& hedgeRng) const {
    if (hedge_ == FanoutHedge::Delayed) return plain_.drawDelayed(rng, hedgeRng);
    HedgedDraw h;
    h.before = plain_.draw(rng);
    if (hedge_ == FanoutHedge::Immediate) {
        h.after = hedged_.draw(hedgeRng);
        h.backups = backends_;  // every call has its second replica
    } else {
        h.after = h.before;
    }
    return h;
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

}  // namespace taillab
