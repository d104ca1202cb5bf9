// The gateway's stage mechanisms, each a small object that never reads a clock: every call that
// depends on time takes `now` from its driver (the simulator's virtual clock, or the live
// driver's monotonic clock). Seed 000 gives the rules; the comments say which.
//
//  - TokenBucket: burst `capacity`, refilled continuously at `rate` tokens per second. An empty
//    bucket tells exactly when its next token lands (429 Retry-After) and when it is full again
//    (X-RateLimit-Reset).
//  - AdaptiveLimit: seed 000's gradient rule, per region, every 250 ms:
//        limit' = clamp(round(limit * clamp(minRtt / sampleRtt, 0.5, 1) + sqrt(limit)), min, max)
//    sampleRtt is the window's p90. A window needs `min_samples` latencies to have a p90; a
//    quieter window is merged into the next one. minRtt is the no-queueing baseline of the same
//    statistic: the lowest window p90 of the last `baseline_windows` windows, times a tolerance
//    (as rttTolerance in Netflix's Gradient2Limit, default 2). Why both: comparing a p90 with
//    the single fastest request pins the gradient at 0.5 whenever 20 ms cache hits and 400 ms
//    misses mix; and even p90 against the lowest p90 averages a gradient near 0.8 from sampling
//    noise alone, where the rule's fixed point, limit = 1 / (1 - gradient)^2, is about 25: the
//    limit would sit near its floor with no queueing at all. With the tolerance it shrinks only
//    when the window's p90 is more than twice its quiet baseline.
//  - Breaker: per (region, engine), trips on the valid-result rate (not HTTP status): opens when
//    the rate over the last `window` falls below `threshold` with at least `min_samples` calls;
//    half-open after `open_for`, letting `probe_fraction` of eligible traffic through; closes
//    after `close_after` consecutive valid probes, reopens on a failed one.
//  - LatencyEwma: time-decayed average with a half-life (seed 000: ~30 s) and the valid-result
//    rate over the same decay, per (region, engine, class); score() is seed 000's
//        ewma / max(0.05, success) + inflight * ewma * 0.1
//  - RollingDelay: the hedge delay, the `percentile` of the last 60 s of primary latencies
//    (six 10 s slices), refreshed every 10 s, clamped to [lo, hi]. Only the clamp range matters to
//    the answer, so the histogram has linear buckets across it plus an underflow and an overflow
//    bucket: exact to (hi - lo) / 512.
//  - HedgeBudget: a bucket credited `fraction` of a token per primary call and debited one per
//    hedge (so hedges never exceed the fraction of primaries plus the burst).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gateway/gateway_types.h"
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

class AdaptiveLimit {
public:
    struct Config {
        int min_limit = 10;
        int max_limit = 200;
        int initial = 50;
        Duration interval = fromMs(250);
        int min_samples = 20;
        int baseline_windows = 40;
        double tolerance = 2.0;
    };
    AdaptiveLimit() = default;
    explicit AdaptiveLimit(const Config& c)
        : cfg_(c), limit_(std::clamp(c.initial, c.min_limit, c.max_limit)) {}

    // The gradient rule, exposed for tests.
    static int nextLimit(int limit, double minRtt, double sampleRtt, int minLimit, int maxLimit) {
        const double gradient = std::max(0.5, std::min(1.0, minRtt / sampleRtt));
        const double next = limit * gradient + std::sqrt(static_cast<double>(limit));
        return std::max(minLimit, std::min(maxLimit, static_cast<int>(std::lround(next))));
    }

    int limit() const { return limit_; }
    void setTolerance(double t) { cfg_.tolerance = t; }
    void setBounds(int minLimit, int maxLimit) {
        cfg_.min_limit = minLimit;
        cfg_.max_limit = std::max(minLimit, maxLimit);
        limit_ = std::clamp(limit_, cfg_.min_limit, cfg_.max_limit);
    }
    // Records a finished request's latency; runs the 250 ms update when its window has closed.
    void onSample(Time now, Duration latency) {
        advance(now);
        samples_.push_back(latency.count());
    }
    // Runs any update that is due (call before reading limit() at an arrival).
    void advance(Time now) {
        if (now < windowEnd_) return;
        // Window(s) closed. Only the first closed window holds samples; the rest were empty.
        if (static_cast<int>(samples_.size()) >= cfg_.min_samples) {
            const std::size_t k = static_cast<std::size_t>(0.9 * (samples_.size() - 1) + 0.5);
            std::nth_element(samples_.begin(), samples_.begin() + static_cast<long>(k),
                             samples_.end());
            const double p90 = static_cast<double>(samples_[k]);
            baseline_[baselineNext_++ % baseline_.size()] = p90;
            baselineCount_ = std::min<int>(baselineCount_ + 1, cfg_.baseline_windows);
            double minRtt = p90;
            for (int i = 0; i < baselineCount_; ++i) minRtt = std::min(minRtt, baseline_[i]);
            limit_ = nextLimit(limit_, minRtt * cfg_.tolerance, p90, cfg_.min_limit,
                               cfg_.max_limit);
            samples_.clear();
            ++updates_;
        }
        const auto n = (now - windowEnd_) / cfg_.interval + 1;
        windowEnd_ += cfg_.interval * n;
    }
    std::uint64_t updates() const { return updates_; }

private:
    Config cfg_{};
    int limit_ = 50;
    Time windowEnd_{};
    std::vector<std::int64_t> samples_;
    std::array<double, 64> baseline_{};
    std::size_t baselineNext_ = 0;
    int baselineCount_ = 0;
    std::uint64_t updates_ = 0;
};

class Breaker {
public:
    struct Config {
        double threshold = 0.8;
        int min_samples = 50;
        Duration window = fromSeconds(10);
        Duration open_for = fromSeconds(5);
        double probe_fraction = 0.05;
        int close_after = 3;
    };
    Breaker() = default;
    explicit Breaker(const Config& c) : cfg_(c) {}
    void setConfig(const Config& c) { cfg_ = c; }

    // The state at `now` (moves Open to HalfOpen when its time has come).
    BreakerState state(Time now) {
        if (state_ == BreakerState::Open && now >= openUntil_) {
            state_ = BreakerState::HalfOpen;
            probeSuccesses_ = 0;
            changed_ = true;
            changedAt_ = openUntil_;
        }
        return state_;
    }
    // Whether a call may go to this engine now; `u` is a uniform draw in [0, 1) used for the
    // half-open probe lottery.
    bool admits(Time now, double u) {
        switch (state(now)) {
            case BreakerState::Closed: return true;
            case BreakerState::Open: return false;
            case BreakerState::HalfOpen: return u < cfg_.probe_fraction;
        }
        return false;
    }
    void record(Time now, bool valid) {
        const BreakerState s = state(now);
        if (s == BreakerState::HalfOpen) {
            if (!valid) {
                open(now);
            } else if (++probeSuccesses_ >= cfg_.close_after) {
                state_ = BreakerState::Closed;
                clearWindow();
                changed_ = true;
                changedAt_ = now;
            }
            return;
        }
        if (s == BreakerState::Open) return;  // a straggler from before it opened
        rotate(now);
        Slot& slot = slots_[current_];
        ++slot.total;
        if (valid) ++slot.valid;
        int total = 0, good = 0;
        for (const Slot& x : slots_) {
            total += x.total;
            good += x.valid;
        }
        if (total >= cfg_.min_samples && good < cfg_.threshold * total) open(now);
    }
    // True once after each state change; the driver reads it to draw breaker strips.
    bool takeChange(Time* at) {
        if (!changed_) return false;
        changed_ = false;
        if (at) *at = changedAt_;
        return true;
    }

private:
    struct Slot {
        int total = 0;
        int valid = 0;
    };
    static constexpr int kSlots = 10;
    void open(Time now) {
        state_ = BreakerState::Open;
        openUntil_ = now + cfg_.open_for;
        clearWindow();
        changed_ = true;
        changedAt_ = now;
    }
    void clearWindow() { slots_.fill(Slot{}); }
    void rotate(Time now) {
        const Duration width = std::max(Duration{1}, cfg_.window / kSlots);
        const std::int64_t index = now.count() / width.count();
        if (index == slotIndex_) return;
        const std::int64_t steps = std::min<std::int64_t>(index - slotIndex_, kSlots);
        for (std::int64_t i = 0; i < steps; ++i) {
            current_ = (current_ + 1) % kSlots;
            slots_[current_] = Slot{};
        }
        slotIndex_ = index;
    }

    Config cfg_{};
    BreakerState state_ = BreakerState::Closed;
    Time openUntil_{};
    int probeSuccesses_ = 0;
    std::array<Slot, kSlots> slots_{};
    int current_ = 0;
    std::int64_t slotIndex_ = 0;
    bool changed_ = false;
    Time changedAt_{};
};

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

class RollingDelay {
public:
    static constexpr int kBuckets = 512;
    static constexpr int kSlices = 6;

    RollingDelay() = default;
    RollingDelay(double loMs, double hiMs, double percentile, Duration slice = fromSeconds(10))
        : lo_(loMs), hi_(std::max(hiMs, loMs)), percentile_(percentile), slice_(slice),
          delayMs_(std::max(hiMs, loMs)) {}

    void record(Time now, double latencyMs) {
        rotate(now);
        const int b = bucketOf(latencyMs);
        slices_[current_].push_back(static_cast<std::uint16_t>(b));
        ++window_[b];
        ++groups_[b / kGroup];
        ++count_;
    }
    // The delay to use now: refreshed at most once per slice, from the last six slices.
    double delayMs(Time now) {
        rotate(now);
        if (now >= nextRefresh_) {
            refresh();
            nextRefresh_ = now + slice_;
        }
        return delayMs_;
    }
    std::int64_t samples() const { return count_; }

private:
    // Window counts per bucket: [0] under lo, [kBuckets + 1] over hi; and per group of kGroup
    // buckets, so the percentile walk skips empty stretches a group at a time.
    static constexpr int kGroup = 32;
    static constexpr int kGroups = (kBuckets + 2 + kGroup - 1) / kGroup;
    int bucketOf(double ms) const {
        if (ms < lo_) return 0;
        if (ms >= hi_) return kBuckets + 1;
        return 1 + std::min(kBuckets - 1, static_cast<int>((ms - lo_) / (hi_ - lo_) * kBuckets));
    }
    // A slice keeps its samples' buckets rather than a count per bucket: a slice holds a few
    // samples at the traffic one (region, engine) sees, and expiring it touches only those.
    void rotate(Time now) {
        const std::int64_t index = now.count() / slice_.count();
        if (index == sliceIndex_) return;
        const std::int64_t steps = std::min<std::int64_t>(index - sliceIndex_, kSlices);
        if (steps >= kSlices) {  // the whole window is older than 60 s
            for (auto& slice : slices_) slice.clear();
            window_.fill(0);
            groups_.fill(0);
            count_ = 0;
            sliceIndex_ = index;
            return;
        }
        for (std::int64_t i = 0; i < steps; ++i) {
            current_ = (current_ + 1) % kSlices;
            std::vector<std::uint16_t>& old = slices_[current_];
            for (const std::uint16_t b : old) {
                --window_[b];
                --groups_[b / kGroup];
            }
            count_ -= static_cast<std::int64_t>(old.size());
            old.clear();
        }
        sliceIndex_ = index;
    }
    void refresh() {
        if (count_ == 0) {
            delayMs_ = hi_;  // nothing seen yet: the most patient delay in range
            return;
        }
        // Walk down from the top: the percentile's rank counted from the slowest sample.
        const std::int64_t above =
            count_ - std::max<std::int64_t>(1, std::llround(percentile_ / 100.0 * count_));
        std::int64_t seen = 0;
        for (int g = kGroups - 1; g >= 0; --g) {
            if (seen + groups_[g] <= above) {
                seen += groups_[g];
                continue;
            }
            for (int b = std::min(kBuckets + 1, (g + 1) * kGroup - 1); b >= g * kGroup; --b) {
                seen += window_[b];
                if (seen > above) {
                    delayMs_ = b == kBuckets + 1 ? hi_
                               : b == 0          ? lo_
                                                 : lo_ + (hi_ - lo_) * b / kBuckets;
                    return;
                }
            }
        }
        delayMs_ = lo_;
    }

    double lo_ = 120, hi_ = 450, percentile_ = 90;
    Duration slice_ = fromSeconds(10);
    std::array<std::vector<std::uint16_t>, kSlices> slices_{};
    std::array<std::uint32_t, kBuckets + 2> window_{};
    std::array<std::uint32_t, kGroups> groups_{};
    std::int64_t count_ = 0;
    int current_ = 0;
    std::int64_t sliceIndex_ = 0;
    Time nextRefresh_{};
    double delayMs_ = 450;
};

class HedgeBudget {
public:
    HedgeBudget() = default;
    HedgeBudget(double fraction, double capacity)
        : fraction_(fraction), capacity_(capacity), tokens_(capacity) {}
    void setFraction(double f) { fraction_ = f; }
    void onPrimary() { tokens_ = std::min(capacity_, tokens_ + fraction_); }
    // A budget of zero allows no hedge at all, not even the burst.
    bool take() {
        if (fraction_ > 0 && tokens_ >= 1.0) {
            tokens_ -= 1.0;
            return true;
        }
        return false;
    }
    double level() const { return capacity_ > 0 ? tokens_ / capacity_ : 0; }

private:
    double fraction_ = 0.15;
    double capacity_ = 10;
    double tokens_ = 10;
};

}  // namespace taillab::gateway
