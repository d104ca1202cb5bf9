#include "gateway/hedging.h"

namespace taillab::gateway {

Hedging::Hedging(const GatewayConfig& config)
    : mode_(config.hedge_mode), engines_(static_cast<int>(config.engines.size())),
      budget_(config.hedge_budget, config.hedge_burst),
      lastChanceBudget_(config.last_chance_budget, 3) {
    lo_ = config.clamp_lo_ms;
    hi_ = config.clamp_hi_ms;
    percentile_ = config.hedge_percentile;
    delays_.assign(static_cast<std::size_t>(kRegions * engines_ * kClasses),
                   RollingDelay(lo_, hi_, percentile_));
    reconfigure(config);
}

void Hedging::reconfigure(const GatewayConfig& config) {
    const bool rangeChanged = config.clamp_lo_ms != lo_ || config.clamp_hi_ms != hi_ ||
                              config.hedge_percentile != percentile_;
    mode_ = config.hedge_mode;
    fixedMs_ = config.hedge_delay_ms;
    fraction_ = config.hedge_budget;
    lastChance_ = config.last_chance;
    lastChanceDelayMs_ = config.last_chance_delay_ms;
    lastChanceEngine_ = config.lastChanceEngine();
    budget_.setFraction(config.hedge_budget);
    budget_.setCapacity(config.hedge_burst);
    lastChanceBudget_.setFraction(config.last_chance_budget);
    if (rangeChanged) {
        lo_ = config.clamp_lo_ms;
        hi_ = config.clamp_hi_ms;
        percentile_ = config.hedge_percentile;
        delays_.assign(delays_.size(), RollingDelay(lo_, hi_, percentile_));
    }
}

RollingDelay& Hedging::rolling(Region region, int engine, QueryClass cls) {
    const int c = mode_ == HedgeMode::RollingPerClass ? static_cast<int>(cls) : 0;
    return delays_[static_cast<std::size_t>((static_cast<int>(region) * engines_ + engine) * kClasses + c)];
}

std::optional<Duration> Hedging::delay(Time now, Region region, int engine, QueryClass cls) {
    switch (mode_) {
        case HedgeMode::Off: return std::nullopt;
        case HedgeMode::Fixed: return fromMs(fixedMs_);
        case HedgeMode::RollingPerEngine:
        case HedgeMode::RollingPerClass: return fromMs(rolling(region, engine, cls).delayMs(now));
    }
    return std::nullopt;
}

// The rolling histogram of the mode in use learns from every primary call (a mode switched on
// mid-run starts from an empty window and the clamp's high end).
void Hedging::recordPrimary(Time now, Region region, int engine, QueryClass cls, double ms) {
    if (mode_ == HedgeMode::RollingPerEngine || mode_ == HedgeMode::RollingPerClass)
        rolling(region, engine, cls).record(now, ms);
}

void Hedging::onPrimary() {
    budget_.onPrimary();
    lastChanceBudget_.onPrimary();
}

std::optional<Duration> Hedging::lastChanceDelay() const {
    if (!lastChance_ || !lastChanceEngine_) return std::nullopt;
    return fromMs(lastChanceDelayMs_);
}

}  // namespace taillab::gateway
