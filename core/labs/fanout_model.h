// The fan-out lab's model: closed forms and the per-request samplers.
//
// A request makes N backend calls. Each call is drawn from a lognormal body or, when slow, from a
// lognormal slow mode. Slowness follows CorrelatedSlowness: per request a shared cause fires with
// probability s = p·f and every call of that request (and both replicas of a hedged call) comes
// from the slow mode; otherwise each call is independently slow with q = (p - s) / (1 - s), so
// every backend's own slow rate stays p.
//
// Closed forms (F_b, F_s: CDFs of body and slow mode; H = (1-q)·F_b + q·F_s):
//   backend CDF                F(x)  = (1-p)·F_b(x) + p·F_s(x)
//   request CDF, max of N      R(x)  = (1-s)·H(x)^N + s·F_s(x)^N          (= F(x)^N when f = 0)
//   hedged call (min of two)   G(x)  = 1 - (1 - H(x))^2, shared: 1 - (1 - F_s(x))^2
//   hedge after d ms           1 - G_d(x) = S_H(x)·S_H(x - d) for x >= d, S_H(x) before it
//                              (S = 1 - CDF; the backup is a fresh draw, d + X2, and goes out
//                              only when X1 > d); shared: the same with S_s. d = 0 is the
//                              immediate hedge, d -> infinity no hedge. Request: (1-s)·G_d^N +
//                              s·G_d,s^N. Extra requests per call: P(X1 > d) = 1 - F(d).
//   P(some call >= t)          1 - R(t)                 (1 - (1-p)^N when f = 0 and t separates
//                                                        body from slow mode)
//   per-backend budget         1 - (1 - b)^(1/N)
// A sum of lognormals (the sequential chain) has no closed form; only its "some call over the
// threshold" probability does, and it is the same 1 - R(t).
#pragma once

#include <cstdint>

#include "sim/distributions.h"
#include "base/rng.h"

namespace taillab {

enum class FanoutHedge { None, Immediate, Delayed };

struct FanoutConfig {
    int backends = 100;
    CorrelatedSlowness slowness{0.01, 0.0};
    LognormalParams body{10.0, 0.3};
    LognormalParams slow{1000.0, 0.1};
    double threshold_ms = 500.0;
    bool sequential = false;  // latency = sum of the calls instead of their maximum
    FanoutHedge hedge = FanoutHedge::None;
    double hedge_delay_ms = 10.0;  // FanoutHedge::Delayed: the backup goes out after this long
};

class FanoutModel {
  public:
    explicit FanoutModel(const FanoutConfig& c) : c_(c) {}
    const FanoutConfig& config() const { return c_; }

    double backendCdf(double x_ms) const;
    // Max of n calls; `hedged`: each call is the faster of two replicas sent at once.
    double requestCdf(double x_ms, int n, bool hedged) const;
    double backendQuantile(double p) const;  // mixtureQuantile: NaN where it is not one value
    double requestQuantile(double p, int n, bool hedged) const;
    // P(at least one of n calls at or over the threshold).
    double someCallSlowProbability(int n, bool hedged) const;
    // Each call's own probability of reaching the threshold.
    double backendSlowProbability() const { return 1.0 - backendCdf(c_.threshold_ms); }

    // Delayed hedge: a backup goes out `delay_ms` after the call if it has not answered
    // (0: the immediate hedge; +infinity: no hedge).
    double hedgeDelay() const;  // the configured hedge's delay in those terms
    // P(hedged call > x), independent or shared state: S(x)·S(x - delay), S(x) for x < delay.
    double hedgedCallSurvival(double x_ms, double delay_ms, bool shared) const;
    double requestCdfAfter(double x_ms, int n, double delay_ms) const;
    double requestQuantileAfter(double p, int n, double delay_ms) const;
    double someCallSlowProbabilityAfter(int n, double delay_ms) const;
    // Backups per call: P(first reply later than the delay) = 1 - F(delay).
    double extraRequests(double delay_ms) const;

  private:
    double independentCallCdf(double x_ms) const;
    double independentCallSurvival(double x_ms) const;
    FanoutConfig c_;
};

// The p-quantile of the two-mode mixture (1-w)·body + w·slow: the smallest x with F(x) >= p, by
// bisection on F(x) - p summed so it keeps its sign in the gap between the modes (F can stay
// within far less than a double's precision of p there: summing the two CDFs as they are gives
// exactly p all across the gap, and the bisection a made-up point).
// NaN when p is not in (0, 1), or when F equals p in double precision over a stretch (far-apart
// narrow modes whose tails both underflow there): then every x in it is a p-quantile.
double mixtureQuantile(const LognormalParams& body, const LognormalParams& slow, double w,
                       double p);

// 1 - (1 - b)^(1/n): the largest per-call slow rate that keeps n independent calls within b.
double perBackendBudget(double request_budget, int n);

// One simulated request.
struct FanoutDraw {
    double latency_ms = 0;  // max (or sum) over its calls
    double backend_ms = 0;  // backend 0's call, one backend's own view
    bool some_call_slow = false;
};

// One request with a delayed hedge, before and after on the same first replies.
struct HedgedDraw {
    FanoutDraw before, after;
    int backups = 0;  // calls whose first reply was later than the delay
};

// Draws whole requests call by call. In a parallel fan-out each call costs one uniform u: u < q
// makes it slow, and u rescaled to its mode is its quantile there, so maxima are taken on uniforms
// and only the winners are turned into milliseconds. The sequential chain draws every call's value.
class FanoutSampler {
  public:
    FanoutSampler(const FanoutConfig& c, bool hedged);
    FanoutDraw draw(Rng& rng) const;
    // Delayed hedge at c.hedge_delay_ms (sampler built unhedged): first replies come from `rng`
    // exactly as draw() takes them, so `before` equals draw()'s request; backups from `backupRng`.
    HedgedDraw drawDelayed(Rng& rng, Rng& backupRng) const;

  private:
    struct Call {
        bool slow;
        double u;  // quantile within its mode
    };
    // Raw uniforms above these answer later than the delay (per mode; independent/shared state).
    struct Cuts {
        double body = 1, slow = 1;
    };
    struct DelayedMaxima;
    // Largest raw uniform per mode over some calls, plus hedged calls resolved in ms.
    struct Maxima {
        double bodyRaw = -1, slowRaw = -1, explicitMs = 0;
        double toMs(const FanoutSampler& s, double qEff) const;
    };
    double toMs(const Call& call) const;
    void addCall(Rng& rng, double qEff, Maxima& m) const;
    FanoutDraw drawMax(Rng& rng, bool shared) const;
    FanoutDraw drawSum(Rng& rng, bool shared) const;
    Call rawCall(double u, double qEff) const;
    Cuts cutsFor(double qEff) const;
    void addDelayedCall(Rng& rng, Rng& backupRng, double qEff, const Cuts& cut,
                        DelayedMaxima& m) const;
    HedgedDraw drawMaxDelayed(Rng& rng, Rng& backupRng, bool shared) const;
    HedgedDraw drawSumDelayed(Rng& rng, Rng& backupRng, bool shared) const;

    FanoutConfig c_;
    bool hedged_;
    double s_, q_;
    Cuts cuts_, sharedCuts_;
};

// The lab's request under the configured hedge (c.hedge), drawn as the lab's run draws it: the
// unhedged request from `rng` (`before`), the hedged one from `hedgeRng` (`after`): the immediate
// hedge is a second request of hedged calls, the delayed hedge adds backups to the same first
// replies. With no hedge `after` is `before`. A sweep point draws from it exactly as the run does.
class FanoutRequestSampler {
  public:
    explicit FanoutRequestSampler(const FanoutConfig& c);
    HedgedDraw draw(Rng& rng, Rng& hedgeRng) const;

  private:
    FanoutHedge hedge_;
    int backends_;
    FanoutSampler plain_, hedged_;
};

// Successes of a long run of Bernoulli(p) trials, generated by geometric gaps, so a run that only
// asks "was any call slow?" costs O(requests + slow calls) instead of O(calls).
class BernoulliStream {
  public:
    BernoulliStream(double p, Rng& rng);
    // Advances n trials and returns how many succeeded.
    std::int64_t advance(std::int64_t n, Rng& rng);

  private:
    std::int64_t gap(Rng& rng) const;
    double logFail_;
    bool never_, always_;
    std::int64_t untilNext_;
};

}  // namespace taillab
