// Tail attribution (gateway_sim/attribution.h): a window run again to its end with the observer
// hooks, its requests' waterfalls and where their time went.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "gateway_day.h"
#include "gateway_sim/attribution.h"
#include "gateway_sim/gateway_sim.h"
#include "timeline_support.h"

namespace taillab::gateway {
namespace {

constexpr std::uint64_t kSeed = 3;
constexpr std::uint64_t kProbeBit = std::uint64_t{1} << 63;

// A short busy day with gateway compute on and provider A losing most of its CPUs in EU for an
// hour: queues, deadlines and failures in the window looked at.
struct Case {
    Params params = test::gatewayDay(0.6);
    Timeline timeline;
    AttributionQuery query;
    Case() {
        params.set("gateway_compute", 1);
        params.set("gateway_cpus", 4);
        timeline = test::timeline(
            {R"({"at": "Mon 09:00", "until": "Mon 10:00", "fault": {"target": {"provider": "A", "region": "EU"}, "effect": "capacity_lost", "share": 0.9}})"},
            R"j({"gateway_compute": true})j");
        query.t0_s = 9 * 3600 + 600;
        query.t1_s = query.t0_s + 60;
        query.slowest = 5;
    }
};

const WindowAttribution& attributed() {
    static const WindowAttribution a = [] {
        const Case c;
        auto r = attributeWindow(c.params, kSeed, c.timeline, c.query);
        EXPECT_TRUE(r.has_value());
        return r.value_or(WindowAttribution{});
    }();
    return a;
}

TEST(Attribution, StagesAreOrderedAndInsideTheRequestsLife) {
    const WindowAttribution& a = attributed();
    ASSERT_GT(a.requests, 20u);
    ASSERT_EQ(a.slowest.size(), 5u);
    for (const RequestWaterfall& w : a.slowest) {
        ASSERT_FALSE(w.stages.empty());
        EXPECT_EQ(w.stages.front().stage, Stage::Edge);
        EXPECT_DOUBLE_EQ(w.stages.front().start_ms, 0);
        double last = 0;
        for (const StageSpan& s : w.stages) {
            EXPECT_GE(s.start_ms, last - 1e-9) << segmentName(static_cast<int>(s.stage));
            EXPECT_GE(s.end_ms, s.start_ms);
            EXPECT_LE(s.end_ms, w.latency_ms + 1e-9);
            last = s.start_ms;
        }
        // A provider with no CPU left in EU never does the work: cut at the response, and said.
        for (const StageSpan& s : w.stages)
            if (s.unfinished) {
                EXPECT_DOUBLE_EQ(s.end_ms, w.latency_ms);
            }
        for (const CallSpan& c : w.calls) {
            EXPECT_GE(c.start_ms, 0);
            EXPECT_GE(c.end_ms, c.start_ms);
            EXPECT_FALSE(c.engine_name.empty());
        }
        EXPECT_GE(w.accepted_s, a.t0_s);
        EXPECT_LT(w.accepted_s, a.t1_s);
        EXPECT_EQ(w.trace & kProbeBit, 0u);
        EXPECT_GT(w.deadline_ms, 0);
    }
}

TEST(Attribution, SegmentsSumToTheLatency) {
    const WindowAttribution& a = attributed();
    for (const RequestWaterfall& w : a.slowest) {
        double sum = 0;
        for (double v : w.segment_ms) {
            EXPECT_GE(v, -1e-9);
            sum += v;
        }
        EXPECT_NEAR(sum, w.latency_ms, 1e-6 * std::max(1.0, w.latency_ms));
    }
    double total = 0;
    for (double v : a.segment_ms_total) total += v;
    EXPECT_NEAR(total, a.latency_ms_total, 1e-6 * a.latency_ms_total);
    // A fault that takes 90% of EU's CPUs: the stages' work (their wait for a CPU) shows.
    double work = 0;
    for (int s = 0; s < kStages; ++s)
        if (s != static_cast<int>(Stage::Engines)) work += a.segment_ms_total[static_cast<std::size_t>(s)];
    EXPECT_GT(work, 0);
}

// A waterfall built by hand: two calls that overlap, one that waited for an engine slot first,
// a hedge given up after the answer it lost to, and a wait after both: each piece of the gaps
// goes to exactly one segment.
TEST(Attribution, SplitGivesEachMomentToOneSegment) {
    RequestWaterfall w;
    w.latency_ms = 100;
    const std::array<std::pair<Stage, std::pair<double, double>>, 6> stages{{
        {Stage::Edge, {0, 5}},
        {Stage::Gateway, {5, 6}},
        {Stage::Compiler, {6, 7}},
        {Stage::Cache, {7, 8}},
        {Stage::Router, {8, 9}},
        {Stage::Merge, {90, 100}},
    }};
    for (const auto& [stage, span] : stages) w.stages.push_back({stage, span.first, span.second});
    CallSpan primary;  // asked at 9, waited 11 ms for a slot, answered at 80
    primary.start_ms = 20;
    primary.end_ms = 80;
    primary.queued_ms = 11;
    CallSpan hedge;  // left at 50, given up at 85, its answer would have come at 200
    hedge.role = CallRole::Hedge;
    hedge.start_ms = 50;
    hedge.end_ms = 200;
    hedge.cancelled_ms = 85;
    w.calls = {primary, hedge};
    EXPECT_EQ(splitSegments(w), 0);
    const auto at = [&](int segment) { return w.segment_ms[static_cast<std::size_t>(segment)]; };
    const auto stage = [&](Stage s) { return at(static_cast<int>(s)); };
    EXPECT_DOUBLE_EQ(stage(Stage::Edge), 5);
    EXPECT_DOUBLE_EQ(stage(Stage::Gateway), 1);
    EXPECT_DOUBLE_EQ(stage(Stage::Compiler), 1);
    EXPECT_DOUBLE_EQ(stage(Stage::Cache), 1);
    EXPECT_DOUBLE_EQ(stage(Stage::Router), 1);
    EXPECT_DOUBLE_EQ(at(kQueuedSegment), 11);                // 9 to 20
    EXPECT_DOUBLE_EQ(stage(Stage::Engines), 65);             // 20 to 85: either call in the air
    EXPECT_DOUBLE_EQ(at(kWaitingSegment), 5);                // 85 to 90
    EXPECT_DOUBLE_EQ(stage(Stage::Merge), 10);
}

// The slowest request found is the slowest the plain run answered among those accepted in the
// window: the same latencies, from a second run without attribution.
// A request whose edge sat on a host that never answers: the stages due after the response were
// never reached (not "unfinished"), and the rest of its path is listed as not reached, once each.
TEST(Attribution, StagesAfterTheResponseAreNotReached) {
    RequestWaterfall w;
    w.latency_ms = 600;
    w.outcome = Outcome::DeadlineMissed;
    StageSpan edge{Stage::Edge, 0, 600};
    edge.unfinished = true;  // would have ended an hour later
    StageSpan gateway{Stage::Gateway, 600, 600};
    gateway.unfinished = true;  // due to start an hour later
    w.stages = {edge, gateway};
    markUnreachedStages(w);
    ASSERT_EQ(w.stages.size(), static_cast<std::size_t>(kStages));
    EXPECT_TRUE(w.stages[0].reached);
    EXPECT_TRUE(w.stages[0].unfinished);
    for (std::size_t i = 1; i < w.stages.size(); ++i) {
        EXPECT_EQ(static_cast<int>(w.stages[i].stage), static_cast<int>(i));
        EXPECT_FALSE(w.stages[i].reached) << i;
        EXPECT_FALSE(w.stages[i].unfinished) << i;
        EXPECT_DOUBLE_EQ(w.stages[i].start_ms, 600);
        // Not reached because it was still at the edge, not because it had been answered.
        ASSERT_TRUE(w.stages[i].waiting_at.has_value()) << i;
        EXPECT_EQ(*w.stages[i].waiting_at, Stage::Edge) << i;
    }
    EXPECT_FALSE(w.stages[0].waiting_at.has_value());
    EXPECT_EQ(splitSegments(w), 0);
    EXPECT_DOUBLE_EQ(w.segment_ms[static_cast<std::size_t>(Stage::Edge)], 600);
    // A call reached the engines: only merge is left; an answered request gains nothing.
    RequestWaterfall called;
    called.latency_ms = 600;
    called.outcome = Outcome::DeadlineMissed;
    called.stages = {{Stage::Edge, 0, 1}, {Stage::Router, 5, 6}};
    called.calls = {CallSpan{}};
    markUnreachedStages(called);
    ASSERT_EQ(called.stages.size(), 3u);
    EXPECT_EQ(called.stages.back().stage, Stage::Merge);
    EXPECT_FALSE(called.stages.back().reached);
    // Its call was answered before the response: nothing was under way, it had been answered.
    EXPECT_FALSE(called.stages.back().waiting_at.has_value());
    // A call given up by the response: it was still waiting on the engines.
    RequestWaterfall inAir = called;
    inAir.stages.pop_back();
    inAir.calls.front().start_ms = 10;
    inAir.calls.front().end_ms = 900;
    inAir.calls.front().cancelled_ms = 600;
    markUnreachedStages(inAir);
    ASSERT_EQ(inAir.stages.size(), 3u);
    ASSERT_TRUE(inAir.stages.back().waiting_at.has_value());
    EXPECT_EQ(*inAir.stages.back().waiting_at, Stage::Engines);
    // Every engine's breaker open: answered 503 at the router, nothing after it was waited for.
    RequestWaterfall refused;
    refused.latency_ms = 5;
    refused.outcome = Outcome::NoEngine;
    refused.stages = {{Stage::Edge, 0, 1}, {Stage::Gateway, 1, 2}, {Stage::Compiler, 2, 3},
                      {Stage::Cache, 3, 4}, {Stage::Router, 4, 5}};
    markUnreachedStages(refused);
    ASSERT_EQ(refused.stages.size(), static_cast<std::size_t>(kStages));
    for (std::size_t i = 5; i < refused.stages.size(); ++i) {
        EXPECT_FALSE(refused.stages[i].reached) << i;
        EXPECT_FALSE(refused.stages[i].waiting_at.has_value()) << i;
    }
    RequestWaterfall ok = called;
    ok.outcome = Outcome::Ok;
    ok.stages.pop_back();
    markUnreachedStages(ok);
    EXPECT_EQ(ok.stages.size(), 2u);
}

TEST(Attribution, TheSlowestIsTheSlowestOfAPlainRun) {
    const Case c;
    GatewaySim sim(c.params, kSeed, c.timeline);
    std::vector<double> latencies;
    GatewaySim::Observer o;
    o.response = [&](const Response& r) {
        if (r.probe) return;
        const double at = toSeconds(r.accepted);
        if (at >= c.query.t0_s && at < c.query.t1_s) latencies.push_back(toMs(r.latency));
    };
    sim.setObserver(o);
    ASSERT_TRUE(sim.advanceTo(c.query.t1_s + 120));
    std::sort(latencies.begin(), latencies.end(), std::greater<>());
    const WindowAttribution& a = attributed();
    ASSERT_EQ(latencies.size(), a.requests);
    ASSERT_GE(latencies.size(), a.slowest.size());
    for (std::size_t i = 0; i < a.slowest.size(); ++i)
        EXPECT_DOUBLE_EQ(a.slowest[i].latency_ms, latencies[i]) << i;
}

TEST(Attribution, SameSeedSameAttribution) {
    const Case c;
    const auto again = attributeWindow(c.params, kSeed, c.timeline, c.query);
    ASSERT_TRUE(again);
    const WindowAttribution& a = attributed();
    ASSERT_EQ(again->slowest.size(), a.slowest.size());
    EXPECT_EQ(again->requests, a.requests);
    EXPECT_EQ(again->segment_ms_total, a.segment_ms_total);
    for (std::size_t i = 0; i < a.slowest.size(); ++i) {
        EXPECT_EQ(again->slowest[i].trace, a.slowest[i].trace);
        EXPECT_EQ(again->slowest[i].segment_ms, a.slowest[i].segment_ms);
        EXPECT_EQ(again->slowest[i].error, a.slowest[i].error);
    }
}

TEST(Attribution, RefusesAnEmptyWindowAndHonoursCancel) {
    const Case c;
    AttributionQuery q = c.query;
    q.t1_s = q.t0_s;
    EXPECT_THROW(attributeWindow(c.params, kSeed, c.timeline, q), std::invalid_argument);
    RunControl control;
    control.requestCancel();
    EXPECT_FALSE(attributeWindow(c.params, kSeed, c.timeline, c.query, &control));
}

TEST(Attribution, ARegionFilterKeepsOnlyThatRegion) {
    const Case c;
    AttributionQuery q = c.query;
    q.region = Region::US;
    const auto us = attributeWindow(c.params, kSeed, c.timeline, q);
    ASSERT_TRUE(us);
    EXPECT_GT(us->requests, 0u);
    EXPECT_LT(us->requests, attributed().requests);
    for (const RequestWaterfall& w : us->slowest) EXPECT_EQ(w.region, Region::US);
}

// A deadline moved in the middle of the window: each request keeps the one it was accepted under.
TEST(Attribution, EachRequestKeepsTheDeadlineItWasAcceptedUnder) {
    const Params p = test::gatewayDay(0.6);
    const Timeline t = test::timeline({R"({"at": "Mon 09:10:30", "set": {"deadline_ms": 400}})"});
    AttributionQuery q;
    q.t0_s = 9 * 3600 + 600;
    q.t1_s = q.t0_s + 60;
    q.slowest = 1000;
    const auto a = attributeWindow(p, kSeed, t, q);
    ASSERT_TRUE(a);
    const double before = p.real("deadline_ms");
    ASSERT_NE(before, 400);
    int early = 0, late = 0;
    for (const RequestWaterfall& w : a->slowest) {
        if (w.accepted_s < q.t0_s + 30) {
            EXPECT_DOUBLE_EQ(w.deadline_ms, before) << w.accepted_s;
            ++early;
        } else if (w.accepted_s > q.t0_s + 30) {
            EXPECT_DOUBLE_EQ(w.deadline_ms, 400) << w.accepted_s;
            EXPECT_LE(w.latency_ms, 400 + 1e-6);
            ++late;
        }
    }
    EXPECT_GT(early, 5);
    EXPECT_GT(late, 5);
    EXPECT_DOUBLE_EQ(a->deadline_ms, 400);
}

// What the response does not say, per request: the failure the fleet drew for each call, a
// call given up on in the air, and the gateway's notes (a hedge the budget denied).
WindowAttribution hedgedWindow(double budget) {
    Params p = test::gatewayDay(0.6);
    p.set("hedge_mode", 1);  // fixed
    p.set("hedge_delay_ms", 50);
    p.set("hedge_budget", budget);
    p.set("hedge_budget_burst", 1);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 09:00", "until": "Mon 10:00", "fault": {"target": {"region": "US"}, "effect": "resets", "share": 0.3}})"});
    AttributionQuery q;
    q.t0_s = 9 * 3600 + 600;
    q.t1_s = q.t0_s + 120;
    q.slowest = 60;
    auto r = attributeWindow(p, kSeed, t, q);
    EXPECT_TRUE(r.has_value());
    return r.value_or(WindowAttribution{});
}

// A request answered from the cache made no upstream call: a stale hit's background refresh
// shares its trace but is not its work, and is not drawn as one of its calls.
TEST(Attribution, ACacheHitHasNoCallsNotEvenItsRefresh) {
    Case c;
    c.query.slowest = 1'000'000;  // every request of the minute
    const auto a = attributeWindow(c.params, kSeed, c.timeline, c.query);
    ASSERT_TRUE(a.has_value());
    std::size_t hits = 0;
    for (const RequestWaterfall& w : a->slowest) {
        if (!w.cache_hit) continue;
        ++hits;
        EXPECT_TRUE(w.calls.empty()) << w.trace << " has " << w.calls.size() << " calls";
    }
    EXPECT_GT(hits, 10u);
}

TEST(Attribution, CallsSayHowTheyEndedAndNotesSayWhatWasRefused) {
    const WindowAttribution starved = hedgedWindow(0);
    int denied = 0, resets = 0;
    for (const RequestWaterfall& w : starved.slowest) {
        double last = 0;
        for (const NoteSpan& n : w.notes) {
            EXPECT_GE(n.at_ms, last);
            EXPECT_LE(n.at_ms, w.latency_ms + 1e-9);
            last = n.at_ms;
            if (n.kind == NoteKind::HedgeDenied) {
                ++denied;
                // The hedge timer fires 50 ms after the primary left.
                ASSERT_FALSE(w.calls.empty());
                EXPECT_NEAR(n.at_ms, w.calls.front().start_ms - w.calls.front().queued_ms + 50, 1e-6);
            }
        }
        for (const CallSpan& c : w.calls) {
            if (c.failure == CallFailure::Reset) {
                ++resets;
                EXPECT_EQ(c.region, Region::US);
            }
            EXPECT_GE(c.queued_ms, 0);
            EXPECT_LE(c.until_ms(), c.end_ms);
        }
    }
    EXPECT_GT(denied, 10) << "a budget of 0 after a burst of 1: the slow requests' hedges are denied";
    // Every reset is an answer the gateway refused, noted when the call ended.
    for (const RequestWaterfall& w : starved.slowest)
        for (const CallSpan& c : w.calls)
            if (c.failure == CallFailure::Reset && !c.cancelled_ms) {
                EXPECT_TRUE(std::any_of(w.notes.begin(), w.notes.end(), [&](const NoteSpan& n) {
                    return n.kind == NoteKind::AnswerInvalid && std::abs(n.at_ms - c.end_ms) < 1e-6;
                })) << w.trace;
            }
    EXPECT_GT(resets, 0) << "30% of US calls reset";
    // With room in the budget the hedges go, and when one wins, the primary is given up on.
    const WindowAttribution hedged = hedgedWindow(2);
    int sent = 0, cancelledInTheAir = 0, deniedThere = 0;
    for (const RequestWaterfall& w : hedged.slowest) {
        for (const CallSpan& c : w.calls) {
            if (c.role != CallRole::Primary) ++sent;
            if (c.cancelled_ms && *c.cancelled_ms < c.end_ms) {
                ++cancelledInTheAir;
                EXPECT_GE(*c.cancelled_ms, c.start_ms);
                EXPECT_DOUBLE_EQ(c.until_ms(), *c.cancelled_ms);
            }
        }
        for (const NoteSpan& n : w.notes) deniedThere += n.kind == NoteKind::HedgeDenied;
    }
    EXPECT_GT(sent, 10);
    EXPECT_GT(cancelledInTheAir, 0);
    EXPECT_LT(deniedThere, denied);
    EXPECT_EQ(noteName(NoteKind::HedgeDenied), "hedge_denied");
    EXPECT_EQ(callFailureName(CallFailure::Reset), "reset");
}

// Engines at capacity (one call at a time per region): calls wait in an engine's queue. A call
// given up there (its request answered by another call, or its deadline passed) is in its
// request's waterfall, never launched, its wait "queued"; a call that waited and then went has
// its wait "queued" and its flight "engines". (Such waits used to show as "waiting", and a call
// given up in the queue did not appear at all.)
TEST(Attribution, ACallThatWaitedForAnEngineSlotShowsItsWaitAsQueued) {
    Params p = test::gatewayDay(1.5);
    p.set("engine_capacity", 1);
    p.set("hedge_mode", 1);  // fixed
    p.set("hedge_delay_ms", 50);
    AttributionQuery q;
    q.t0_s = 9 * 3600 + 600;
    q.t1_s = q.t0_s + 120;
    q.slowest = 1'000'000;  // every request of the window
    const auto a = attributeWindow(p, kSeed, {}, q);
    ASSERT_TRUE(a.has_value());
    constexpr auto kQueued = static_cast<std::size_t>(kQueuedSegment);
    constexpr auto kEngines = static_cast<std::size_t>(Stage::Engines);
    int givenUpInQueue = 0, waitedThenWent = 0, alone = 0;
    double queued = 0;
    for (const RequestWaterfall& w : a->slowest) {
        // The pieces partition the latency: what the split leaves over for the largest segment
        // is rounding, not time lost or counted twice (hedges, queues and cancellations overlap).
        RequestWaterfall again = w;
        EXPECT_LE(std::abs(splitSegments(again)), 1e-9 * std::max(1.0, w.latency_ms)) << w.trace;
        for (const CallSpan& c : w.calls) {
            EXPECT_GE(c.queued_ms, 0);
            EXPECT_GE(c.queued_from_ms(), 0);
            if (!c.launched) {
                ++givenUpInQueue;
                EXPECT_GT(c.queued_ms, 0);
                ASSERT_TRUE(c.cancelled_ms.has_value()) << w.trace;
                EXPECT_DOUBLE_EQ(*c.cancelled_ms, c.start_ms);
                EXPECT_DOUBLE_EQ(c.end_ms, c.start_ms);
                EXPECT_EQ(c.failure, CallFailure::None);
                EXPECT_FALSE(c.engine_name.empty());
            } else if (c.queued_ms > 0) {
                ++waitedThenWent;
            }
        }
        // A request with one call that waited: its wait is exactly the queued segment, its flight
        // (up to the response) the engines segment.
        if (w.calls.size() == 1 && w.calls[0].queued_ms > 0) {
            const CallSpan& c = w.calls[0];
            ++alone;
            EXPECT_NEAR(w.segment_ms[kQueued], c.queued_ms, 1e-6) << w.trace;
            const double flight = c.launched ? std::min(c.until_ms(), w.latency_ms) - c.start_ms : 0;
            EXPECT_NEAR(w.segment_ms[kEngines], flight, 1e-6) << w.trace;
        }
        queued += w.segment_ms[kQueued];
    }
    EXPECT_GT(givenUpInQueue, 0);
    EXPECT_GT(waitedThenWent, 0);
    EXPECT_GT(alone, 0);
    EXPECT_GT(queued, 0);
    EXPECT_NEAR(a->segment_ms_total[kQueued], queued, 1e-6 * queued);
    EXPECT_EQ(segmentName(kQueuedSegment), "queued");
    EXPECT_EQ(segmentName(kWaitingSegment), "waiting");
}

}  // namespace
}  // namespace taillab::gateway
