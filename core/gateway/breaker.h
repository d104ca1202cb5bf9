// Breaker: per (region, engine), seed 000's circuit breaker. It trips on the valid-result rate, not
// on HTTP status (an upstream that is "up" but returns empty pages trips it): it opens when the
// rate over the last `window` falls below `threshold` with at least `min_samples` calls;
// half-open after `open_for`, letting `probe_fraction` of eligible traffic through; closes after
// `close_after` consecutive valid probes, reopens on a failed one. Seed 000: 80%, 50 samples,
// 10 s, 5 s, 5%.
#pragma once

#include <array>
#include <cstdint>

#include "base/time.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

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

}  // namespace taillab::gateway
