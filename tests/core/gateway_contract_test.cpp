// The gateway contract, driven directly through a fake Port with no simulator: requests, answers
// and timeouts go in with explicit times; the calls started and cancelled, the responses and the
// clock questions come out and are checked one by one.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway.h"

namespace taillab::gateway {
namespace {

Time ms(double v) { return fromMs(v); }

// A port that records every output. Stage work takes `stageCost` (0 by default): the gateway's
// only source of elapsed time.
class FakePort : public Port {
public:
    Duration stageCost{};
    std::vector<UpstreamCall> started;
    std::vector<std::string> queries;  // started[i].query, copied while valid
    std::vector<CallId> cancelled;
    struct Sent {
        Response r;
        std::vector<ResultItem> results;
        std::string message;  // r.message is only valid during respond()
    };
    std::vector<Sent> responses;
    std::vector<StageWork> stages;
    std::function<void()> onRespond;  // for the re-entry test

    Time stageEnd(Time start, const StageWork& work) override {
        stages.push_back(work);
        return start + stageCost;
    }
    void startCall(const UpstreamCall& call) override {
        started.push_back(call);
        queries.emplace_back(call.query);
    }
    void cancelCall(CallId call) override { cancelled.push_back(call); }
    void respond(const Response& r) override {
        Sent s{r, {}, std::string(r.message)};
        s.r.message = {};
        if (r.results)
            for (int i = 0; i < r.result_count; ++i) s.results.push_back((*r.results)[static_cast<std::size_t>(i)].copy());
        s.r.results = nullptr;  // only valid during the call
        responses.push_back(std::move(s));
        if (onRespond) onRespond();
    }
    bool wasCancelled(CallId id) const {
        for (const CallId& c : cancelled)
            if (c == id) return true;
        return false;
    }
};

GatewayConfig baseConfig() {
    GatewayConfig c;
    c.engines = {EngineSpec{"atlas", EngineRole::Routed, 1},
                 EngineSpec{"borealis", EngineRole::Routed, 0},
                 EngineSpec{"cirrus", EngineRole::LastChance, 0}};
    c.keys = {ApiKey{"key-a", "customer a", Region::EU, Lane::Interactive, false, 100, 10},
              ApiKey{"key-b", "customer b", Region::US, Lane::Interactive, false, 2, 1}};
    c.hedge_mode = HedgeMode::Fixed;
    c.hedge_delay_ms = 100;
    c.instances = 1;
    c.admission = false;
    return c;
}

std::shared_ptr<ResultBody> page(int n, const std::string& tag = "p") {
    std::vector<ResultItem> items;
    for (int i = 0; i < n; ++i)
        items.push_back(ResultItem{"title " + tag + std::to_string(i),
                                   "https://example.org/" + tag + "/" + std::to_string(i),
                                   "snippet", 1.0 - 0.1 * i});
    return std::make_shared<ResultBody>(std::move(items));
}

UpstreamAnswer answerWith(const ResultBody& body, std::uint64_t echo) {
    UpstreamAnswer a;
    a.page = &body;
    a.echo = echo;
    return a;
}

Request request(std::uint64_t trace, std::string_view query = "penguin habitats antarctica",
                std::string_view key = "key-a") {
    Request r;
    r.trace = trace;
    r.api_key = key;
    r.query = query;
    r.max_results = 5;
    return r;
}

struct Harness {
    explicit Harness(GatewayConfig c = baseConfig()) : gw(c, 7, port) {}
    FakePort port;
    Gateway gw;
    // Fires every timer due up to `t`, in order.
    void runTimersTo(Time t) {
        while (const std::optional<Time> next = gw.pollTimeout()) {
            if (*next > t) break;
            gw.onTimeout(*next);
        }
    }
};

TEST(GatewayContract, HedgeFiresAtItsDelayTheBackupWinsAndTheLoserIsCancelled) {
    Harness h;
    const auto body = page(8);
    h.gw.onRequest(ms(0), request(1));
    ASSERT_EQ(h.port.started.size(), 1u);
    const UpstreamCall primary = h.port.started[0];
    EXPECT_EQ(primary.engine, 0);
    EXPECT_EQ(primary.role, CallRole::Primary);
    EXPECT_EQ(primary.at, ms(0));
    EXPECT_EQ(h.port.queries[0], "penguin habitats antarctica");
    // Nothing happens before the hedge delay; the gateway says when it next needs a call.
    ASSERT_EQ(h.gw.pollTimeout(), ms(100));
    h.runTimersTo(ms(99));
    EXPECT_EQ(h.port.started.size(), 1u);
    h.runTimersTo(ms(100));
    ASSERT_EQ(h.port.started.size(), 2u);
    const UpstreamCall hedge = h.port.started[1];
    EXPECT_EQ(hedge.role, CallRole::Hedge);
    EXPECT_EQ(hedge.engine, 1);
    EXPECT_EQ(hedge.at, ms(100));
    // The backup answers first: it wins, the primary is cancelled, the client gets its results.
    h.gw.onAnswer(ms(140), hedge.id, answerWith(*body, primary.cache_key));
    ASSERT_EQ(h.port.responses.size(), 1u);
    const auto& sent = h.port.responses[0];
    EXPECT_EQ(sent.r.status, 200);
    EXPECT_EQ(sent.r.latency, ms(140));
    EXPECT_EQ(sent.results.size(), 5u);  // sliced to max_results
    EXPECT_EQ(sent.results[0].title, "title p0");
    EXPECT_TRUE(h.port.wasCancelled(primary.id));
    EXPECT_FALSE(h.port.wasCancelled(hedge.id));
    EXPECT_EQ(h.gw.requestsInFlight(), 0u);
    EXPECT_EQ(h.gw.callsInFlight(), 0u);
}

TEST(GatewayContract, APassedDeadlineIsA503WithRetryAfterNeverAnEmpty200) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    ASSERT_EQ(h.port.started.size(), 1u);
    // 600 ms less the 10 ms margin and the 12 ms merge reserve.
    ASSERT_EQ(h.gw.pollTimeout(), ms(578));
    EXPECT_EQ(h.port.started[0].budget, ms(578));  // the call's own timeout is what remains
    h.runTimersTo(ms(1000));
    ASSERT_EQ(h.port.responses.size(), 1u);
    const Response& r = h.port.responses[0].r;
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.outcome, Outcome::DeadlineMissed);
    EXPECT_EQ(r.error, "deadline_missed");
    EXPECT_TRUE(h.port.responses[0].results.empty());
    ASSERT_TRUE(r.retry_after.has_value());
    EXPECT_GT(*r.retry_after, kZero);
    EXPECT_EQ(r.latency, ms(578));  // counted at its latency
    EXPECT_TRUE(h.port.wasCancelled(h.port.started[0].id));
    // An empty page that the query does not allow is not an answer either.
    Harness h2(c);
    const auto empty = std::make_shared<ResultBody>(std::vector<ResultItem>{});
    h2.gw.onRequest(ms(0), request(2));
    h2.gw.onAnswer(ms(50), h2.port.started[0].id, answerWith(*empty, h2.port.started[0].cache_key));
    // The empty page failed validation: the gateway retries on the next engine, never a 200.
    ASSERT_EQ(h2.port.started.size(), 2u);
    EXPECT_EQ(h2.port.started[1].role, CallRole::Retry);
    EXPECT_TRUE(h2.port.responses.empty());
}

// Seed 000's v3 error-path bug, as a knob for replaying July: the same timeout goes out as a 200
// with no results, but the gateway's own figures still count it as the failure it is.
TEST(GatewayContract, WithTheV3BugATimeoutIsAnEmpty200ThatTheFiguresStillCountAsFailed) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    c.timeout_reply = TimeoutReply::EmptyOk;
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    h.runTimersTo(ms(1000));
    ASSERT_EQ(h.port.responses.size(), 1u);
    const Response& r = h.port.responses[0].r;
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.disguised);
    EXPECT_EQ(r.outcome, Outcome::DeadlineMissed);  // the truth
    EXPECT_EQ(r.result_count, 0);
    EXPECT_TRUE(r.error.empty());
    EXPECT_FALSE(r.retry_after.has_value());
    EXPECT_EQ(r.latency, ms(578));
    // A request that is rejected, not timed out, keeps its real status.
    h.gw.onRequest(ms(1000), request(2, "penguins", "no-such-key"));
    ASSERT_EQ(h.port.responses.size(), 2u);
    EXPECT_EQ(h.port.responses[1].r.status, 401);
    EXPECT_FALSE(h.port.responses[1].r.disguised);
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(2000));
    EXPECT_EQ(s.failed, 1u);
    EXPECT_EQ(s.invisible_failures, 1u);
    EXPECT_EQ(s.outcomes[static_cast<int>(Outcome::DeadlineMissed)], 1u);
}

TEST(GatewayContract, CoalescedWaitersGetTheLeadersAnswer) {
    Harness h;
    const auto body = page(10);
    h.gw.onRequest(ms(0), request(1));
    h.gw.onRequest(ms(5), request(2));
    h.gw.onRequest(ms(6), request(3, "  Penguin   HABITATS antarctica "));  // same normalized query
    ASSERT_EQ(h.port.started.size(), 1u);  // one flight upstream
    h.gw.onAnswer(ms(80), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    ASSERT_EQ(h.port.responses.size(), 3u);
    std::map<std::uint64_t, Duration> latency;
    for (const auto& s : h.port.responses) {
        EXPECT_EQ(s.r.status, 200);
        EXPECT_EQ(s.results.size(), 5u);
        EXPECT_EQ(s.results[4].url, "https://example.org/p/4");
        latency[s.r.trace] = s.r.latency;
        EXPECT_EQ(s.r.coalesced, s.r.trace != 1) << "trace " << s.r.trace;  // 1 led the flight
        EXPECT_FALSE(s.r.cache_hit);
    }
    EXPECT_EQ(latency[1], ms(80));
    EXPECT_EQ(latency[2], ms(75));
    EXPECT_EQ(latency[3], ms(74));
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(80));
    EXPECT_EQ(s.coalesced, 2u);
}

TEST(GatewayContract, AWaiterDetachesNearItsDeadlineAndCallsOnItsOwn) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    h.gw.onRequest(ms(300), request(2));  // joins the slow leader
    ASSERT_EQ(h.port.started.size(), 1u);
    // The waiter's deadline is 300 + 590; it detaches 150 ms before, at 740: but the leader's
    // own deadline timer (578) comes first and fails it, which sends the waiter on alone.
    h.runTimersTo(ms(578));
    ASSERT_EQ(h.port.responses.size(), 1u);
    EXPECT_EQ(h.port.responses[0].r.status, 503);
    ASSERT_EQ(h.port.started.size(), 2u);
    EXPECT_EQ(h.port.started[1].role, CallRole::Primary);
    EXPECT_EQ(h.port.started[1].at, ms(578));
    // A waiter that reaches its detach time while the leader is still in the air detaches.
    Harness d(c);
    d.gw.onRequest(ms(0), request(1));
    d.gw.onRequest(ms(10), request(2));
    d.runTimersTo(ms(449));
    EXPECT_EQ(d.port.started.size(), 1u);
    d.runTimersTo(ms(450));  // 10 + 590 - 150
    ASSERT_EQ(d.port.started.size(), 2u);
    EXPECT_EQ(d.port.started[1].at, ms(450));
    const auto body = page(3);
    d.gw.onAnswer(ms(460), d.port.started[1].id, answerWith(*body, d.port.started[1].cache_key));
    // The detached waiter has its answer; the leader still waits on its own call.
    ASSERT_EQ(d.port.responses.size(), 1u);
    EXPECT_EQ(d.port.responses[0].r.trace, 2u);
    EXPECT_EQ(d.port.responses[0].r.status, 200);
    EXPECT_EQ(d.gw.requestsInFlight(), 1u);
}

// With too little time left for a call of its own at its detach point (min_useful_ms above the
// detach reserve less the merge reserve), a waiter stays with its leader instead of giving up
// 150 ms early while the leader may still answer.
TEST(GatewayContract, AWaiterWithNoTimeForACallOfItsOwnStaysWithItsLeader) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    c.min_useful_ms = 139;  // at the detach point (deadline - 150) a call would get 138 ms
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    h.gw.onRequest(ms(10), request(2));
    h.runTimersTo(ms(500));
    EXPECT_TRUE(h.port.responses.empty());
    ASSERT_EQ(h.port.started.size(), 1u);
    const auto body = page(3);
    h.gw.onAnswer(ms(500), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    ASSERT_EQ(h.port.responses.size(), 2u);
    for (const auto& sent : h.port.responses) EXPECT_EQ(sent.r.status, 200) << sent.r.trace;
}

// A waiter that joins a flight after its own detach point (its request was accepted long before,
// e.g. it waited in the batch lane) still ends by its deadline, not whenever the leader does.
TEST(GatewayContract, AWaiterThatJoinsLateStillEndsByItsDeadline) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    h.gw.onRequest(ms(400), request(1));  // the leader: its cutoff is 400 + 578
    Request late = request(2);
    late.accepted = ms(0);  // its deadline is 590, its detach point 440
    h.gw.onRequest(ms(490), late);
    ASSERT_EQ(h.port.started.size(), 1u);  // it joined the leader's flight
    h.runTimersTo(ms(600));
    ASSERT_EQ(h.port.responses.size(), 1u);
    EXPECT_EQ(h.port.responses[0].r.trace, 2u);
    EXPECT_EQ(h.port.responses[0].r.status, 503);
    EXPECT_EQ(h.port.responses[0].r.at, ms(578));
}

// A request keeps the deadline it was accepted with: shortening deadline_ms mid-run does not turn
// an answer that arrives inside the request's own deadline into a 503 stamped at the new one.
TEST(GatewayContract, ADeadlineChangeDoesNotMoveTheDeadlineOfARequestInFlight) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    c.deadline_ms = 100;
    h.gw.reconfigure(ms(0), c);
    const auto body = page(3);
    h.gw.onAnswer(ms(400), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    ASSERT_EQ(h.port.responses.size(), 1u);
    EXPECT_EQ(h.port.responses[0].r.status, 200);
    EXPECT_EQ(h.port.responses[0].r.latency, fromMs(400) - Time{});
    // A request accepted after the change gets the new deadline.
    h.gw.onRequest(ms(500), request(2, "glacier retreat alps"));
    h.runTimersTo(ms(700));
    ASSERT_EQ(h.port.responses.size(), 2u);
    EXPECT_EQ(h.port.responses[1].r.status, 503);
    EXPECT_LE(h.port.responses[1].r.at, ms(600));
}

// A breaker that trips on four samples, with no hedge, cache or coalescing in the way.
GatewayConfig breakerGatewayConfig() {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    c.cache_tiers = CacheTiers::Off;
    c.coalescing = CoalescingMode::Off;
    c.breaker.min_samples = 4;
    c.breaker.threshold = 0.8;
    c.breaker.open_for = fromSeconds(5);
    return c;
}

TEST(GatewayContract, ABreakerOpensHalfOpensAndCloses) {
    GatewayConfig c = breakerGatewayConfig();
    c.breaker.probe_fraction = 1.0;  // every eligible call probes while half-open
    c.breaker.close_after = 2;
    Harness h(c);
    const auto block = std::make_shared<ResultBody>(std::vector<ResultItem>{}, PageKind::BlockPage);
    const auto good = page(3);
    std::uint64_t trace = 0;
    auto breakerOf = [&](Time t) {
        GatewaySnapshot s;
        h.gw.fillSnapshot(s, t);
        return s.breaker_state[0];  // EU/atlas
    };
    // Four block pages from atlas: its valid-result rate is 0 with 4 samples: open.
    for (int i = 0; i < 4; ++i) {
        const Time t = ms(10.0 * i);
        h.gw.onRequest(t, request(++trace, "q" + std::to_string(i)));
        const UpstreamCall& call = h.port.started.back();
        EXPECT_EQ(call.engine, 0);
        h.gw.onAnswer(t + ms(1), call.id, answerWith(*block, call.cache_key));
        // The block page is invalid: a retry on borealis answers.
        ASSERT_EQ(h.port.started.back().engine, 1);
        h.gw.onAnswer(t + ms(2), h.port.started.back().id,
                      answerWith(*good, h.port.started.back().cache_key));
    }
    EXPECT_EQ(breakerOf(ms(40)), BreakerState::Open);
    // While open, atlas is skipped: the primary goes to borealis.
    h.gw.onRequest(ms(1000), request(++trace, "while open"));
    EXPECT_EQ(h.port.started.back().engine, 1);
    h.gw.onAnswer(ms(1010), h.port.started.back().id, answerWith(*good, h.port.started.back().cache_key));
    // Five seconds after opening it is half-open and lets probes through; two valid ones close it.
    for (int i = 0; i < 2; ++i) {
        h.gw.onRequest(ms(5100 + i), request(++trace, "probe " + std::to_string(i)));
        EXPECT_EQ(h.port.started.back().engine, 0);
        h.gw.onAnswer(ms(5110 + i), h.port.started.back().id,
                      answerWith(*good, h.port.started.back().cache_key));
    }
    EXPECT_EQ(breakerOf(ms(5200)), BreakerState::Closed);
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(5200));
    std::vector<std::pair<double, std::string>> marks;
    for (const TimelineMark& m : s.timeline) marks.emplace_back(m.t_s, m.what);
    const std::vector<std::pair<double, std::string>> expected{
        {0.031, "EU/atlas breaker open"},
        {5.031, "EU/atlas breaker half_open"},
        {5.111, "EU/atlas breaker closed"}};
    ASSERT_EQ(marks.size(), expected.size());
    for (std::size_t i = 0; i < marks.size(); ++i) {
        EXPECT_NEAR(marks[i].first, expected[i].first, 1e-9);
        EXPECT_EQ(marks[i].second, expected[i].second);
    }
    ASSERT_EQ(s.breaker_spans.size(), 2u);
    EXPECT_EQ(s.breaker_spans[0].state, BreakerState::Open);
    EXPECT_EQ(s.breaker_spans[1].state, BreakerState::HalfOpen);
}

// Breakers switched off while one is open: its span ends at that moment, and while they are off
// nothing is tracked (block pages open no breaker, no mark appears). Switched back on, the breaker
// starts closed with an empty window: what it saw while off does not open it.
TEST(GatewayContract, BreakersSwitchedOffEndTheOpenSpanAndTrackNothingUntilBackOn) {
    GatewayConfig c = breakerGatewayConfig();
    Harness h(c);
    const auto block = std::make_shared<ResultBody>(std::vector<ResultItem>{}, PageKind::BlockPage);
    const auto good = page(3);
    std::uint64_t trace = 0;
    // A block page from atlas at `at`, retried on borealis.
    auto blockOne = [&](Time at) {
        ++trace;
        h.gw.onRequest(at, request(trace, "q" + std::to_string(trace)));
        EXPECT_EQ(h.port.started.back().engine, 0) << toSeconds(at);
        h.gw.onAnswer(at + ms(1), h.port.started.back().id, answerWith(*block, h.port.started.back().cache_key));
        EXPECT_EQ(h.port.started.back().engine, 1) << toSeconds(at);
        h.gw.onAnswer(at + ms(2), h.port.started.back().id, answerWith(*good, h.port.started.back().cache_key));
    };
    auto blockFour = [&](Time t) {
        for (int i = 0; i < 4; ++i) blockOne(t + ms(10.0 * i));
    };
    auto snapshotAt = [&](Time t) {
        GatewaySnapshot s;
        h.gw.fillSnapshot(s, t);
        return s;
    };
    blockFour(ms(0));
    ASSERT_EQ(snapshotAt(ms(100)).breaker_state[0], BreakerState::Open);  // EU/atlas, at 0.031 s
    c.breakers = false;
    h.gw.reconfigure(ms(2000), c);
    GatewaySnapshot s = snapshotAt(ms(2000));
    EXPECT_EQ(s.breaker_state[0], BreakerState::Closed);
    ASSERT_EQ(s.breaker_spans.size(), 1u);
    EXPECT_EQ(s.breaker_spans[0].state, BreakerState::Open);
    EXPECT_NEAR(s.breaker_spans[0].t0_s, 0.031, 1e-9);
    EXPECT_NEAR(s.breaker_spans[0].t1_s, 2.0, 1e-9);
    EXPECT_FALSE(s.breaker_spans[0].ongoing);
    // Off: atlas is routed to again (it was open until 5.031 s), and its block pages open nothing.
    blockFour(ms(3000));
    blockFour(ms(8000));
    s = snapshotAt(ms(9000));
    EXPECT_EQ(s.breaker_state[0], BreakerState::Closed);
    EXPECT_EQ(s.breaker_spans.size(), 1u);
    std::vector<std::pair<double, std::string>> marks;
    for (const TimelineMark& m : s.timeline) marks.emplace_back(m.t_s, m.what);
    const std::vector<std::pair<double, std::string>> expected{
        {0.031, "EU/atlas breaker open"}, {2.0, "EU/atlas breaker closed (breakers off)"}};
    ASSERT_EQ(marks.size(), expected.size());
    for (std::size_t i = 0; i < marks.size(); ++i) {
        EXPECT_NEAR(marks[i].first, expected[i].first, 1e-9);
        EXPECT_EQ(marks[i].second, expected[i].second);
    }
    // Back on: closed, and it takes four new block pages to open it again.
    c.breakers = true;
    h.gw.reconfigure(ms(10000), c);
    EXPECT_EQ(snapshotAt(ms(10000)).breaker_state[0], BreakerState::Closed);
    for (int i = 0; i < 3; ++i) blockOne(ms(10000 + 10.0 * i));
    EXPECT_EQ(snapshotAt(ms(10100)).breaker_state[0], BreakerState::Closed);
    blockOne(ms(10100));
    s = snapshotAt(ms(10200));
    EXPECT_EQ(s.breaker_state[0], BreakerState::Open);
    ASSERT_EQ(s.breaker_spans.size(), 2u);
    EXPECT_NEAR(s.breaker_spans[1].t0_s, 10.101, 1e-9);
}

TEST(GatewayContract, AnEmptyHedgeBudgetStopsHedges) {
    GatewayConfig c = baseConfig();
    c.hedge_budget = 0;
    Harness h(c);
    h.gw.onRequest(ms(0), request(1));
    h.runTimersTo(ms(200));
    EXPECT_EQ(h.port.started.size(), 1u);  // no hedge at 100 ms
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(200));
    EXPECT_EQ(s.hedges_denied, 1u);
    EXPECT_EQ(s.hedge_calls, 0u);
    // With a budget, the bucket's burst allows it.
    Harness with;
    with.gw.onRequest(ms(0), request(1));
    with.runTimersTo(ms(200));
    EXPECT_EQ(with.port.started.size(), 2u);
}

// The budget pays for hedges sent: a hedge that finds no engine to go to (the only routed engine
// is the primary's) gives its token back, so the bucket is still full for the hedges that can go.
TEST(GatewayContract, AHedgeWithNoEngineToGoToCostsNoBudget) {
    GatewayConfig c = baseConfig();
    c.engines = {EngineSpec{"atlas", EngineRole::Routed, 1}, EngineSpec{"cirrus", EngineRole::LastChance, 0}};
    c.hedge_burst = 2;
    Harness h(c);
    for (int i = 0; i < 3; ++i) {
        const std::string query = "penguin habitats " + std::to_string(i);  // no two coalesce
        h.gw.onRequest(ms(i), request(static_cast<std::uint64_t>(i + 1), query));
    }
    h.runTimersTo(ms(200));
    EXPECT_EQ(h.port.started.size(), 3u);  // three primaries, no hedge
    EXPECT_DOUBLE_EQ(h.gw.hedgeBudgetLevel(), 1.0);
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(200));
    EXPECT_EQ(s.hedges_denied, 0u);
}

// A new burst applies from its moment: down to one token, the second of two hedges due together
// is denied (with the scenario's 50, both went).
TEST(GatewayContract, AChangedHedgeBurstAppliesAtOnce) {
    Harness h;
    GatewayConfig c = baseConfig();
    c.hedge_burst = 1;
    h.gw.reconfigure(ms(0), c);
    h.gw.onRequest(ms(0), request(1));
    h.gw.onRequest(ms(0), request(2, "glacier retreat alps"));
    h.runTimersTo(ms(200));
    EXPECT_EQ(h.port.started.size(), 3u);  // two primaries, one hedge
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(200));
    EXPECT_EQ(s.hedges_denied, 1u);
}

TEST(GatewayContract, AStaleAnswerAfterCancelIsIgnored) {
    Harness h;
    const auto body = page(4);
    h.gw.onRequest(ms(0), request(1));
    h.runTimersTo(ms(100));
    ASSERT_EQ(h.port.started.size(), 2u);
    const UpstreamCall primary = h.port.started[0], hedge = h.port.started[1];
    h.gw.onAnswer(ms(120), hedge.id, answerWith(*body, hedge.cache_key));
    ASSERT_TRUE(h.port.wasCancelled(primary.id));
    // The cancelled primary answers anyway (the network does not know): ignored.
    h.gw.onAnswer(ms(130), primary.id, answerWith(*body, primary.cache_key));
    // A new request reuses the freed call slots with new generations; the old ids stay dead.
    h.gw.onRequest(ms(140), request(2, "another query entirely"));
    ASSERT_EQ(h.port.started.size(), 3u);
    const UpstreamCall fresh = h.port.started[2];
    EXPECT_TRUE(fresh.id.slot == primary.id.slot || fresh.id.slot == hedge.id.slot);
    EXPECT_FALSE(fresh.id == primary.id);
    EXPECT_FALSE(fresh.id == hedge.id);
    h.gw.onAnswer(ms(150), primary.id, answerWith(*body, primary.cache_key));
    h.gw.onAnswer(ms(151), hedge.id, answerWith(*body, hedge.cache_key));
    EXPECT_EQ(h.port.responses.size(), 1u);  // only the first request has been answered
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(160));
    EXPECT_EQ(s.stale_answers, 3u);
    EXPECT_EQ(s.double_answers, 0u);
    h.gw.onAnswer(ms(170), fresh.id, answerWith(*body, fresh.cache_key));
    EXPECT_EQ(h.port.responses.size(), 2u);
}

TEST(GatewayContract, A429CarriesRetryAfterAndEveryResponseCarriesRateLimitFields) {
    Harness h;  // key-b: a bucket of 2, refilled at 1 per second
    for (int i = 0; i < 3; ++i) h.gw.onRequest(ms(i), request(10 + i, "fresh query " + std::to_string(i), "key-b"));
    ASSERT_EQ(h.port.responses.size(), 1u);
    const Response& r = h.port.responses[0].r;
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.trace, 12u);
    ASSERT_TRUE(r.retry_after.has_value());
    // Two tokens taken at 0 and 1 ms; at 2 ms the bucket holds 0.002 tokens: the next one lands
    // 998 ms later.
    EXPECT_NEAR(toMs(*r.retry_after), 998, 0.001);
    ASSERT_TRUE(r.rate_limit.has_value());
    EXPECT_EQ(r.rate_limit->limit, 2);
    EXPECT_EQ(r.rate_limit->remaining, 0);
    EXPECT_NEAR(toMs(r.rate_limit->reset), 1998, 0.001);
    // Exactly at Retry-After the next request is served.
    h.gw.onRequest(ms(2) + *r.retry_after, request(20, "fresh query 9", "key-b"));
    EXPECT_EQ(h.port.responses.size(), 1u);
    EXPECT_EQ(h.port.started.size(), 3u);
    // A successful response reports the bucket too.
    const auto body = page(2);
    h.gw.onAnswer(ms(1100), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    ASSERT_EQ(h.port.responses.size(), 2u);
    ASSERT_TRUE(h.port.responses[1].r.rate_limit.has_value());
    EXPECT_EQ(h.port.responses[1].r.rate_limit->remaining, 1);
}

TEST(GatewayContract, UnknownKeysAndBadQueriesAreRejectedWithTheirStatus) {
    Harness h;
    h.gw.onRequest(ms(0), request(1, "q", "no-such-key"));
    h.gw.onRequest(ms(1), request(2, "bad \xff utf8"));
    Request tooMany = request(3);
    tooMany.max_results = 51;
    h.gw.onRequest(ms(2), tooMany);
    h.gw.onRequest(ms(3), request(4, "   "));
    ASSERT_EQ(h.port.responses.size(), 4u);
    EXPECT_EQ(h.port.responses[0].r.status, 401);
    EXPECT_FALSE(h.port.responses[0].r.rate_limit.has_value());
    for (int i = 1; i < 4; ++i) {
        EXPECT_EQ(h.port.responses[i].r.status, 400) << i;
        EXPECT_EQ(h.port.responses[i].r.error, "bad_request");
        EXPECT_FALSE(h.port.responses[i].message.empty());
    }
    EXPECT_NE(h.port.responses[1].message.find("UTF-8"), std::string::npos)
        << h.port.responses[1].message;
    EXPECT_TRUE(h.port.started.empty());
}

// A request refused before the compiler classified its query (an unknown key, a max_results out
// of range, a query that is not UTF-8 or is blank) has no class: its latency is recorded apart,
// never in the class a default would give it, and still once in the whole run's histogram.
TEST(GatewayContract, RequestsRefusedBeforeClassificationAreInNoClass) {
    Harness h;
    h.port.stageCost = fromMs(0.1);
    h.gw.onRequest(ms(0), request(1, "weather in paris today", "no-such-key"));
    h.gw.onRequest(ms(1), request(2, "bad \xff utf8"));
    Request tooMany = request(3, "weather in paris today");
    tooMany.max_results = 0;
    h.gw.onRequest(ms(2), tooMany);
    h.gw.onRequest(ms(3), request(4, "   "));
    ASSERT_EQ(h.port.responses.size(), 4u);
    h.gw.onRequest(ms(4), request(5, "weather in paris today"));
    ASSERT_EQ(h.port.started.size(), 1u);
    const QueryClass cls = h.port.started[0].query_class;
    const auto body = page(5);
    h.gw.onAnswer(ms(30), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    ASSERT_EQ(h.port.responses.size(), 5u);
    ASSERT_EQ(h.port.responses[4].r.status, 200);

    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(40));
    EXPECT_EQ(s.latency_unclassified_us.totalCount(), 4);
    for (int c = 0; c < kClasses; ++c)
        EXPECT_EQ(s.latency_by_class_us[static_cast<std::size_t>(c)].totalCount(), c == static_cast<int>(cls) ? 1 : 0)
            << kClassNames[static_cast<std::size_t>(c)];
    EXPECT_EQ(s.latency_us.totalCount(), 5);
    // Refusals count at their latency: the stages they went through.
    EXPECT_GE(s.latency_unclassified_us.min(), 100);
}

TEST(GatewayContract, TheGatewayNeverInventsTimeStageCostsComeFromTheDriver) {
    Harness h;
    const auto body = page(5);
    h.gw.onRequest(ms(0), request(1));
    // No stage costs: the call leaves at once, and the answer is served when it arrives.
    EXPECT_EQ(h.port.started[0].at, ms(0));
    h.gw.onAnswer(ms(90), h.port.started[0].id, answerWith(*body, h.port.started[0].cache_key));
    EXPECT_EQ(h.port.responses[0].r.latency, ms(90));
    // With 2 ms per stage: edge, gateway, compiler, cache, router before the call; merge after.
    Harness c;
    c.port.stageCost = ms(2);
    c.gw.onRequest(ms(0), request(1));
    EXPECT_EQ(c.port.started[0].at, ms(10));
    c.gw.onAnswer(ms(90), c.port.started[0].id, answerWith(*body, c.port.started[0].cache_key));
    EXPECT_EQ(c.port.responses[0].r.latency, ms(92));
    std::vector<Stage> asked;
    for (const StageWork& w : c.port.stages) asked.push_back(w.stage);
    EXPECT_EQ(asked, (std::vector<Stage>{Stage::Edge, Stage::Gateway, Stage::Compiler, Stage::Cache,
                                         Stage::Router, Stage::Merge}));
    // A hit: served from the cache with no call, the L2 not consulted (L1 has it).
    c.port.stages.clear();
    c.gw.onRequest(ms(200), request(2));
    EXPECT_EQ(c.port.started.size(), 1u);
    ASSERT_EQ(c.port.responses.size(), 2u);
    EXPECT_EQ(c.port.responses[1].r.latency, ms(10));
    EXPECT_EQ(c.port.responses[1].results.size(), 5u);
}

TEST(GatewayContract, ADriverMayNotReEnterFromAnOutput) {
    Harness h;
    h.port.onRespond = [&] { h.gw.onRequest(ms(5), request(9)); };
    EXPECT_THROW(h.gw.onRequest(ms(0), request(1, "q", "no-such-key")), std::logic_error);
    // Queued and delivered after the input returns, the same request is fine.
    h.port.onRespond = nullptr;
    EXPECT_NO_THROW(h.gw.onRequest(ms(6), request(9)));
}

TEST(GatewayContract, AStaleEntryIsServedAndRefreshedInTheBackground) {
    Harness h;
    const auto first = page(5, "old"), second = page(5, "new");
    h.gw.onRequest(ms(0), request(1, "github.com"));  // navigational: 6 h fresh, 1 h stale
    h.gw.onAnswer(ms(50), h.port.started[0].id, answerWith(*first, h.port.started[0].cache_key));
    const Time later = fromSeconds(6 * 3600 + 60);
    h.gw.onRequest(later, request(2, "github.com"));
    ASSERT_EQ(h.port.responses.size(), 2u);
    EXPECT_EQ(h.port.responses[1].results[0].title, "title old0");  // served stale at once
    EXPECT_FALSE(h.port.responses[0].r.cache_hit);
    EXPECT_TRUE(h.port.responses[1].r.cache_hit);
    EXPECT_TRUE(h.port.responses[1].r.stale);
    ASSERT_EQ(h.port.started.size(), 2u);
    EXPECT_EQ(h.port.started[1].role, CallRole::Refresh);
    h.gw.onAnswer(later + ms(40), h.port.started[1].id, answerWith(*second, h.port.started[1].cache_key));
    EXPECT_EQ(h.port.responses.size(), 2u);  // nobody waits on a refresh
    h.gw.onRequest(later + ms(100), request(3, "github.com"));
    ASSERT_EQ(h.port.responses.size(), 3u);
    EXPECT_EQ(h.port.responses[2].results[0].title, "title new0");
    EXPECT_TRUE(h.port.responses[2].r.cache_hit);
    EXPECT_FALSE(h.port.responses[2].r.stale);
    EXPECT_EQ(h.port.started.size(), 2u);
}

// A refresh whose answer is refused retries on another engine, as a foreground request does; that
// retry is refresh work (refresh_calls), not a foreground retry: retry_calls and the window's
// extra load count the foreground's calls only.
TEST(GatewayContract, ARefreshsRetryCountsAsRefreshWorkNotAsAForegroundRetry) {
    GatewayConfig c = baseConfig();
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    const auto good = page(5, "old"), fresh = page(5, "new");
    const auto block = std::make_shared<ResultBody>(std::vector<ResultItem>{}, PageKind::BlockPage);
    h.gw.onRequest(ms(0), request(1, "github.com"));  // navigational: 6 h fresh, 1 h stale
    h.gw.onAnswer(ms(50), h.port.started[0].id, answerWith(*good, h.port.started[0].cache_key));
    const Time later = fromSeconds(6 * 3600 + 60);
    h.gw.onRequest(later, request(2, "github.com"));  // served stale, refreshed
    ASSERT_EQ(h.port.started.size(), 2u);
    ASSERT_EQ(h.port.started[1].role, CallRole::Refresh);
    h.gw.onAnswer(later + ms(40), h.port.started[1].id, answerWith(*block, h.port.started[1].cache_key));
    ASSERT_EQ(h.port.started.size(), 3u);  // the refresh retries on the other engine
    EXPECT_EQ(h.port.started[2].role, CallRole::Retry);
    EXPECT_NE(h.port.started[2].engine, h.port.started[1].engine);
    h.gw.onAnswer(later + ms(80), h.port.started[2].id, answerWith(*fresh, h.port.started[2].cache_key));
    // A foreground request's retry is still a retry.
    h.gw.onRequest(later + ms(100), request(3, "penguin habitats antarctica"));
    ASSERT_EQ(h.port.started.size(), 4u);
    h.gw.onAnswer(later + ms(140), h.port.started[3].id, answerWith(*block, h.port.started[3].cache_key));
    ASSERT_EQ(h.port.started.size(), 5u);
    EXPECT_EQ(h.port.started[4].role, CallRole::Retry);
    h.gw.onAnswer(later + ms(180), h.port.started[4].id, answerWith(*good, h.port.started[4].cache_key));
    ASSERT_EQ(h.port.responses.size(), 3u);
    h.gw.closeWindow(later + ms(200));
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, later + ms(200));
    EXPECT_EQ(s.primary_calls, 2u);
    EXPECT_EQ(s.retry_calls, 1u);    // request 3's
    EXPECT_EQ(s.refresh_calls, 2u);  // the refresh and its retry
    ASSERT_EQ(s.windows.size(), 1u);
    EXPECT_DOUBLE_EQ(s.windows[0].extra_load, 0.5);  // one foreground retry per two primaries
}

// A request that ends cancels its own calls only. Its hedge answered (an invalid page) and gave
// its slot back; another request's call took the slot; the first request's end left that call
// alone (it cancelled it, and its request waited for nothing until its deadline: a 503).
TEST(GatewayContract, ARequestThatEndsCancelsItsOwnCallsNotOnesThatReusedTheirSlots) {
    Harness h;
    const auto good = page(5);
    const auto block = std::make_shared<ResultBody>(std::vector<ResultItem>{}, PageKind::BlockPage);
    h.gw.onRequest(ms(0), request(1, "first query here"));
    h.runTimersTo(ms(100));
    ASSERT_EQ(h.port.started.size(), 2u);
    const UpstreamCall primary = h.port.started[0], hedge = h.port.started[1];
    ASSERT_EQ(hedge.role, CallRole::Hedge);
    h.gw.onAnswer(ms(120), hedge.id, answerWith(*block, hedge.cache_key));
    ASSERT_EQ(h.port.started.size(), 2u) << "no retry: both routed engines were tried";
    h.gw.onRequest(ms(130), request(2, "second query here"));
    ASSERT_EQ(h.port.started.size(), 3u);
    const UpstreamCall other = h.port.started[2];
    ASSERT_EQ(other.id.slot, hedge.id.slot) << "the setup needs the hedge's slot reused";
    h.gw.onAnswer(ms(150), primary.id, answerWith(*good, primary.cache_key));
    ASSERT_EQ(h.port.responses.size(), 1u);
    EXPECT_EQ(h.port.responses[0].r.status, 200);
    EXPECT_FALSE(h.port.wasCancelled(other.id));
    EXPECT_EQ(h.gw.requestsInFlight(), 1u);
    EXPECT_EQ(h.gw.callsInFlight(), 1u);
    h.gw.onAnswer(ms(180), other.id, answerWith(*good, other.cache_key));
    ASSERT_EQ(h.port.responses.size(), 2u);
    EXPECT_EQ(h.port.responses[1].r.status, 200);
    EXPECT_EQ(h.gw.callsInFlight(), 0u);
}

TEST(GatewayContract, AByteIdenticalAnswerToAnotherQueryIsRejectedAndRestsTheIp) {
    GatewayConfig c = baseConfig();
    c.egress_ips = 1;
    c.hedge_mode = HedgeMode::Off;
    Harness h(c);
    const auto body = page(5);
    h.gw.onRequest(ms(0), request(1, "first query here"));
    const UpstreamCall a = h.port.started[0];
    h.gw.onAnswer(ms(50), a.id, answerWith(*body, a.cache_key));
    // The next answer through the same IP is the first one again, echo included: a cached page.
    h.gw.onRequest(ms(100), request(2, "second query here"));
    const UpstreamCall b = h.port.started[1];
    h.gw.onAnswer(ms(150), b.id, answerWith(*body, a.cache_key));
    GatewaySnapshot s;
    h.gw.fillSnapshot(s, ms(150));
    EXPECT_EQ(s.duplicate_answers, 1u);
    EXPECT_EQ(s.egress_rests, 1u);
    ASSERT_EQ(h.port.started.size(), 3u);  // retried on borealis
    EXPECT_EQ(h.port.started[2].role, CallRole::Retry);
    // The same page for the same query is not a duplicate.
    h.gw.onAnswer(ms(160), h.port.started[2].id, answerWith(*body, b.cache_key));
    EXPECT_EQ(h.port.responses.back().r.status, 200);
}

TEST(GatewayContract, EnginesAreConfiguredNotAFixedThree) {
    GatewayConfig c = baseConfig();
    c.engines = {EngineSpec{"solo", EngineRole::Routed, 1}};
    Harness one(c);
    one.gw.onRequest(ms(0), request(1));
    one.runTimersTo(ms(200));
    EXPECT_EQ(one.port.started.size(), 1u);  // nothing to hedge to
    c.engines = {EngineSpec{"a", EngineRole::Routed, 1}, EngineSpec{"b", EngineRole::Routed, 1},
                 EngineSpec{"c", EngineRole::Routed, 1}, EngineSpec{"d", EngineRole::Routed, 0},
                 EngineSpec{"e", EngineRole::LastChance, 0}};
    c.last_chance = true;
    c.last_chance_delay_ms = 50;
    Harness five(c);
    five.gw.onRequest(ms(0), request(1));
    five.runTimersTo(ms(150));
    ASSERT_EQ(five.port.started.size(), 3u);
    EXPECT_EQ(five.port.started[2].role, CallRole::LastChance);
    EXPECT_EQ(five.port.started[2].engine, 4);
    EXPECT_EQ(five.port.started[2].at, ms(150));
    c.last_chance = true;
    c.engines.pop_back();
    EXPECT_THROW(Gateway(c, 1, one.port), std::invalid_argument);
}

}  // namespace
}  // namespace taillab::gateway

namespace taillab::gateway {
namespace {

// An upstream answers in the client's language: the call carries the request's language tag,
// and so does a background refresh of its cache entry.
TEST(GatewayContract, UpstreamCallsCarryTheClientsLanguage) {
    struct LangPort : FakePort {
        std::vector<std::string> langs;
        void startCall(const UpstreamCall& call) override {
            FakePort::startCall(call);
            langs.emplace_back(call.lang);
        }
    };
    LangPort port;
    Gateway gw(baseConfig(), 7, port);
    Request r = request(1, "github.com");
    r.lang = "de";
    gw.onRequest(ms(0), r);
    ASSERT_EQ(port.langs.size(), 1u);
    EXPECT_EQ(port.langs[0], "de");
    const auto body = page(5);
    gw.onAnswer(ms(40), port.started[0].id, answerWith(*body, port.started[0].cache_key));
    Request again = request(2, "github.com");
    again.lang = "de";
    gw.onRequest(fromSeconds(6 * 3600 + 60), again);  // stale: served, refreshed in the background
    ASSERT_EQ(port.langs.size(), 2u);
    EXPECT_EQ(port.started[1].role, CallRole::Refresh);
    EXPECT_EQ(port.langs[1], "de");
}

}  // namespace
}  // namespace taillab::gateway
