// The live gateway over real sockets: `serve`'s GatewayServer in front of the emulated fleet,
// each on its own loop thread, asked by a plain HTTP client. Latency bounds are lower bounds (a
// timer never fires early) or a hedge beating an engine whose every answer takes 400 ms.
#include "live/gateway_server.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_rig.h"
#include "http_test_client.h"

namespace taillab::live {
namespace {

using nlohmann::json;
using test::Ending;
using test::TestConnection;

Scenario gatewayScenario(const std::string& params) {
    return parseScenario(R"({"schema_version": 1, "name": "serve-test", "title": "t", "lab": "gateway",
        "seed": 7, "params": {"days": 1, "fault_multiplier": 0, "slow_multiplier": 0)" +
                             (params.empty() ? "" : ", " + params) + "}}",
                         "serve-test.json");
}

class GatewayServerTest : public ::testing::Test, protected test::GatewayRig {
protected:
    void start(const Scenario& s) { startGateway(s, startFleet(s)); }
    void TearDown() override { stop(); }
    test::TestResult search(TestConnection& c, const std::string& query, const std::string& bearer) {
        return c.request("POST", "/search/lite", json{{"query", query}, {"max_results", 5}}.dump(),
                         {{"Authorization", "Bearer " + bearer}});
    }
};

TEST_F(GatewayServerTest, ASearchIsAnsweredFromTheFleetThenFromTheCache) {
    start(gatewayScenario(R"("atlas_median_ms": 30, "atlas_sigma": 0.01, "borealis_median_ms": 30,
                             "borealis_sigma": 0.01, "hedge_mode": "off")"));
    TestConnection c(gateway->bound());
    const auto first = search(c, "penguin habitats in antarctica", key);
    ASSERT_EQ(first.ending, Ending::Response) << first.error;
    ASSERT_EQ(first.response->status, 200) << first.response->body;
    const json a = json::parse(first.response->body);
    EXPECT_EQ(a.at("results").size(), 5u);
    EXPECT_EQ(a.at("cache"), "miss");
    EXPECT_GE(a.at("latency_ms").get<double>(), 30 * 0.97);  // the engine's latency, at least
    EXPECT_TRUE(first.response->header("X-RateLimit-Remaining"));

    const auto second = search(c, "  Penguin habitats in ANTARCTICA ", key);  // the same normalized query
    ASSERT_EQ(second.ending, Ending::Response) << second.error;
    ASSERT_EQ(second.response->status, 200);
    const json b = json::parse(second.response->body);
    EXPECT_EQ(b.at("cache"), "hit");
    EXPECT_EQ(b.at("results"), a.at("results"));
    EXPECT_LT(b.at("latency_ms").get<double>(), a.at("latency_ms").get<double>());

    const gateway::GatewaySnapshot s = gateway->snapshot();
    EXPECT_EQ(s.accepted, 2u);
    EXPECT_EQ(s.primary_calls, 1u);
    EXPECT_EQ(fleet->counters().requests, 1u);
}

TEST_F(GatewayServerTest, RejectionsMetricsAndHealthOverHttp) {
    start(gatewayScenario(""));
    TestConnection c(gateway->bound());
    const auto unknown = search(c, "anything", "not-a-key");
    ASSERT_EQ(unknown.ending, Ending::Response);
    EXPECT_EQ(unknown.response->status, 401);
    EXPECT_EQ(json::parse(unknown.response->body).at("error"), "unauthorized");
    const auto bad = c.request("POST", "/search/lite", R"({"query": "x", "maxResults": 3})",
                               {{"Authorization", "Bearer " + key}});
    ASSERT_EQ(bad.ending, Ending::Response);
    EXPECT_EQ(bad.response->status, 400);
    const auto metrics = c.request("GET", "/metrics");
    ASSERT_EQ(metrics.ending, Ending::Response);
    EXPECT_EQ(metrics.response->status, 200);
    EXPECT_NE(metrics.response->body.find("taillab_requests_total{outcome=\"unauthorized\"} 1\n"), std::string::npos);
    const auto health = c.request("GET", "/healthz");
    ASSERT_EQ(health.ending, Ending::Response);
    EXPECT_EQ(health.response->status, 200);
}

// atlas answers every call after 400 ms, borealis after 30 ms; the router always picks atlas
// first and the hedge goes to borealis after 50 ms: the client has its answer long before atlas
// could give it, and atlas's call is cancelled.
TEST_F(GatewayServerTest, AHedgeBeatsASlowEngineAndTheLoserIsCancelled) {
    start(gatewayScenario(R"j("atlas_median_ms": 400, "atlas_sigma": 0.01, "borealis_median_ms": 30,
                              "borealis_sigma": 0.01, "routing": "static (first engine)",
                              "hedge_mode": "fixed", "hedge_delay_ms": 50, "hedge_budget": 1)j"));
    TestConnection c(gateway->bound());
    for (int i = 0; i < 3; ++i) {
        const auto r = search(c, "tide tables brest " + std::to_string(i), key);
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        ASSERT_EQ(r.response->status, 200) << r.response->body;
        const double latency = json::parse(r.response->body).at("latency_ms").get<double>();
        EXPECT_GE(latency, 50 + 30 * 0.97);  // the hedge's delay plus borealis, at least
        EXPECT_LT(latency, 400 * 0.97);      // before atlas could have answered
    }
    const gateway::GatewaySnapshot s = gateway->snapshot();
    EXPECT_EQ(s.primary_calls, 3u);
    EXPECT_EQ(s.hedge_calls, 3u);
    EXPECT_EQ(s.cancelled_calls, 3u);
}

TEST_F(GatewayServerTest, WithNoEngineListeningTheAnswerIsA503NeverAnEmpty200) {
    start(gatewayScenario(""));
    fleet->stop();  // every upstream call is now refused
    TestConnection c(gateway->bound());
    const auto r = search(c, "opening hours louvre", key);
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 503) << r.response->body;
    EXPECT_TRUE(r.response->header("Retry-After"));
    EXPECT_FALSE(json::parse(r.response->body).contains("results"));
}

}  // namespace
}  // namespace taillab::live
