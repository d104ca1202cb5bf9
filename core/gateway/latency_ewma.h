// LatencyEwma: the router's view of one (region, engine, query class): a time-decayed average of
// latency with a half-life (seed 000: ~30 s) and the valid-result rate over the same decay.
// score() is seed 000's
//     ewma / max(0.05, success) + inflight * ewma * 0.1
// the expected latency, penalised by failures (a failure costs a retry) and by the calls this
// instance already has in flight to the engine (without it every router herds onto the engine
// that looks fastest).
#pragma once

#include <algorithm>
#include <cmath>

#include "base/time.h"

namespace taillab::gateway {

class LatencyEwma {
public:
    void record(Time now, double latencyMs, bool valid, Duration halfLife) {
        decay(now, halfLife);
        weight_ += 1.0;
        sumLatency_ += latencyMs;
        sumValid_ += valid ? 1.0 : 0.0;
    }
    bool empty() const { return weight_ <= 0; }
    double ewmaMs(double prior) const { return weight_ > 0 ? sumLatency_ / weight_ : prior; }
    double success() const { return weight_ > 0 ? sumValid_ / weight_ : 1.0; }
    // Seed 000's score: expected latency, penalised by failures (a failure costs a retry) and by
    // this instance's calls in flight.
    static double score(double ewmaMs, double success, int inflight) {
        return ewmaMs / std::max(0.05, success) + inflight * ewmaMs * 0.1;
    }

private:
    void decay(Time now, Duration halfLife) {
        if (now > last_ && weight_ > 0) {
            const double f = std::exp2(-toSeconds(now - last_) / toSeconds(halfLife));
            weight_ *= f;
            sumLatency_ *= f;
            sumValid_ *= f;
        }
        last_ = now;
    }
    double weight_ = 0;
    double sumLatency_ = 0;
    double sumValid_ = 0;
    Time last_{};
};

}  // namespace taillab::gateway
