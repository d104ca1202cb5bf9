// The live load's arrivals are the simulation's own: the same requests (trace ids, times, keys,
// pins), surges added and thinned alike, however the run asks for them, a window at a time.
#include "live/workload_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_sim/gateway_sim.h"
#include "live/live_stack.h"
#include "live/twin.h"
#include "scenario/scenario.h"

namespace taillab::live {
namespace {

Scenario withSurges() {
    return parseScenario(R"({"schema_version": 1, "name": "plan-test", "title": "t", "lab": "gateway", "seed": 9,
        "params": {"days": 1},
        "timeline": [{"at": "Mon 13:59:30", "until": "Mon 14:00:30", "fault": {"target": {}, "effect": "surge", "factor": 3}},
                     {"at": "Mon 14:00:00", "fault": {"target": {"region": "EU"}, "effect": "surge", "factor": 0.5}}]})",
                         "plan-test.json");
}

TEST(WorkloadPlan, IsTheSimulationsArrivalsSurgesIncludedWindowByWindow) {
    const Duration start = std::chrono::hours(13) + std::chrono::minutes(59);
    const Duration length = std::chrono::minutes(2);
    WorkloadPlan plan(withSurges(), 20, start, length);
    std::vector<PlannedRequest> planned;
    // Uneven windows, one crossing the hour.
    for (const auto& [from, to] : std::vector<std::pair<int, int>>{{0, 7}, {7, 59}, {59, 61}, {61, 120}})
        plan.fill(std::chrono::seconds(from), std::chrono::seconds(to), planned);

    const Scenario& s = plan.scenario();
    gateway::GatewaySim sim(s.params, s.seed, s.timeline, toSeconds(start));
    std::vector<gateway::RequestSpec> arrivals;
    std::vector<std::string> texts;  // a spec's text lives until the workload's next hour
    gateway::GatewaySim::Observer arrivalsOnly;
    arrivalsOnly.arrival = [&](const gateway::RequestSpec& r) {
        arrivals.push_back(r);
        texts.emplace_back(r.query());
    };
    sim.setObserver(arrivalsOnly);
    sim.finishAt(toSeconds(start + length));

    ASSERT_EQ(planned.size(), arrivals.size());
    std::size_t inSurge = 0, inThinned = 0, before = 0;
    for (std::size_t i = 0; i < planned.size(); ++i) {
        EXPECT_EQ(planned[i].request_id, std::to_string(arrivals[i].trace)) << i;
        EXPECT_EQ(planned[i].at.count(), (arrivals[i].at - start).count()) << i;
        EXPECT_EQ(planned[i].target, arrivals[i].endpoint == 1 ? "/search/fast" : "/search/lite");
        EXPECT_EQ(nlohmann::json::parse(planned[i].body).at("query"), texts[i]);
        const double t = toSeconds(planned[i].at);
        before += t < 30;
        inSurge += t >= 30 && t < 60;
        inThinned += t >= 90;
    }
    // The surge triples the half minute it covers (bursts make half minutes uneven: within 40%).
    EXPECT_GT(static_cast<double>(inSurge), 3 * before * 0.6);
    EXPECT_LT(static_cast<double>(inSurge), 3 * before * 1.4);
    EXPECT_GT(inThinned, 0u);
}

TEST(WorkloadPlan, TheFirstHoursMeanRateIsTheOneAskedFor) {
    const Scenario s = parseScenario(R"({"schema_version": 1, "name": "p", "title": "t", "lab": "gateway", "seed": 3,
        "params": {"days": 1}})",
            "p.json");
    WorkloadPlan plan(s, 30, std::chrono::hours(10), std::chrono::hours(1));
    std::vector<PlannedRequest> hour;
    plan.fill(kZero, std::chrono::hours(1), hour);
    // Scaling every hour by one multiplier rounds each hour's count: within 2%.
    EXPECT_NEAR(static_cast<double>(hour.size()) / 3600, 30, 30 * 0.02);
    EXPECT_EQ(toSeconds(plan.remaining()), 14 * 3600.0);
    EXPECT_TRUE(plan.notes().empty());

    // A rate beyond the knob's range says what the run offers instead.
    WorkloadPlan fast(s, 1e6, std::chrono::hours(10), std::chrono::minutes(1));
    EXPECT_EQ(fast.loadMultiplier(), 50);
    EXPECT_FALSE(fast.scaling().reachable());
    EXPECT_LT(fast.scaling().offered_rate_per_s, 1e6);
    ASSERT_EQ(fast.notes().size(), 1u);
    EXPECT_NE(fast.notes()[0].find("this run offers about"), std::string::npos) << fast.notes()[0];

    EXPECT_THROW(WorkloadPlan(s, 0, kZero, std::chrono::hours(1)), std::invalid_argument);
    EXPECT_THROW(WorkloadPlan(s, 10, std::chrono::hours(24), std::chrono::hours(1)), std::invalid_argument);
    Scenario other = s;
    other.lab = "fanout";
    EXPECT_THROW(WorkloadPlan(other, 10, kZero, std::chrono::hours(1)), std::invalid_argument);
}

// A live run of 10 s is scaled so that its 10 s average the rate, not an hour it never reaches; and
// a twin run of the same start and length gets the very same load_multiplier.
TEST(LoadScaling, LiveAndTwinScaleAShortRunAlikeOverTheRunItself) {
    const Scenario s = parseScenario(R"({"schema_version": 1, "name": "p", "title": "t", "lab": "gateway", "seed": 3,
        "params": {"days": 1}})",
                                     "p.json");
    const Duration start = std::chrono::hours(9) + std::chrono::minutes(59) + std::chrono::seconds(55);
    const Duration length = std::chrono::seconds(10);  // 5 s of the 09:00 hour, 5 s of the busier 10:00
    LiveStackOptions live;
    live.rate_per_s = 30;
    live.duration = length;
    live.start_at = start;
    const LiveStack stack(s, live);
    TwinOptions twin;
    twin.rate_per_s = 30;
    twin.duration = length;
    twin.start_at = start;
    const TwinPlan plan = planTwin(s, twin);
    EXPECT_EQ(stack.scenario().params.real("load_multiplier"), plan.scenario.params.real("load_multiplier"));
    const LoadScaling over10s = scaleLoad(s, 30, start, length);
    EXPECT_EQ(toSeconds(over10s.window), 10);
    EXPECT_EQ(stack.scenario().params.real("load_multiplier"), over10s.multiplier);
    EXPECT_NE(over10s.multiplier, scaleLoad(s, 30, start, std::chrono::hours(2)).multiplier);
    // The header's rate is the one offered.
    EXPECT_NEAR(stack.loadConfig().schedule.steps.at(0).rate, 30, 30 * 5e-4);  // a multiplier of 4 digits
}

// The first hour of Monday is the week's quietest: 100 requests a second is beyond the knob's
// range there. The run offers what the scenario reaches, and says so in its header and notes.
TEST(LoadScaling, ARateBeyondTheKnobsRangeIsOfferedAsWhatItReachesAndSaysHowToReachIt) {
    const Scenario s = parseScenario(R"({"schema_version": 1, "name": "p", "title": "t", "lab": "gateway", "seed": 3,
        "params": {"days": 2}})",
                                     "p.json");
    const LoadScaling sc = scaleLoad(s, 100, kZero, std::chrono::seconds(10));
    EXPECT_FALSE(sc.reachable());
    EXPECT_EQ(sc.multiplier, kMaxLoadMultiplier);
    EXPECT_NEAR(sc.offered_rate_per_s, 100 * kMaxLoadMultiplier / sc.wanted_multiplier, 1e-9);
    EXPECT_EQ(sc.offered_rate_per_s, sc.max_rate_per_s);
    ASSERT_TRUE(sc.reachable_from.has_value());
    EXPECT_TRUE(scaleLoad(s, 100, *sc.reachable_from, std::chrono::seconds(10)).reachable());
    const std::string advice = reachableRateAdvice(s, sc);
    EXPECT_NE(advice.find("--start-at"), std::string::npos) << advice;
    EXPECT_NE(advice.find("--rate"), std::string::npos) << advice;

    LiveStackOptions live;
    live.rate_per_s = 100;
    live.duration = std::chrono::seconds(10);
    const LiveStack stack(s, live);
    ASSERT_TRUE(stack.scaling().has_value());
    EXPECT_FALSE(stack.scaling()->reachable());
    EXPECT_NEAR(stack.loadConfig().schedule.steps.at(0).rate, sc.offered_rate_per_s, 1e-9);
    bool saysOffered = false, saysAbout100 = false;
    for (const std::string& n : stack.notes()) {
        saysOffered |= n.find("this run offers about") != std::string::npos;
        saysAbout100 |= n.find("about 100 requests") != std::string::npos;
    }
    EXPECT_TRUE(saysOffered);
    EXPECT_FALSE(saysAbout100);  // no note claims the rate asked for
}

}  // namespace
}  // namespace taillab::live
