// A timeline fault in the fleet's terms, shared by the simulation driver and the live fleet so a
// fault means the same on both.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "gateway_sim/sim_config.h"

namespace taillab::gateway {

FaultScope faultScope(const FaultTarget& t, int egressIps, const std::vector<std::string>& providers) {
    FaultScope r;
    if ((t.provider || t.zone) && providers.empty())
        throw std::invalid_argument("this fleet has no providers or availability zones to target");
    if (t.provider) {
        if (std::find(providers.begin(), providers.end(), *t.provider) == providers.end())
            throw std::invalid_argument("no provider named '" + *t.provider + "' under this layout");
        r.provider = static_cast<int>(
            std::find(kProviderNames.begin(), kProviderNames.end(), *t.provider) - kProviderNames.begin());
    }
    if (t.zone) {
        const auto it = std::find(kZoneNames.begin(), kZoneNames.end(), *t.zone);
        if (it == kZoneNames.end()) throw std::invalid_argument("no zone named '" + *t.zone + "'");
        r.zone = static_cast<int>(it - kZoneNames.begin());
    }
    if (r.compute() && t.engine)
        throw std::invalid_argument(
            "a target names the gateway's compute (provider, zone) or an engine, not both");
    if (t.engine) {
        const auto it = std::find(kEngineNames.begin(), kEngineNames.end(), *t.engine);
        if (it == kEngineNames.end()) throw std::invalid_argument("no engine named '" + *t.engine + "'");
        r.engine = static_cast<int>(it - kEngineNames.begin());
    }
    if (t.region) {
        const auto it = std::find(kRegionNames.begin(), kRegionNames.end(), *t.region);
        if (it == kRegionNames.end()) throw std::invalid_argument("no region named '" + *t.region + "'");
        r.region = static_cast<Region>(it - kRegionNames.begin());
    }
    if (t.egress_ip && (*t.egress_ip < 0 || *t.egress_ip >= egressIps))
        throw std::invalid_argument("egress_ip " + std::to_string(*t.egress_ip) + " is not one of the " +
                                    std::to_string(egressIps) + " IPs of a region");
    return r;
}

std::optional<fleet::CallFault> callFaultOf(const Fault& f, const FaultScope& scope) {
    fleet::CallFault c;
    switch (f.effect) {
        case FaultEffect::Down: c.effect = fleet::CallFault::Effect::Down; break;
        case FaultEffect::Slow: c.effect = fleet::CallFault::Effect::Slow; break;
        case FaultEffect::Invalid: c.effect = fleet::CallFault::Effect::Invalid; break;
        case FaultEffect::Resets: c.effect = fleet::CallFault::Effect::Resets; break;
        case FaultEffect::Latency: c.effect = fleet::CallFault::Effect::Latency; break;
        case FaultEffect::CapacityLost:
        case FaultEffect::Surge: return std::nullopt;
    }
    if (scope.compute())
        throw std::invalid_argument("a provider or zone holds the gateway's CPUs: only "
                                    "capacity_lost applies to it");
    c.engine = scope.engine;
    c.region = scope.region;
    c.egress_ip = f.target.egress_ip;
    c.factor = f.factor;
    c.share = f.share;
    c.add_ms = f.add_ms;
    if (f.median_ms && f.sigma) c.distribution = LognormalParams{*f.median_ms, *f.sigma};
    return c;
}

}  // namespace taillab::gateway
