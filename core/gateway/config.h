// GatewayConfig: everything a gateway is built from, validated before anything runs. Plain
// values: the gateway knows nothing of knobs, scenario files or the simulator; drivers build this
// (the simulation from its knobs, gateway_sim/gateway_knobs.cpp; the live driver from its
// configuration).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gateway/breaker.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

enum class CacheTiers : std::uint8_t { Off, L1, L1AndL2 };
enum class CoalescingMode : std::uint8_t { Off, PerInstance, RegionWide };  // region-wide: L2 lease
enum class Routing : std::uint8_t { Static, BestScore, PowerOfTwo };
enum class HedgeMode : std::uint8_t { Off, Fixed, RollingPerEngine, RollingPerClass };
// Routed engines may be primary (sampled with their quality weight; 0: never while a weighted one
// is eligible) or backup (best score among the rest). A last-chance engine is only ever called by
// the last-chance hedge, under its own budget.
enum class EngineRole : std::uint8_t { Routed, LastChance };
enum class Lane : std::uint8_t { Interactive, Batch };
// What a request that ran out of time is answered with. Seed 000's v3 had a bug in its error path
// that answered a timeout with HTTP 200 and an empty result list: clients that check the status
// saw success and went on with no data. v4 answers 503 with Retry-After, never an empty 200.
enum class TimeoutReply : std::uint8_t { ServiceUnavailable, EmptyOk };

struct EngineSpec {
    std::string name;
    EngineRole role = EngineRole::Routed;
    double quality = 1;
};

struct ApiKey {
    std::string key;          // the bearer token
    std::string name;         // shown in the per-customer views: "cust-017 (pro)"
    Region home = Region::EU; // where an unpinned request is served (the nearest region)
    Lane lane = Lane::Interactive;
    bool probe = false;       // synthetic probes: kept out of the customer figures
    double burst = 20;        // token bucket per endpoint: capacity
    double rate_per_s = 1;    // and refill
};

struct GatewayConfig {
    std::vector<EngineSpec> engines;
    std::vector<ApiKey> keys;

    bool rate_limits = true, admission = true, breakers = true, stale_while_revalidate = true;
    CacheTiers cache_tiers = CacheTiers::L1AndL2;
    CoalescingMode coalescing = CoalescingMode::RegionWide;
    Routing routing = Routing::PowerOfTwo;
    HedgeMode hedge_mode = HedgeMode::RollingPerEngine;
    double hedge_delay_ms = 420;  // the fixed mode's delay
    double hedge_percentile = 90, clamp_lo_ms = 120, clamp_hi_ms = 450;
    double hedge_budget = 0.15, hedge_burst = 50;
    bool last_chance = false;
    double last_chance_delay_ms = 300, last_chance_budget = 0.02;
    double deadline_ms = 600, margin_ms = 10, merge_reserve_ms = 12, min_useful_ms = 40;
    double detach_reserve_ms = 150;
    TimeoutReply timeout_reply = TimeoutReply::ServiceUnavailable;
    // Per home region: where its unpinned traffic goes instead (none: it stays home). A pinned
    // request never moves.
    std::array<std::optional<Region>, kRegions> reroute{};
    double reroute_share = 1;  // of a rerouted region's unpinned traffic, in [0, 1]
    int l1_entries = 20000, instances = 3, egress_ips = 4;
    // Gateway instances per region a cold standby brings up on its own (empty L1s, fresh
    // per-instance router state, connections not yet open); 0: none. See Gateway::setStandbyShare.
    int standby_instances = 0;
    int min_limit = 10, max_limit = 200, batch_limit = 8;
    double admission_tolerance = 2.0;
    Breaker::Config breaker{};
    double ewma_half_life_s = 30;
    std::size_t compile_memo_entries = 1 << 16;

    // Throws std::invalid_argument naming the field and both values when the config contradicts
    // itself (clamp_hi_ms < clamp_lo_ms, a deadline no longer than its margins, ...), when an
    // engine list or key list is malformed (no routed engine, more than 32 engines, duplicate
    // names or keys, last_chance on without a last-chance engine).
    void validate() const;
    // The last-chance engine, if the config has one.
    std::optional<int> lastChanceEngine() const;
};

}  // namespace taillab::gateway
