// The live driver's logic through a recording LiveIo with a hand-moved clock: what a client gets
// back for each kind of request, upstream calls and their answers, deadlines, re-entry. The same
// driver runs over real sockets in the serve tests.
#include "live/live_driver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace taillab::live {
namespace {

using nlohmann::json;

struct RecordingIo : LiveIo {
    Time clock{};
    std::map<std::uint64_t, HttpReply> replies;
    struct Call {
        gateway::CallId id;
        int engine;
        UpstreamRequest request;
        Duration timeout;
    };
    std::vector<Call> calls;
    std::vector<gateway::CallId> cancelled;
    std::function<void(const Call&)> onCall;  // to answer synchronously (re-entry)

    Time now() const override { return clock; }
    void reply(std::uint64_t ticket, HttpReply r) override {
        ASSERT_FALSE(replies.count(ticket)) << "ticket " << ticket << " answered twice";
        replies[ticket] = std::move(r);
    }
    void callUpstream(gateway::CallId id, int engine, UpstreamRequest r, Duration timeout) override {
        calls.push_back({id, engine, std::move(r), timeout});
        if (onCall) onCall(calls.back());
    }
    void cancelUpstream(gateway::CallId id) override { cancelled.push_back(id); }
};

gateway::GatewayConfig config() {
    gateway::GatewayConfig c;
    c.engines = {gateway::EngineSpec{"atlas", gateway::EngineRole::Routed, 1},
                 gateway::EngineSpec{"borealis", gateway::EngineRole::Routed, 0}};
    c.keys = {gateway::ApiKey{"key-a", "customer a", gateway::Region::EU, gateway::Lane::Interactive, false, 100, 10}};
    c.hedge_mode = gateway::HedgeMode::Off;
    c.instances = 1;
    c.admission = false;
    return c;
}

const std::string kPage = R"({"page": "results", "results": [
    {"title": "A", "url": "https://a.org/", "snippet": "a", "score": 0.9},
    {"title": "B", "url": "https://b.org/", "snippet": "b", "score": 0.5}]})";

HttpRequestParts search(const std::string& body, std::string_view key = "Bearer key-a") {
    HttpRequestParts p;
    p.method = "POST";
    p.target = "/search/lite";
    p.authorization = key;
    p.body = body;
    return p;
}

struct LiveDriverTest : ::testing::Test {
    RecordingIo io;
    LiveDriver driver{config(), 1, io, std::chrono::seconds(10)};
    std::string body = R"({"query": "penguin habitats", "max_results": 5})";
    json replyBody(std::uint64_t ticket) { return json::parse(io.replies.at(ticket).body); }
};

TEST_F(LiveDriverTest, ASearchGoesUpstreamAndItsAnswerReachesTheClient) {
    io.clock = fromMs(100);
    driver.onHttp(1, search(body), fromMs(99));
    ASSERT_EQ(io.calls.size(), 1u);
    EXPECT_FALSE(io.replies.count(1));
    EXPECT_EQ(json::parse(io.calls[0].request.body)["query"], "penguin habitats");
    EXPECT_GT(io.calls[0].timeout, Duration{});
    io.clock = fromMs(140);
    driver.onUpstream(io.calls[0].id, readUpstreamReply(200, kPage));
    ASSERT_TRUE(io.replies.count(1));
    EXPECT_EQ(io.replies[1].status, 200);
    const json b = replyBody(1);
    EXPECT_EQ(b["results"].size(), 2u);
    EXPECT_EQ(b["latency_ms"], 41.0);  // from accept (99 ms) to the answer (140 ms)
    EXPECT_EQ(b["cache"], "miss");
    EXPECT_EQ(io.replies[1].header("X-RateLimit-Limit"), "100");

    // The same query again: a cache hit, answered before onHttp returns.
    io.clock = fromMs(200);
    driver.onHttp(2, search(body), fromMs(200));
    ASSERT_TRUE(io.replies.count(2));
    EXPECT_EQ(replyBody(2)["cache"], "hit");
    EXPECT_EQ(io.calls.size(), 1u);
}

TEST_F(LiveDriverTest, RejectionsAreAnsweredAtOnceWithTheirStatus) {
    driver.onHttp(1, search(body, "Bearer nobody"), Time{});
    EXPECT_EQ(io.replies.at(1).status, 401);
    driver.onHttp(2, search(R"({"query": 7})"), Time{});
    EXPECT_EQ(io.replies.at(2).status, 400);
    driver.onHttp(3, search(R"({"query": "x", "max_results": 80})"), Time{});
    EXPECT_EQ(io.replies.at(3).status, 400);  // the gateway's own 400
    HttpRequestParts other = search(body);
    other.target = "/search/slow";
    driver.onHttp(4, other, Time{});
    EXPECT_EQ(io.replies.at(4).status, 404);
    EXPECT_TRUE(io.calls.empty());
}

TEST_F(LiveDriverTest, ADeadlineWithNoAnswerIsA503WithRetryAfter) {
    driver.onHttp(1, search(body), Time{});
    ASSERT_EQ(io.calls.size(), 1u);
    // Wake when asked until the request ends: its deadline, never an empty 200.
    for (int i = 0; i < 100 && !io.replies.count(1); ++i) {
        io.clock = driver.nextWake();
        driver.onWake();
    }
    ASSERT_TRUE(io.replies.count(1));
    EXPECT_EQ(io.replies[1].status, 503);
    EXPECT_EQ(io.replies[1].header("Retry-After"), "1");
    EXPECT_EQ(replyBody(1)["error"], "deadline_missed");
    EXPECT_FALSE(io.cancelled.empty());  // the call that never answered is torn down
    // Its answer, arriving late, is ignored.
    driver.onUpstream(io.calls[0].id, readUpstreamReply(200, kPage));
    EXPECT_EQ(driver.snapshot().stale_answers, 1u);
}

TEST_F(LiveDriverTest, AnUpstreamRefusedAtOnceIsQueuedNotReEntered) {
    io.onCall = [&](const RecordingIo::Call& c) {
        driver.onUpstream(c.id, upstreamFailure(gateway::CallFailure::Reset));  // from inside startCall
    };
    EXPECT_NO_THROW(driver.onHttp(1, search(body), Time{}));
    ASSERT_TRUE(io.replies.count(1));  // every engine refused: answered, not hung
    EXPECT_EQ(io.replies[1].status, 503);
    EXPECT_GE(io.calls.size(), 2u);  // it failed over to the other engine first
}

TEST_F(LiveDriverTest, MetricsAndHealthAnswerOnGet) {
    driver.onHttp(1, search(body, "Bearer nobody"), Time{});
    HttpRequestParts get;
    get.method = "GET";
    get.target = "/metrics";
    driver.onHttp(2, get, Time{});
    EXPECT_EQ(io.replies.at(2).status, 200);
    EXPECT_NE(io.replies[2].body.find("taillab_requests_total{outcome=\"unauthorized\"} 1\n"), std::string::npos);
    EXPECT_EQ(io.replies[2].header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    get.target = "/healthz";
    driver.onHttp(3, get, Time{});
    EXPECT_EQ(io.replies.at(3).status, 200);
    get.method = "POST";
    driver.onHttp(4, get, Time{});
    EXPECT_EQ(io.replies.at(4).status, 405);
}

TEST_F(LiveDriverTest, WindowsCloseOnTheDriversClock) {
    driver.onHttp(1, search(body, "Bearer nobody"), Time{});
    EXPECT_LE(driver.nextWake(), fromSeconds(10));
    io.clock = fromSeconds(25);
    driver.onWake();
    EXPECT_EQ(driver.snapshot().windows.size(), 2u);
    EXPECT_EQ(driver.nextWake(), fromSeconds(30));
}

// Windows run from the server's start (openWindows), and the run's end closes the last one with
// its true length when anything ended in it: a live run that is not a whole number of windows
// keeps its last seconds.
TEST_F(LiveDriverTest, TheLastWindowClosesAtTheRunsEndWithItsTrueLength) {
    io.clock = fromSeconds(3);
    driver.openWindows(io.clock);
    EXPECT_EQ(driver.nextWake(), fromSeconds(13));
    driver.onHttp(1, search(body, "Bearer nobody"), io.clock);  // a 401, in the first window
    io.clock = fromSeconds(13);
    driver.onWake();
    io.clock = fromSeconds(17.5);
    driver.onHttp(2, search(body, "Bearer nobody"), io.clock);  // in the second, which the run cuts
    io.clock = fromSeconds(18);
    driver.closeLastWindow();
    const gateway::GatewaySnapshot s = driver.snapshot();
    ASSERT_EQ(s.windows.size(), 2u);
    EXPECT_EQ(s.windows[0].t_s, 13);
    EXPECT_EQ(s.windows[0].requests, 1u);
    EXPECT_EQ(s.windows[1].t_s, 18);  // 5 s long, not dropped
    EXPECT_EQ(s.windows[1].requests, 1u);
    EXPECT_FALSE(std::isnan(s.windows[1].p50_ms));

    // Nothing ended since: no empty window of its own.
    io.clock = fromSeconds(19);
    driver.closeLastWindow();
    EXPECT_EQ(driver.snapshot().windows.size(), 2u);
}

TEST_F(LiveDriverTest, AnEndAfterSomeWholeWindowsClosesThemAtTheirEndsFirst) {
    driver.openWindows(Time{});
    driver.onHttp(1, search(body, "Bearer nobody"), Time{});
    io.clock = fromSeconds(21);
    driver.onWake();
    driver.onHttp(2, search(body, "Bearer nobody"), io.clock);
    io.clock = fromSeconds(33);
    driver.closeLastWindow();  // the wake-up at 30 s had not come yet
    const gateway::GatewaySnapshot s = driver.snapshot();
    ASSERT_EQ(s.windows.size(), 3u);  // and 30 s to 33 s, empty, is no window
    EXPECT_EQ(s.windows[0].t_s, 10);
    EXPECT_EQ(s.windows[1].t_s, 20);
    EXPECT_EQ(s.windows[1].requests, 0u);
    EXPECT_EQ(s.windows[2].t_s, 30);
    EXPECT_EQ(s.windows[2].requests, 1u);
}

}  // namespace
}  // namespace taillab::live
