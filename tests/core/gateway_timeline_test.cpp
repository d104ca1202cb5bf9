// Timelines in the gateway simulation: scenario events apply at their times exactly as a change
// made by hand at that moment does, faults act on the calls they target, and a bad event is
// refused before anything runs, at its JSON path.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gateway_day.h"
#include "gateway_sim/gateway_lab.h"
#include "gateway_sim/gateway_sim.h"
#include "labs/lab.h"
#include "labs/lab_result.h"
#include "run/runner.h"
#include "scenario/json_validator.h"
#include "scenario/scenario.h"
#include "timeline_support.h"

namespace taillab::gateway {
namespace {

Params dayParams(double load) { return test::gatewayDay(load); }

std::string resultBytes(const GatewaySnapshot& s, const Params& p, std::uint64_t seed) {
    return toJson(gatewayResult(s, p, seed)).dump();
}

// A knob change written in the timeline gives the same run, byte for byte, as the same change
// made by hand (applyParams) at that moment: what the GUI records, the CLI replays.
TEST(GatewayTimeline, AScenarioKnobChangeReplaysAChangeMadeByHand) {
    const Params base = dayParams(0.3);
    const double at = 9 * 3600 + 123.456789;
    GatewaySim byHand(base, 5);
    ASSERT_TRUE(byHand.advanceTo(at));
    Params changed = base;
    changed.set("hedge_delay_ms", 250);
    changed.set("hedge_mode", 1);
    byHand.applyParams(changed);
    ASSERT_TRUE(byHand.drain());
    const Timeline recorded = byHand.timeline();
    ASSERT_EQ(recorded.events.size(), 1u);
    EXPECT_DOUBLE_EQ(recorded.events[0].at_s, at);

    GatewaySim replay(byHand.initialParams(), 5, recorded);
    ASSERT_TRUE(replay.drain());
    const std::string expected = resultBytes(byHand.snapshot(), base, 5);
    const std::string got = resultBytes(replay.snapshot(), base, 5);
    if (got != expected) {
        std::size_t i = 0;
        while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
        ADD_FAILURE() << "replay differs at byte " << i << ": "
                      << got.substr(i > 200 ? i - 200 : 0, 400) << "\n  vs\n"
                      << expected.substr(i > 200 ? i - 200 : 0, 400);
    }
    // And through a scenario file written and read back.
    Scenario s;
    s.name = "replay";
    s.lab = "gateway";
    s.seed = 5;
    s.params = byHand.initialParams();
    s.timeline = recorded;
    const Scenario back = parseScenario(writeScenarioJson(s), "replay.json");
    GatewaySim fromFile(back.params, back.seed, back.timeline);
    ASSERT_TRUE(fromFile.drain());
    EXPECT_TRUE(resultBytes(fromFile.snapshot(), base, 5) == expected);
    // The mark says what changed, in both runs.
    bool found = false;
    for (const TimelineMark& m : fromFile.snapshot().timeline)
        if (m.kind == MarkKind::Knob) {
            found = true;
            EXPECT_EQ(m.what, "hedge_delay_ms 420 -> 250, hedge_mode rolling p90 per (region, engine) -> fixed");
            // The same steps, for a view to name in its own words (a choice by its index).
            ASSERT_EQ(m.knobs.size(), 2u);
            EXPECT_EQ(m.knobs[0].key, "hedge_delay_ms");
            EXPECT_EQ(m.knobs[0].from, 420);
            EXPECT_EQ(m.knobs[0].to, 250);
            EXPECT_EQ(m.knobs[1].key, "hedge_mode");
            EXPECT_EQ(m.knobs[1].to, 1);
        }
    EXPECT_TRUE(found);
}

// Atlas down in EU for two hours: EU's calls to atlas fail fast in that window only (each one
// an invalid answer and a retry on borealis), and the fault is drawn as a span on the time
// charts. With breakers that need few samples, EU/atlas's breaker opens inside the window.
TEST(GatewayTimeline, AnEngineDownInOneRegionFailsItsCallsThereForItsSpan) {
    const Params p = dayParams(1);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 10:00", "until": "Mon 12:00", "fault": {"target": {"engine": "atlas", "region": "EU"}, "effect": "down"}})"});
    auto invalidAt = [](GatewaySim& sim, double h) {
        EXPECT_TRUE(sim.advanceTo(h * 3600));
        return sim.snapshot().invalid_answers;
    };
    GatewaySim clean(p, 1), down(p, 1, t);
    std::vector<std::uint64_t> a, b;
    for (double h : {10.0, 12.0, 24.0}) a.push_back(invalidAt(clean, h)), b.push_back(invalidAt(down, h));
    EXPECT_EQ(b[0], a[0]);                       // the same run up to the fault
    EXPECT_GT(b[1] - b[0], a[1] - a[0] + 1000);  // every EU call to atlas fails in it
    EXPECT_LT(b[2] - b[1], 2 * (a[2] - a[1]) + 50);  // and it is over after
    ASSERT_TRUE(down.drain());
    const GatewaySnapshot s = down.snapshot();
    int spans = 0;
    for (const TimelineMark& m : s.timeline) {
        if (m.kind != MarkKind::Fault) continue;
        ++spans;
        EXPECT_DOUBLE_EQ(m.t_s, 10 * 3600.0);
        ASSERT_TRUE(m.end_s.has_value());
        EXPECT_DOUBLE_EQ(*m.end_s, 12 * 3600.0);
        EXPECT_EQ(m.what, "atlas down (EU)");
    }
    EXPECT_EQ(spans, 1);
    const LabResult r = gatewayResult(s, p, 1);
    ASSERT_EQ(r.annotations.size(), 1u);
    EXPECT_DOUBLE_EQ(r.annotations[0].x0, 10.0);
    EXPECT_DOUBLE_EQ(r.annotations[0].x1.value_or(-1), 12.0);
    EXPECT_EQ(r.annotations[0].kind, "fault");

    Params eager = p;
    eager.set("breaker_min_samples", 5);
    GatewaySim tripped(eager, 1, t);
    ASSERT_TRUE(tripped.drain());
    double firstOpen = -1;
    for (const TimelineMark& m : tripped.snapshot().timeline)
        if (m.what == "EU/atlas breaker open" && firstOpen < 0 && m.t_s >= 10 * 3600.0) firstOpen = m.t_s;
    EXPECT_GE(firstOpen, 10 * 3600.0);
    EXPECT_LT(firstOpen, 10 * 3600.0 + 60);  // within a minute of the fault
}

// Region breakers switched off while one is open close it then: the region takes spill and
// reroutes again. (Only an open breaker's own probes used to close it, and they stop when the
// knob is off, so it stayed open to the end of the run.)
TEST(GatewayTimeline, RegionBreakersSwitchedOffWhileOpenCloseThen) {
    const std::string params =
        R"j({"days": 1, "gateway_compute": true, "balancing": "probed (synthetic searches)", "region_breakers": true})j";
    const std::string lost = R"({"at": "Mon 10:00", "until": "Mon 11:00", "fault": {"target": {"region": "EU", "provider": "%"}, "effect": "capacity_lost", "share": 1}})";
    auto on = [&](const std::string& provider) {
        std::string e = lost;
        e.replace(e.find('%'), 1, provider);
        return e;
    };
    auto openSpans = [&](const std::vector<std::string>& events) {
        const Scenario sc = parseScenario(test::gateway(events, params), "week.json");
        GatewaySim sim(sc.params, 1, sc.timeline);
        EXPECT_TRUE(sim.drain());
        std::vector<std::pair<double, double>> spans;
        for (const HealthSpan& h : sim.snapshot().health_spans)
            if (h.kind == HealthKind::RegionBreaker && h.region == static_cast<int>(Region::EU)) spans.emplace_back(h.t0_s, h.t1_s);
        return spans;
    };
    const auto kept = openSpans({on("A"), on("B")});
    const auto off = openSpans({on("A"), on("B"), R"({"at": "Mon 10:30", "set": {"region_breakers": false}})"});
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_GT(kept[0].second, 11 * 3600.0);  // open for the fault's hour
    ASSERT_EQ(off.size(), 1u);
    EXPECT_EQ(off[0].first, kept[0].first);
    EXPECT_DOUBLE_EQ(off[0].second, 10.5 * 3600);
}

// Engine breakers switched off mid-run (a timeline knob change) while EU/atlas's is open: its
// span ends at that moment and no breaker changes state or is marked while they are off, though
// atlas is still down. Switched back on, the breaker starts closed and opens again on its own
// evidence. (They used to go on tracking while off: spans and marks that routing ignored.)
TEST(GatewayTimeline, BreakersSwitchedOffMidRunEndTheirSpansAndMarkNothingUntilBackOn) {
    Params p = dayParams(1);
    p.set("breaker_min_samples", 5);
    const double off = 10.5 * 3600, on = 11.5 * 3600;
    const Timeline t = test::timeline(
        {R"({"at": "Mon 10:00", "until": "Mon 12:00", "fault": {"target": {"engine": "atlas", "region": "EU"}, "effect": "down"}})",
         R"({"at": "Mon 10:30", "set": {"breakers": false}})", R"({"at": "Mon 11:30", "set": {"breakers": true}})"});
    GatewaySim sim(p, 1, t);
    ASSERT_TRUE(sim.advanceTo(12 * 3600));
    const GatewaySnapshot s = sim.snapshot();
    const int atlas = static_cast<int>(std::find(s.engines.begin(), s.engines.end(), "atlas") - s.engines.begin());
    ASSERT_LT(atlas, static_cast<int>(s.engines.size()));
    int spansWhileOff = 0, endedAtOff = 0, afterOn = 0;
    for (const BreakerSpan& b : s.breaker_spans) {
        spansWhileOff += b.t1_s > off && b.t0_s < on;
        if (b.region != static_cast<int>(Region::EU) || b.engine != atlas) continue;
        endedAtOff += b.t1_s == off;
        afterOn += b.t0_s >= on && b.t0_s < on + 60;
    }
    EXPECT_EQ(spansWhileOff, 0);
    EXPECT_EQ(endedAtOff, 1);
    EXPECT_GE(afterOn, 1);
    int marksWhileOff = 0, closedByKnob = 0;
    for (const TimelineMark& m : s.timeline) {
        if (m.kind != MarkKind::Breaker) continue;
        marksWhileOff += m.t_s > off && m.t_s < on;
        closedByKnob += m.t_s == off && m.what == "EU/atlas breaker closed (breakers off)";
    }
    EXPECT_EQ(marksWhileOff, 0);
    EXPECT_EQ(closedByKnob, 1);
}

// A timeline change over the knobs in force: an edit made before it can make it a change that
// cannot be made (a ceiling below the floor the edit raised). It is marked as not applied and
// the run goes on, as in live mode; it used to end the run with the config's error.
TEST(GatewayTimeline, AChangeThatAnEarlierEditMadeInvalidIsMarkedNotAppliedAndTheRunGoesOn) {
    Params p = dayParams(0.2);
    p.set("admission", true);
    p.set("admission_min_limit", 10);
    p.set("admission_max_limit", 200);
    const Timeline t = test::timeline({R"({"at": "Mon 10:00", "set": {"admission_max_limit": 50}})"});
    GatewaySim sim(p, 1, t);
    ASSERT_TRUE(sim.advanceTo(9 * 3600));
    Params edited = sim.params();
    edited.set("admission_min_limit", 80);
    sim.applyParams(edited);
    ASSERT_TRUE(sim.advanceTo(12 * 3600));
    EXPECT_EQ(sim.params().integer("admission_max_limit"), 200);
    EXPECT_EQ(sim.params().integer("admission_min_limit"), 80);
    int notApplied = 0;
    for (const TimelineMark& m : sim.snapshot().timeline)
        notApplied += m.kind == MarkKind::Knob && m.t_s == 10 * 3600 &&
                      m.what.starts_with("not applied: admission_max_limit 200 -> 50 (");
    EXPECT_EQ(notApplied, 1);
}

// A surge adds arrivals from its region, in its window, without changing any other arrival.
TEST(GatewayTimeline, ASurgeAddsArrivalsAndLeavesTheOthersAsTheyWere) {
    const Params p = dayParams(0.2);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 14:00", "until": "Mon 15:00", "fault": {"target": {"region": "US"}, "effect": "surge", "factor": 3}})"});
    std::set<std::uint64_t> base, surged;
    std::uint64_t extraInWindow = 0, extraOutside = 0;
    {
        GatewaySim sim(p, 2);
        GatewaySim::Observer o;
        o.arrival = [&](const RequestSpec& r) { base.insert(r.trace); };
        sim.setObserver(o);
        ASSERT_TRUE(sim.drain());
    }
    GatewaySim sim(p, 2, t);
    GatewaySim::Observer o;
    const Workload w(p, 2);
    o.arrival = [&](const RequestSpec& r) {
        surged.insert(r.trace);
        if (base.count(r.trace)) return;
        const bool inWindow = r.at >= fromSeconds(14 * 3600) && r.at < fromSeconds(15 * 3600);
        (inWindow ? extraInWindow : extraOutside) += 1;
        if (r.customer != kUnknownCustomer) {
            EXPECT_EQ(w.customers()[r.customer].home, Region::US);
        }
    };
    sim.setObserver(o);
    ASSERT_TRUE(sim.drain());
    for (std::uint64_t trace : base) ASSERT_TRUE(surged.count(trace)) << trace;
    EXPECT_EQ(extraOutside, 0u);
    // Twice the hour's traffic again (factor 3), from US customers only: about 2 x 0.2 x 12,342
    // x their share of traffic.
    EXPECT_GT(extraInWindow, 1000u);
}

// A knob change that contradicts the knobs in force when it applies is refused before the run
// starts, at the event's JSON path; so is a target the fleet does not have.
TEST(GatewayTimeline, ABadEventIsRefusedBeforeTheRunAtItsPath) {
    const std::string params = R"({"days": 1, "load_multiplier": 0.1})";
    // Read from a file: refused as the scenario is read, at the second event's "set".
    try {
        parseScenario(test::gateway({R"({"at": 3600, "set": {"hedge_clamp_min_ms": 100}})",
                                     R"({"at": 7200, "set": {"hedge_clamp_max_ms": 50}})"},
                                    params),
                      "week.json");
        ADD_FAILURE() << "expected a ScenarioError";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(e.path(), "/timeline/1/set");
        EXPECT_NE(std::string(e.what()).find("week.json:8:18: /timeline/1/set: hedge_clamp_max_ms (50 ms) is below "
                                             "hedge_clamp_min_ms (100 ms)"),
                  std::string::npos)
            << e.what();
    }
    // Built in code (as the GUI builds its edits): refused when the run starts, at its path.
    Scenario s = parseScenario(test::gateway({R"({"at": 3600, "set": {"hedge_clamp_min_ms": 100}})",
                                              R"({"at": 7200, "set": {"hedge_clamp_max_ms": 150}})"},
                                             params),
                               "week.json");
    s.timeline.events[1].set[0].value = 50;
    try {
        runScenario(s);
        ADD_FAILURE() << "expected a ScenarioError";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(e.path(), "/timeline/1");
        EXPECT_NE(std::string(e.what()).find("hedge_clamp_max_ms (50 ms) is below hedge_clamp_min_ms (100 ms)"),
                  std::string::npos)
            << e.what();
    }
}

// A result records the timeline its run applied, in the scenario schema and in its file's order
// (the run applies it in time order): /timeline/0 in the result is the file's /timeline/0, so a
// result can be read back event by event (taillab-cli compare does). A lab that applies no
// timeline records none.
TEST(GatewayTimeline, AResultRecordsItsTimelineInItsFilesOrder) {
    const std::string text = test::gateway(
        {R"({"at": 7200, "set": {"hedge_delay_ms": 200}, "label": "later"})",
         R"({"at": 3600, "until": 5400, "fault": {"target": {"engine": "atlas"}, "effect": "down"}})"},
        R"({"days": 1, "load_multiplier": 0.1})");
    const Scenario s = parseScenario(text, "t.json");
    ASSERT_EQ(s.timeline.events.at(0).path, "/timeline/1");
    const nlohmann::ordered_json written = toJson(runScenario(s)).at("timeline");
    ASSERT_EQ(written.size(), 2u) << written.dump();
    EXPECT_EQ(written[0].at("label"), "later");
    EXPECT_EQ(written[0].at("at"), 7200);
    EXPECT_EQ(written[1].at("fault").at("effect"), "down");
    const Lab* lab = findLab("gateway");
    const std::string noText;
    const Timeline back =
        parseTimeline(nlohmann::json(written), nlohmann::json::json_pointer("/timeline"),
                      *lab->timelineVocabulary(s.params), JsonValidator(noText, "result.json", {}));
    EXPECT_TRUE(back == s.timeline);
    const Scenario fanout = parseScenario(
        R"({"schema_version": 1, "name": "f", "lab": "fanout", "params": {"requests": 2000}})",
        "f.json");
    EXPECT_FALSE(toJson(runScenario(fanout)).contains("timeline"));
}

// Capacity lost: with atlas's whole capacity gone in APAC for an hour, APAC's primary calls wait
// at atlas until a hedge to borealis answers or their deadline passes: hedges rise and requests
// miss their deadline there, and nowhere else.
TEST(GatewayTimeline, CapacityLostQueuesTheCallsItTargets) {
    const Params p = dayParams(1);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 08:00", "until": "Mon 09:00", "fault": {"target": {"engine": "atlas", "region": "APAC"}, "effect": "capacity_lost", "share": 1}})"});
    GatewaySim clean(p, 4), lost(p, 4, t);
    ASSERT_TRUE(clean.drain());
    ASSERT_TRUE(lost.drain());
    const GatewaySnapshot a = clean.snapshot(), b = lost.snapshot();
    auto missedBetween = [](const GatewaySnapshot& s, double h0, double h1) {
        std::uint64_t n = 0;
        for (const WindowPoint& w : s.windows)
            if (w.t_s > h0 * 3600 && w.t_s <= h1 * 3600) n += w.failed;
        return n;
    };
    EXPECT_GT(missedBetween(b, 8, 9), missedBetween(a, 8, 9) + 50);
    EXPECT_EQ(missedBetween(b, 0, 8), missedBetween(a, 0, 8));
    EXPECT_EQ(b.accepted, a.accepted);
    EXPECT_EQ(b.answered + b.rejected + b.failed, b.accepted);
}

}  // namespace
}  // namespace taillab::gateway
