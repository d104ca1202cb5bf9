// The live load's arrivals are the simulation's own: the same requests (trace ids, times, keys,
// pins), surges added and thinned alike, however the run asks for them, a window at a time.
#include "live/workload_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_sim/gateway_sim.h"
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

    // A rate beyond the knob's range says so.
    WorkloadPlan fast(s, 1e6, std::chrono::hours(10), std::chrono::minutes(1));
    EXPECT_EQ(fast.loadMultiplier(), 50);
    ASSERT_EQ(fast.notes().size(), 1u);
    EXPECT_NE(fast.notes()[0].find("as far as the knob goes"), std::string::npos);

    EXPECT_THROW(WorkloadPlan(s, 0, kZero, std::chrono::hours(1)), std::invalid_argument);
    EXPECT_THROW(WorkloadPlan(s, 10, std::chrono::hours(24), std::chrono::hours(1)), std::invalid_argument);
    Scenario other = s;
    other.lab = "fanout";
    EXPECT_THROW(WorkloadPlan(other, 10, kZero, std::chrono::hours(1)), std::invalid_argument);
}

}  // namespace
}  // namespace taillab::live
