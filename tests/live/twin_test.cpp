// Twin runs: the plan is the simulation's own arrivals (same count, times, keys, pins and ids), and
// a short twin sends every one of them to the live gateway, which accepts exactly as many as the
// simulated gateway did. Agreement of latencies is measured by tests/bench/live_twin.sh, not here.
#include "live/twin.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_sim/gateway_sim.h"
#include "scenario/scenario.h"

namespace taillab::live {
namespace {

Scenario scenario(const std::string& extra = "") {
    return parseScenario(R"({"schema_version": 1, "name": "twin-test", "title": "t", "lab": "gateway", "seed": 5,
        "params": {"days": 1})" + extra + "}",
                         "twin-test.json");
}

TEST(TwinPlan, IsTheSimulationsOwnArrivalsScaledToTheRate) {
    TwinOptions o;
    o.rate_per_s = 20;
    o.duration = std::chrono::seconds(10);
    const TwinPlan plan = planTwin(scenario(), o);
    ASSERT_FALSE(plan.requests.empty());
    EXPECT_FALSE(plan.scenario.params.flag("probes"));
    EXPECT_GT(plan.scenario.params.real("load_multiplier"), 1);

    // The simulated gateway sees the same arrivals: count, times and trace ids.
    gateway::GatewaySim sim(plan.scenario.params, plan.scenario.seed);
    std::vector<std::pair<std::int64_t, std::uint64_t>> arrivals;
    gateway::GatewaySim::Observer arrivalsOnly;
    arrivalsOnly.arrival = [&](const gateway::RequestSpec& r) { arrivals.emplace_back(r.at.count(), r.trace); };
    sim.setObserver(arrivalsOnly);
    sim.finishAt(10);
    ASSERT_EQ(arrivals.size(), plan.requests.size());
    bool pinned = false, fast = false;
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const PlannedRequest& p = plan.requests[i];
        EXPECT_EQ(p.at.count(), arrivals[i].first);
        EXPECT_EQ(p.request_id, std::to_string(arrivals[i].second));
        EXPECT_FALSE(p.key.empty());
        pinned |= !p.region.empty();
        fast |= p.target == "/search/fast";
        const auto body = nlohmann::json::parse(p.body);
        EXPECT_FALSE(body.at("query").get<std::string>().empty());
    }
    EXPECT_TRUE(pinned);  // some customers pin their region
    EXPECT_TRUE(fast);
    const gateway::GatewaySnapshot s = sim.snapshot();
    EXPECT_EQ(s.accepted, plan.requests.size());
    EXPECT_EQ(s.in_flight, 0u);
}

TEST(TwinPlan, StartingAtABusyHourTheSimulationStartsThereToo) {
    TwinOptions o;
    o.rate_per_s = 40;
    o.duration = std::chrono::seconds(5);
    o.start_at = std::chrono::hours(14) + std::chrono::seconds(30);  // Mon 14:00:30
    const TwinPlan plan = planTwin(scenario(), o);
    ASSERT_FALSE(plan.requests.empty());
    gateway::GatewaySim sim(plan.scenario.params, plan.scenario.seed, {}, toSeconds(o.start_at));
    std::vector<std::uint64_t> traces;
    gateway::GatewaySim::Observer arrivalsOnly;
    arrivalsOnly.arrival = [&](const gateway::RequestSpec& r) {
        EXPECT_GE(r.at, o.start_at);
        traces.push_back(r.trace);
    };
    sim.setObserver(arrivalsOnly);
    sim.finishAt(toSeconds(o.start_at + o.duration));
    ASSERT_EQ(traces.size(), plan.requests.size());
    for (std::size_t i = 0; i < traces.size(); ++i) EXPECT_EQ(plan.requests[i].request_id, std::to_string(traces[i]));
    EXPECT_LT(plan.requests.back().at, o.duration);  // times from the start
    EXPECT_EQ(sim.snapshot().accepted, plan.requests.size());
    EXPECT_THROW(gateway::GatewaySim(plan.scenario.params, 1, {}, 86400), std::invalid_argument);
}

TEST(TwinPlan, RefusesWhatCannotBeTwinned) {
    TwinOptions o;
    o.duration = std::chrono::hours(25);  // past a one-day run
    EXPECT_THROW((void)planTwin(scenario(), o), std::invalid_argument);
    o.duration = std::chrono::seconds(5);
    o.rate_per_s = 0;
    EXPECT_THROW((void)planTwin(scenario(), o), std::invalid_argument);
}

TEST(TwinRun, EveryPlannedRequestReachesTheLiveGatewayAsInTheSimulation) {
    TwinOptions o;
    o.rate_per_s = 30;
    o.duration = std::chrono::seconds(3);
    const TwinRun run = runTwin(scenario(), o);
    ASSERT_FALSE(run.rows.empty());
    EXPECT_EQ(run.rows[0].figure, "requests");
    EXPECT_TRUE(run.rows[0].within) << run.rows[0].verdict;
    EXPECT_EQ(run.load.counts.sent, run.plan.requests.size());
    EXPECT_EQ(run.load.counts.failed, 0u);
    EXPECT_EQ(run.load.counts.answered, run.plan.requests.size());
    EXPECT_EQ(run.stages.size(), static_cast<std::size_t>(gateway::kStages));
    for (const TwinRow& r : run.rows) EXPECT_EQ(r.within, r.verdict.empty()) << r.figure;
}

}  // namespace
}  // namespace taillab::live
