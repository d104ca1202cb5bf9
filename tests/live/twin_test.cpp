// Twin runs: the plan is the simulation's own arrivals (same count, times, keys, pins and ids), and
// a short twin sends every one of them to the live gateway, which accepts exactly as many as the
// simulated gateway did. Agreement of latencies is measured by tests/bench/live_twin.sh, not here.
#include "live/twin.h"

#include <gtest/gtest.h>

#include <array>

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

// The simulated half of a twin charges the stage costs given (those the live gateway measured)
// instead of the cost model's: each stage's mean is what was charged, on the same arrivals.
TEST(TwinStageCosts, TheSimulationChargesTheCostsGivenInsteadOfItsModel) {
    const Scenario s = scenario();
    const auto run = [&](const std::array<double, gateway::kStages>* costs) {
        gateway::GatewaySim sim(s.params, s.seed, {}, 14 * 3600.0);
        if (costs) sim.chargeStageCosts(*costs);
        sim.finishAt(14 * 3600.0 + 20);
        return sim.snapshot();
    };
    const gateway::GatewaySnapshot modelled = run(nullptr);
    std::array<double, gateway::kStages> costs{};
    costs[static_cast<std::size_t>(gateway::Stage::Edge)] = 2;
    costs[static_cast<std::size_t>(gateway::Stage::Engines)] = 50;  // not charged: the calls are its time
    const gateway::GatewaySnapshot charged = run(&costs);
    ASSERT_GT(modelled.accepted, 50u);
    EXPECT_EQ(charged.accepted, modelled.accepted);
    const auto mean = [](const gateway::GatewaySnapshot& snap, gateway::Stage st) {
        const gateway::StageStats& x = snap.stages[static_cast<std::size_t>(st)];
        return x.entered ? x.time_ms_total / static_cast<double>(x.entered) : 0.0;
    };
    EXPECT_NEAR(mean(charged, gateway::Stage::Edge), 2, 1e-6);
    EXPECT_EQ(mean(charged, gateway::Stage::Merge), 0);
    EXPECT_GT(mean(modelled, gateway::Stage::Merge), 5);
    // About 17 ms of modelled stage time a request, less the 2 ms charged: the median drops.
    const double p50 = static_cast<double>(charged.latency_us.valueAtPercentile(50)) / 1000;
    const double modelledP50 = static_cast<double>(modelled.latency_us.valueAtPercentile(50)) / 1000;
    EXPECT_LT(p50, modelledP50 - 5);

    costs[0] = -1;
    gateway::GatewaySim sim(s.params, s.seed);
    EXPECT_THROW(sim.chargeStageCosts(costs), std::invalid_argument);
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
    // The simulated half was charged the live half's stage costs, and the notes say so with the
    // model's p50; the model's own stage costs are in the table beside them.
    bool saysCosts = false;
    for (const std::string& n : run.plan.notes) saysCosts |= n.find("mean time the live gateway measured") != std::string::npos;
    EXPECT_TRUE(saysCosts);
    EXPECT_GT(run.modelled_p50_ms, 0);
    const TwinStage& merge = run.stages[static_cast<std::size_t>(gateway::Stage::Merge)];
    EXPECT_GT(merge.modelled_ms, 5);
    EXPECT_NEAR(merge.simulated_ms, merge.live_ms, 1e-3 + 0.01 * merge.live_ms);  // one merge a request
}

}  // namespace
}  // namespace taillab::live
