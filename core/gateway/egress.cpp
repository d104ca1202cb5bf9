#include "gateway/egress.h"

namespace taillab::gateway {
namespace {
constexpr double kRestS = 60;
}

Egress::Egress(const GatewayConfig& config)
    : ips_(config.egress_ips), engines_(static_cast<int>(config.engines.size())) {
    states_.resize(static_cast<std::size_t>(kRegions * ips_ * engines_));
    next_.assign(static_cast<std::size_t>(kRegions * engines_), 0);
}

int Egress::pick(Time at, Region region, int engine) {
    int& next = next_[static_cast<std::size_t>(static_cast<int>(region) * engines_ + engine)];
    int best = 0;
    Time soonest = Time::max();
    for (int k = 0; k < ips_; ++k) {
        const int ip = (next + k) % ips_;
        const State& s = this->at(region, ip, engine);
        if (at >= s.rest_until) {
            best = ip;
            break;
        }
        if (s.rest_until < soonest) soonest = s.rest_until, best = ip;
    }
    next = (best + 1) % ips_;
    return best;
}

std::optional<std::uint64_t> Egress::previousOtherQuery(Region region, int ip, int engine,
                                                        std::uint64_t key) const {
    const State& s = at(region, ip, engine);
    if (s.last_fingerprint == 0 || s.last_key == key) return std::nullopt;
    return s.last_fingerprint;
}

bool Egress::onAnswer(Time now, Region region, int ip, int engine, std::uint64_t key,
                      std::uint64_t fingerprint, bool blocked) {
    State& s = at(region, ip, engine);
    bool started = false;
    if (blocked) {
        started = now >= s.rest_until;
        s.rest_until = now + fromSeconds(kRestS);
    }
    if (fingerprint != 0) {
        s.last_fingerprint = fingerprint;
        s.last_key = key;
    }
    return started;
}

}  // namespace taillab::gateway
