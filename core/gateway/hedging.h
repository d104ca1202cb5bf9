// Hedging (seed 000, "the biggest single win"): after a delay, if the primary has not answered, a
// second copy goes to the best backup engine; the first valid answer wins and the loser is
// cancelled. The delay is fixed, or the primary's rolling p90 (rolling_delay.h: 60 s window,
// refreshed every 10 s, clamped to 120-450 ms) per (region, engine) or per query class. Hedges draw
// on a budget (hedge_budget.h: 15% of the primary rate plus a burst); an empty budget stops them.
// Optionally a last-chance hedge to a third, cheaper engine, under its own small budget, when both
// calls are still out after a further delay (seed 000's "what's next").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gateway/config.h"
#include "gateway/hedge_budget.h"
#include "gateway/rolling_delay.h"

namespace taillab::gateway {

class Hedging {
public:
    explicit Hedging(const GatewayConfig& config);
    void reconfigure(const GatewayConfig& config);

    // The delay before the hedge of a primary call to `engine` that starts at `now`; nullopt when
    // hedging is off.
    std::optional<Duration> delay(Time now, Region region, int engine, QueryClass cls);
    // A primary call's latency (or, for a cancelled one, the lower bound it reached), for the
    // rolling delay of the mode in use.
    void recordPrimary(Time now, Region region, int engine, QueryClass cls, double ms);
    // A primary call went out: the budgets earn their fraction of a token.
    void onPrimary();
    bool takeHedge() { return budget_.take(); }
    void returnHedge() { budget_.giveBack(); }  // taken, but no engine could take the hedge
    bool takeLastChance() { return lastChanceBudget_.take(); }
    std::optional<Duration> lastChanceDelay() const;
    std::optional<int> lastChanceEngine() const { return lastChanceEngine_; }

    double budgetLevel() const { return budget_.level(); }
    double fraction() const { return fraction_; }

private:
    RollingDelay& rolling(Region region, int engine, QueryClass cls);

    HedgeMode mode_;
    double fixedMs_ = 420, fraction_ = 0.15;
    double lo_ = 120, hi_ = 450, percentile_ = 90;
    bool lastChance_ = false;
    double lastChanceDelayMs_ = 300;
    std::optional<int> lastChanceEngine_;
    int engines_ = 0;
    HedgeBudget budget_, lastChanceBudget_;
    std::vector<RollingDelay> delays_;  // [(region * engines + engine) * classes + class]
};

}  // namespace taillab::gateway
