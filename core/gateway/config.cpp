#include "gateway/config.h"

#include <set>
#include <stdexcept>

#include "base/format.h"

namespace taillab::gateway {
namespace {

[[noreturn]] void refuse(const std::string& message) { throw std::invalid_argument(message); }

template <typename T>
std::string str(T v) {
    return formatNumber(static_cast<double>(v));
}

}  // namespace

void GatewayConfig::validate() const {
    if (engines.empty()) refuse("the gateway needs at least one engine");
    if (engines.size() > 32) refuse("at most 32 engines, got " + str(engines.size()));
    std::set<std::string> names;
    int routed = 0;
    for (const EngineSpec& e : engines) {
        if (e.name.empty()) refuse("an engine has no name");
        if (!names.insert(e.name).second) refuse("two engines are named '" + e.name + "'");
        if (!(e.quality >= 0)) refuse("engine '" + e.name + "' has a negative quality");
        if (e.role == EngineRole::Routed) ++routed;
    }
    if (routed == 0) refuse("no engine can be routed to (every engine is last-chance only)");
    if (last_chance && !lastChanceEngine())
        refuse("last_chance is on but no engine has the last-chance role");
    std::set<std::string> tokens;
    for (const ApiKey& k : keys) {
        if (k.key.empty()) refuse("an API key is empty");
        if (!tokens.insert(k.key).second) refuse("the API key '" + k.name + "' is listed twice");
        if (!(k.burst >= 1) || !(k.rate_per_s >= 0))
            refuse("API key '" + k.name + "': the bucket needs burst >= 1 and rate >= 0");
    }
    if (clamp_hi_ms < clamp_lo_ms)
        refuse("hedge_clamp_max_ms (" + str(clamp_hi_ms) + " ms) is below hedge_clamp_min_ms (" +
               str(clamp_lo_ms) + " ms)");
    if (margin_ms + merge_reserve_ms >= deadline_ms)
        refuse("deadline_ms (" + str(deadline_ms) + " ms) must exceed the serialization margin (" +
               str(margin_ms) + " ms) plus the merge reserve (" + str(merge_reserve_ms) + " ms)");
    if (max_limit < min_limit)
        refuse("admission_max_limit (" + str(max_limit) + ") is below admission_min_limit (" +
               str(min_limit) + ")");
    if (instances < 1 || instances > 255) refuse("instances must be 1..255, got " + str(instances));
    if (standby_instances < 0 || instances + standby_instances > 255)
        refuse("instances plus standby_instances must be at most 255, got " + str(instances + standby_instances));
    if (egress_ips < 1 || egress_ips > 255) refuse("egress_ips must be 1..255, got " + str(egress_ips));
    if (l1_entries < 1) refuse("l1_entries must be at least 1");
    if (!(hedge_budget >= 0) || !(hedge_burst >= 0)) refuse("the hedge budget cannot be negative");
}

std::optional<int> GatewayConfig::lastChanceEngine() const {
    for (std::size_t e = 0; e < engines.size(); ++e)
        if (engines[e].role == EngineRole::LastChance) return static_cast<int>(e);
    return std::nullopt;
}

}  // namespace taillab::gateway
