// The router (seed 000, "picking the engine most likely to be fast"). Each (region, engine, query
// class) keeps a latency EWMA and a valid-result rate (latency_ewma.h); each (region, engine) a
// circuit breaker (breaker.h), and an engine is eligible only while its breaker admits the call.
// With breakers switched off (config `breakers`) no breaker is fed or consulted and none changes
// state: switched off, every breaker not closed closes at that moment (its span ends there);
// switched back on, each starts closed with an empty window.
// The primary is picked by the power of two choices: two eligible engines sampled by their
// quality weight, the one with the better score wins (nearly as good as the best score, without
// herding). A backup (hedge, retry) is the best-scored engine not yet tried. Modes: static (the
// first eligible engine), best score, power of two choices. Last-chance engines are never routed
// to; the last-chance hedge asks admitsLastChance().
//
// Randomness (the two samples, half-open probe lotteries) comes from a per-request draw key
// (base/rng.h uniformAt), never from a shared stream, so a request's draws do not depend on what
// other requests drew.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/rng.h"
#include "gateway/breaker.h"
#include "gateway/config.h"
#include "gateway/latency_ewma.h"

namespace taillab::gateway {

struct BreakerChange {
    Region region;
    int engine;
    BreakerState state;
    Time at;
    bool switched_off = false;  // closed because breakers were switched off, not by its probes
};

class Router {
public:
    explicit Router(const GatewayConfig& config);
    // New settings from `now` on (breakers switched off or on take effect then).
    void reconfigure(Time now, const GatewayConfig& config);

    struct Draws {
        std::uint64_t key;
        std::uint64_t next = 0;
        double uniform() { return uniformAt(key, next++); }
    };
    // An engine for a request of class `cls` on `instance` of `region`, among the routed engines
    // not in `exclude` (bit e: engine e) whose breaker admits the call: the primary when
    // `backup` is false, else a backup. nullopt when none is eligible.
    std::optional<int> pick(Time now, Region region, int instance, QueryClass cls,
                            std::uint32_t exclude, bool backup, Draws& draws);
    // Whether engine `e`'s breaker admits a last-chance call now.
    bool admits(Time now, Region region, int engine, Draws& draws);

    void onCallStart(Region region, int instance, int engine) { ++inflight(region, instance, engine); }
    void onCallEnd(Region region, int instance, int engine) { --inflight(region, instance, engine); }
    // An answer from `engine` after `ms`, valid or not: the EWMA and the breaker learn from it.
    void onAnswer(Time now, Region region, int engine, QueryClass cls, double ms, bool valid);

    // Breaker state changes since the last call, in the order they happened.
    std::vector<BreakerChange> takeChanges();
    bool hasChanges() const { return !changes_.empty(); }
    int engines() const { return engines_; }

private:
    double score(Region region, int instance, QueryClass cls, int engine) const;
    int& inflight(Region region, int instance, int engine) {
        return inflight_[static_cast<std::size_t>(
            (static_cast<int>(region) * instances_ + instance) * engines_ + engine)];
    }
    Breaker& breaker(Region region, int engine) {
        return breakers_[static_cast<std::size_t>(static_cast<int>(region) * engines_ + engine)];
    }
    const LatencyEwma& stats(Region region, int engine, QueryClass cls) const {
        return stats_[static_cast<std::size_t>(
            (static_cast<int>(region) * engines_ + engine) * kClasses + static_cast<int>(cls))];
    }
    bool admitted(Time now, Region region, int engine, Draws& draws);
    void note(Time now, Region region, int engine);
    void switchBreakers(Time now, bool on, const Breaker::Config& config);

    int engines_ = 0, instances_ = 1;
    Routing routing_ = Routing::PowerOfTwo;
    bool breakersOn_ = true;
    Duration halfLife_{};
    std::vector<double> quality_;
    std::vector<bool> routed_;
    std::vector<Breaker> breakers_;      // [region * engines + engine]
    std::vector<LatencyEwma> stats_;     // [(region * engines + engine) * classes + class]
    std::vector<int> inflight_;          // [(region * instances + instance) * engines + engine]
    std::vector<BreakerChange> changes_;
};

}  // namespace taillab::gateway
