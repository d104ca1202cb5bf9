// A gateway run replays from what it records: initialParams(), the seed and timeline() (the
// scenario's events and the edits made with applyParams) give the same result, directly and
// through a scenario file; and discardPendingChanges drops knob changes not yet applied, as the
// GUI needs when an edit after a seek back rewrites the run's future. One simulated day at low
// load, so the suite stays quick.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gateway_sim/gateway_lab.h"
#include "gateway_sim/gateway_sim.h"
#include "labs/lab_result.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "timeline_support.h"

namespace taillab::gateway {
namespace {

constexpr double kHour = 3600;
constexpr std::uint64_t kSeed = 5;

Params lightDay() {
    Params p(GatewaySim::knobs());
    p.set("days", 1);
    p.set("load_multiplier", 0.2);
    return p;
}

Params with(Params p, const std::string& key, double value) {
    p.set(key, value);
    return p;
}

std::string resultJson(GatewaySim& sim, const std::string& scenario = "") {
    EXPECT_TRUE(sim.drain());
    LabResult r = gatewayResult(sim.snapshot(), sim.initialParams(), kSeed);
    r.scenario = scenario;
    return toJson(r).dump(2);
}

// A slow atlas from 08:00 to 09:30, as a scenario file would have it.
Timeline slowAtlas() {
    return test::timeline({R"({"at": 28800, "until": 34200,
        "fault": {"target": {"engine": "atlas"}, "effect": "slow", "factor": 3}})"});
}

TEST(GatewaySimReplay, EditsReplayFromInitialParamsSeedAndTimeline) {
    const Params base = lightDay();
    GatewaySim played(base, kSeed, slowAtlas());
    // Slices as a player advances, edits at moments no scenario would pick.
    ASSERT_TRUE(played.advanceTo(2.5 * kHour + 0.123456789));
    played.applyParams(with(base, "hedge_delay_ms", 250));
    ASSERT_TRUE(played.advanceTo(7.75 * kHour));
    ASSERT_TRUE(played.advanceTo(11 * kHour + 1.0 / 3));
    // Two knobs at once, the catalogue listing them in another order than their keys'.
    played.applyParams(with(with(with(base, "hedge_delay_ms", 250), "hedge_mode", 1),
                            "hedge_budget", 0.05));
    ASSERT_EQ(played.timeline().events.size(), 3u);
    EXPECT_EQ(played.initialParams(), base);
    const Timeline recorded = played.timeline();
    const TimelineEvent& second = recorded.events.back();
    ASSERT_EQ(second.set.size(), 2u);
    EXPECT_EQ(second.set[0].key, "hedge_budget") << "settings in key order, as a file's";
    EXPECT_EQ(second.label, "hedge_budget 0.05, hedge_mode fixed");
    const std::string expected = resultJson(played, "replayed");

    GatewaySim replay(played.initialParams(), kSeed, recorded);
    EXPECT_EQ(resultJson(replay, "replayed"), expected);

    // Through a file: written, read back, run as the CLI runs it; its result also records the
    // timeline it applied, which is the one recorded.
    Scenario s;
    s.name = "replayed";
    s.lab = "gateway";
    s.seed = kSeed;
    s.params = base;
    s.timeline = recorded;
    const Scenario read = parseScenario(writeScenarioJson(s), "replayed.json");
    EXPECT_EQ(read.timeline, recorded);
    nlohmann::ordered_json viaFile = toJson(runScenario(read));
    EXPECT_EQ(viaFile.at("timeline"), timelineToJson(recorded, base.specs()));
    viaFile.erase("timeline");
    EXPECT_EQ(viaFile.dump(2), expected);
}

TEST(GatewaySimReplay, DiscardedPendingChangesNeitherApplyNorStayOnTheTimeline) {
    const Params base = lightDay();
    GatewaySim first(base, kSeed, slowAtlas());
    ASSERT_TRUE(first.advanceTo(2 * kHour));
    first.applyParams(with(base, "hedge_delay_ms", 250));
    ASSERT_TRUE(first.advanceTo(6 * kHour));
    first.applyParams(with(base, "hedge_delay_ms", 300));
    const Timeline edited = first.timeline();
    ASSERT_EQ(edited.events.size(), 3u);

    // Back to 04:00 with every edit as a timeline event; a new edit there replaces the 06:00 one.
    GatewaySim rewritten(base, kSeed, edited);
    ASSERT_TRUE(rewritten.advanceTo(4 * kHour));
    const Timeline scenario = slowAtlas();
    rewritten.discardPendingChanges([&](const TimelineEvent& e) {
        return std::find(scenario.events.begin(), scenario.events.end(), e) ==
               scenario.events.end();
    });
    ASSERT_EQ(rewritten.timeline().events.size(), 2u) << "the 06:00 edit is gone, the fault stays";
    EXPECT_EQ(rewritten.timeline().events[0].at_s, 2 * kHour);
    EXPECT_TRUE(rewritten.timeline().events[1].fault.has_value());
    rewritten.applyParams(with(base, "hedge_delay_ms", 180));

    GatewaySim direct(base, kSeed, slowAtlas());
    ASSERT_TRUE(direct.advanceTo(2 * kHour));
    direct.applyParams(with(base, "hedge_delay_ms", 250));
    ASSERT_TRUE(direct.advanceTo(4 * kHour));
    direct.applyParams(with(base, "hedge_delay_ms", 180));
    EXPECT_EQ(rewritten.timeline(), direct.timeline());
    EXPECT_EQ(resultJson(rewritten), resultJson(direct));
}

TEST(GatewaySimReplay, ChangesAlreadyAppliedAreNotDiscarded) {
    const Params base = lightDay();
    Timeline t = test::timeline({R"({"at": 3600, "set": {"hedge_delay_ms": 200}})"});
    GatewaySim sim(base, kSeed, t);
    ASSERT_TRUE(sim.advanceTo(kHour));  // the 01:00 change applies at 01:00
    sim.discardPendingChanges([](const TimelineEvent&) { return true; });
    EXPECT_EQ(sim.timeline(), t);
    EXPECT_EQ(sim.params().real("hedge_delay_ms"), 200);
}

}  // namespace
}  // namespace taillab::gateway
