// The request path's stage counts are one flow of requests: what leaves a stage enters the next
// ones, what enters a stage and does not leave it ended there (rejected or failed) or is still in
// it, and the ends add up to the conservation line (accepted = answered + rejected + failed + in
// flight). The path forks once: the cache hands a miss to the router and a hit (or a coalesced
// waiter given its flight's answer) to merge, so merge takes the engines' answers plus what the
// cache passed and the router did not take. The customers' requests and the synthetic probes each
// flow on their own; the stale-while-revalidate refreshes (the gateway's own calls, from a stale
// hit to the engines and back into the cache, never to merge) are apart from both.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway_day.h"

namespace taillab::gateway {
namespace {

struct Flow {
    std::uint64_t in = 0, out = 0;
};

const StageStats& at(const GatewaySnapshot& s, Stage st) { return s.stages[static_cast<std::size_t>(st)]; }

// What the stage cards show: a stage's counts without the probes and the refreshes.
Flow customers(const GatewaySnapshot& s, Stage st) {
    const StageStats& x = at(s, st);
    return {x.entered - x.probes_entered - x.refreshes_entered,
            x.passed - x.probes_passed - x.refreshes_passed};
}

Flow probes(const GatewaySnapshot& s, Stage st) {
    const StageStats& x = at(s, st);
    return {x.probes_entered, x.probes_passed};
}

// One flow through the path: `firstIn` requests entered it, `answered` left merge with an
// answer, `ended` ended in a stage without one, `inFlight` are still in a stage.
template <typename Counts>
void expectOneFlow(const GatewaySnapshot& s, Counts counts, std::uint64_t firstIn,
                   std::uint64_t answered, std::uint64_t ended, std::uint64_t inFlight,
                   const std::string& what) {
    SCOPED_TRACE(what);
    const Flow edge = counts(s, Stage::Edge), gateway = counts(s, Stage::Gateway),
               compiler = counts(s, Stage::Compiler), cache = counts(s, Stage::Cache),
               router = counts(s, Stage::Router), engines = counts(s, Stage::Engines),
               merge = counts(s, Stage::Merge);
    EXPECT_EQ(edge.in, firstIn);
    EXPECT_EQ(gateway.in, edge.out);
    EXPECT_EQ(compiler.in, gateway.out);
    EXPECT_EQ(cache.in, compiler.out);
    ASSERT_GE(cache.out, router.in) << "the router took more than the cache passed";
    EXPECT_EQ(engines.in, router.out);
    EXPECT_EQ(merge.in, engines.out + (cache.out - router.in))
        << "merge takes the engines' answers and the cache's hits; engines out " << engines.out
        << ", cache out " << cache.out << ", router in " << router.in;
    EXPECT_EQ(merge.out, answered);
    std::uint64_t stayed = 0;  // entered a stage and did not leave it
    for (Stage st : {Stage::Edge, Stage::Gateway, Stage::Compiler, Stage::Cache, Stage::Router,
                     Stage::Engines, Stage::Merge}) {
        const Flow f = counts(s, st);
        ASSERT_GE(f.in, f.out) << kStageNames[static_cast<std::size_t>(st)];
        stayed += f.in - f.out;
    }
    EXPECT_EQ(stayed, ended + inFlight) << "every request that did not leave a stage ended there or is in it";
}

void expectReconciles(const GatewaySnapshot& s, const std::string& when) {
    SCOPED_TRACE(when);
    // The conservation line itself.
    ASSERT_EQ(s.accepted, s.answered + s.rejected + s.failed + s.in_flight);
    expectOneFlow(s, customers, s.accepted, s.answered, s.rejected + s.failed, s.in_flight,
                  "customers' requests");
}

// v4's path (two-tier cache with coalescing, stale-while-revalidate, hedges, probes, a deadline)
// on a day at twice the week's load: requests are rejected at the gateway and fail at the
// engines, and refreshes that stale hits started fail there too (and, before they were counted
// apart, made the engines' losses larger than the failures by as many). Checked mid-run
// (requests in flight) and after the run has drained.
TEST(GatewayStageFlow, EveryStagesOutEntersTheNextOrEndsThere) {
    Params p = test::gatewayDay(2);
    GatewaySim sim(p, 7);
    ASSERT_TRUE(sim.advanceTo(13 * 3600 + 17));
    const GatewaySnapshot mid = sim.snapshot();
    ASSERT_GT(mid.in_flight, 0u);
    expectReconciles(mid, "at 13 h");
    ASSERT_TRUE(sim.drain());
    const GatewaySnapshot end = sim.snapshot();
    // What the flow has to hold through happened: failures, coalesced waiters, probes, and
    // refreshes that the engines did not answer.
    ASSERT_GT(end.failed, 0u);
    ASSERT_GT(end.coalesced, 0u);
    ASSERT_GT(end.probes, 0u);
    ASSERT_GT(at(end, Stage::Engines).refreshes_entered, at(end, Stage::Engines).refreshes_passed);
    EXPECT_EQ(end.in_flight, 0u);
    expectReconciles(end, "after the drain");
    // The probes flow alike: after the drain none is in flight, and each failed one ended in a stage.
    expectOneFlow(end, probes, end.probes, end.probes - end.probe_failures, end.probe_failures, 0,
                  "probes");
}

// A port with no cost for any stage: the gateway's outputs are not looked at, its counts are.
class QuietPort : public Port {
public:
    std::vector<UpstreamCall> started;
    std::vector<Response> responses;  // without their views (valid only during respond())
    Time stageEnd(Time start, const StageWork&) override { return start; }
    void startCall(const UpstreamCall& call) override { started.push_back(call); }
    void cancelCall(CallId) override {}
    void respond(const Response& r) override {
        responses.push_back(r);
        responses.back().results = nullptr;
        responses.back().message = {};
        responses.back().error = {};
    }
};

// A coalesced waiter whose deadline passes while its leader is still in the air (it was accepted
// long before it reached the cache: it waited in the batch lane, or a live client was slow to
// send its body) ends in the cache stage, where it waited: it was never passed on to the router
// or to merge.
TEST(GatewayStageFlow, AWaiterThatRunsOutOfTimeBehindItsLeaderEndsInTheCache) {
    GatewayConfig c;
    c.engines = {EngineSpec{"atlas", EngineRole::Routed, 1}, EngineSpec{"borealis", EngineRole::Routed, 0}};
    c.keys = {ApiKey{"key-a", "customer a", Region::EU, Lane::Interactive, false, 100, 10}};
    c.hedge_mode = HedgeMode::Off;
    c.instances = 1;
    c.admission = false;
    QuietPort port;
    Gateway gw(c, 7, port);
    const auto request = [](std::uint64_t trace) {
        Request r;
        r.trace = trace;
        r.api_key = "key-a";
        r.query = "penguin habitats antarctica";
        r.max_results = 5;
        return r;
    };
    const auto snapshot = [&gw](Time now) {
        GatewaySnapshot s;
        gw.fillSnapshot(s, now);
        return s;
    };
    gw.onRequest(fromMs(400), request(1));  // the leader: its calls' cutoff is 400 + 578
    Request late = request(2);
    late.accepted = fromMs(0);  // its deadline is 590, its detach point 440: it stays
    gw.onRequest(fromMs(490), late);
    ASSERT_EQ(port.started.size(), 1u);  // it joined the leader's flight
    expectReconciles(snapshot(fromMs(490)), "the leader at the engines, the waiter in the cache");
    while (const std::optional<Time> next = gw.pollTimeout()) {
        if (*next > fromMs(600)) break;
        gw.onTimeout(*next);
    }
    ASSERT_EQ(port.responses.size(), 1u);
    ASSERT_EQ(port.responses[0].trace, 2u);
    ASSERT_EQ(port.responses[0].status, 503);  // at 578, its call cutoff
    expectReconciles(snapshot(fromMs(600)), "the waiter failed");
    // The leader's answer lands: it is merged and answered.
    const auto body = std::make_shared<ResultBody>(std::vector<ResultItem>{
        ResultItem{"Penguins", "https://example.org/penguins", "snippet", 1.0}});
    UpstreamAnswer a;
    a.page = body.get();
    a.echo = port.started[0].cache_key;
    gw.onAnswer(fromMs(650), port.started[0].id, a);
    ASSERT_EQ(port.responses.size(), 2u);
    ASSERT_EQ(port.responses[1].status, 200);
    const GatewaySnapshot s = snapshot(fromMs(650));
    EXPECT_EQ(s.in_flight, 0u);
    expectReconciles(s, "both ended");
}

}  // namespace
}  // namespace taillab::gateway
