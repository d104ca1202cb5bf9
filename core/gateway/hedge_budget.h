// HedgeBudget: seed 000's hedge budget, a token bucket credited `fraction` (15%) of a token per
// primary call and debited one per hedge, so hedges never exceed that fraction of primaries plus
// the burst. When an upstream degrades and every request starts to look slow, the bucket empties
// and hedging stops amplifying load.
#pragma once

#include <algorithm>

namespace taillab::gateway {

class HedgeBudget {
public:
    HedgeBudget() = default;
    HedgeBudget(double fraction, double capacity)
        : fraction_(fraction), capacity_(capacity), tokens_(capacity) {}
    void setFraction(double f) { fraction_ = f; }
    // A new burst: tokens above it are gone; a larger one fills as primaries earn it.
    void setCapacity(double c) {
        capacity_ = c;
        tokens_ = std::min(tokens_, capacity_);
    }
    void onPrimary() { tokens_ = std::min(capacity_, tokens_ + fraction_); }
    // A budget of zero allows no hedge at all, not even the burst.
    bool take() {
        if (fraction_ > 0 && tokens_ >= 1.0) {
            tokens_ -= 1.0;
            return true;
        }
        return false;
    }
    // A token taken for a hedge that was not sent (no engine to send it to) goes back.
    void giveBack() { tokens_ = std::min(capacity_, tokens_ + 1.0); }
    double level() const { return capacity_ > 0 ? tokens_ / capacity_ : 0; }

private:
    double fraction_ = 0.15;
    double capacity_ = 10;
    double tokens_ = 10;
};

}  // namespace taillab::gateway
