// The idle-hedging lab's model: two idle replicas (no queueing), a primary at t = 0 and a backup
// at the hedge delay d if the primary has not answered; the response is T = min(X1, d + X2) and
// the loser is cancelled when the winner answers.
//
// Service times: lognormal body, and with probability p a lognormal slow mode. A fraction f of
// slow events is a shared cause (probability s = p·f per request) that slows both replicas; the
// rest are independent per replica with q = (p - s)/(1 - s), so each replica's marginal is the
// same mixture S whatever f.
//
// Closed forms (S_b, S_s: survival of body and slow mode; S_q = (1-q)·S_b + q·S_s):
//   P(T > t) = S(t)                                          t < d
//            = (1-s)·S_q(t)·S_q(t-d) + s·S_s(t)·S_s(t-d)     t >= d  (= S(t)·S(t-d) when f = 0,
//                                                                      the two-replica product)
//   extra requests (backups per primary)  = S(d)
//   extra work (backup busy / primary busy) = ∫_d^∞ P(T>t) dt / ∫_0^∞ P(T>t) dt
// (the primary is busy for T, the backup from d to T).
#pragma once

#include "sim/distributions.h"
#include "base/rng.h"

namespace taillab {

struct HedgeIdleConfig {
    LognormalParams body{12.0, 0.3};
    LognormalParams slow{1390.0, 0.2};
    double slow_probability = 0.0035;
    double shared_fraction = 0.0;
};

class HedgeIdleModel {
  public:
    explicit HedgeIdleModel(const HedgeIdleConfig& c) : c_(c) {}
    const HedgeIdleConfig& config() const { return c_; }

    double survival(double t) const;  // one replica: S(t)
    double cdf(double t) const { return 1.0 - survival(t); }
    double quantile(double p) const;
    double hedgedSurvival(double t, double d) const;  // P(T > t)
    double hedgedCdf(double t, double d) const { return 1.0 - hedgedSurvival(t, d); }
    double hedgedQuantile(double p, double d) const;
    double extraRequests(double d) const { return survival(d); }
    double extraWork(double d) const;

  private:
    double independentSurvival(double t) const;
    HedgeIdleConfig c_;
};

// One request's random inputs, drawn once and replayed under every hedge delay and shared
// fraction (common random numbers, so sweep points differ only by the policy).
struct HedgeIdleDraw {
    double uShared, u1, u2;       // shared-cause and per-replica slow decisions
    double body1, body2;          // body service times (ms)
    double slow1 = 0, slow2 = 0;  // slow-mode service times (ms), drawn only when reachable
};

HedgeIdleDraw drawHedgeIdle(const HedgeIdleConfig& c, Rng& rng);

// The outcome of one request under delay d and shared fraction f.
struct HedgeIdleOutcome {
    double primary_ms;   // X1: what the request would take without a hedge
    double response_ms;  // T
    bool backup_sent;
    double backup_busy_ms;  // from d to T when a backup was sent
};

HedgeIdleOutcome replayHedgeIdle(const HedgeIdleConfig& c, const HedgeIdleDraw& draw,
                                 double delay_ms, double shared_fraction);

}  // namespace taillab
