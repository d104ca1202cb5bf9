// The idle-hedging lab's model: two idle replicas (no queueing), a primary at t = 0 and a backup
// at the hedge delay d if the primary has not answered; the response is T = min(X1, d + X2) and
// the loser is cancelled when the winner answers.
//
// Service times, one of three distributions (HedgeIdleService):
//  - mixture (the fitted default): lognormal body, and with probability p a lognormal slow mode.
//    A fraction f of slow events is a shared cause (probability s = p·f per request) that slows
//    both replicas; the rest are independent per replica with q = (p - s)/(1 - s), so each
//    replica's marginal is the same mixture S whatever f.
//  - lognormal: the body alone (no slow mode, so nothing to share).
//  - exponential: mean m = body median / ln 2, so its median is the body's and switching the
//    distribution keeps the median fixed.
//
// Closed forms (S_b, S_s: survival of body and slow mode; S_q = (1-q)·S_b + q·S_s):
//   P(T > t) = S(t)                                          t < d
//            = S(t)·S(t-d)                                   t >= d, independent replicas
//            = (1-s)·S_q(t)·S_q(t-d) + s·S_s(t)·S_s(t-d)     t >= d, mixture with f > 0
//   extra requests (backups per primary)  = S(d)
//   backup work share (backup busy / hedged primary busy)
//                                         = ∫_d^∞ P(T>t) dt / ∫_0^∞ P(T>t) dt
//   net extra work (all server time with hedging over without, minus 1)
//                                         = (∫_0^∞ P(T>t) dt + ∫_d^∞ P(T>t) dt) / E[X] - 1
// (the primary is busy for T, the backup from d to T; unhedged, the primary is busy for X). The
// backup work share is what the published "1.5% extra work" measures; the net extra work is what
// hedging costs the servers, and it is negative when the cancelled primaries were slow ones.
// Exponential has them all exactly:
//   P(T > t) = e^{-t/m} (t < d), e^{-(2t-d)/m} (t >= d)
//   pXX = x = -m·ln(1-XX) when x <= d, else (d + x)/2: past d the two copies race and the
//         memoryless primary's remaining time is halved
//   backup work share = S(d) / (2 - S(d)), S(d) = e^{-d/m}
//   net extra work = 0: past d two copies at rate 2/m each run m/2, the m a primary had left.
// The others invert the CDF by bisection and integrate the survival numerically; those paths are
// public so tests can hold them against the exact exponential forms.
#pragma once

#include <cstdint>

#include "metrics/hdr_histogram.h"

#include "sim/distributions.h"
#include "base/rng.h"

namespace taillab {

enum class HedgeIdleService { Mixture, Lognormal, Exponential };

struct HedgeIdleConfig {
    HedgeIdleService service = HedgeIdleService::Mixture;
    LognormalParams body{12.0, 0.3};
    LognormalParams slow{1390.0, 0.2};
    double slow_probability = 0.0035;
    double shared_fraction = 0.0;

    // The chance of a slow-mode call under the chosen service: p for the mixture, 0 otherwise.
    double slowProbability() const {
        return service == HedgeIdleService::Mixture ? slow_probability : 0.0;
    }
    double exponentialMean() const;  // body median / ln 2
};

// One replica's service time as the rest of the simulator draws it (for calibration).
ServiceModel hedgeIdleServiceModel(const HedgeIdleConfig& c);

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
    double backupWorkShare(double d) const;
    // One replica's mean service time E[X] = ∫_0^∞ S(t) dt, from the components' means.
    double meanService() const;
    // (E[T] + E[B]) / E[X] - 1: the server time hedging adds (or, < 0, saves) per unit of the
    // server time without it.
    double netExtraWork(double d) const;
    // The standard error of the backup work share measured over n requests, ΣB/ΣT (delta method):
    // sqrt(E[(B - rT)²] / n) / E[T], r = backupWorkShare(d). B = (T - d)+, so every moment is an
    // integral of P(T > t): E[T²] = ∫ 2t P(T>t), E[B²] = ∫_d 2(t-d) P(T>t), E[BT] = E[B²] + d E[B].
    // From the model, not the sample: a run that has seen few slow-mode backups would
    // underestimate it.
    double backupWorkShareStandardError(double d, std::int64_t n) const;
    // The standard error of the net extra work measured over n requests, ΣD/ΣX with D = T + B - X
    // the server time hedging adds to one request (delta method): sqrt(E[(D - wX)²] / n) / E[X],
    // w = netExtraWork(d). D depends on both replicas, so its moments are not integrals of P(T > t)
    // alone: within each part of the model the two replicas are independent with one survival S
    // (the shared cause's slow mode, or the rest), and given X1 = x > d, with u = x - d and
    // M = min(u, X2), D = 2M - u, so E[D | x] = 2g(u) - u and E[D² | x] = 4g₂(u) - 4u·g(u) + u²,
    // g(u) = ∫_0^u S, g₂(u) = ∫_0^u 2s·S(s) ds. Each moment is then ∫_d φ'(x)·S(x) dx (φ(d) = 0).
    // From the model, as the backup work share's is.
    double netExtraWorkStandardError(double d, std::int64_t n) const;
    // E[D] / E[X] from the same quadrature: netExtraWork(d) by another road, for tests.
    double netExtraWorkByPairs(double d) const;

    // The numerical paths, whatever the service: bisection on the CDF and quadrature of P(T > t).
    double quantileByInversion(double p) const;
    double hedgedQuantileByInversion(double p, double d) const;
    double backupWorkShareByQuadrature(double d) const;
    // The slower component's 1 - 1e-12 quantile (ms): no service time is drawn past it in
    // practice (one in 10^12).
    double farTailMs() const;

  private:
    struct PairMoments {
        double x = 0, x2 = 0;          // E[X], E[X²]
        double d = 0, d2 = 0, dx = 0;  // E[D], E[D²], E[D·X]
    };
    PairMoments pairMoments(double d) const;
    double independentSurvival(double t) const;
    template <class G>
    double integrateSurvival(double d, double a, double b, const G& g) const;
    HedgeIdleConfig c_;
};

// The HDR layout of the lab's service and response times: 1 µs to twice the model's far tail
// (at least one hour), 3 significant digits. A hedged response is never longer than its primary.
HdrConfig hedgeIdleLatencyRange(const HedgeIdleConfig& c);

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
