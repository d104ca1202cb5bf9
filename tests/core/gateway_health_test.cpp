// The gateway compute's health mechanisms in the simulation (issue 10): static balancing blind to a
// zone whose hosts accept connections but never answer, probed balancing that finds it with
// synthetic searches, the provider cap, region breakers that stop spill into a region that lost
// most of its capacity, warm and cold standby, and the timeline's phases with their figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gateway_sim/gateway_lab.h"
#include "fleet/fleet.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway_sim/sim_config.h"
#include "labs/lab.h"
#include "labs/lab_result.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "gateway_day.h"
#include "timeline_support.h"

namespace taillab::gateway {
namespace {

Params computeDay(double load) {
    Params p = test::gatewayDay(load);
    p.set("gateway_compute", 1);
    p.set("gateway_cpus", 15);
    p.set("window_s", 60);
    return p;
}

GatewaySnapshot runHealth(const Params& p, const Timeline& t = {}) {
    GatewaySim sim(p, 3, t);
    EXPECT_TRUE(sim.drain());
    return sim.snapshot();
}

// Requests served in `region` and their failures, over the windows that end in (t0, t1] hours.
struct Tally {
    std::uint64_t requests = 0, failed = 0;
    double share() const { return requests ? static_cast<double>(failed) / requests : 0; }
};
Tally between(const GatewaySnapshot& s, Region region, double t0_h, double t1_h) {
    Tally t;
    for (const WindowPoint& w : s.windows) {
        if (w.t_s <= t0_h * 3600 || w.t_s > t1_h * 3600) continue;
        t.requests += w.regions[static_cast<std::size_t>(region)].requests;
        t.failed += w.regions[static_cast<std::size_t>(region)].failed;
    }
    return t;
}

const char* const kStuckZone =
    R"({"at": "Mon 06:00", "until": "Mon 10:00", "fault": {"target": {"region": "EU", "provider": "A", "zone": "a"}, "effect": "capacity_lost", "share": 1}})";

// v3's layout (one provider, three zones of 5 CPUs): under static balancing the stuck zone keeps
// its third of EU's traffic, and a third of EU's requests fail (at their deadline) for as long as
// it lasts; probed balancing takes it out within seconds of two failed probes.
TEST(GatewayHealth, StaticBalancingFeedsAStuckZoneItsShareAndProbesTakeItOut) {
    Params p = computeDay(2);
    p.set("providers", 0);
    const Timeline t = test::timeline({kStuckZone}, R"j({"gateway_compute": true, "providers": "one (A)"})j");
    const GatewaySnapshot blind = runHealth(p, t);
    const Tally b = between(blind, Region::EU, 6.1, 10);
    ASSERT_GT(b.requests, 1000u);
    EXPECT_NEAR(b.share(), 1.0 / 3, 0.03);
    EXPECT_TRUE(blind.health_spans.empty());  // nothing looks

    p.set("balancing", 1);
    const GatewaySnapshot probed = runHealth(p, t);
    const GatewaySnapshot clean = runHealth(p);  // v4's path's own deadline misses, for comparison
    EXPECT_LT(between(probed, Region::EU, 6.1, 10).share(),
              between(clean, Region::EU, 6.1, 10).share() + 0.005);
    // One probe span: EU / provider A failing from two probes after 06:00 until three pass after
    // 10:00, each 5 s apart (plus the 600 ms a stuck probe waits for its deadline).
    std::vector<HealthSpan> spans;
    for (const HealthSpan& h : probed.health_spans)
        if (h.kind == HealthKind::Probe) spans.push_back(h);
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(spans[0].region, static_cast<int>(Region::EU));
    EXPECT_EQ(spans[0].provider, 0);
    EXPECT_GT(spans[0].t0_s, 6 * 3600.0);
    EXPECT_LE(spans[0].t0_s, 6 * 3600.0 + 2 * 5 + 1);
    EXPECT_GT(spans[0].t1_s, 10 * 3600.0);
    EXPECT_LE(spans[0].t1_s, 10 * 3600.0 + 3 * 5 + 1);
    EXPECT_FALSE(spans[0].ongoing);
}

// A provider's share of the day's requests.
double dayShare(const GatewaySnapshot& s, int provider) {
    std::uint64_t all = 0, one = 0;
    for (const WindowPoint& w : s.windows) {
        for (std::uint32_t n : w.provider_requests) all += n;
        one += w.provider_requests[static_cast<std::size_t>(provider)];
    }
    return all ? static_cast<double>(one) / all : 0;
}

// No provider above the cap. 15 CPUs in whole CPUs per zone: A 2 + 2 + 2, B 2 + 2 + 2 (its 1.75
// per zone rounded up), C 1 + 1 + 1, so A and B hold 40% each; capped at 34%, C takes the rest.
TEST(GatewayHealth, TheProviderCapHoldsEachProvidersShare) {
    Params p = computeDay(1);
    p.set("balancing", 1);
    const GatewaySnapshot uncapped = runHealth(p);
    p.set("provider_cap", 0.34);
    const GatewaySnapshot capped = runHealth(p);
    EXPECT_NEAR(dayShare(uncapped, 0), 0.40, 0.01);
    EXPECT_NEAR(dayShare(uncapped, 2), 0.20, 0.01);
    EXPECT_NEAR(dayShare(capped, 0), 0.34, 0.01);
    EXPECT_NEAR(dayShare(capped, 1), 0.34, 0.01);
    EXPECT_NEAR(dayShare(capped, 2), 0.32, 0.01);
    // The hourly figure, with an hour's sampling noise (about a thousand requests: 1.5 points).
    EXPECT_LT(*gatewayResult(capped, p, 3).figure("max_provider_share"), 0.34 + 0.05);
}

// EU loses providers A and B (75% of its CPUs, v4's layout): its breaker opens, so US traffic
// rerouted to EU stays home instead (counted as refused), and the reroute into EU costs nothing.
// Without the breaker, the rerouted requests meet EU's dead zones until the balancer has moved
// them, and nothing is refused.
TEST(GatewayHealth, ARegionBreakerStopsReroutesIntoARegionThatLostMostOfItsCapacity) {
    Params p = computeDay(1);
    p.set("balancing", 1);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 05:00", "set": {"reroute_US": "to EU", "reroute_share": 0.5}})",
         R"({"at": "Mon 06:00", "until": "Mon 09:00", "fault": {"target": {"region": "EU", "provider": "A"}, "effect": "capacity_lost", "share": 1}})",
         R"({"at": "Mon 06:00", "until": "Mon 09:00", "fault": {"target": {"region": "EU", "provider": "B"}, "effect": "capacity_lost", "share": 1}})"},
        R"j({"gateway_compute": true, "balancing": "probed (synthetic searches)"})j");
    const GatewaySnapshot open = [&] {
        Params q = p;
        q.set("region_breakers", 1);
        return runHealth(q, t);
    }();
    const GatewaySnapshot none = runHealth(p, t);
    EXPECT_EQ(none.spill_refused, 0u);
    EXPECT_GT(open.spill_refused, 100u);
    std::vector<HealthSpan> breakers;
    for (const HealthSpan& h : open.health_spans)
        if (h.kind == HealthKind::RegionBreaker) breakers.push_back(h);
    ASSERT_EQ(breakers.size(), 1u);
    EXPECT_EQ(breakers[0].region, static_cast<int>(Region::EU));
    EXPECT_EQ(breakers[0].state, HealthState::Open);
    EXPECT_LE(breakers[0].t0_s, 6 * 3600.0 + 11);
    // While it is open, EU serves only its own traffic: fewer requests than without it.
    EXPECT_LT(between(open, Region::EU, 6.1, 9).requests, between(none, Region::EU, 6.1, 9).requests);
}

// Warm standby engages when a zone fails its probes and serves within the seed's 20 s; cold
// standby serves only when a timeline event raises standby_cpus, one CPU after another over its
// ramp, so provider B's share climbs over the ramp, not at once.
TEST(GatewayHealth, WarmStandbyTakesOverWithinTwentySecondsAndColdRampsOverMinutes) {
    Params p = computeDay(1);
    p.set("balancing", 1);
    p.set("standby", 1);  // warm
    p.set("standby_cpus", 15);
    p.set("standby_ramp_s", 15);
    const GatewaySnapshot warm = runHealth(p, test::timeline({kStuckZone}, R"j({"gateway_compute": true})j"));
    const LabResult w = gatewayResult(warm, p, 3);
    EXPECT_EQ(*w.figure("standby_takeovers"), 1);
    EXPECT_GT(*w.figure("standby_takeover_s"), 0);
    EXPECT_LE(*w.figure("standby_takeover_s"), 20);

    Params c = computeDay(1);
    c.set("providers", 0);
    c.set("standby_ramp_s", 600);
    const GatewaySnapshot cold =
        runHealth(c, test::timeline({R"({"at": "Mon 12:00", "set": {"standby_cpus": 30}})"},
                                    R"j({"gateway_compute": true, "providers": "one (A)"})j"));
    auto shareB = [&](double t0_h, double t1_h) {
        std::uint64_t all = 0, b = 0;
        for (const WindowPoint& x : cold.windows) {
            if (x.t_s <= t0_h * 3600 || x.t_s > t1_h * 3600) continue;
            for (std::uint32_t n : x.provider_requests) all += n;
            b += x.provider_requests[1];
        }
        return all ? static_cast<double>(b) / all : 0.0;
    };
    EXPECT_EQ(shareB(11, 12), 0);
    const double early = shareB(12, 12 + 2.5 / 60), late = shareB(12 + 7.5 / 60, 12 + 10 / 60.0);
    EXPECT_GT(early, 0.05);
    EXPECT_LT(early, 0.45);
    EXPECT_GT(late, 0.55);
    EXPECT_NEAR(shareB(13, 14), 30.0 / 45, 0.05);  // B holds 30 of 45 CPUs
    // The strip reads "starting" over the whole ramp (the CPUs online already serve, as the
    // shares show) and "serving" once the last of the 30 is up, 600 s after the event; in
    // every region, as standby_region has it here.
    for (int g = 0; g < kRegions; ++g) {
        std::vector<HealthSpan> standby;
        for (const HealthSpan& h : cold.health_spans)
            if (h.kind == HealthKind::Standby && h.region == g) standby.push_back(h);
        ASSERT_EQ(standby.size(), 2u) << kRegionNames[static_cast<std::size_t>(g)];
        EXPECT_EQ(standby[0].state, HealthState::Starting);
        EXPECT_EQ(standby[0].t0_s, 12 * 3600.0);
        EXPECT_EQ(standby[0].t1_s, 12 * 3600.0 + 600);
        EXPECT_EQ(standby[1].state, HealthState::Serving);
        EXPECT_EQ(standby[1].t0_s, 12 * 3600.0 + 600);
        EXPECT_TRUE(standby[1].ongoing);
    }
}

// A window series for minutes_at_peak_EU: one window a minute, EU alone, `requests` each, and
// the failures per window from `failed`.
GatewaySnapshot euWindows(std::size_t n, std::uint32_t requests, const std::function<std::uint32_t(std::size_t)>& failed) {
    GatewaySnapshot s;
    for (std::size_t i = 0; i < n; ++i) {
        WindowPoint w;
        w.t_s = 60.0 * static_cast<double>(i + 1);
        w.requests = w.regions[0].requests = requests;
        w.failed = w.regions[0].failed = failed(i);
        s.windows.push_back(w);
    }
    s.now_s = s.end_s = 60.0 * static_cast<double>(n);
    return s;
}

// minutes_at_peak is the length of the peak, whatever the noise: a clear peak over a noisy
// background gets its exact length, a spike shorter than the smoothing span its own, and a
// noisy run with no peak (july-v4, below) a few minutes rather than the whole run.
TEST(GatewayHealth, MinutesAtPeakIsThePeaksExactLength) {
    const Params p = computeDay(1);
    std::mt19937_64 rng(7);
    std::vector<std::uint32_t> background(24 * 60);
    std::binomial_distribution<std::uint32_t> quiet(40, 0.02);
    for (std::uint32_t& f : background) f = quiet(rng);
    // 75 windows at 13 of 40 failed (the July SEV-1's third), from 07:00.
    const GatewaySnapshot peak = euWindows(background.size(), 40, [&](std::size_t i) {
        return i >= 7 * 60 && i < 7 * 60 + 75 ? 13u : background[i];
    });
    EXPECT_DOUBLE_EQ(*gatewayResult(peak, p, 1).figure("minutes_at_peak_EU"), 75);
    // A 3-minute spike at 100%, and a lower 40-minute hump elsewhere at a fifth of it: the
    // longest run at half the peak is the spike, not stretched to the 5-window span.
    const GatewaySnapshot spike = euWindows(background.size(), 40, [&](std::size_t i) {
        if (i >= 300 && i < 303) return 40u;
        return i >= 900 && i < 940 ? 8u : background[i];
    });
    EXPECT_DOUBLE_EQ(*gatewayResult(spike, p, 1).figure("minutes_at_peak_EU"), 3);
    // No failures: no peak.
    EXPECT_EQ(*gatewayResult(euWindows(60, 40, [](std::size_t) { return 0u; }), p, 1).figure("minutes_at_peak_EU"), 0);
}

// July's operator brought cold standby up in EU-West alone: standby_region keeps the other
// regions on their own CPUs (their provider B counts stay zero, no standby span).
TEST(GatewayHealth, ColdStandbyInOneRegionLeavesTheOthersAlone) {
    Params c = computeDay(1);
    c.set("providers", 0);
    c.set("standby_ramp_s", 60);
    c.set("standby_region", 1);  // EU
    const GatewaySnapshot s =
        runHealth(c, test::timeline({R"({"at": "Mon 12:00", "set": {"standby_cpus": 30}})"},
                                    R"j({"gateway_compute": true, "providers": "one (A)"})j"));
    std::array<bool, kRegions> standby{};
    for (const HealthSpan& h : s.health_spans)
        if (h.kind == HealthKind::Standby) standby[static_cast<std::size_t>(h.region)] = true;
    EXPECT_TRUE(standby[0]);
    EXPECT_FALSE(standby[1]);
    EXPECT_FALSE(standby[2]);
    // Provider B serves only in EU: its share of all requests after the ramp is EU's B share.
    std::uint64_t all = 0, b = 0;
    for (const WindowPoint& x : s.windows) {
        if (x.t_s <= 13 * 3600.0 || x.t_s > 14 * 3600.0) continue;
        for (std::uint32_t n : x.provider_requests) all += n;
        b += x.provider_requests[1];
    }
    ASSERT_GT(all, 0u);
    const double share = static_cast<double>(b) / static_cast<double>(all);
    EXPECT_GT(share, 0.05);
    EXPECT_LT(share, 30.0 / 45 - 0.1) << "B holds 30 of 45 CPUs in EU only, not in every region";
}

// A cold standby is gateway instances of its own: they take their share of the region's
// requests with empty L1s (the hit rate dips when it comes up, then recovers) and open their
// connections cold (a connect on each instance's first call per engine and IP, even where the
// regular instances keep warm pools). Before it comes up the run is the same as without it.
TEST(GatewayHealth, ColdStandbyStartsWithEmptyCachesAndColdConnections) {
    Params p = computeDay(1);
    p.set("providers", 0);
    p.set("standby_ramp_s", 0);
    p.set("standby_region", 1);  // EU
    p.set("cache_tiers", 1);     // L1 only: a miss on a standby instance goes upstream
    p.set("egress", 0);          // warm pools for the regular instances
    const Timeline up = test::timeline({R"({"at": "Mon 12:00", "set": {"standby_cpus": 30}})"},
                                       R"j({"gateway_compute": true, "providers": "one (A)"})j");
    GatewaySim with(p, 3, up), without(p, 3);
    struct CallSeen {
        bool cold;
        Region region;
        double at_s, ms;
    };
    std::vector<CallSeen> calls;
    GatewaySim::Observer o;
    o.launched = [&](const UpstreamCall& c, Time at, Duration latency) {
        calls.push_back({c.cold_connection, c.region, toSeconds(at), toMs(latency)});
    };
    with.setObserver(o);
    ASSERT_TRUE(with.advanceTo(14 * 3600));
    ASSERT_TRUE(without.advanceTo(14 * 3600));
    const GatewaySnapshot a = with.snapshot(), b = without.snapshot();
    ASSERT_EQ(a.windows.size(), b.windows.size());
    auto hitRate = [](const GatewaySnapshot& s, double t0_h, double t1_h) {
        double sum = 0;
        int n = 0;
        for (const WindowPoint& w : s.windows)
            if (w.t_s > t0_h * 3600 && w.t_s <= t1_h * 3600) {
                sum += w.cache_hit_rate_all;
                ++n;
            }
        return n ? sum / n : NAN;
    };
    EXPECT_DOUBLE_EQ(hitRate(a, 10, 12), hitRate(b, 10, 12)) << "the same run until the standby comes up";
    EXPECT_LT(hitRate(a, 12, 12.25), hitRate(b, 12, 12.25) - 0.03) << "2/3 of EU on empty L1s";
    EXPECT_GT(hitRate(a, 13.5, 14), hitRate(a, 12, 12.25)) << "and they fill";
    // Cold connections: only after it came up, only in EU, at most one per (standby instance,
    // engine, IP); what one costs is the next test's.
    int cold = 0, warm = 0;
    for (const CallSeen& c : calls) {
        if (c.cold) {
            ++cold;
            EXPECT_GE(c.at_s, 12 * 3600.0);
            EXPECT_EQ(c.region, Region::EU);
        } else if (c.at_s >= 12 * 3600.0) {
            ++warm;
        }
    }
    ASSERT_GT(cold, 5);
    EXPECT_LE(cold, 3 * 3 * 4);  // standby instances x engines x egress IPs
    ASSERT_GT(warm, 0);
}

// What a cold connection costs: the same call, on the same fleet luck, draws the connect on top
// (seed 000's cold-connect lognormal, median 41.8 ms) where the pools are otherwise warm.
TEST(GatewayHealth, AColdConnectionPaysTheConnect) {
    Params p = computeDay(1);
    p.set("egress", 0);  // warm pools
    const fleet::FleetConfig config = fleetConfigFromParams(p);
    std::vector<double> extra;
    for (std::uint64_t trace = 1; trace <= 400; ++trace) {
        UpstreamCall c;
        c.id = CallId{static_cast<std::uint32_t>(trace), 1};
        c.trace = trace;
        c.engine = static_cast<int>(trace % 2);
        c.cache_key = trace * 0x9e3779b97f4a7c15ULL;
        const Time at = fromSeconds(3600 + static_cast<double>(trace));
        c.at = at;
        fleet::Fleet warm(config, 5), cold(config, 5);
        const double w = toMs(warm.answer(c, at).latency);
        c.cold_connection = true;
        const double k = toMs(cold.answer(c, at).latency);
        EXPECT_GE(k, w) << trace;
        extra.push_back(k - w);
    }
    std::nth_element(extra.begin(), extra.begin() + 200, extra.end());
    EXPECT_NEAR(extra[200], 41.8, 8) << "the median connect (seed 000: 41.8 ms), 400 draws";
}

TEST(GatewayHealth, WarmStandbyWithoutProbesIsAnError) {
    Params p = computeDay(1);
    p.set("standby", 1);
    try {
        GatewaySim sim(p, 1);
        ADD_FAILURE() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("needs balancing \"probed (synthetic searches)\""),
                  std::string::npos)
            << e.what();
    }
}

// Phases: drawn as marks and reported as figures over the windows that end inside them, with the
// names the lab declares for that timeline before it runs.
TEST(GatewayHealth, PhasesHaveMarksAndFiguresTheLabNamesBeforeItRuns) {
    Params p = computeDay(2);
    p.set("providers", 0);
    const Timeline t = test::timeline(
        {kStuckZone, R"({"at": "Mon 03:00", "until": "Mon 06:00", "phase": "calm"})",
         R"({"at": "Mon 06:00", "phase": "stuck", "label": "EU zone a stuck"})",
         R"({"at": "Mon 10:00", "phase": "after"})"},
        R"j({"gateway_compute": true, "providers": "one (A)"})j");
    const GatewaySnapshot s = runHealth(p, t);
    const LabResult r = gatewayResult(s, p, 3);
    const Lab* lab = findLab("gateway");
    ASSERT_NE(lab, nullptr);
    EXPECT_EQ(lab->figureNamesWith(p, t), figureNamesOf(r));
    EXPECT_NEAR(*r.figure("stuck_error_rate_EU"), between(s, Region::EU, 6, 10).share(), 1e-12);
    EXPECT_NEAR(*r.figure("stuck_error_rate_EU"), 1.0 / 3, 0.03);
    EXPECT_LT(*r.figure("calm_error_rate_EU"), 0.04);  // the path's own deadline misses
    EXPECT_LT(*r.figure("after_error_rate_EU"), 0.04);
    // The truth against what clients saw: with 503s they are the same.
    EXPECT_EQ(*r.figure("stuck_error_rate_EU"), *r.figure("stuck_error_rate_seen_EU"));
    int phases = 0;
    for (const TimelineMark& m : s.timeline)
        if (m.kind == MarkKind::Phase) {
            ++phases;
            if (m.phase == "stuck") {
                EXPECT_EQ(m.what, "EU zone a stuck");
                EXPECT_EQ(m.end_s, 10 * 3600.0);  // the next phase's start
            }
        }
    EXPECT_EQ(phases, 3);
    // A phase survives the scenario writer: what a saved run replays.
    const nlohmann::ordered_json written = timelineToJson(t, GatewaySim::knobs());
    EXPECT_EQ(written[0]["phase"], "calm");  // sorted by time: 03:00 first
}

// The synthetic health probes go through the request path like any request: every stage counts
// the probes that reach it apart from the customers' requests (the stage cards name them), a
// probe a stage passes on enters the next, and the edge's are all of them.
TEST(GatewayHealth, EveryStageCountsTheProbesThatReachIt) {
    for (const bool probes : {true, false}) {
        Params p = test::gatewayDay(1);
        p.set("probes", probes ? 1 : 0);
        GatewaySim sim(p, 3);
        sim.advanceTo(2 * 3600);
        const GatewaySnapshot s = sim.snapshot();
        const auto stage = [&s](Stage st) { return s.stages[static_cast<std::size_t>(st)]; };
        EXPECT_EQ(s.probes > 0, probes);
        EXPECT_EQ(stage(Stage::Edge).probes_entered, s.probes);
        EXPECT_EQ(stage(Stage::Edge).entered - stage(Stage::Edge).probes_entered, s.accepted);
        for (int i = 0; i < kStages; ++i) {
            const StageStats& st = s.stages[static_cast<std::size_t>(i)];
            EXPECT_LE(st.probes_entered, st.entered) << kStageNames[static_cast<std::size_t>(i)];
            EXPECT_LE(st.probes_passed, st.passed) << kStageNames[static_cast<std::size_t>(i)];
            EXPECT_LE(st.probes_passed, st.probes_entered) << kStageNames[static_cast<std::size_t>(i)];
            if (!probes) {
                EXPECT_EQ(st.probes_entered, 0u) << kStageNames[static_cast<std::size_t>(i)];
            }
        }
        // Edge, gateway, compiler and cache hand a request straight on.
        EXPECT_EQ(stage(Stage::Gateway).probes_entered, stage(Stage::Edge).probes_passed);
        EXPECT_EQ(stage(Stage::Compiler).probes_entered, stage(Stage::Gateway).probes_passed);
        EXPECT_EQ(stage(Stage::Cache).probes_entered, stage(Stage::Compiler).probes_passed);
        if (probes) {
            for (const Stage st : {Stage::Gateway, Stage::Compiler, Stage::Cache, Stage::Merge})
                EXPECT_GT(stage(st).probes_entered, 0u) << kStageNames[static_cast<std::size_t>(st)];
        }
    }
}

GatewaySnapshot runIncident(const std::string& name, LabResult* result) {
    const Scenario s = loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/" + name + ".json");
    GatewaySim sim(s.params, s.seed, s.timeline);
    EXPECT_TRUE(sim.drain());
    GatewaySnapshot snapshot = sim.snapshot();
    *result = gatewayResult(snapshot, s.params, s.seed);
    appendExpectationChecks(s, *result);
    return snapshot;
}

// The July replays: v3's 75 minutes at the peak hold (its checks pass), and the noisy regions
// and the noisy v4 run get a peak of minutes, not the run's 72 hours (minutes_at_peak used to
// measure from the first to the last window at half the worst window: 3,488 minutes for v4's
// EU-West). v3's cold standby reads "starting" while its 69 CPUs come online, 08:10 to 08:22,
// then "serving".
TEST(GatewayHealth, TheJulyReplaysMeasureThePeakAndTheStandbyRamp) {
    const double run = 3 * 24 * 60;
    LabResult v3, v4;
    const GatewaySnapshot s3 = runIncident("july-v3", &v3);
    runIncident("july-v4", &v4);
    for (const Check& c : v3.checks) EXPECT_TRUE(c.pass) << c.name << ": " << c.simulated;
    for (const Check& c : v4.checks) EXPECT_TRUE(c.pass) << c.name << ": " << c.simulated;
    EXPECT_NEAR(*v3.figure("minutes_at_peak_EU"), 75, 10);
    for (const char* f : {"minutes_at_peak_US", "minutes_at_peak_APAC"})
        EXPECT_LT(*v3.figure(f), run / 20) << "v3 " << f;
    for (const char* f : {"minutes_at_peak_EU", "minutes_at_peak_US", "minutes_at_peak_APAC"}) {
        EXPECT_GT(*v4.figure(f), 0) << "v4 " << f;
        EXPECT_LT(*v4.figure(f), run / 20) << "v4 " << f;
    }
    std::vector<HealthSpan> standby;
    for (const HealthSpan& h : s3.health_spans)
        if (h.kind == HealthKind::Standby && h.region == static_cast<int>(Region::EU)) standby.push_back(h);
    const double tue = 24 * 3600.0;
    ASSERT_EQ(standby.size(), 2u);
    EXPECT_EQ(standby[0].state, HealthState::Starting);
    EXPECT_DOUBLE_EQ(standby[0].t0_s, tue + 8 * 3600 + 10 * 60);
    EXPECT_NEAR(standby[0].t1_s, tue + 8 * 3600 + 22 * 60, 1e-6);
    EXPECT_EQ(standby[1].state, HealthState::Serving);
    EXPECT_DOUBLE_EQ(standby[1].t0_s, standby[0].t1_s);
}

// The July replay under v3 is byte-identical run to run, and compare lines v3 and v4 up.
TEST(GatewayHealth, TheJulyReplayIsDeterministic) {
    const Scenario s = loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/july-v3.json");
    EXPECT_EQ(toJson(runScenario(s)).dump(), toJson(runScenario(s)).dump());
}

}  // namespace
}  // namespace taillab::gateway
