// Stopping the live gateway (serve's SIGTERM or --duration, the end of a live run): it stops
// taking connections at once, lets the searches in flight finish within their deadline and
// answers each of them, or answers 503 with Retry-After once its drain time is up. Every search
// it accepted ends with a status and is counted: accepted = answered + rejected + failed, nothing
// left in flight. Real sockets on 127.0.0.1.
#include "live/gateway_server.h"

#include <gtest/gtest.h>

#include <boost/system/system_error.hpp>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gateway_rig.h"
#include "http_test_client.h"
#include "stall_server.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::Ending;
using test::TestConnection;
using test::TestResult;

Scenario stopScenario(const std::string& params) {
    return parseScenario(R"({"schema_version": 1, "name": "stop-test", "title": "t", "lab": "gateway",
        "seed": 5, "params": {"days": 1, "fault_multiplier": 0, "slow_multiplier": 0, "hedge_mode": "off", )" +
                             params + "}}",
                         "stop-test.json");
}

class GatewayStopTest : public ::testing::Test, protected test::GatewayRig {
protected:
    void TearDown() override { stop(); }
    // `n` searches, each on its own connection, sent at once; returns once the gateway holds all
    // of them in flight.
    std::vector<std::future<TestResult>> searchesInFlight(int n) {
        std::vector<std::future<TestResult>> out;
        for (int i = 0; i < n; ++i)
            out.push_back(std::async(std::launch::async, [this, i] {
                TestConnection c(gateway->bound());
                return c.request("POST", "/search/lite",
                                 json{{"query", "tide tables for harbour " + std::to_string(i)}}.dump(),
                                 {{"Authorization", "Bearer " + key}});
            }));
        for (int tries = 0; tries < 400 && gateway->snapshot().in_flight < static_cast<std::uint64_t>(n); ++tries)
            std::this_thread::sleep_for(5ms);
        return out;
    }
    static void expectConserved(const gateway::GatewaySnapshot& s, std::uint64_t accepted) {
        EXPECT_EQ(s.accepted, accepted);
        EXPECT_EQ(s.in_flight, 0u);
        EXPECT_EQ(s.answered + s.rejected + s.failed, s.accepted);
    }
};

// Engines that take 150 ms: six searches are in flight when the stop comes. Each is answered
// with its results, and the stop returns once they are.
TEST_F(GatewayStopTest, AStopAnswersTheSearchesInFlightBeforeItCloses) {
    const Scenario s = stopScenario(R"("atlas_median_ms": 150, "atlas_sigma": 0.01, "borealis_median_ms": 150,
        "borealis_sigma": 0.01, "cirrus_median_ms": 150, "cirrus_sigma": 0.01)");
    startGateway(s, startFleet(s));
    std::vector<std::future<TestResult>> searches = searchesInFlight(6);
    ASSERT_EQ(gateway->snapshot().in_flight, 6u);
    const auto t0 = std::chrono::steady_clock::now();
    auto stopping = std::async(std::launch::async, [this] { gateway->stop(); });
    // While it drains, it takes no new connection.
    std::this_thread::sleep_for(20ms);
    EXPECT_THROW(TestConnection(gateway->bound()), boost::system::system_error);
    stopping.get();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);  // the searches' own time, not a hang
    for (auto& f : searches) {
        const TestResult r = f.get();
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 200) << r.response->body;
        EXPECT_FALSE(json::parse(r.response->body).at("results").empty()) << r.response->body;
    }
    const gateway::GatewaySnapshot after = gateway->snapshot();
    expectConserved(after, 6);
    EXPECT_EQ(after.answered, 6u);
}

// An upstream that never answers, under the longest deadline there is (a minute): the stop does
// not wait for it. Once the drain time is up the search is answered 503 with Retry-After and a
// JSON body, counted as failed, and the stop returns.
TEST_F(GatewayStopTest, ASearchStillInFlightWhenTheDrainTimeIsUpIsA503) {
    test::StallServer upstream;
    upstream.stallFor(120s);
    std::vector<std::string> args;
    for (const char* name : {"atlas", "borealis", "cirrus"}) args.push_back(std::string(name) + "=" + upstream.url("/e"));
    startGateway(stopScenario(R"("deadline_ms": 60000)"), args);
    std::vector<std::future<TestResult>> searches = searchesInFlight(1);
    ASSERT_EQ(gateway->snapshot().in_flight, 1u);
    const auto t0 = std::chrono::steady_clock::now();
    gateway->stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
    const TestResult r = searches[0].get();
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 503) << r.response->body;
    EXPECT_TRUE(r.response->header("Retry-After"));
    const json body = json::parse(r.response->body);
    EXPECT_NE(body.value("message", "").find("stop"), std::string::npos) << r.response->body;
    EXPECT_TRUE(body.contains("latency_ms"));
    const gateway::GatewaySnapshot after = gateway->snapshot();
    expectConserved(after, 1);
    EXPECT_EQ(after.failed, 1u);
}

// A keep-alive connection with no request in progress is closed at the stop; one whose search
// is in flight gets its answer, and then the connection closes.
TEST_F(GatewayStopTest, IdleConnectionsCloseAtOnceAndBusyOnesAfterTheirAnswer) {
    const Scenario s = stopScenario(R"("atlas_median_ms": 150, "atlas_sigma": 0.01, "borealis_median_ms": 150,
        "borealis_sigma": 0.01, "cirrus_median_ms": 150, "cirrus_sigma": 0.01)");
    startGateway(s, startFleet(s));
    TestConnection idle(gateway->bound());
    ASSERT_EQ(idle.request("GET", "/healthz").ending, Ending::Response);
    TestConnection busy(gateway->bound());
    const std::string body = R"({"query": "tide at brest"})";
    busy.sendRaw("POST /search/lite HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Authorization: Bearer " + key + "\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body);
    for (int tries = 0; tries < 400 && gateway->snapshot().in_flight < 1; ++tries) std::this_thread::sleep_for(5ms);
    ASSERT_EQ(gateway->snapshot().in_flight, 1u);
    auto stopping = std::async(std::launch::async, [this] { gateway->stop(); });
    const TestResult closed = idle.readResponse();
    EXPECT_EQ(closed.ending, Ending::Closed) << closed.error;
    const TestResult answered = busy.readResponse();
    ASSERT_EQ(answered.ending, Ending::Response) << answered.error;
    EXPECT_EQ(answered.response->status, 200) << answered.response->body;
    EXPECT_EQ(answered.response->header("Connection"), "close");
    stopping.get();
    expectConserved(gateway->snapshot(), 1);
}

// A request still being read when the stop comes is not taken: once whole, it is answered 503
// with Retry-After, its connection closes, and the gateway never counts it; the search already
// in flight is answered as usual.
TEST_F(GatewayStopTest, ARequestThatComesWhileItStopsIsA503) {
    const Scenario s = stopScenario(R"("atlas_median_ms": 150, "atlas_sigma": 0.01, "borealis_median_ms": 150,
        "borealis_sigma": 0.01, "cirrus_median_ms": 150, "cirrus_sigma": 0.01)");
    startGateway(s, startFleet(s));
    TestConnection late(gateway->bound());
    const std::string body = R"({"query": "ferry to ouessant"})";
    late.sendRaw("POST /search/lite HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Authorization: Bearer " + key + "\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body.substr(0, 5));
    std::vector<std::future<TestResult>> searches = searchesInFlight(1);
    ASSERT_EQ(gateway->snapshot().in_flight, 1u);
    auto stopping = std::async(std::launch::async, [this] { gateway->stop(); });
    std::this_thread::sleep_for(20ms);
    late.sendRaw(body.substr(5));
    const TestResult refused = late.readResponse();
    ASSERT_EQ(refused.ending, Ending::Response) << refused.error;
    EXPECT_EQ(refused.response->status, 503) << refused.response->body;
    EXPECT_EQ(refused.response->header("Retry-After"), "1");
    EXPECT_EQ(refused.response->header("Connection"), "close");
    EXPECT_EQ(json::parse(refused.response->body).value("error", ""), "shutting_down");
    stopping.get();
    const TestResult r = searches[0].get();
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 200) << r.response->body;
    expectConserved(gateway->snapshot(), 1);
}

}  // namespace
}  // namespace taillab::live
