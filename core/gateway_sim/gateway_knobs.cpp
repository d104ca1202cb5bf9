// The gateway path's knobs: one declaration each, shared by scenario files, --set, sweeps and the
// GUI's sliders. Defaults are the v4 (September) configuration of seed 000 with the fleet fitted
// in scenarios/gateway/week-v4-september.json; the fitted numbers are explained there.
#include "gateway_sim/gateway_sim.h"

#include <algorithm>
#include <stdexcept>

#include "base/format.h"
#include "gateway_sim/sim_config.h"

namespace taillab::gateway {
namespace {

void engineKnobs(std::vector<KnobSpec>& k, const std::string& e, const std::string& name,
                 double median, double sigma, double slowP, double slowMedian, double slowSigma,
                 double invalid, double quality) {
    const std::string n = name + " ";
    k.push_back(KnobSpec::real(e + "_median_ms", n + "body median", "ms", 1, 5000, median,
                               "Median of the engine's usual (fast) latency, warm connection")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::real(e + "_sigma", n + "body sigma", "σ (log)", 0.01, 3, sigma,
                               "Log-space spread of the usual latency", 0.01)
                    .hidden());
    k.push_back(KnobSpec::real(e + "_slow_probability", n + "slow probability", "fraction", 0, 0.9,
                               slowP, "Chance that a call hits one of the engine's slow moments",
                               0.001)
                    .hidden());
    k.push_back(KnobSpec::real(e + "_slow_median_ms", n + "slow median", "ms", 1, 60000,
                               slowMedian, "Median latency of a slow moment")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::real(e + "_slow_sigma", n + "slow sigma", "σ (log)", 0.01, 3, slowSigma,
                               "Log-space spread of a slow moment", 0.01)
                    .hidden());
    k.push_back(KnobSpec::real(e + "_invalid_rate", n + "invalid answers", "fraction", 0, 1,
                               invalid,
                               "Share of answers that fail validation (empty, block page, "
                               "CAPTCHA, consent wall, reset)",
                               0.001)
                    .hidden());
    k.push_back(KnobSpec::real(e + "_quality", n + "class quality", "weight", 0, 10, quality,
                               "Weight with which the router samples this engine as primary (power "
                               "of two choices); 0: only a backup, or primary when no weighted "
                               "engine is eligible",
                               0.01)
                    .hidden());
}

}  // namespace

std::vector<KnobSpec> GatewaySim::knobs() {
    std::vector<KnobSpec> k;
    // Workload.
    k.push_back(KnobSpec::integer("days", "Days simulated", "days", 1, 7, 7,
                                  "Length of the run, in days of seed 000's week"));
    k.push_back(KnobSpec::choice("start_day", "First day", {"Mon", "Tue", "Wed", "Thu", "Fri",
                                                            "Sat", "Sun"},
                                 0, "Day of the week the run starts on"));
    k.push_back(KnobSpec::real("load_multiplier", "Load multiplier", "×", 0.1, 50, 1,
                               "Scales every hour's request count of the week", 0.1)
                    .log());
    k.push_back(KnobSpec::real("agent_share", "Agent bursts", "fraction", 0, 0.9, 0.15,
                               "Share of requests that come from agents retrying or running in "
                               "parallel: identical queries milliseconds apart (coalescing's case)",
                               0.01));
    k.push_back(KnobSpec::integer("customers", "Customers", "keys", 5, 2000, 120,
                                  "API keys sending traffic (plans: free, pro, enterprise)")
                    .hidden());
    k.push_back(KnobSpec::real("unknown_key_rate", "Unknown keys", "fraction", 0, 0.5, 0.001,
                               "Share of requests carrying an unknown API key (401)", 0.001)
                    .hidden());
    k.push_back(KnobSpec::boolean("probes", "Synthetic probes", true,
                                  "Fixed queries from each region every 15 s, kept out of the "
                                  "customer figures"));
    k.push_back(KnobSpec::real("window_s", "Chart window", "s", 10, 3600, 600,
                               "Length of one point of the time series", 10)
                    .log());
    // Edge and gateway.
    k.push_back(KnobSpec::boolean("rate_limits", "Rate limits", true,
                                  "Token bucket per key and endpoint, sized by plan (429 when "
                                  "empty)"));
    k.push_back(KnobSpec::boolean("admission", "Adaptive admission", true,
                                  "Concurrency limit per region by the gradient rule every 250 ms; "
                                  "over it: spill or a fast 503"));
    k.push_back(KnobSpec::integer("admission_min_limit", "Min concurrency limit", "requests", 1,
                                  10000, 10, "Floor of the adaptive limit")
                    .hidden()
                    .usedWhen("admission", {"on"}));
    k.push_back(KnobSpec::integer("admission_max_limit", "Max concurrency limit", "requests", 1,
                                  10000, 200, "Ceiling of the adaptive limit")
                    .hidden()
                    .usedWhen("admission", {"on"}));
    k.push_back(KnobSpec::real("admission_tolerance", "Latency tolerance", "×", 1, 10, 2,
                               "The limit shrinks only when the window p90 exceeds the quiet "
                               "baseline by more than this factor",
                               0.1)
                    .hidden()
                    .usedWhen("admission", {"on"}));
    k.push_back(KnobSpec::integer("batch_lane_limit", "Batch lane limit", "requests", 1, 10000, 8,
                                  "Concurrency of the batch lane, which yields while the "
                                  "interactive lane is above 80% of its limit")
                    .hidden());
    k.push_back(KnobSpec::integer("instances", "Instances per region", "instances", 1, 64, 3,
                                  "Gateway instances per region (each has its own L1 cache)")
                    .hidden());
    k.push_back(KnobSpec::choice("reroute_EU", "Reroute EU", {"no", "to US", "to APAC"}, 0,
                                 "Send EU's unpinned traffic to another region, with no limit on "
                                 "what it accepts (v3's failover)")
                    .hidden());
    k.push_back(KnobSpec::choice("reroute_US", "Reroute US", {"no", "to EU", "to APAC"}, 0,
                                 "Send US's unpinned traffic to another region, with no limit on "
                                 "what it accepts (v3's failover)")
                    .hidden());
    k.push_back(KnobSpec::choice("reroute_APAC", "Reroute APAC", {"no", "to EU", "to US"}, 0,
                                 "Send APAC's unpinned traffic to another region, with no limit "
                                 "on what it accepts (v3's failover)")
                    .hidden());
    k.push_back(KnobSpec::real("reroute_share", "Rerouted share", "fraction", 0, 1, 1,
                               "Share of a rerouted region's unpinned traffic that moves (the rest "
                               "stays home)",
                               0.01)
                    .hidden());
    // Gateway compute: where it runs and how much of it there is.
    k.push_back(KnobSpec::boolean("gateway_compute", "Gateway compute", false,
                                  "Each region's gateway has a number of CPUs on providers and "
                                  "zones; stage work waits for a free one (off: never waits)"));
    k.push_back(KnobSpec::integer("gateway_cpus", "Gateway CPUs", "CPUs per region", 1, 4096, 16,
                                  "CPUs serving each region's stage work (edge, gateway, "
                                  "compiler, cache, router, merge), first come, first served")
                    .log()
                    .usedWhen("gateway_compute", {"on"}));
    k.push_back(KnobSpec::choice("providers", "Providers",
                                 {"one (A)", "three (A 40%, B 35%, C 25%)"}, 1,
                                 "Which providers a region's CPUs run on, three zones each: v3 had "
                                 "one under everything, v4 three, none above 45%")
                    .usedWhen("gateway_compute", {"on"}));
    k.push_back(KnobSpec::choice("balancing", "Balancing",
                                 {"static (TCP health checks)", "probed (synthetic searches)"}, 0,
                                 "How a region spreads requests over its providers' zones: v3 by "
                                 "configured CPUs, blind to zones that accept connections but "
                                 "never answer; v4 by synthetic searches through the full path "
                                 "every 5 s per provider and zone, a zone failing two in a row "
                                 "taking no traffic until it passes three")
                    .usedWhen("gateway_compute", {"on"}));
    k.push_back(KnobSpec::real("provider_cap", "Provider cap", "fraction", 0.34, 1, 1,
                               "Most of a region's requests one provider may take (seed 000: "
                               "0.45); the rest go to the others, where they have healthy zones",
                               0.01)
                    .usedWhen("balancing", {"probed (synthetic searches)"}));
    k.push_back(KnobSpec::boolean("region_breakers", "Region breakers", false,
                                  "A region whose probes fail on half its capacity or more opens "
                                  "its breaker: no spill or reroute goes into it until three "
                                  "quarters pass again (v4)")
                    .usedWhen("balancing", {"probed (synthetic searches)"}));
    k.push_back(KnobSpec::integer("standby_cpus", "Standby CPUs", "CPUs per region", 0, 4096, 0,
                                  "CPUs per region on provider B kept for failover: cold ones "
                                  "serve when a timeline event raises this (July's standby), warm "
                                  "ones as soon as a zone of the region fails its probes")
                    .log()
                    .hidden()
                    .usedWhen("gateway_compute", {"on"}));
    k.push_back(KnobSpec::choice("standby", "Standby", {"cold (by hand)", "warm (automatic)"}, 0,
                                 "Cold: the standby CPUs serve from the moment a timeline event "
                                 "raises standby_cpus, one by one over the ramp; warm: they are "
                                 "provisioned and take traffic over the ramp once a zone of "
                                 "the region fails its probes (needs probed balancing)")
                    .usedWhen("gateway_compute", {"on"}));
    k.push_back(KnobSpec::choice("standby_region", "Cold standby in", {"every region", "EU", "US", "APAC"}, 0,
                                 "Where an operator brings cold standby up: every region, or one "
                                 "(July: EU-West alone). A warm standby engages per region by itself")
                    .hidden()
                    .usedWhen("standby", {"cold (by hand)"}));
    k.push_back(KnobSpec::real("standby_ramp_s", "Standby ramp", "s", 0, 3600, 0,
                               "Time for the standby CPUs to come online, evenly one after "
                               "another (cold: minutes; warm: seed 000 takes over within 20 s)",
                               1)
                    .log()
                    .usedWhen("gateway_compute", {"on"}));
    // Deadline.
    k.push_back(KnobSpec::real("deadline_ms", "Deadline", "ms", 50, 60000, 600,
                               "Absolute deadline set at accept; every stage gets what remains")
                    .log());
    k.push_back(KnobSpec::choice("timeout_reply", "Timeout answer",
                                 {"503 with Retry-After", "200 with empty results (v3 bug)"}, 0,
                                 "What a request that runs out of time is answered with; v3's "
                                 "error path answered 200 with no results, a failure clients "
                                 "could not see"));
    k.push_back(KnobSpec::real("serialization_margin_ms", "Serialization margin", "ms", 0, 200, 10,
                               "Kept back from the deadline for serializing and writing", 1)
                    .hidden());
    k.push_back(KnobSpec::real("min_useful_ms", "Engine minUsefulMs", "ms", 0, 2000, 40,
                               "An engine is not called when less than this remains", 1)
                    .hidden());
    // Cache.
    k.push_back(KnobSpec::choice("cache_tiers", "Cache tiers", {"off", "L1 only", "L1 + L2"}, 2,
                                 "In-process LRU per instance, regional store 1-2 ms away"));
    k.push_back(KnobSpec::integer("l1_entries", "L1 entries", "entries", 10, 10000000, 20000,
                                  "Capacity of each instance's LRU")
                    .log()
                    .hidden()
                    .usedWhen("cache_tiers", {"L1 only", "L1 + L2"}));
    k.push_back(KnobSpec::boolean("stale_while_revalidate", "Stale-while-revalidate", true,
                                  "Serve a stale entry and refresh it in the background where the "
                                  "class allows")
                    .usedWhen("cache_tiers", {"L1 only", "L1 + L2"}));
    k.push_back(KnobSpec::choice("coalescing", "Coalescing",
                                 {"off", "per instance", "per instance + L2 lease"}, 2,
                                 "One upstream flight per key; waiters detach near their deadline"));
    // Router and breakers.
    k.push_back(KnobSpec::choice("routing", "Routing",
                                 {"static (first engine)", "best score", "power of two choices"},
                                 2, "How the primary engine is picked"));
    k.push_back(KnobSpec::real("ewma_half_life_s", "Latency EWMA half-life", "s", 1, 3600, 30,
                               "Half-life of the router's latency average")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::boolean("breakers", "Circuit breakers", true,
                                  "Per (region, engine), tripped by the valid-result rate"));
    k.push_back(KnobSpec::real("breaker_threshold", "Breaker threshold", "fraction valid", 0.05,
                               1, 0.8, "Open when the valid-result rate falls below this", 0.01)
                    .usedWhen("breakers", {"on"}));
    k.push_back(KnobSpec::integer("breaker_min_samples", "Breaker min samples", "calls", 1, 10000,
                                  50, "Calls needed in the window before the breaker may open")
                    .usedWhen("breakers", {"on"}));
    k.push_back(KnobSpec::real("breaker_window_s", "Breaker window", "s", 1, 600, 10,
                               "Window of the valid-result rate", 1)
                    .usedWhen("breakers", {"on"}));
    k.push_back(KnobSpec::real("breaker_open_s", "Breaker open time", "s", 0.5, 600, 5,
                               "Time open before half-open probing", 0.5)
                    .usedWhen("breakers", {"on"}));
    k.push_back(KnobSpec::real("breaker_probe_fraction", "Half-open probes", "fraction", 0.001, 1,
                               0.05, "Share of eligible traffic let through while half-open",
                               0.001)
                    .hidden()
                    .usedWhen("breakers", {"on"}));
    // Hedging.
    const std::vector<std::string> rolling{"rolling p90 per (region, engine)",
                                           "rolling p90 per query class"};
    const std::vector<std::string> hedging{"fixed", rolling[0], rolling[1]};
    k.push_back(KnobSpec::choice("hedge_mode", "Hedge delay",
                                 {"off", hedging[0], rolling[0], rolling[1]}, 2,
                                 "When the backup call is sent"));
    k.push_back(KnobSpec::real("hedge_delay_ms", "Fixed hedge delay", "ms", 0, 5000, 420,
                               "Delay before the backup when the mode is 'fixed'", 1)
                    .usedWhen("hedge_mode", {"fixed"}));
    k.push_back(KnobSpec::real("hedge_percentile", "Rolling percentile", "%", 50, 99.9, 90,
                               "Percentile of the primary's 60 s histogram used as the delay",
                               0.1)
                    .hidden()
                    .usedWhen("hedge_mode", rolling));
    k.push_back(KnobSpec::real("hedge_clamp_min_ms", "Delay clamp, low", "ms", 0, 5000, 120,
                               "The rolling delay is never below this", 1)
                    .hidden()
                    .usedWhen("hedge_mode", rolling));
    k.push_back(KnobSpec::real("hedge_clamp_max_ms", "Delay clamp, high", "ms", 0, 5000, 450,
                               "The rolling delay is never above this", 1)
                    .hidden()
                    .usedWhen("hedge_mode", rolling));
    k.push_back(KnobSpec::real("hedge_budget", "Hedge budget", "of primary rate", 0, 2, 0.15,
                               "Hedge tokens refill at this fraction of the primary call rate",
                               0.01)
                    .usedWhen("hedge_mode", hedging));
    k.push_back(KnobSpec::integer("hedge_budget_burst", "Hedge budget burst", "hedges", 1, 10000,
                                  50, "Capacity of the hedge token bucket (it starts full)")
                    .hidden()
                    .usedWhen("hedge_mode", hedging));
    k.push_back(KnobSpec::boolean("last_chance_hedge", "Last-chance hedge", false,
                                  "A third, cheaper engine when both calls are slow, under its own "
                                  "budget"));
    k.push_back(KnobSpec::real("last_chance_delay_ms", "Last-chance delay", "ms", 0, 5000, 300,
                               "Time after the hedge before the third call", 1)
                    .hidden()
                    .usedWhen("last_chance_hedge", {"on"}));
    k.push_back(KnobSpec::real("last_chance_budget", "Last-chance budget", "of primary rate", 0, 1,
                               0.02, "Refill of the third engine's budget", 0.005)
                    .hidden()
                    .usedWhen("last_chance_hedge", {"on"}));
    // Fleet.
    k.push_back(KnobSpec::real("engine_correlation", "Engine correlation", "fraction", 0, 1, 0,
                               "Share of slow moments that hit every engine at once", 0.01));
    k.push_back(KnobSpec::real("slow_multiplier", "Slow moments", "×", 0, 10, 1,
                               "Multiplies every engine's slow-moment probability", 0.05));
    k.push_back(KnobSpec::real("fault_multiplier", "Faults", "×", 0, 50, 1,
                               "Multiplies every engine's invalid-answer rate", 0.1));
    k.push_back(KnobSpec::real("class_variability", "Class variability", "fraction", 0, 1, 1,
                               "How much slow moments depend on the query class (news most, "
                               "navigational least); 0: the same for every class",
                               0.05)
                    .hidden());
    k.push_back(KnobSpec::integer("engine_capacity", "Engine capacity", "calls", 1, 100000, 64,
                                  "Calls one engine serves at once per region; more wait in its "
                                  "queue")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::integer("egress_ips", "Egress IPs", "IPs", 1, 64, 4,
                                  "Egress IPs per region; each has its own rate limit at every "
                                  "engine")
                    .hidden());
    k.push_back(KnobSpec::real("egress_ip_rate_per_s", "Egress IP rate limit", "calls/s", 0.01, 1e6, 3,
                               "Each engine's rate limit per egress IP: calls over it get that IP's "
                               "previous page again (a cached block page)")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::real("egress_ip_burst", "Egress IP burst", "calls", 1, 1e6, 30,
                               "Each engine's burst allowance per egress IP")
                    .log()
                    .hidden());
    k.push_back(KnobSpec::choice("egress", "Egress", {"warm pools", "cold connections"}, 0,
                                 "Cold pays DNS + TCP + TLS + CONNECT before the query is sent"));
    k.push_back(KnobSpec::real("cold_connect_median_ms", "Cold connect median", "ms", 0, 2000, 41.8,
                               "Median cost of a cold connection (DNS, TCP, TLS, CONNECT)")
                    .hidden()
                    .usedWhen("egress", {"cold connections"}));
    k.push_back(KnobSpec::real("cold_connect_sigma", "Cold connect sigma", "σ (log)", 0.01, 3, 1.12,
                               "Log-space spread of the cold-connection cost", 0.01)
                    .hidden()
                    .usedWhen("egress", {"cold connections"}));
    engineKnobs(k, "atlas", "Atlas", 158.6, 0.506, 0.100, 611, 0.629, 0.005, 1.0);
    engineKnobs(k, "borealis", "Borealis", 97.8, 0.359, 0.122, 965, 1.42, 0.01, 0.0);
    engineKnobs(k, "cirrus", "Cirrus", 260, 0.4, 0.05, 800, 0.6, 0.02, 0.0);
    return k;
}

std::array<double, kProviders> providerShares(const Params& p) {
    if (p.choiceIndex("providers") == 0) return {1.0, 0.0, 0.0};
    return {0.40, 0.35, 0.25};
}

std::vector<std::string> providerNames(const Params& p) {
    if (p.choiceIndex("providers") == 0) return {"A", "B"};
    return {kProviderNames.begin(), kProviderNames.end()};
}

namespace {

// Token buckets per endpoint, by plan: burst, refill per second.
constexpr std::array<std::array<double, 2>, 3> kPlanBucket{{{20, 1}, {60, 8}, {400, 60}}};

}  // namespace

GatewayConfig gatewayConfigFromParams(const Params& p, const Workload& workload) {
    GatewayConfig c;
    if (p.flag("gateway_compute") && p.choiceIndex("standby") == 1 && p.choiceIndex("balancing") == 0)
        throw std::invalid_argument("standby \"warm (automatic)\" needs balancing \"probed (synthetic "
                                    "searches)\": a warm standby engages when a zone fails its probes");
    for (int e = 0; e < kEngines; ++e) {
        const std::string name(kEngineNames[static_cast<std::size_t>(e)]);
        c.engines.push_back(EngineSpec{name, e == 2 ? EngineRole::LastChance : EngineRole::Routed,
                                       p.real(name + "_quality")});
    }
    const auto& customers = workload.customers();
    for (std::uint32_t i = 0; i < customers.size(); ++i) {
        const Customer& cu = customers[i];
        const auto& bucket = kPlanBucket[static_cast<std::size_t>(cu.plan)];
        c.keys.push_back(ApiKey{cu.key, cu.name, cu.home,
                                i == workload.batchCustomer() ? Lane::Batch : Lane::Interactive,
                                false, bucket[0], bucket[1]});
    }
    for (int g = 0; g < kRegions; ++g)
        c.keys.push_back(ApiKey{std::string(kProbeKeys[static_cast<std::size_t>(g)]),
                                "probe " + std::string(kRegionNames[static_cast<std::size_t>(g)]),
                                static_cast<Region>(g), Lane::Interactive, true, 1, 0});
    c.rate_limits = p.flag("rate_limits");
    c.admission = p.flag("admission");
    c.breakers = p.flag("breakers");
    c.stale_while_revalidate = p.flag("stale_while_revalidate");
    c.cache_tiers = static_cast<CacheTiers>(p.choiceIndex("cache_tiers"));
    c.coalescing = static_cast<CoalescingMode>(p.choiceIndex("coalescing"));
    c.routing = static_cast<Routing>(p.choiceIndex("routing"));
    c.hedge_mode = static_cast<HedgeMode>(p.choiceIndex("hedge_mode"));
    c.hedge_delay_ms = p.real("hedge_delay_ms");
    c.hedge_percentile = p.real("hedge_percentile");
    c.clamp_lo_ms = p.real("hedge_clamp_min_ms");
    c.clamp_hi_ms = p.real("hedge_clamp_max_ms");
    if (c.clamp_hi_ms < c.clamp_lo_ms) {
        throw std::invalid_argument("hedge_clamp_max_ms (" + formatNumber(c.clamp_hi_ms) +
                                    " ms) is below hedge_clamp_min_ms (" +
                                    formatNumber(c.clamp_lo_ms) + " ms)");
    }
    c.hedge_budget = p.real("hedge_budget");
    c.hedge_burst = p.real("hedge_budget_burst");
    c.last_chance = p.flag("last_chance_hedge");
    c.last_chance_delay_ms = p.real("last_chance_delay_ms");
    c.last_chance_budget = p.real("last_chance_budget");
    c.deadline_ms = p.real("deadline_ms");
    c.margin_ms = p.real("serialization_margin_ms");
    c.min_useful_ms = p.real("min_useful_ms");
    c.timeout_reply = static_cast<TimeoutReply>(p.choiceIndex("timeout_reply"));
    c.reroute_share = p.real("reroute_share");
    for (int g = 0; g < kRegions; ++g) {
        const int choice = p.choiceIndex("reroute_" + std::string(kRegionNames[static_cast<std::size_t>(g)]));
        // The choices list the other regions in order: choice i skips the region itself.
        if (choice > 0) c.reroute[static_cast<std::size_t>(g)] = static_cast<Region>(choice - 1 < g ? choice - 1 : choice);
    }
    if (c.margin_ms + c.merge_reserve_ms >= c.deadline_ms) {
        throw std::invalid_argument("deadline_ms must exceed serialization_margin_ms plus the merge "
                                    "reserve (12 ms)");
    }
    c.l1_entries = p.integer("l1_entries");
    c.instances = p.integer("instances");
    // A cold standby is gateway instances of its own, as many as the region's (a warm one's are
    // running already: warm pools, filled L1s, so it shares theirs).
    c.standby_instances = p.flag("gateway_compute") && p.choiceIndex("standby") == 0 ? c.instances : 0;
    c.egress_ips = p.integer("egress_ips");
    c.min_limit = p.integer("admission_min_limit");
    c.max_limit = p.integer("admission_max_limit");
    if (c.max_limit < c.min_limit) {
        throw std::invalid_argument("admission_max_limit is below admission_min_limit");
    }
    c.batch_limit = p.integer("batch_lane_limit");
    c.admission_tolerance = p.real("admission_tolerance");
    c.breaker.threshold = p.real("breaker_threshold");
    c.breaker.min_samples = p.integer("breaker_min_samples");
    c.breaker.window = fromSeconds(p.real("breaker_window_s"));
    c.breaker.open_for = fromSeconds(p.real("breaker_open_s"));
    c.breaker.probe_fraction = p.real("breaker_probe_fraction");
    c.ewma_half_life_s = p.real("ewma_half_life_s");
    c.validate();
    return c;
}

fleet::FleetConfig fleetConfigFromParams(const Params& p) {
    fleet::FleetConfig c;
    for (int e = 0; e < kEngines; ++e) {
        const std::string k(kEngineNames[static_cast<std::size_t>(e)]);
        fleet::EngineModel m;
        m.name = k;
        m.latency.body = {p.real(k + "_median_ms"), p.real(k + "_sigma")};
        m.latency.slow_probability = p.real(k + "_slow_probability");
        m.latency.slow = {p.real(k + "_slow_median_ms"), p.real(k + "_slow_sigma")};
        m.invalid_rate = p.real(k + "_invalid_rate");
        c.engines.push_back(m);
    }
    c.correlation = p.real("engine_correlation");
    c.slow_multiplier = p.real("slow_multiplier");
    c.fault_multiplier = p.real("fault_multiplier");
    c.cold_egress = p.choiceIndex("egress") == 1;
    c.class_variability = p.real("class_variability");
    c.cold_connect = {p.real("cold_connect_median_ms"), p.real("cold_connect_sigma")};
    c.egress_ips = p.integer("egress_ips");
    c.ip_rate_per_s = p.real("egress_ip_rate_per_s");
    c.ip_burst = p.real("egress_ip_burst");
    return c;
}

}  // namespace taillab::gateway

namespace taillab::gateway {

const std::vector<std::string>& fixedRunKnobs() {
    static const std::vector<std::string> knobs{"days", "start_day", "customers", "instances",
                                                "gateway_compute", "providers", "balancing",
                                                "standby",
                                                "l1_entries", "window_s", "probes", "egress_ips",
                                                "load_multiplier", "agent_share", "unknown_key_rate"};
    return knobs;
}

void checkRunChange(const Params& from, const Params& to) {
    static const std::vector<std::string> workload{"load_multiplier", "agent_share", "unknown_key_rate"};
    for (const std::string& k : fixedRunKnobs()) {
        if (to.real(k) == from.real(k)) continue;
        if (std::find(workload.begin(), workload.end(), k) != workload.end())
            throw std::invalid_argument(
                "the workload (load_multiplier, agent_share, unknown_key_rate) cannot change during a run");
        throw std::invalid_argument(k + " cannot change during a run");
    }
}

void checkKnobChanges(const Params& params, const Timeline& timeline, const Workload& workload) {
    Params p = params;
    for (const TimelineEvent& e : timeline.events) {
        if (e.set.empty()) continue;
        try {
            for (const KnobSetting& k : e.set) p.set(k.key, k.value);
            checkRunChange(params, p);
            (void)gatewayConfigFromParams(p, workload);
            (void)fleetConfigFromParams(p);
        } catch (const TimelineError&) {
            throw;
        } catch (const std::invalid_argument& x) {
            throw TimelineError(e.path.empty() ? "/timeline" : e.path, x.what());
        }
    }
}

namespace {

std::string knobValueText(const Params& p, const KnobSpec& k) {
    switch (k.kind) {
        case KnobKind::Choice: return p.choice(k.key);
        case KnobKind::Boolean: return p.flag(k.key) ? "on" : "off";
        default: return formatNumber(p.real(k.key));
    }
}

}  // namespace

std::string knobChangeText(const Params& from, const Params& to, const std::vector<std::string>& keys) {
    std::string what;
    for (const std::string& key : keys) {
        const KnobSpec* spec = to.spec(key);
        if (!spec) throw std::invalid_argument("unknown knob '" + key + "'");
        if (!what.empty()) what += ", ";
        what += key + " " + knobValueText(from, *spec) + " -> " + knobValueText(to, *spec);
    }
    return what;
}

std::string knobChangeText(const Params& from, const Params& to, const TimelineEvent& change) {
    if (change.label != defaultLabel(change, to.specs())) return change.label;
    std::vector<std::string> keys;
    for (const KnobSetting& k : change.set) keys.push_back(k.key);
    return knobChangeText(from, to, keys);
}

std::vector<KnobStep> knobSteps(const Params& from, const Params& to, const std::vector<std::string>& keys) {
    std::vector<KnobStep> steps;
    for (const std::string& key : keys) steps.push_back(KnobStep{key, from.real(key), to.real(key)});
    return steps;
}

std::vector<KnobStep> knobSteps(const Params& from, const Params& to, const TimelineEvent& change) {
    if (change.label != defaultLabel(change, to.specs())) return {};
    std::vector<std::string> keys;
    for (const KnobSetting& k : change.set) keys.push_back(k.key);
    return knobSteps(from, to, keys);
}

std::vector<std::string> changedKnobs(const Params& from, const Params& to) {
    std::vector<std::string> keys;
    for (const KnobSpec& k : to.specs())
        if (from.real(k.key) != to.real(k.key)) keys.push_back(k.key);
    return keys;
}

}  // namespace taillab::gateway
