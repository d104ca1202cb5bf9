#include "live/http_client.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <optional>
#include <vector>

#include "../test_slowdown.h"
#include "stall_server.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;
using test::StallServer;

HttpRequest post(std::chrono::nanoseconds timeout = 10s) {
    HttpRequest r;
    r.method = "POST";
    r.target = "/search/lite";
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = R"({"query":"x"})";
    r.timeout = timeout;
    return r;
}

// Runs the loop on this thread until `done` holds (checked every millisecond).
void runUntil(Loop& loop, const std::function<bool()>& done) {
    std::optional<Loop::Timer> check;
    check.emplace(loop, [&] {
        if (done()) loop.quit();
        else check->setAfter(1ms);
    });
    check->setAfter(0ns);
    loop.run();
}

// Issues `n` requests at once and runs the loop until all have answered.
std::vector<HttpResponse> concurrently(Loop& loop, HttpClient& client, const HostPort& at, int n,
                                       std::chrono::nanoseconds timeout = 10s) {
    std::vector<HttpResponse> out;
    for (int i = 0; i < n; ++i)
        client.request(at, post(timeout), [&out](HttpResponse&& r) { out.push_back(std::move(r)); });
    runUntil(loop, [&] { return client.pending() == 0; });
    return out;
}

TEST(HttpClient, PoolsKeepAliveConnectionsBeyondSixPerHost) {
    StallServer server;
    server.setDelay(300ms);  // every request is held long enough for all 32 to be open at once
    Loop loop;
    HttpClient client(loop);
    const auto first = concurrently(loop, client, server.at(), 32);
    ASSERT_EQ(first.size(), 32u);
    for (const HttpResponse& r : first) {
        EXPECT_TRUE(r.ok()) << r.error;
        EXPECT_EQ(r.status, 200);
        EXPECT_FALSE(r.reused_connection);
    }
    EXPECT_EQ(server.maxConcurrentConnections(), 32u);
    EXPECT_EQ(client.poolStats(server.at()).peak_open, 32u);

    // The second round finds 32 idle keep-alive connections and opens none.
    server.setDelay(0ms);
    const auto second = concurrently(loop, client, server.at(), 32);
    ASSERT_EQ(second.size(), 32u);
    for (const HttpResponse& r : second) EXPECT_TRUE(r.ok() && r.reused_connection) << r.error;
    EXPECT_EQ(client.poolStats(server.at()).opened, 32u);
    EXPECT_EQ(server.requests(), 64u);
}

TEST(HttpClient, AConnectionLimitQueuesTheRestInOrder) {
    StallServer server;
    server.setDelay(50ms);
    Loop loop;
    HttpClient client(loop, HttpClientOptions{4});
    const auto out = concurrently(loop, client, server.at(), 16);
    ASSERT_EQ(out.size(), 16u);
    for (const HttpResponse& r : out) EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(server.maxConcurrentConnections(), 4u);
    EXPECT_EQ(client.poolStats(server.at()).opened, 4u);
}

TEST(HttpClient, ReturnsStatusHeadersAndBody) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    const auto out = concurrently(loop, client, server.at(), 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].status, 200);
    EXPECT_EQ(out[0].header("x-ratelimit-remaining"), "41");
    EXPECT_EQ(out[0].header("Retry-After"), "2");
    EXPECT_EQ(out[0].body, R"({"results":[],"latency_ms":0})");
    ASSERT_TRUE(out[0].started.has_value());
    EXPECT_LE(*out[0].started, out[0].finished);
    const auto seen = server.lastRequest();
    EXPECT_EQ(seen.method, "POST");
    EXPECT_EQ(seen.target, "/search/lite");
    EXPECT_EQ(seen.body, R"({"query":"x"})");
}

// An interim "100 Continue" is not the answer: the final response after it is, on the same
// connection, which stays usable (the interim alone in one read, then with no delay at all).
TEST(HttpClient, SkipsAnInterimResponseForTheFinalOne) {
    StallServer server;
    server.setMode(StallServer::Mode::ContinueFirst);
    Loop loop;
    HttpClient client(loop, HttpClientOptions{1});
    for (const auto delay : {20ms, 0ms}) {
        server.setDelay(delay);
        const auto out = concurrently(loop, client, server.at(), 2);
        ASSERT_EQ(out.size(), 2u);
        for (const HttpResponse& r : out) {
            EXPECT_TRUE(r.ok()) << r.error;
            EXPECT_EQ(r.status, 200) << "after " << delay.count() << " ms";
            EXPECT_EQ(r.header("x-ratelimit-remaining"), "41");
            EXPECT_EQ(r.body, R"({"results":[],"latency_ms":0})");
        }
        EXPECT_TRUE(out[1].reused_connection);
    }
    EXPECT_EQ(client.poolStats(server.at()).opened, 1u);
}

TEST(HttpClient, ReportsTimeoutsAsTimeouts) {
    StallServer server;
    server.setDelay(3s);
    Loop loop;
    HttpClient client(loop);
    // The timeout runs from request(), not from the connection (`started` comes a little later).
    const auto asked = SteadyClock::now();
    const auto out = concurrently(loop, client, server.at(), 2, 200ms);
    ASSERT_EQ(out.size(), 2u);
    for (const HttpResponse& r : out) {
        EXPECT_EQ(r.failure, HttpFailure::Timeout) << r.error;
        EXPECT_EQ(r.status, 0);
        ASSERT_TRUE(r.started.has_value());
        EXPECT_GE(r.finished - asked, 200ms);
        EXPECT_LT(*r.started, r.finished);
    }
    EXPECT_EQ(client.poolStats(server.at()).open, 0u);  // a timed-out connection is never reused
}

// The client keeps one timer for all its requests' timeouts (a Loop::Timer), armed for the
// earliest: a request with a shorter timeout than those before it must re-arm it earlier.
TEST(HttpClient, AShorterTimeoutAfterALongerOneStillEndsOnTime) {
    StallServer server;
    server.setDelay(3s);
    Loop loop;
    HttpClient client(loop);
    std::vector<std::pair<char, SteadyClock::duration>> ended;
    const auto asked = SteadyClock::now();
    for (const auto& [name, timeout] : {std::pair{'a', 1500ms}, std::pair{'b', 200ms}})
        client.request(server.at(), post(timeout), [&ended, asked, name = name](HttpResponse&& r) {
            EXPECT_EQ(r.failure, HttpFailure::Timeout) << r.error;
            ended.emplace_back(name, r.finished - asked);
        });
    runUntil(loop, [&] { return client.pending() == 0; });
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(ended[0].first, 'b');
    EXPECT_GE(ended[0].second, 200ms);
    EXPECT_LT(ended[0].second, 1200ms);  // not held until the longer timeout
    EXPECT_EQ(ended[1].first, 'a');
    EXPECT_GE(ended[1].second, 1500ms);
}

// Requests that end leave their timeouts behind, to be dropped lazily, or at once when nothing
// is pending; while something is, they are dropped once they outnumber the pending ones. Here a
// stalled request stays pending throughout, so 1,500 ended ones pile up past that bound; the
// requests still pending keep their timeouts, and they end on time.
TEST(HttpClient, TimeoutsStayRightAfterThousandsOfRequestsHaveEnded) {
    const auto heldTimeout = 2500ms * test::kSlowdown;
    StallServer fast, stalled;
    stalled.setDelay(2 * heldTimeout);
    Loop loop;
    HttpClient client(loop);
    std::vector<HttpResponse> held;
    const auto heldAsked = SteadyClock::now();
    client.request(stalled.at(), post(heldTimeout),
                   [&held](HttpResponse&& r) { held.push_back(std::move(r)); });
    for (int round = 0; round < 15; ++round) {
        int answered = 0;
        for (int i = 0; i < 100; ++i)
            client.request(fast.at(), post(), [&answered](HttpResponse&& r) {
                EXPECT_TRUE(r.ok()) << r.error;
                ++answered;
            });
        runUntil(loop, [&] { return answered == 100; });
        ASSERT_EQ(answered, 100);
    }
    // Still pending, unless the rounds took longer than its timeout (a slow sanitizer run).
    if (SteadyClock::now() - heldAsked < heldTimeout - 200ms) {
        EXPECT_EQ(client.pending(), 1u);
    }
    const auto asked = SteadyClock::now();
    const auto out = concurrently(loop, client, stalled.at(), 2, 200ms);  // runs until all end
    ASSERT_EQ(out.size(), 2u);
    for (const HttpResponse& r : out) {
        EXPECT_EQ(r.failure, HttpFailure::Timeout) << r.error;
        EXPECT_GE(r.finished - asked, 200ms);
        EXPECT_LT(r.finished - asked, 1500ms * test::kSlowdown);
    }
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].failure, HttpFailure::Timeout) << held[0].error;
    EXPECT_GE(held[0].finished - heldAsked, heldTimeout);  // on time: never early
    EXPECT_EQ(client.pending(), 0u);
}

TEST(HttpClient, ReportsRefusedConnectionsAsRefused) {
    Loop loop;
    HttpClient client(loop);
    const auto out = concurrently(loop, client, HostPort{"127.0.0.1", test::closedPort()}, 3);
    ASSERT_EQ(out.size(), 3u);
    for (const HttpResponse& r : out) EXPECT_EQ(r.failure, HttpFailure::Refused) << r.error;
}

TEST(HttpClient, ReportsHangUpsAsResetsAndGarbageAsProtocolErrors) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    server.setMode(StallServer::Mode::HangUp);
    auto out = concurrently(loop, client, server.at(), 2);
    ASSERT_EQ(out.size(), 2u);
    for (const HttpResponse& r : out) EXPECT_EQ(r.failure, HttpFailure::Reset) << r.error;
    server.setMode(StallServer::Mode::Garbage);
    out = concurrently(loop, client, server.at(), 2);
    ASSERT_EQ(out.size(), 2u);
    for (const HttpResponse& r : out) EXPECT_EQ(r.failure, HttpFailure::Protocol) << r.error;
}

// An answer that declares a body far over the limit, its first bytes in the same read as its
// head, is a protocol failure. (Boost 1.74's parser goes on to the body in that case after
// setting the limit's error; the reader then reserved the declared 93 GiB and threw bad_alloc,
// which took serve down.)
TEST(HttpClient, AnAnswerDeclaringABodyOverTheLimitIsAProtocolFailure) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    server.setMode(StallServer::Mode::Oversized);
    const auto out = concurrently(loop, client, server.at(), 2);
    ASSERT_EQ(out.size(), 2u);
    for (const HttpResponse& r : out) {
        EXPECT_EQ(r.failure, HttpFailure::Protocol) << r.error;
        EXPECT_NE(r.error.find("body limit"), std::string::npos) << r.error;
    }
}

// One request whose answer (in `mode`, sent 50 ms after the request arrives) and whatever close
// follows it both reach the client's loop in one report: the loop is not run while they come.
HttpResponse answeredWhileTheLoopWaits(StallServer& server, Loop& loop, HttpClient& client, StallServer::Mode mode,
                                       std::chrono::nanoseconds timeout = 10s) {
    server.setMode(mode);
    server.setDelay(50ms);
    std::optional<HttpResponse> out;
    const std::uint64_t before = server.requests(), answeredBefore = server.answered();
    client.request(server.at(), post(timeout), [&](HttpResponse&& r) { out = std::move(r); });
    runUntil(loop, [&] { return server.requests() > before || out.has_value(); });
    // The answer and its close are sent while the loop does not run (a fixed sleep could end
    // before a slow server thread had sent them).
    for (int i = 0; i < 1000 && server.answered() == answeredBefore; ++i) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(20ms);
    runUntil(loop, [&] { return out.has_value(); });
    return std::move(*out);
}

// An answer cut short by the server's close (Content-Length 100, then 5 bytes, then a FIN), its
// bytes and the close in one report: a read that takes less than it asked for must not count the
// socket as drained while the close is still unread, or the request waits out its whole timeout
// and ends as a timeout. The connection closed cleanly on a truncated, so malformed, response: a
// protocol failure, as a junk status line is (it was once counted as a reset).
TEST(HttpClient, AnAnswerCutShortByACloseIsAProtocolFailureAtOnce) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    const auto start = std::chrono::steady_clock::now();
    const HttpResponse r = answeredWhileTheLoopWaits(server, loop, client, StallServer::Mode::Truncated, 20s);
    EXPECT_EQ(r.failure, HttpFailure::Protocol) << r.error;
    EXPECT_NE(r.error.find("cut short"), std::string::npos) << r.error;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // not the 20 s timeout
}

// The same bytes ended by a TCP reset (RST) rather than a close: the connection broke, a reset.
TEST(HttpClient, AnAnswerCutShortByAResetIsAReset) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    const HttpResponse r = answeredWhileTheLoopWaits(server, loop, client, StallServer::Mode::TruncatedThenReset, 20s);
    EXPECT_EQ(r.failure, HttpFailure::Reset) << r.error;
}

// A whole keep-alive answer and the server's close in one report: the connection is not pooled,
// so the next request opens a new one instead of being sent on a dead one and failing.
TEST(HttpClient, AConnectionClosedWithItsAnswerIsNotReused) {
    StallServer server;
    Loop loop;
    HttpClient client(loop);
    const HttpResponse first = answeredWhileTheLoopWaits(server, loop, client, StallServer::Mode::AnswerThenClose);
    ASSERT_TRUE(first.ok()) << first.error;
    EXPECT_EQ(client.poolStats(server.at()).idle, 0u);
    const HttpResponse next = answeredWhileTheLoopWaits(server, loop, client, StallServer::Mode::Answer);
    EXPECT_TRUE(next.ok()) << next.error;
    EXPECT_EQ(client.poolStats(server.at()).opened, 2u);
}

TEST(HttpClient, CancelledRequestsNeverAnswerAndFreeTheirConnection) {
    StallServer server;
    server.setDelay(500ms);
    Loop loop;
    HttpClient client(loop, HttpClientOptions{1});
    int answered = 0;
    const auto inFlight = client.request(server.at(), post(), [&](HttpResponse&&) { ++answered; });
    const auto queued = client.request(server.at(), post(), [&](HttpResponse&&) { ++answered; });
    EXPECT_EQ(client.poolStats(server.at()).waiting, 1u);
    EXPECT_TRUE(client.cancel(queued));
    EXPECT_EQ(client.poolStats(server.at()).waiting, 0u);
    bool cancelled = false;
    Loop::Timer later(loop, [&] {
        EXPECT_TRUE(client.cancel(inFlight));
        cancelled = true;
    });
    later.setAfter(50ms);
    runUntil(loop, [&] { return cancelled && client.pending() == 0; });
    EXPECT_EQ(answered, 0);
    EXPECT_FALSE(client.cancel(inFlight));
    EXPECT_EQ(client.pending(), 0u);
    EXPECT_EQ(client.poolStats(server.at()).open, 0u);

    // The pool is usable afterwards.
    server.setDelay(0ms);
    const auto out = concurrently(loop, client, server.at(), 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].ok()) << out[0].error;
}

}  // namespace
}  // namespace taillab::live
