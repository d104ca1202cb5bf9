// The simulation driver: a discrete-event loop on a virtual clock that feeds the Gateway arrivals
// from the Workload, answers from the simulated Fleet (each engine serving at most
// `engine_capacity` calls at once per region; more wait in its queue), and the gateway's own
// timers; it charges the modelled cost of every stage when the gateway asks its clock.
#include "gateway_sim/gateway_sim.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <future>
#include <optional>
#include <unordered_map>
#include <utility>
#include <stdexcept>

#include "fleet/fleet.h"
#include "gateway/gateway.h"
#include "gateway_sim/query_preanalysis.h"
#include "gateway_sim/sim_config.h"
#include "gateway_sim/surges.h"
#include "sim/distributions.h"
#include "sim/event_queue.h"

namespace taillab::gateway {
// The simulation's events, in a namespace of their own rather than an anonymous one:
// GatewaySim::Impl (declared in the header, so not internal) holds a queue of them.
namespace sim_events {

enum class EventType : std::uint8_t { Answer, Hour, Window, Probe, PoolProbe, StandbyStep };

struct Event {
    EventType type;
    std::uint8_t region;  // probes, standby steps
    std::uint32_t index;  // hour, call slot, standby ramp generation
};

}  // namespace sim_events
using sim_events::Event;
using sim_events::EventType;

namespace {

constexpr double kProbeIntervalS = 15;
// Probed balancing (seed 000's v4): a synthetic search into every zone of every provider of a
// region each 5 s; a zone failing two in a row takes no traffic until it passes three.
constexpr double kPoolProbeIntervalS = 5;
constexpr int kFailAfter = 2, kPassAfter = 3;
// A region's breaker opens when less than half its capacity passes its probes, and closes when
// three quarters pass again.
constexpr double kRegionOpenBelow = 0.5, kRegionCloseAt = 0.75;
constexpr int kPools = kProviders * kZones;  // a pool: one provider's CPUs in one zone
constexpr std::uint32_t kPrefetchAhead = 4;  // arrivals whose cache slots are loaded ahead
constexpr std::uint64_t kProbeTrace = std::uint64_t{1} << 63;

// Stage costs: lognormal (median ms, sigma), well inside each stage's budget. A cache hit costs
// edge + gateway + compiler + cache + merge/serialize, about 20 ms end to end (seed 000).
struct CostModel {
    double median, sigma;
};
constexpr std::array<CostModel, kStages> kCost{{{5.0, 0.3},    // edge: TLS, region pin
                                                {0.6, 0.4},    // gateway: auth, bucket, admission
                                                {0.8, 0.4},    // compiler
                                                {0.05, 0.3},   // cache: L1 (L2 adds kL2)
                                                {0.1, 0.3},    // router
                                                {0, 0},        // engines: the upstream calls
                                                {9.0, 0.3}}};  // merge: validate, rank, serialize
constexpr CostModel kL2{1.4, 0.25};
constexpr double kMergeBudgetMs = 12;
constexpr int kL2Row = kStages;
// Extra edge time when an unpinned request spills into another region (one-way, ms).
constexpr std::array<std::array<double, kRegions>, kRegions> kSpillMs{
    {{0, 40, 110}, {40, 0, 80}, {110, 80, 0}}};

// Stage costs are drawn from a table of each stage's lognormal quantiles at 512 evenly spaced
// probabilities (one uniform draw and a lookup instead of a normal draw and an exp; the costs are
// a few ms inside their budgets, where 1/512 steps in probability are invisible), in units of
// 0.5 µs: 9 KB in all, which stays in the first-level cache beside everything else a request
// touches. Merge is capped
// at its 12 ms budget (seed 000: "the one stage that has never been near it"): the deadline keeps
// margin + merge reserve = 22 ms for it after the engines' cutoff, so no answer is late.
constexpr int kCostLevels = 512;
constexpr int kCostLevelShift = 55;  // 64 - log2(kCostLevels)
constexpr std::int64_t kCostUnitNs = 500;
struct CostTable {
    // 16-bit half-microseconds: the largest cost, the edge's top quantile, is about 13 ms.
    std::array<std::array<std::uint16_t, kCostLevels>, kStages + 1> units{};  // + 1: the L2 lookup
    CostTable() {
        for (int s = 0; s <= kStages; ++s) {
            const CostModel m = s < kStages ? kCost[static_cast<std::size_t>(s)] : kL2;
            for (int i = 0; i < kCostLevels; ++i) {
                const double z = normalQuantile((i + 0.5) / kCostLevels);
                double ms = m.median * std::exp(m.sigma * z);
                if (s == static_cast<int>(Stage::Merge)) ms = std::min(ms, kMergeBudgetMs);
                units[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)] =
                    static_cast<std::uint16_t>(std::min<std::int64_t>(
                        0xffff, (fromMs(ms).count() + kCostUnitNs / 2) / kCostUnitNs));
            }
        }
    }
};
const CostTable& costTable() {
    static const CostTable table;
    return table;
}

}  // namespace

struct GatewaySim::Impl final : Port {
    Impl(const Params& p, std::uint64_t s, const Timeline& t, Time start)
        : params(p), initial(p), seed(s), workload(p, s), workloadOdd(p, s), fleet(fleetConfigFromParams(p), s),
          gateway(gatewayConfigFromParams(p, workload), s, *this),
          preanalysis(gateway.config().compile_memo_entries), timeline(t) {
        end = workload.end();
        if (start < kZero || start >= end) throw std::invalid_argument("the start lies outside the run");
        drawAhead(static_cast<int>(toSeconds(start) / 3600));
        now = start;
        window = fromSeconds(p.real("window_s"));
        probes = p.flag("probes");
        capacity = p.integer("engine_capacity");
        compute = p.flag("gateway_compute");
        providerNames = gateway::providerNames(p);
        engineBusy.assign(static_cast<std::size_t>(kRegions * kEngines), 0);
        waiting.resize(engineBusy.size());
        queue.reserve(1 << 16);
        // The hour the run starts in; a start within it skips the arrivals before it.
        queue.schedule(start, Event{EventType::Hour, 0, static_cast<std::uint32_t>(toSeconds(start) / 3600)});
        queue.schedule(start + window, Event{EventType::Window, 0, 0});
        gateway.metrics().openFirstWindow(start);
        if (probes) {
            for (int g = 0; g < kRegions; ++g)
                queue.schedule(start + fromSeconds(kProbeIntervalS * (g + 1) / kRegions),
                               Event{EventType::Probe, static_cast<std::uint8_t>(g), 0});
        }
        balancing = compute && p.choiceIndex("balancing") == 1;
        if (balancing) {
            for (int g = 0; g < kRegions; ++g)
                queue.schedule(start + fromSeconds(kPoolProbeIntervalS * (g + 1) / kRegions),
                               Event{EventType::PoolProbe, static_cast<std::uint8_t>(g), 0});
        }
        prepareTimeline();
        if (compute) {
            for (int g = 0; g < kRegions; ++g) {
                regions[static_cast<std::size_t>(g)].standbyOnline = standbyTarget(g);
                if (standbyTarget(g) > 0)
                    gateway.metrics().onHealth(now, HealthKind::Standby, static_cast<Region>(g),
                                               kStandbyProvider, HealthState::Serving);
            }
        }
        sizeCpus();
    }

    // ---- the timeline ----------------------------------------------------------------------
    // Each event becomes actions at its times: a knob change one, a fault a start and an end (its
    // `until`, or the end of the run). Every event is checked here, before anything runs: a knob
    // change against the knobs that will be in force when it applies, a fault's names against
    // the fleet.
    struct Action {
        Time at;
        enum Kind : std::uint8_t { Set, Start, End, Phase } kind;
        std::uint32_t event;
    };
    using Resolved = FaultScope;

    static TimelineError errorAt(const TimelineEvent& e, const std::string& message) {
        return TimelineError(e.path.empty() ? "/timeline" : e.path, message);
    }

    Resolved resolve(const TimelineEvent& e) const {
        try {
            return faultScope(e.fault->target, params.integer("egress_ips"), providerNames);
        } catch (const std::invalid_argument& x) {
            throw errorAt(e, x.what());
        }
    }

    Params withSettings(Params p, const TimelineEvent& e) const {
        for (const KnobSetting& k : e.set) p.set(k.key, k.value);
        return p;
    }

    void prepareTimeline() {
        actions.clear();
        nextAction = 0;
        checkKnobChanges(params, timeline, workload);
        for (std::uint32_t i = 0; i < timeline.events.size(); ++i) {
            const TimelineEvent& e = timeline.events[i];
            const Time at = fromSeconds(e.at_s);
            if (!e.set.empty()) actions.push_back(Action{at, Action::Set, i});
            if (e.fault) {
                (void)resolve(e);
                actions.push_back(Action{at, Action::Start, i});
                actions.push_back(Action{e.until_s ? fromSeconds(*e.until_s) : end, Action::End, i});
            }
            if (!e.phase.empty()) actions.push_back(Action{at, Action::Phase, i});
        }
        surges = Surges(timeline, seed, static_cast<int>(params.integer("egress_ips")), end);
        // In time order; at equal times, in the timeline's order (an event's end never shares a
        // time with its start).
        std::stable_sort(actions.begin(), actions.end(), [](const Action& a, const Action& b) {
            return a.at != b.at ? a.at < b.at : a.event < b.event;
        });
    }

    // New knobs from now on, marked on the timeline: by the event's own label when it was given
    // one, else as "knob old -> new" for each knob that changes.
    void applyKnobs(const Params& p, const TimelineEvent& e) {
        checkRunChange(params, p);
        const GatewayConfig gc = gatewayConfigFromParams(p, workload);  // validates first
        gateway.metrics().addMark(TimelineMark{toSeconds(now), std::nullopt, MarkKind::Knob,
                                               knobChangeText(params, p, e), {}, knobSteps(params, p, e)});
        gateway.reconfigure(now, gc);
        fleet.setConfig(fleetConfigFromParams(p));
        capacity = p.integer("engine_capacity");
        launchWaiting();
        params = p;
        sizeCpus();
        if (compute)
            for (int g = 0; g < kRegions; ++g) {
                const RegionCompute& rc = regions[static_cast<std::size_t>(g)];
                // A new target, or a ramp to restart at the new pace.
                if (standbyTarget(g) != rc.standbyOnline) retargetStandby(g);
                updateRegionBreaker(g, healthyShare(g));  // region_breakers on or off
            }
    }

    void apply(const Action& a) {
        const TimelineEvent& e = timeline.events[a.event];
        if (a.kind == Action::Set) {
            // Over the knobs in force: an edit made before it (checked when made) may make this
            // change one that cannot be made; it is then marked as not applied and the run goes
            // on, as in live mode (core/live/gateway_server.cpp).
            const Params p = withSettings(params, e);
            try {
                return applyKnobs(p, e);
            } catch (const std::invalid_argument& x) {
                gateway.metrics().addMark(TimelineMark{toSeconds(now), std::nullopt, MarkKind::Knob,
                                                       "not applied: " + knobChangeText(params, p, e) + " (" + x.what() + ")", {}, {}});
                return;
            }
        }
        if (a.kind == Action::Phase) {
            gateway.metrics().addMark(TimelineMark{e.at_s, timeline.phaseEnd(a.event, toSeconds(end)),
                                                   MarkKind::Phase, e.label, e.phase, {}});
            return;
        }
        const Fault& f = *e.fault;
        const Resolved r = resolve(e);
        const bool start = a.kind == Action::Start;
        if (start)
            gateway.metrics().addMark(TimelineMark{
                e.at_s, e.until_s ? *e.until_s : toSeconds(end), MarkKind::Fault, e.label, {}, {}});
        switch (f.effect) {
            case FaultEffect::Surge: return;  // shapes the arrivals of the hours it covers
            case FaultEffect::CapacityLost: {
                auto& faults = r.compute() ? computeFaults : capacityFaults;
                if (start) {
                    faults.push_back(CapacityFault{a.event, r.engine, r.region, f.share, r.provider, r.zone});
                } else {
                    std::erase_if(faults, [&](const CapacityFault& c) { return c.event == a.event; });
                }
                if (r.compute()) sizeCpus();
                else if (!start) launchWaiting();
                return;
            }
            default: break;
        }
        if (!start) return fleet.removeFault(a.event);
        if (const auto c = callFaultOf(f, r)) fleet.addFault(a.event, *c);
    }

    // Calls one engine serves at once in one region now.
    int limitOf(Region region, int engine) const {
        return capacityFaults.empty() ? capacity : capacityOf(region, engine);
    }

    // Calls one engine serves at once in one region, after any capacity it has lost.
    int capacityOf(Region region, int engine) const {
        double c = capacity;
        for (const CapacityFault& f : capacityFaults)
            if ((f.engine < 0 || f.engine == engine) && (!f.region || *f.region == region))
                c *= 1 - f.share;
        return static_cast<int>(std::floor(c + 1e-9));
    }

    // ---- gateway compute --------------------------------------------------------------------
    // Each region's CPUs sit in pools, one per provider and zone: its regular CPUs spread over
    // the layout's providers and three zones each, the standby CPUs on provider B (those
    // serving), apportioned to whole CPUs. A capacity_lost fault on a provider or zone takes
    // CPUs from its pools without the balancer noticing (a gray failure: the hosts still
    // accept connections, so TCP health checks pass); only probed balancing sees it, when
    // the pool's synthetic searches fail. Work goes to the pool the balancer picks for the
    // request, first come, first served on its first CPU to come free.
    struct Pool {
        std::vector<Time> free;  // min-heap of the CPUs' free times; size: the CPUs working
        int configured = 0;      // CPUs the balancer counts (before faults)
        int fails = 0, passes = 0;  // consecutive probe results
        bool failing = false;
    };
    struct RegionCompute {
        std::array<Pool, kPools> pools;
        std::array<double, kPools> cumulative{};  // the balancer's weights, summed in pool order
        int standbyOnline = 0;      // standby CPUs serving
        bool engaged = false;       // warm standby: a zone of the region fails its probes
        bool open = false;          // the region's breaker
        std::uint32_t ramp = 0;     // generation of the standby ramp in progress
        bool ramping = false;
    };

    static int poolOf(int provider, int zone) { return provider * kZones + zone; }

    double kept(Region region, int provider, int zone) const {
        double k = 1;
        for (const CapacityFault& f : computeFaults)
            if ((!f.region || *f.region == region) && (!f.provider || *f.provider == provider) &&
                (!f.zone || *f.zone == zone))
                k *= 1 - f.share;
        return k;
    }

    // The standby CPUs a region should have serving now: cold, all of standby_cpus in the
    // regions standby_region names; warm, all of them while a zone fails its probes, else none.
    int standbyTarget(int g) const {
        const int n = static_cast<int>(params.integer("standby_cpus"));
        if (params.choiceIndex("standby") == 0) {
            const int only = params.choiceIndex("standby_region");  // 0: every region
            return only == 0 || only - 1 == g ? n : 0;
        }
        return regions[static_cast<std::size_t>(g)].engaged ? n : 0;
    }

    // Whole CPUs per pool: the real counts floored, the remainder to the largest fractions (so a
    // region's total is its rounded count, and one CPU is not lost to rounding in three zones).
    static std::array<int, kPools> apportion(const std::array<double, kPools>& x) {
        std::array<int, kPools> n{};
        double total = 0, floors = 0;
        std::array<double, kPools> frac{};
        for (int i = 0; i < kPools; ++i) {
            total += x[static_cast<std::size_t>(i)];
            n[static_cast<std::size_t>(i)] = static_cast<int>(std::floor(x[static_cast<std::size_t>(i)] + 1e-9));
            floors += n[static_cast<std::size_t>(i)];
            frac[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(i)] - n[static_cast<std::size_t>(i)];
        }
        int left = static_cast<int>(std::floor(total + 0.5 - floors));
        while (left-- > 0) {
            int best = -1;
            for (int i = 0; i < kPools; ++i)
                if (frac[static_cast<std::size_t>(i)] > 1e-9 &&
                    (best < 0 || frac[static_cast<std::size_t>(i)] > frac[static_cast<std::size_t>(best)]))
                    best = i;
            if (best < 0) break;
            ++n[static_cast<std::size_t>(best)];
            frac[static_cast<std::size_t>(best)] = 0;
        }
        return n;
    }

    // Brings every pool to its CPUs now and the balancer to its weights. Work already handed to
    // a CPU keeps its place; a pool that loses CPUs keeps the ones that free up first (the work
    // queued on the lost ones finishes as if they had stayed: a simplification).
    void sizeCpus() {
        if (!compute) return;
        const std::array<double, kProviders> shares = providerShares(params);
        const double cpus = static_cast<double>(params.integer("gateway_cpus"));
        for (int g = 0; g < kRegions; ++g) {
            RegionCompute& rc = regions[static_cast<std::size_t>(g)];
            const Region region = static_cast<Region>(g);
            std::array<double, kPools> regular{};
            for (int pr = 0; pr < kProviders; ++pr)
                for (int z = 0; z < kZones; ++z)
                    regular[static_cast<std::size_t>(poolOf(pr, z))] = cpus * shares[static_cast<std::size_t>(pr)] / kZones;
            const std::array<int, kPools> base = apportion(regular);
            // A cold standby's CPUs run instances of their own: they serve its share of the
            // region's requests (the balancer weighs pools by CPUs), starting with empty caches.
            if (params.choiceIndex("standby") == 0) {
                int regularCpus = 0;
                for (int n : base) regularCpus += n;
                const int all = regularCpus + rc.standbyOnline;
                gateway.setStandbyShare(region, all > 0 ? static_cast<double>(rc.standbyOnline) / all : 0.0);
            }
            for (int pr = 0; pr < kProviders; ++pr) {
                for (int z = 0; z < kZones; ++z) {
                    const auto i = static_cast<std::size_t>(poolOf(pr, z));
                    // Standby CPU k serves in zone k mod 3.
                    const int standby = pr == kStandbyProvider
                                            ? rc.standbyOnline / kZones + (z < rc.standbyOnline % kZones)
                                            : 0;
                    Pool& pool = rc.pools[i];
                    pool.configured = base[i] + standby;
                    const auto n = static_cast<std::size_t>(
                        std::floor(pool.configured * kept(region, pr, z) + 1e-9));
                    std::vector<Time>& heap = pool.free;
                    std::sort_heap(heap.begin(), heap.end(), std::greater<>());  // latest first
                    std::reverse(heap.begin(), heap.end());                        // earliest first
                    if (heap.size() > n) heap.resize(n);
                    while (heap.size() < n) heap.push_back(now);
                    std::make_heap(heap.begin(), heap.end(), std::greater<>());
                }
            }
        }
        reweigh();
    }

    // The balancer's weights. Static: each pool by its CPUs as configured. Probed: pools failing
    // their probes get none, and no provider takes more than provider_cap of the region (the
    // excess goes to the others in proportion, as far as they have healthy pools; when too few
    // providers are left for the cap to hold, they share evenly above it). A region with no
    // healthy pool falls back to the static weights: nowhere is better.
    void reweigh() {
        const double cap = params.real("provider_cap");
        for (RegionCompute& rc : regions) {
            std::array<double, kPools> w{};
            double total = 0;
            for (int i = 0; i < kPools; ++i) {
                const Pool& pool = rc.pools[static_cast<std::size_t>(i)];
                w[static_cast<std::size_t>(i)] = balancing && pool.failing ? 0 : pool.configured;
                total += w[static_cast<std::size_t>(i)];
            }
            if (total <= 0) {
                for (int i = 0; i < kPools; ++i) w[static_cast<std::size_t>(i)] = rc.pools[static_cast<std::size_t>(i)].configured;
            } else if (balancing && cap < 1) {
                std::array<double, kProviders> have{}, share{};
                for (int i = 0; i < kPools; ++i) have[static_cast<std::size_t>(i / kZones)] += w[static_cast<std::size_t>(i)];
                double sum = 0;
                for (double h : have) sum += h;
                for (int pr = 0; pr < kProviders; ++pr) share[static_cast<std::size_t>(pr)] = have[static_cast<std::size_t>(pr)] / sum;
                // Water-filling: cap the largest, spread the excess over the uncapped.
                std::array<bool, kProviders> capped{};
                for (int round = 0; round < kProviders; ++round) {
                    double excess = 0, room = 0;
                    for (int pr = 0; pr < kProviders; ++pr) {
                        const auto q = static_cast<std::size_t>(pr);
                        if (!capped[q] && share[q] > cap + 1e-12) {
                            excess += share[q] - cap;
                            share[q] = cap;
                            capped[q] = true;
                        }
                    }
                    for (int pr = 0; pr < kProviders; ++pr)
                        if (!capped[static_cast<std::size_t>(pr)] && have[static_cast<std::size_t>(pr)] > 0)
                            room += share[static_cast<std::size_t>(pr)];
                    if (excess <= 0) break;
                    if (room <= 0) {  // the cap cannot hold: the capped share the excess evenly
                        int n = 0;
                        for (int pr = 0; pr < kProviders; ++pr) n += have[static_cast<std::size_t>(pr)] > 0;
                        for (int pr = 0; pr < kProviders; ++pr)
                            if (have[static_cast<std::size_t>(pr)] > 0) share[static_cast<std::size_t>(pr)] += excess / n;
                        break;
                    }
                    for (int pr = 0; pr < kProviders; ++pr)
                        if (!capped[static_cast<std::size_t>(pr)] && have[static_cast<std::size_t>(pr)] > 0)
                            share[static_cast<std::size_t>(pr)] += excess * share[static_cast<std::size_t>(pr)] / room;
                }
                for (int i = 0; i < kPools; ++i) {
                    const auto pr = static_cast<std::size_t>(i / kZones);
                    if (have[pr] > 0) w[static_cast<std::size_t>(i)] *= share[pr] / have[pr];
                }
            }
            double run = 0;
            for (int i = 0; i < kPools; ++i) rc.cumulative[static_cast<std::size_t>(i)] = run += w[static_cast<std::size_t>(i)];
        }
    }

    // The pool the balancer sends this request's work in `region` to: a draw keyed by (seed,
    // trace), so the same request goes the same way in runs with other knobs while the weights
    // are the same. Pool probes go where they were sent.
    int pickPool(Region region, std::uint64_t trace) const {
        if ((trace & kProbeTrace) != 0) {
            const auto it = probePools.find(trace);
            if (it != probePools.end()) return it->second;
        }
        const RegionCompute& rc = regions[static_cast<std::size_t>(region)];
        const double total = rc.cumulative.back();
        if (total <= 0) return -1;
        const double u = static_cast<double>(mix64(seedKey ^ (trace * 0x94D049BB133111EBULL) ^ 0x706f6f6cULL) >> 11) * 0x1p-53;  // "pool"
        const double x = u * total;
        for (int i = 0; i < kPools; ++i)
            if (x < rc.cumulative[static_cast<std::size_t>(i)]) return i;
        return kPools - 1;
    }

    // When `cpu` of stage work handed over at `start` ends: on the pool's first CPU to come
    // free. A pool with no CPU left never does the work: an hour later, past every deadline.
    Time onCpu(Region region, int pool, Time start, Duration cpu) {
        if (pool < 0) return start + std::chrono::hours(1);
        std::vector<Time>& heap = regions[static_cast<std::size_t>(region)].pools[static_cast<std::size_t>(pool)].free;
        if (heap.empty()) return start + std::chrono::hours(1);
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        const Time end = std::max(start, heap.back()) + cpu;
        heap.back() = end;
        std::push_heap(heap.begin(), heap.end(), std::greater<>());
        return end;
    }

    // ---- health: pool probes, region breakers, standby ---------------------------------------
    void sendPoolProbes(int g) {
        const RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        for (int i = 0; i < kPools; ++i) {
            if (rc.pools[static_cast<std::size_t>(i)].configured == 0) continue;
            Request probe;
            probe.trace = kProbeTrace | (std::uint64_t{1} << 62) | poolProbeCount;
            probe.api_key = kProbeKeys[static_cast<std::size_t>(g)];
            probe.query = kProbeQueries[poolProbeCount % kProbeQueries.size()];
            probe.region_pin = static_cast<Region>(g);
            ++poolProbeCount;
            probePools.emplace(probe.trace, i);
            gateway.onRequest(now, probe);
        }
    }

    void onPoolProbe(std::uint64_t trace, Region region, bool ok) {
        const auto it = probePools.find(trace);
        if (it == probePools.end()) return;
        const int i = it->second;
        probePools.erase(it);
        const int g = static_cast<int>(region);
        RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        Pool& pool = rc.pools[static_cast<std::size_t>(i)];
        if (ok) {
            pool.fails = 0;
            ++pool.passes;
        } else {
            pool.passes = 0;
            ++pool.fails;
        }
        const bool was = pool.failing;
        if (!pool.failing && pool.fails >= kFailAfter) pool.failing = true;
        if (pool.failing && pool.passes >= kPassAfter) pool.failing = false;
        if (pool.failing != was) healthChanged(g, i / kZones);
    }

    // After a pool's probe state changed: the balancer, the provider's probe span, the region's
    // breaker and its warm standby.
    void healthChanged(int g, int provider) {
        RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        const Region region = static_cast<Region>(g);
        bool providerFailing = false, anyFailing = false;
        for (int i = 0; i < kPools; ++i) {
            const Pool& pool = rc.pools[static_cast<std::size_t>(i)];
            if (pool.failing && i / kZones == provider) providerFailing = true;
            anyFailing = anyFailing || pool.failing;
        }
        gateway.metrics().onHealth(now, HealthKind::Probe, region, provider,
                                   providerFailing ? std::optional(HealthState::Failing) : std::nullopt);
        updateRegionBreaker(g, healthyShare(g));
        if (params.choiceIndex("standby") == 1 && anyFailing != rc.engaged) {
            rc.engaged = anyFailing;
            retargetStandby(g);
        }
        reweigh();
    }

    // A region's breaker, from the share of its CPUs that pass their probes. With region_breakers
    // off it is closed: switched off while open, it closes then, not never.
    void updateRegionBreaker(int g, double healthyShare) {
        RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        const bool open = params.flag("region_breakers") &&
                          (rc.open ? healthyShare < kRegionCloseAt : healthyShare < kRegionOpenBelow);
        if (open == rc.open) return;
        rc.open = open;
        const Region region = static_cast<Region>(g);
        gateway.setRegionOpen(region, open);
        gateway.metrics().onHealth(now, HealthKind::RegionBreaker, region, -1,
                                   open ? std::optional(HealthState::Open) : std::nullopt);
    }

    double healthyShare(int g) const {
        const RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        double all = 0, healthy = 0;
        for (const Pool& pool : rc.pools) {
            all += pool.configured;
            if (!pool.failing) healthy += pool.configured;
        }
        return all > 0 ? healthy / all : 1;
    }

    // Moves a region's serving standby CPUs toward their target: down at once, up one at a time
    // over the ramp. Its strip reads "starting" for the whole ramp, while some of the CPUs it
    // was asked for are not online yet (each that is serves at once), and "serving" once all
    // are: July's 69 cold CPUs started at 08:10 and were all online at 08:22 (july-v3's notes).
    // The states are notes; the CPUs that serve are the same either way.
    void retargetStandby(int g) {
        RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        const Region region = static_cast<Region>(g);
        const int target = standbyTarget(g);
        ++rc.ramp;
        rc.ramping = false;
        if (target <= rc.standbyOnline) {
            rc.standbyOnline = target;
            gateway.metrics().onHealth(now, HealthKind::Standby, region, kStandbyProvider,
                                       target > 0 ? std::optional(HealthState::Serving) : std::nullopt);
            sizeCpus();
            return;
        }
        const double ramp = params.real("standby_ramp_s");
        if (ramp <= 0) {
            rc.standbyOnline = target;
            gateway.metrics().onHealth(now, HealthKind::Standby, region, kStandbyProvider, HealthState::Serving);
            sizeCpus();
            return;
        }
        gateway.metrics().onHealth(now, HealthKind::Standby, region, kStandbyProvider, HealthState::Starting);
        rc.ramping = true;
        rampStep[static_cast<std::size_t>(g)] = fromSeconds(ramp / (target - rc.standbyOnline));
        queue.schedule(now + rampStep[static_cast<std::size_t>(g)],
                       Event{EventType::StandbyStep, static_cast<std::uint8_t>(g), rc.ramp});
    }

    void standbyStep(int g, std::uint32_t generation) {
        RegionCompute& rc = regions[static_cast<std::size_t>(g)];
        if (generation != rc.ramp || !rc.ramping) return;
        const int target = standbyTarget(g);
        if (rc.standbyOnline >= target) return;
        ++rc.standbyOnline;
        sizeCpus();
        if (rc.standbyOnline < target) {
            queue.schedule(now + rampStep[static_cast<std::size_t>(g)],
                           Event{EventType::StandbyStep, static_cast<std::uint8_t>(g), generation});
        } else {
            rc.ramping = false;
            gateway.metrics().onHealth(now, HealthKind::Standby, static_cast<Region>(g), kStandbyProvider,
                                       HealthState::Serving);
        }
    }

    // ---- Port ----------------------------------------------------------------------------
    Time stageEnd(Time start, const StageWork& w) override {
        if (w.stage == Stage::Engines) return start;
        // chargeStageCosts: what a live gateway measured, all of the stage's time (it has no
        // modelled spill).
        if (chargedCosts) [[unlikely]]
            return stageDone(start, w, (*chargedCosts)[static_cast<std::size_t>(w.stage)], Duration{});
        const std::uint64_t purpose = static_cast<std::uint64_t>(w.stage) |
                                      (w.background ? 8u : 0u) | (w.shared_answer ? 16u : 0u);
        // One mix per draw, keyed by (seed, trace, purpose): the draws of a request's stages do
        // not depend on any other request's.
        const std::uint64_t key = seedKey ^ (w.trace * 0xD1B54A32D192ED03ULL) ^ (purpose << 56);
        auto level = [&](std::uint64_t i) {
            return static_cast<std::size_t>(mix64(key + i * 0x9E3779B97F4A7C15ULL) >> kCostLevelShift);
        };
        const CostTable& t = costTable();
        std::int64_t units = 0;
        if (w.shared_answer) {
            units = t.units[kL2Row][level(0)];  // a waiter on another instance reads it from L2
        } else {
            units = t.units[static_cast<std::size_t>(w.stage)][level(0)];
            if (w.l2) units += t.units[kL2Row][level(1)];
        }
        const Duration cpu{units * kCostUnitNs};
        // The trip to another region is network time, not a CPU's.
        const Duration spill = w.spilled_from ? fromMs(kSpillMs[static_cast<std::size_t>(*w.spilled_from)]
                                                               [static_cast<std::size_t>(w.region)])
                                              : Duration{};
        return stageDone(start, w, cpu, spill);
    }
    // A stage's end, given its CPU time and its network time: the CPU's queue when the run models
    // the gateway's CPUs.
    Time stageDone(Time start, const StageWork& w, Duration cpu, Duration spill) {
        Time done = start + cpu;
        if (compute) {
            const int pool = pickPool(w.region, w.trace);
            if (w.stage == Stage::Edge && (w.trace & kProbeTrace) == 0 && pool >= 0)
                gateway.metrics().countProvider(pool / kZones);
            done = onCpu(w.region, pool, start, cpu);
        }
        done += spill;
        if (observer.stage) observer.stage(w, start, done);
        return done;
    }

    void startCall(const UpstreamCall& call) override {
        if (call.id.slot >= calls.size()) calls.resize(call.id.slot + 1);
        CallState& c = calls[call.id.slot];
        c = CallState{};
        c.call = call;
        c.call.query = {};  // the text is only valid during this call; the fleet keys by cache key
        c.live = true;
        int& busy = engineBusy[slot(call.region, call.engine)];
        if (busy >= limitOf(call.region, call.engine)) {
            c.queued = true;
            waiting[slot(call.region, call.engine)].push_back(call.id);
            if (observer.queued) observer.queued(c.call, call.at);
            return;
        }
        ++busy;
        launch(call.id.slot, call.at);
    }

    void cancelCall(CallId id) override {
        CallState& c = calls[id.slot];
        if (!c.live || c.call.id.generation != id.generation) return;
        c.live = false;
        if (observer.cancelled) observer.cancelled(c.call, now);
        if (c.queued) return;  // skipped when its turn comes
        queue.cancel(c.event);
        release(c.call.region, c.call.engine);
    }

    void note(const RequestNote& n) override {
        if (observer.note) observer.note(n);
    }

    void respond(const Response& r) override {
        if (r.probe && balancing) onPoolProbe(r.trace, r.region, r.outcome == Outcome::Ok);
        if (observer.response) observer.response(r);
    }

    // ---- the fleet's side ------------------------------------------------------------------
    static std::size_t slot(Region region, int engine) {
        return static_cast<std::size_t>(static_cast<int>(region) * kEngines + engine);
    }

    void launch(std::uint32_t callSlot, Time at) {
        CallState& c = calls[callSlot];
        c.queued = false;
        c.answer = fleet.answer(c.call, at);
        if (observer.call) observer.call(c.call, c.answer.latency);
        if (observer.launched) observer.launched(c.call, at, c.answer.latency);
        if (observer.answer) observer.answer(c.call, c.answer.failure);
        c.event = queue.schedule(at + c.answer.latency, Event{EventType::Answer, 0, callSlot});
    }

    void release(Region region, int engine) {
        auto& w = waiting[slot(region, engine)];
        // After a capacity loss (a fault, or engine_capacity lowered), a finished call frees no
        // place until the engine is under its new capacity.
        if (engineBusy[slot(region, engine)] > limitOf(region, engine)) {
            --engineBusy[slot(region, engine)];
            return;
        }
        if (!launchNextWaiting(w)) --engineBusy[slot(region, engine)];
    }

    // Launches the first call still waiting in `w`, if any. An entry is skipped when its call
    // was cancelled while it waited, even if the gateway has since reused the call's slot for a
    // new call (launched on its own: the generation tells them apart).
    bool launchNextWaiting(std::deque<CallId>& w) {
        while (!w.empty()) {
            const CallId next = w.front();
            w.pop_front();
            const CallState& c = calls[next.slot];
            if (c.live && c.queued && c.call.id == next) {
                launch(next.slot, now);
                return true;
            }
        }
        return false;
    }

    // After capacity comes back (a capacity fault ends, engine_capacity grows), calls waiting in
    // an engine's queue take the freed places before any new call does.
    void launchWaiting() {
        for (int g = 0; g < kRegions; ++g)
            for (int e = 0; e < kEngines; ++e) {
                const auto region = static_cast<Region>(g);
                const std::size_t i = slot(region, e);
                while (engineBusy[i] < limitOf(region, e) &&
                       launchNextWaiting(waiting[i]))
                    ++engineBusy[i];
            }
    }

    // ---- arrivals, an hour ahead ---------------------------------------------------------
    // Hour h's arrivals are drawn on a thread of their own while hour h - 1 runs, so the event
    // loop does not wait for them (an hour is 10k-20k requests). Every hour draws from its own
    // stream, so they are the same arrivals, in the same order, whichever thread draws them. Two
    // Workloads take turns (even and odd hours): an hour's one-off texts live in the arena of the
    // Workload that drew them, and hour h's must outlast the drawing of hour h + 1. While one
    // draws, this thread reads only what no drawing writes (customers, hour counts).
    Workload& hourWorkload(int h) { return h % 2 == 0 ? workload : workloadOdd; }

    // An hour's arrivals and the analyses of their texts that the gateway's memo will lack
    // (QueryPreanalysis), drawn together on the drawing thread.
    struct Drawn {
        std::vector<RequestSpec> arrivals;
        std::vector<AnalyzedQuery> analyses;
    };
    static void draw(Workload& w, QueryPreanalysis& preanalysis, int h, Drawn& out) {
        out.arrivals.clear();
        w.generateHour(h, out.arrivals);
        preanalysis.annotate(out.arrivals, out.analyses);
    }

    void drawAhead(int h) {
        Drawn out{std::move(spareBuffer), std::move(spareAnalyses)};
        Workload& w = hourWorkload(h);
        ahead = std::async(std::launch::async, [&w, &p = preanalysis, h, out = std::move(out)]() mutable {
            draw(w, p, h, out);
            return std::move(out);
        });
        aheadHour = h;
    }

    // Hour h's arrivals into hourBuffer: the ones drawn ahead, else (never, while hours follow
    // one another) drawn now.
    void takeHour(int h) {
        Drawn done;
        if (aheadHour == h) {
            done = ahead.get();
        } else {
            if (ahead.valid()) done = ahead.get();
            draw(hourWorkload(h), preanalysis, h, done);
        }
        aheadHour = -1;
        spareBuffer = std::exchange(hourBuffer, std::move(done.arrivals));
        spareAnalyses = std::exchange(hourAnalyses, std::move(done.analyses));
    }

    // ---- the event loop --------------------------------------------------------------------
    // Runs every event at or before `target`: the queue's, the gateway's timers, and the
    // arrivals of the current hour, which are already sorted and so stream past the queue instead
    // of through it (an hour holds up to 20k of them). On equal times the queue goes first (so an
    // hour's Hour event loads its arrivals before the first of them runs), then the gateway's
    // timers, then arrivals.
    // Timeline actions apply after every event at or before their time, as a change made by
    // hand at that moment would (advanceTo, then applyParams).
    // After the drain: the last window, at the end of the run (or, when a window already closed
    // there, a cut short run's, at the end of the drain).
    void closeLastWindow() {
        if (!lastWindowDue) return;
        lastWindowDue = false;
        // A run cut short just as a window closed (finishAt on a window's end) has only the
        // drain left: a window of its own at the same end, if anything ended in it.
        if (lastWindowClose == end && gateway.metrics().windowEmpty()) return;
        gateway.closeWindow(end);
        lastWindowClose = end;
    }

    bool runUntil(Time target, RunControl* control) {
        for (;;) {
            const bool haveAction = nextAction < actions.size();
            const Time actionAt = haveAction ? actions[nextAction].at : Time::max();
            if (!runEvents(std::min(target, actionAt), control)) return false;
            if (!haveAction || actionAt > target) return true;
            now = std::max(now, actionAt);
            apply(actions[nextAction++]);
        }
    }

    bool runEvents(Time target, RunControl* control) {
        std::uint32_t sincePoll = 0;
        for (;;) {
            const bool haveEvent = !queue.empty();
            const Time eventAt = queue.nextTimeOr(Time::max());
            // No timer is armed at the end of time (every one is a finite time after a request
            // arrived), so Time::max() stands for none.
            const Time timerAt = gateway.nextTimeoutOr(Time::max());
            const bool haveTimer = timerAt != Time::max();
            const bool haveArrival = nextArrival < hourBuffer.size();
            const Time arrivalAt = haveArrival ? hourBuffer[nextArrival].at : Time::max();
            if (haveEvent && eventAt <= timerAt && eventAt <= arrivalAt) {
                if (eventAt > target) return true;
                step(*queue.pop());
            } else if (haveTimer && timerAt <= arrivalAt) {
                if (timerAt > target) return true;
                now = timerAt;
                ++events;
                gateway.onTimeout(now);
            } else if (haveArrival) {
                if (arrivalAt > target) return true;
                now = arrivalAt;
                ++events;
                // Three stages of hints, each a few arrivals closer: the query's bytes (an
                // hour's texts are spread over megabytes), its hash and memo slot, its analysis
                // and cache slots.
                if (nextArrival + 3 * kPrefetchAhead < hourBuffer.size())
                    __builtin_prefetch(hourBuffer[nextArrival + 3 * kPrefetchAhead].text);
                if (nextArrival + 2 * kPrefetchAhead < hourBuffer.size())
                    gateway.prefetchQuery(hourBuffer[nextArrival + 2 * kPrefetchAhead].query(),
                                          hourBuffer[nextArrival + 2 * kPrefetchAhead].text_hash);
                if (nextArrival + kPrefetchAhead < hourBuffer.size())
                    gateway.prefetch(request(hourBuffer[nextArrival + kPrefetchAhead]));
                const RequestSpec& spec = hourBuffer[nextArrival++];
                if (!surges.empty() && surges.thinnedOut(workload, spec)) continue;
                if (observer.arrival) observer.arrival(spec);
                gateway.onRequest(now, request(spec));
            } else {
                return true;
            }
            if (control && ++sincePoll >= 4096) {
                sincePoll = 0;
                if (!control->checkpoint()) return false;
            }
        }
    }

    Request request(const RequestSpec& spec) const {
        Request r;
        r.trace = spec.trace;
        r.endpoint = static_cast<Endpoint>(spec.endpoint);
        r.query = spec.query();
        r.query_hash = spec.text_hash;
        if (spec.analysis != 0) r.analysis = &hourAnalyses[spec.analysis - 1];
        r.max_results = spec.max_results;
        if (spec.customer == kUnknownCustomer) {
            r.api_key = kUnknownKey;
        } else {
            const Customer& c = workload.customers()[spec.customer];
            r.api_key = c.key;
            r.lang = kLanguages[c.lang];
            if (c.pins) r.region_pin = c.home;
        }
        return r;
    }

    void step(const EventQueue<Event>::Event& ev) {
        now = ev.at;
        ++events;
        const Event& e = ev.payload;
        switch (e.type) {
            case EventType::Answer: {
                CallState& c = calls[e.index];
                if (!c.live) break;
                c.live = false;
                release(c.call.region, c.call.engine);
                gateway.onAnswer(now, c.call.id, c.answer.answer());
                break;
            }
            case EventType::Hour: {
                if (closed) break;
                const int h = static_cast<int>(e.index);
                takeHour(h);
                nextArrival = 0;
                if (h + 1 < workload.hours()) drawAhead(h + 1);
                if (!surges.empty()) surges.addArrivals(hourWorkload(h), h, hourBuffer);
                while (nextArrival < hourBuffer.size() && hourBuffer[nextArrival].at < now) ++nextArrival;
                if (h + 1 < workload.hours())
                    queue.schedule(fromSeconds(3600.0 * (h + 1)),
                                   Event{EventType::Hour, 0, static_cast<std::uint32_t>(h + 1)});
                break;
            }
            case EventType::Window:
                // The window that ends the run closes after the drain (closeLastWindow), with the
                // requests still in the air at the end; a run that is not a whole number of
                // windows ends with a shorter one.
                if (now >= end) {
                    lastWindowDue = true;
                    break;
                }
                gateway.closeWindow(now);
                lastWindowClose = now;
                queue.schedule(std::min(now + window, end), Event{EventType::Window, 0, 0});
                break;
            case EventType::PoolProbe:
                if (closed) break;
                sendPoolProbes(e.region);
                if (now + fromSeconds(kPoolProbeIntervalS) < end)
                    queue.schedule(now + fromSeconds(kPoolProbeIntervalS), ev.payload);
                break;
            case EventType::StandbyStep:
                standbyStep(e.region, e.index);
                break;
            case EventType::Probe: {
                if (closed) break;
                Request probe;
                probe.trace = kProbeTrace | probeCount;
                probe.api_key = kProbeKeys[e.region];
                probe.query = kProbeQueries[probeCount % kProbeQueries.size()];
                probe.region_pin = static_cast<Region>(e.region);
                ++probeCount;
                gateway.onRequest(now, probe);
                if (now + fromSeconds(kProbeIntervalS) < end)
                    queue.schedule(now + fromSeconds(kProbeIntervalS), ev.payload);
                break;
            }
        }
    }

    // A fixed set of navigational queries, as synthetic probes send them.
    static constexpr std::array<std::string_view, 10> kProbeQueries{
        "taillab.dev",      "example.com",      "wikipedia.org", "github.com",  "python.org",
        "kernel.org",       "debian.org",       "qt.io",         "isocpp.org",  "gnu.org"};

    struct CallState {
        UpstreamCall call;
        fleet::FleetAnswer answer;
        TimerId event{};
        bool live = false, queued = false;
    };

    struct CapacityFault {
        std::uint32_t event;
        int engine;
        std::optional<Region> region;
        double share;
        std::optional<int> provider, zone;  // gateway compute
    };

    Params params, initial;
    std::uint64_t seed;
    std::uint64_t seedKey = mix64(seed ^ 0x5374616765436f73ULL);  // "StageCos"
    Workload workload;     // the run's customers and hour counts; draws the even hours
    Workload workloadOdd;  // draws the odd hours
    fleet::Fleet fleet;
    Gateway gateway;
    QueryPreanalysis preanalysis;  // the drawing thread's; outlives `ahead`, which uses it
    EventQueue<Event> queue;
    std::vector<RequestSpec> hourBuffer;
    std::vector<AnalyzedQuery> hourAnalyses;  // hourBuffer's RequestSpec::analysis indexes these
    std::vector<RequestSpec> spareBuffer;     // the hour before's, reused by the next draw
    std::vector<AnalyzedQuery> spareAnalyses;
    std::future<Drawn> ahead;  // the next hour's arrivals, being drawn
    int aheadHour = -1;                           // which hour `ahead` holds; -1: none
    std::size_t nextArrival = 0;
    std::vector<CallState> calls;
    std::vector<int> engineBusy;                     // [region * engines + engine]
    std::vector<std::deque<CallId>> waiting;  // same index
    bool lastWindowDue = false;
    Time lastWindowClose{};
    int capacity = 64;
    std::uint64_t probeCount = 0;
    std::uint64_t events = 0;
    bool probes = true;
    Time now{}, end{};
    bool closed = false;  // finishAt: no more arrivals or probes
    Duration window{};
    Observer observer;
    Timeline timeline;                    // as built: the actions index its events
    std::vector<TimelineEvent> edits;     // applyParams since
    std::optional<Timeline> merged;       // timeline and edits, in order (built on demand)
    std::vector<bool> discarded;          // per timeline event: dropped before it applied
    std::vector<Action> actions;
    std::size_t nextAction = 0;
    Surges surges;  // the timeline's traffic surges
    std::vector<CapacityFault> capacityFaults;  // of the engines' call capacity
    std::vector<CapacityFault> computeFaults;   // of the gateway's CPUs
    bool compute = false;
    // chargeStageCosts: each stage's fixed cost instead of the model.
    std::optional<std::array<Duration, kStages>> chargedCosts;
    bool balancing = false;  // probed balancing (pool probes)
    std::vector<std::string> providerNames;
    std::array<RegionCompute, kRegions> regions;
    std::array<Duration, kRegions> rampStep{};
    std::unordered_map<std::uint64_t, int> probePools;  // pool probes in flight: trace -> pool
    std::uint64_t poolProbeCount = 0;
};

GatewaySim::GatewaySim(const Params& params, std::uint64_t seed, const Timeline& timeline, double start_s)
    : impl_(std::make_unique<Impl>(params, seed, timeline, fromSeconds(start_s))) {}
GatewaySim::~GatewaySim() = default;

double GatewaySim::now_s() const { return toSeconds(impl_->now); }
double GatewaySim::end_s() const { return toSeconds(impl_->end); }
bool GatewaySim::finished() const { return impl_->now >= impl_->end; }
const Params& GatewaySim::params() const { return impl_->params; }
const Params& GatewaySim::initialParams() const { return impl_->initial; }
const Timeline& GatewaySim::timeline() const {
    Impl& s = *impl_;
    if (!s.merged) {
        // An edit made at time t came after every event at or before t: it goes after them, so
        // that a replay applies them in the same order.
        Timeline t;
        for (std::size_t i = 0; i < s.timeline.events.size(); ++i)
            if (i >= s.discarded.size() || !s.discarded[i]) t.events.push_back(s.timeline.events[i]);
        for (const TimelineEvent& e : s.edits) {
            const auto at = std::upper_bound(t.events.begin(), t.events.end(), e.at_s,
                                             [](double v, const TimelineEvent& x) { return v < x.at_s; });
            t.events.insert(at, e);
        }
        s.merged = std::move(t);
    }
    return *s.merged;
}
void GatewaySim::discardPendingChanges(const std::function<bool(const TimelineEvent&)>& which) {
    Impl& s = *impl_;
    s.discarded.resize(s.timeline.events.size(), false);
    std::vector<Impl::Action> kept(s.actions.begin(),
                                   s.actions.begin() + static_cast<std::ptrdiff_t>(s.nextAction));
    for (std::size_t i = s.nextAction; i < s.actions.size(); ++i) {
        const Impl::Action& a = s.actions[i];
        if (a.kind == Impl::Action::Set && which(s.timeline.events[a.event])) {
            s.discarded[a.event] = true;
        } else {
            kept.push_back(a);
        }
    }
    s.actions = std::move(kept);
    s.merged.reset();
}

void GatewaySim::setObserver(Observer observer) { impl_->observer = std::move(observer); }

void GatewaySim::chargeStageCosts(const std::array<double, kStages>& ms) {
    std::array<Duration, kStages> costs{};
    for (std::size_t i = 0; i < costs.size(); ++i) {
        if (!(ms[i] >= 0) || !std::isfinite(ms[i]))
            throw std::invalid_argument("a stage's cost must be 0 ms or more, found " + std::to_string(ms[i]) +
                                        " for " + std::string(kStageNames[i]));
        costs[i] = i == static_cast<std::size_t>(Stage::Engines) ? Duration{} : fromMs(ms[i]);
    }
    impl_->chargedCosts = costs;
}

bool GatewaySim::advanceTo(double t_s, RunControl* control) {
    Impl& s = *impl_;
    const Time target = std::min(s.end, fromSeconds(t_s));
    if (!s.runUntil(target, control)) return false;
    s.now = std::max(s.now, target);
    return true;
}

bool GatewaySim::drain(RunControl* control) {
    Impl& s = *impl_;
    if (!advanceTo(end_s(), control)) return false;
    if (!s.runUntil(Time::max(), control)) return false;
    s.closeLastWindow();
    return true;
}

bool GatewaySim::finishAt(double t_s, RunControl* control) {
    Impl& s = *impl_;
    if (!advanceTo(t_s, control)) return false;
    s.end = s.now;
    s.closed = true;
    s.nextArrival = s.hourBuffer.size();
    s.actions.resize(s.nextAction);  // the timeline stops here too
    if (!s.runUntil(Time::max(), control)) return false;
    s.closeLastWindow();
    return true;
}

void GatewaySim::applyParams(const Params& p) {
    Impl& s = *impl_;
    TimelineEvent e;
    e.at_s = toSeconds(s.now);
    for (const KnobSpec& k : p.specs())
        if (p.real(k.key) != s.params.real(k.key)) e.set.push_back(KnobSetting{k.key, p.real(k.key)});
    if (e.set.empty()) return;
    // In key order, as a scenario file's "set" reads back.
    std::sort(e.set.begin(), e.set.end(),
              [](const KnobSetting& a, const KnobSetting& b) { return a.key < b.key; });
    e.label = defaultLabel(e, p.specs());
    s.applyKnobs(p, e);  // throws, changing nothing, when the change is refused
    s.edits.push_back(std::move(e));
    s.merged.reset();
}

GatewaySnapshot GatewaySim::snapshot() const {
    GatewaySnapshot snap;
    impl_->gateway.fillSnapshot(snap, impl_->now);
    snap.end_s = end_s();
    snap.events = impl_->events;
    return snap;
}

}  // namespace taillab::gateway
