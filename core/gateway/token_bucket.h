// TokenBucket (seed 000's per-key, per-endpoint rate limit): burst `capacity`, refilled
// continuously at `rate` tokens per second. It never reads a clock: every call takes `now`. An
// empty bucket tells exactly when its next token lands (429 Retry-After) and when it is full again
// (X-RateLimit-Reset).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/time.h"

namespace taillab::gateway {

class TokenBucket {
public:
    TokenBucket() = default;
    TokenBucket(double capacity, double ratePerSecond, Time now)
        : capacity_(capacity), rate_(ratePerSecond), tokens_(capacity), last_(now) {}

    bool take(Time now) {
        refill(now);
        if (tokens_ >= 1.0 - kSlack) {
            tokens_ = std::max(0.0, tokens_ - 1.0);
            return true;
        }
        return false;
    }
    // Time until one token is available (zero when one is), rounded up to the nanosecond, so a
    // client that retries exactly then is served.
    Duration retryAfter(Time now) {
        refill(now);
        if (tokens_ >= 1.0 - kSlack || rate_ <= 0) return kZero;
        return Duration{static_cast<std::int64_t>(std::ceil((1.0 - tokens_) / rate_ * 1e9))};
    }
    // Time until the bucket is full again.
    Duration resetIn(Time now) {
        refill(now);
        if (rate_ <= 0 || tokens_ >= capacity_ - kSlack) return kZero;
        return Duration{static_cast<std::int64_t>(std::ceil((capacity_ - tokens_) / rate_ * 1e9))};
    }
    int remaining(Time now) {
        refill(now);
        return static_cast<int>(tokens_ + kSlack);
    }
    double capacity() const { return capacity_; }

private:
    static constexpr double kSlack = 1e-9;  // rounding of rate x elapsed, far below one token
    void refill(Time now) {
        if (now > last_) {
            tokens_ = std::min(capacity_, tokens_ + rate_ * toSeconds(now - last_));
            last_ = now;
        }
    }
    double capacity_ = 0;
    double rate_ = 0;
    double tokens_ = 0;
    Time last_{};
};

}  // namespace taillab::gateway
