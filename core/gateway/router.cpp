#include "gateway/router.h"

namespace taillab::gateway {
namespace {
constexpr double kPriorLatencyMs = 300;  // an engine's expected latency before its first answer
constexpr int kMaxEngines = 32;
}  // namespace

Router::Router(const GatewayConfig& config)
    : engines_(static_cast<int>(config.engines.size())), instances_(config.instances + config.standby_instances) {
    breakers_.assign(static_cast<std::size_t>(kRegions * engines_), Breaker(config.breaker));
    stats_.resize(static_cast<std::size_t>(kRegions * engines_ * kClasses));
    inflight_.assign(static_cast<std::size_t>(kRegions * instances_ * engines_), 0);
    breakersOn_ = config.breakers;
    reconfigure(Time{}, config);
}

void Router::reconfigure(Time now, const GatewayConfig& config) {
    routing_ = config.routing;
    if (config.breakers != breakersOn_) switchBreakers(now, config.breakers, config.breaker);
    halfLife_ = fromSeconds(config.ewma_half_life_s);
    quality_.clear();
    routed_.clear();
    for (const EngineSpec& e : config.engines) {
        quality_.push_back(e.quality);
        routed_.push_back(e.role == EngineRole::Routed);
    }
    for (Breaker& b : breakers_) b.setConfig(config.breaker);
}

double Router::score(Region region, int instance, QueryClass cls, int engine) const {
    const LatencyEwma& s = stats(region, engine, cls);
    const int n = inflight_[static_cast<std::size_t>(
        (static_cast<int>(region) * instances_ + instance) * engines_ + engine)];
    return LatencyEwma::score(s.ewmaMs(kPriorLatencyMs), s.success(), n);
}

// Switched off: the changes due before `now` (an open breaker half-opening) are noted, then every
// breaker not closed closes at `now`. Either way each breaker starts again closed and empty:
// nothing learnt while on carries over a stretch with no breakers.
void Router::switchBreakers(Time now, bool on, const Breaker::Config& config) {
    for (int g = 0; g < kRegions; ++g)
        for (int e = 0; e < engines_; ++e) {
            const auto region = static_cast<Region>(g);
            note(now, region, e);
            Breaker& b = breaker(region, e);
            if (!on && b.state(now) != BreakerState::Closed)
                changes_.push_back(BreakerChange{region, e, BreakerState::Closed, now, true});
            b = Breaker(config);
        }
    breakersOn_ = on;
}

bool Router::admitted(Time now, Region region, int engine, Draws& draws) {
    // Drawn whether or not breakers are on: a request's later draws do not depend on the knob.
    const double u = draws.uniform();
    if (!breakersOn_) return true;
    const bool ok = breaker(region, engine).admits(now, u);
    note(now, region, engine);
    return ok;
}

bool Router::admits(Time now, Region region, int engine, Draws& draws) {
    return admitted(now, region, engine, draws);
}

std::optional<int> Router::pick(Time now, Region region, int instance, QueryClass cls,
                                std::uint32_t exclude, bool backup, Draws& draws) {
    std::array<int, kMaxEngines> eligible{};
    int n = 0;
    bool anyWeighted = false;
    for (int e = 0; e < engines_; ++e) {
        if ((exclude >> e & 1u) || !routed_[static_cast<std::size_t>(e)]) continue;
        if (!admitted(now, region, e, draws)) continue;
        eligible[static_cast<std::size_t>(n++)] = e;
        anyWeighted = anyWeighted || quality_[static_cast<std::size_t>(e)] > 0;
    }
    if (n == 0) return std::nullopt;
    bool bestOnly = backup;
    if (!backup && anyWeighted) {
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (quality_[static_cast<std::size_t>(eligible[i])] > 0) eligible[m++] = eligible[i];
        n = m;
    } else {
        bestOnly = true;
    }
    if (n == 1 || (routing_ == Routing::Static && !bestOnly)) return eligible[0];
    if (routing_ == Routing::BestScore || bestOnly) {
        int best = eligible[0];
        for (int i = 1; i < n; ++i)
            if (score(region, instance, cls, eligible[i]) < score(region, instance, cls, best))
                best = eligible[i];
        return best;
    }
    // Power of two choices, sampled by quality.
    auto sample = [&](int skip) {
        double total = 0;
        for (int i = 0; i < n; ++i)
            if (eligible[i] != skip) total += quality_[static_cast<std::size_t>(eligible[i])];
        double u = draws.uniform() * total;
        int last = -1;
        for (int i = 0; i < n; ++i) {
            if (eligible[i] == skip) continue;
            last = eligible[i];
            u -= quality_[static_cast<std::size_t>(eligible[i])];
            if (u < 0) return eligible[i];
        }
        return last;
    };
    const int a = sample(-1);
    const int b = sample(a);
    return score(region, instance, cls, b) < score(region, instance, cls, a) ? b : a;
}

void Router::onAnswer(Time now, Region region, int engine, QueryClass cls, double ms, bool valid) {
    stats_[static_cast<std::size_t>((static_cast<int>(region) * engines_ + engine) * kClasses +
                                    static_cast<int>(cls))]
        .record(now, ms, valid, halfLife_);
    if (!breakersOn_) return;
    breaker(region, engine).record(now, valid);
    note(now, region, engine);
}

void Router::note(Time now, Region region, int engine) {
    Breaker& b = breaker(region, engine);
    const BreakerState s = b.state(now);
    Time at{};
    if (b.takeChange(&at)) changes_.push_back(BreakerChange{region, engine, s, at});
}

std::vector<BreakerChange> Router::takeChanges() {
    std::vector<BreakerChange> out;
    out.swap(changes_);
    return out;
}

}  // namespace taillab::gateway
