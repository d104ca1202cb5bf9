// LiveStack: fleet, gateway and open-loop load on loopback in one process, retuned while it runs.
// Knob changes reach both servers and the timeline, an injected fault reaches the fleet, and the
// run writes down as a scenario that parses back with its changes at their times.
#include "live/live_stack.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "live/live_run.h"
#include "scenario/scenario.h"

namespace taillab::live {
namespace {

Scenario smallScenario() {
    return parseScenario(R"({"schema_version": 1, "name": "stack-test", "title": "t", "lab": "gateway",
        "seed": 11, "params": {"days": 1, "atlas_median_ms": 5, "borealis_median_ms": 5, "cirrus_median_ms": 5,
        "hedge_mode": "fixed", "hedge_delay_ms": 420}})",
                         "stack-test.json");
}

bool hasMark(const gateway::GatewaySnapshot& s, gateway::MarkKind kind, const std::string& what) {
    for (const auto& m : s.timeline)
        if (m.kind == kind && m.what == what) return true;
    return false;
}

// A live run's chart window: 10 s (the knob's least) for a run of minutes, a 120th of a long run
// in tens of seconds, never the scenario's 600 s for a short run nor longer than it.
TEST(LiveRun, TheChartWindowSuitsTheRunsLength) {
    using std::chrono::seconds, std::chrono::minutes, std::chrono::hours;
    EXPECT_EQ(liveChartWindow(seconds(600), seconds(30)), seconds(10));
    EXPECT_EQ(liveChartWindow(seconds(600), minutes(20)), seconds(10));
    EXPECT_EQ(liveChartWindow(seconds(600), hours(1)), seconds(30));
    EXPECT_EQ(liveChartWindow(seconds(600), minutes(50)), seconds(30));  // 25 s, up to tens
    EXPECT_EQ(liveChartWindow(seconds(600), hours(48)), seconds(600));
    EXPECT_EQ(liveChartWindow(seconds(20), hours(2)), seconds(20));
}

TEST(LiveRun, TheWindowsNoteSaysTheUnitAndTheLastWindowsLength) {
    LiveWindows w;
    w.window_s = 10;
    w.chosen = true;
    w.scenario_window_s = 600;
    w.count = 3;
    w.last_window_s = 5;
    w.last_partial = true;
    const std::string note = liveWindowsNote(w);
    EXPECT_NE(note.find("seconds since the run's start"), std::string::npos) << note;
    EXPECT_NE(note.find("10 s window"), std::string::npos) << note;
    EXPECT_NE(note.find("scenario's 600 s"), std::string::npos) << note;
    EXPECT_NE(note.find("3 windows, the last one 5 s long"), std::string::npos) << note;
    w.chosen = false;  // the user's: nothing to explain
    EXPECT_EQ(liveWindowsNote(w).find("scenario's 600 s"), std::string::npos);
}

TEST(LiveStack, ChangesReachGatewayAndFleetAndTheRunSavesAsAScenario) {
    LiveStackOptions o;
    o.rate_per_s = 100;
    o.duration = std::chrono::seconds(2);
    LiveStack stack(smallScenario(), o);
    EXPECT_EQ(stack.gatewayUrl().rfind("http://127.0.0.1:", 0), 0u);
    stack.start();
    EXPECT_TRUE(stack.running());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));

    Params p = stack.params();
    p.set("hedge_delay_ms", 250);
    p.set("engine_correlation", 0.6);
    stack.applyParams(p);
    EXPECT_EQ(stack.params().real("hedge_delay_ms"), 250);

    Params shaped = p;
    shaped.set("customers", 12);
    EXPECT_THROW(stack.applyParams(shaped), std::invalid_argument);
    EXPECT_EQ(stack.params().real("customers"), p.real("customers"));  // nothing changed

    Fault down;
    down.target.engine = "cirrus";
    down.effect = FaultEffect::Down;
    const std::string id = stack.injectFault(down, std::nullopt);
    Fault unknown = down;
    unknown.target.engine = "zephyr";
    EXPECT_THROW(stack.injectFault(unknown, 1.0), std::invalid_argument);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(stack.removeFault(id));
    EXPECT_FALSE(stack.removeFault(id));

    stack.waitForLoad();
    stack.stop();
    const LoadResult& load = stack.loadResult();
    const gateway::GatewaySnapshot s = stack.snapshot();
    EXPECT_GT(load.counts.sent, 40u);  // the scenario's arrivals, about 100 a second in bursts
    EXPECT_EQ(load.counts.sent, load.intended);
    EXPECT_EQ(load.counts.failed, 0u);
    // Every request the clients sent is one the gateway accepted, and all were answered.
    EXPECT_EQ(s.accepted, load.counts.sent);
    EXPECT_EQ(s.accepted, s.answered + s.rejected + s.failed);
    EXPECT_TRUE(hasMark(s, gateway::MarkKind::Knob, "hedge_delay_ms 420 -> 250, engine_correlation 0 -> 0.6"))
        << s.timeline.size();
    EXPECT_TRUE(hasMark(s, gateway::MarkKind::Fault, "cirrus down"));
    const LoadProgress progress = stack.load();
    EXPECT_TRUE(progress.finished);
    EXPECT_EQ(progress.counts.sent, load.counts.sent);
    ASSERT_TRUE(progress.corrected_p99_ms);
    EXPECT_GE(*progress.corrected_p99_ms, *progress.corrected_p50_ms);

    // The run as a scenario: the knob change, then the fault over the span it was in force.
    const Scenario run = stack.scenarioOfRun("stack-run");
    const Scenario back = parseScenario(writeScenarioJson(run), "stack-run.json");
    ASSERT_EQ(back.timeline.events.size(), 2u);
    const TimelineEvent& knob = back.timeline.events[0];
    ASSERT_EQ(knob.set.size(), 2u);
    EXPECT_EQ(knob.set[0].key, "engine_correlation");
    EXPECT_EQ(knob.set[1].key, "hedge_delay_ms");
    EXPECT_EQ(knob.set[1].value, 250);
    EXPECT_GE(knob.at_s, 0.3);
    const TimelineEvent& fault = back.timeline.events[1];
    ASSERT_TRUE(fault.fault);
    EXPECT_EQ(fault.fault->target.engine, "cirrus");
    ASSERT_TRUE(fault.until_s);
    EXPECT_GE(*fault.until_s - fault.at_s, 0.2);
    EXPECT_GE(fault.at_s, knob.at_s);
    // The run's first knobs, with the load_multiplier that made its arrivals: a simulated replay
    // draws the same ones.
    Params first = smallScenario().params;
    first.set("load_multiplier", stack.scenario().params.real("load_multiplier"));
    EXPECT_EQ(back.params, first);
    EXPECT_NE(stack.scenario().params.real("load_multiplier"), smallScenario().params.real("load_multiplier"));
}

TEST(LiveStack, SendsTheScenariosOwnArrivalsSurgesIncluded) {
    const Scenario s = parseScenario(R"({"schema_version": 1, "name": "surge", "title": "t", "lab": "gateway",
        "seed": 11, "params": {"days": 1, "atlas_median_ms": 5, "borealis_median_ms": 5, "cirrus_median_ms": 5},
        "timeline": [{"at": 1, "until": 2, "fault": {"target": {}, "effect": "surge", "factor": 3}},
                     {"at": 2.5, "fault": {"target": {"region": "EU"}, "effect": "surge", "factor": 0.5}}]})",
                                     "surge.json");
    LiveStackOptions o;
    o.rate_per_s = 40;
    o.duration = std::chrono::seconds(3);
    LiveStack stack(s, o);
    EXPECT_TRUE(stack.loadConfig().plan_source);
    stack.start();
    stack.waitForLoad();
    stack.stop();
    EXPECT_EQ(stack.load().error, "");
    // Every planned request was sent and reached the gateway.
    EXPECT_GT(stack.loadResult().counts.sent, 0u);
    EXPECT_EQ(stack.loadResult().counts.sent, stack.loadResult().intended);
    EXPECT_EQ(stack.snapshot().accepted, stack.loadResult().counts.sent);
    EXPECT_FALSE(stack.loadResult().stopped_early);
}

TEST(LiveStack, StoppingEarlyEndsTheLoadAndAStackNeverStartedStopsQuietly) {
    {
        LiveStack idle(smallScenario(), LiveStackOptions{});
    }
    LiveStackOptions o;
    o.rate_per_s = 50;
    LiveStack stack(smallScenario(), o);  // a day of load, stopped after a moment
    stack.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stack.stop();
    EXPECT_FALSE(stack.running());
    EXPECT_TRUE(stack.load().finished);
    EXPECT_TRUE(stack.loadResult().stopped_early);
    EXPECT_THROW(LiveStack(smallScenario(), [] {
                     LiveStackOptions bad;
                     bad.rate_per_s = 0;
                     return bad;
                 }()),
                 std::invalid_argument);
}

// Polls `condition` every 10 ms for up to 30 s (a sanitizer build on a busy machine can take a
// second to send its first request); whether it came true.
bool within30s(const std::function<bool()>& condition) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

// Engines that take 800 ms under a 1.5 s deadline: when the run stops, the load generator gives
// up on its requests still out, but the gateway answers every search it accepted before it
// closes, so its figures count each of them once, none left in flight.
TEST(LiveStack, AStopLeavesNoSearchInFlightAtTheGateway) {
    const Scenario slow = parseScenario(R"({"schema_version": 1, "name": "stack-stop-test", "title": "t",
        "lab": "gateway", "seed": 11, "params": {"days": 1, "atlas_median_ms": 800, "atlas_sigma": 0.01,
        "borealis_median_ms": 800, "borealis_sigma": 0.01, "cirrus_median_ms": 800, "cirrus_sigma": 0.01,
        "fault_multiplier": 0, "slow_multiplier": 0, "hedge_mode": "off", "deadline_ms": 1500}})",
                                        "stack-stop-test.json");
    LiveStackOptions o;
    o.rate_per_s = 50;
    LiveStack stack(slow, o);
    stack.start();
    ASSERT_TRUE(within30s([&] { return stack.snapshot().in_flight > 0; }));
    stack.stop();
    const gateway::GatewaySnapshot s = stack.snapshot();
    EXPECT_GT(s.accepted, 0u);
    EXPECT_EQ(s.in_flight, 0u);
    EXPECT_EQ(s.answered + s.rejected + s.failed, s.accepted);
}

// The in-process stack (what `live` and the GUI's live tab run) stopped while every engine
// answers 3 s late: the requests still unanswered at the stop stay in the clients' corrected
// latencies, at their age then, and the run's elapsed time runs to the stop.
TEST(LiveStack, StoppingInAStallKeepsTheStalledRequests) {
    LiveStackOptions o;
    o.rate_per_s = 50;
    LiveStack stack(smallScenario(), o);  // a day of load, stopped after a moment
    stack.start();
    // Waits on what the run did, not on the clock: a sanitizer build on a busy machine is slow.
    ASSERT_TRUE(within30s([&] { return stack.load().counts.sent >= 10; }));
    const auto sending = std::chrono::steady_clock::now();  // the generator runs since before
    Fault late;
    late.effect = FaultEffect::Latency;
    late.add_ms = 3000;
    stack.injectFault(late, std::nullopt);
    const auto faulted = std::chrono::steady_clock::now();
    ASSERT_TRUE(within30s([&] {
        return stack.load().counts.in_flight() >= 5 &&
               std::chrono::steady_clock::now() - faulted >= std::chrono::milliseconds(700);
    }));
    const double ranAtLeast_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sending).count();
    stack.stop();
    const LoadResult& r = stack.loadResult();
    EXPECT_TRUE(r.stopped_early);
    EXPECT_GT(r.counts.abandoned, 0u);
    EXPECT_EQ(r.corrected.totalCount(),
              static_cast<std::int64_t>(r.counts.answered + r.counts.failed + r.counts.abandoned));
    EXPECT_GE(r.corrected.max(), 500'000);
    EXPECT_GE(r.elapsed_s, ranAtLeast_s);
    const LoadProgress progress = stack.load();
    EXPECT_EQ(progress.elapsed_s, r.elapsed_s);
    ASSERT_TRUE(progress.corrected_p99_ms);
    EXPECT_GE(*progress.corrected_p99_ms, 500);
}

}  // namespace
}  // namespace taillab::live
