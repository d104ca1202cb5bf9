// The live gateway over real sockets: `serve`'s GatewayServer in front of the emulated fleet,
// each on its own loop thread, asked by a plain HTTP client. Latency bounds are lower bounds (a
// timer never fires early) or a hedge beating an engine whose every answer takes 400 ms.
#include "live/gateway_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <tuple>
#include <thread>

#include <nlohmann/json.hpp>

#include "gateway_rig.h"
#include "gateway_sim/gateway_sim.h"
#include "http_test_client.h"
#include "promtool_check.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::Ending;
using test::TestConnection;

Scenario serveScenario(const std::string& params, const std::string& timeline = "") {
    return parseScenario(R"({"schema_version": 1, "name": "serve-test", "title": "t", "lab": "gateway",
        "seed": 7, "params": {"days": 1, "fault_multiplier": 0, "slow_multiplier": 0)" +
                             (params.empty() ? "" : ", " + params) + "}" +
                             (timeline.empty() ? "" : ", \"timeline\": " + timeline) + "}",
                         "serve-test.json");
}

bool hasMark(const gateway::GatewaySnapshot& s, gateway::MarkKind kind, const std::string& what) {
    for (const gateway::TimelineMark& m : s.timeline)
        if (m.kind == kind && m.what == what) return true;
    return false;
}

class GatewayServerTest : public ::testing::Test, protected test::GatewayRig {
protected:
    void start(const Scenario& s, bool admin = false) { startGateway(s, startFleet(s), {}, admin); }
    void TearDown() override { stop(); }
    test::TestResult search(TestConnection& c, const std::string& query, const std::string& bearer) {
        return c.request("POST", "/search/lite", json{{"query", query}, {"max_results", 5}}.dump(),
                         {{"Authorization", "Bearer " + bearer}});
    }
};

TEST_F(GatewayServerTest, ASearchIsAnsweredFromTheFleetThenFromTheCache) {
    start(serveScenario(R"("atlas_median_ms": 30, "atlas_sigma": 0.01, "borealis_median_ms": 30,
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
    start(serveScenario(""));
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

// A request the gateway refuses before its query is classified (an unknown key, max_results 0)
// is in no query class on /metrics: it counts under class="unclassified" at its latency, and the
// latency series together count every answer once. promtool accepts the live exposition.
TEST_F(GatewayServerTest, RefusalsBeforeClassificationAreInNoQueryClassOnMetrics) {
    start(serveScenario(""));
    TestConnection c(gateway->bound());
    const std::string query = "weather in paris today";
    for (int i = 0; i < 5; ++i) {
        const auto r = search(c, query, "nope");
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 401);
    }
    for (int i = 0; i < 2; ++i) {
        const auto r = c.request("POST", "/search/lite", json{{"query", query}, {"max_results", 0}}.dump(),
                                 {{"Authorization", "Bearer " + key}});
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 400);
    }
    const auto before = c.request("GET", "/metrics");
    ASSERT_EQ(before.ending, Ending::Response) << before.error;
    EXPECT_EQ(test::promtoolProblems(before.response->body), "");
    const auto m = test::promSamples(before.response->body);
    EXPECT_EQ(m.at("taillab_request_duration_seconds_count{class=\"unclassified\"}"), 7);
    EXPECT_GT(m.at("taillab_request_duration_seconds_sum{class=\"unclassified\"}"), 0);
    for (const std::string_view cls : gateway::kClassNames)
        EXPECT_EQ(m.at("taillab_request_duration_seconds_count{class=\"" + std::string(cls) + "\"}"), 0) << cls;

    // One answered search: in its class, and the counts still add up to the answers.
    const auto ok = search(c, query, key);
    ASSERT_EQ(ok.ending, Ending::Response) << ok.error;
    ASSERT_EQ(ok.response->status, 200) << ok.response->body;
    const std::string cls = json::parse(ok.response->body).at("class");
    const auto after = test::promSamples(c.request("GET", "/metrics").response->body);
    EXPECT_EQ(after.at("taillab_request_duration_seconds_count{class=\"" + cls + "\"}"), 1);
    EXPECT_EQ(after.at("taillab_request_duration_seconds_count{class=\"unclassified\"}"), 7);
    double counted = 0, answered = 0;
    for (const auto& [k, v] : after) {
        if (k.rfind("taillab_request_duration_seconds_count{", 0) == 0) counted += v;
        if (k.rfind("taillab_requests_total{", 0) == 0) answered += v;
    }
    EXPECT_EQ(counted, 8);
    EXPECT_EQ(answered, 8);
}

// atlas answers every call after 400 ms, borealis after 30 ms; the router always picks atlas
// first and the hedge goes to borealis after 50 ms: the client has its answer long before atlas
// could give it, and atlas's call is cancelled.
TEST_F(GatewayServerTest, RequestsRefusedBeforeTheGatewayAreCountedOnMetrics) {
    HttpServerLimits small;
    small.max_body_bytes = 256;
    startGateway(serveScenario(""), startFleet(serveScenario("")), small);
    TestConnection c(gateway->bound());
    const auto auth = std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer " + key}};
    EXPECT_EQ(c.request("POST", "/search/lite", R"({"query": )", auth).response->status, 400);
    EXPECT_EQ(c.request("POST", "/search/slow", R"({"query": "x"})", auth).response->status, 404);
    TestConnection big(gateway->bound());
    const auto tooBig = big.request("POST", "/search/lite", std::string(1000, ' '), auth);
    ASSERT_EQ(tooBig.ending, Ending::Response) << tooBig.error;
    EXPECT_EQ(tooBig.response->status, 413);
    const std::string metrics = c.request("GET", "/metrics").response->body;
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"400\"} 1\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"404\"} 1\n"), std::string::npos);
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"413\"} 1\n"), std::string::npos);
}

// A header that takes one value, sent twice, is a 400 naming it: not whichever came first.
TEST_F(GatewayServerTest, AHeaderOfOneValueSentTwiceIsA400NamingIt) {
    start(serveScenario(""));
    const std::string body = json{{"query", "weather in lyon"}}.dump();
    const auto sendWith = [&](const std::string& headers) {
        TestConnection c(gateway->bound());
        c.sendRaw("POST /search/lite HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\n" + headers + "\r\n" + body);
        return c.readResponse();
    };
    const std::string auth = "Authorization: Bearer " + key + "\r\n";
    for (const auto& [headers, name] :
         {std::pair{auth + "X-Region: US\r\nx-region: MARS\r\n", "X-Region"},
          std::pair{auth + "X-Region: MARS\r\nX-Region: US\r\n", "X-Region"},
          std::pair{auth + auth, "Authorization"},
          std::pair{auth + "Content-Type: application/json\r\nContent-Type: text/plain\r\n", "Content-Type"},
          std::pair{auth + "X-Request-Id: 1\r\nX-Request-Id: 2\r\n", "X-Request-Id"}}) {
        const auto r = sendWith(headers);
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 400) << headers;
        const json j = json::parse(r.response->body);
        EXPECT_EQ(j.at("error"), "bad_request");
        EXPECT_EQ(j.at("message"), std::string(name) + " is sent more than once: it takes one value");
    }
    const auto once = sendWith(auth + "X-Region: US\r\n");
    ASSERT_EQ(once.ending, Ending::Response) << once.error;
    EXPECT_EQ(once.response->status, 200) << once.response->body;
}

TEST_F(GatewayServerTest, AHedgeBeatsASlowEngineAndTheLoserIsCancelled) {
    start(serveScenario(R"j("atlas_median_ms": 1000, "atlas_sigma": 0.01, "borealis_median_ms": 30,
                              "borealis_sigma": 0.01, "routing": "static (first engine)",
                              "hedge_mode": "fixed", "hedge_delay_ms": 50, "hedge_budget": 1)j"));
    TestConnection c(gateway->bound());
    for (int i = 0; i < 3; ++i) {
        const auto r = search(c, "tide tables brest " + std::to_string(i), key);
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        ASSERT_EQ(r.response->status, 200) << r.response->body;
        const double latency = json::parse(r.response->body).at("latency_ms").get<double>();
        EXPECT_GE(latency, 50 + 30 * 0.97);  // the hedge's delay plus borealis, at least
        EXPECT_LT(latency, 900);             // before atlas could have answered
    }
    const gateway::GatewaySnapshot s = gateway->snapshot();
    EXPECT_EQ(s.primary_calls, 3u);
    EXPECT_EQ(s.hedge_calls, 3u);
    EXPECT_EQ(s.cancelled_calls, 3u);
}

TEST_F(GatewayServerTest, WithNoEngineListeningTheAnswerIsA503NeverAnEmpty200) {
    start(serveScenario(""));
    fleet->stop();  // every upstream call is now refused
    TestConnection c(gateway->bound());
    const auto r = search(c, "opening hours louvre", key);
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 503) << r.response->body;
    EXPECT_TRUE(r.response->header("Retry-After"));
    EXPECT_FALSE(json::parse(r.response->body).contains("results"));
}

// A request whose deadline passed before its body came (latency runs from its first byte) is
// a 503 at the time it really took, in its body and on the latency histogram: not stopped at
// the deadline, as if it had been answered then.
TEST_F(GatewayServerTest, ADeadlinePassedBeforeTheBodyCameIsReportedAtItsRealLatency) {
    start(serveScenario(R"("deadline_ms": 300)"));
    TestConnection c(gateway->bound());
    const std::string body = json{{"query", "late body"}}.dump();
    c.sendRaw("POST /search/lite HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
              "Authorization: Bearer " + key + "\r\nContent-Length: " + std::to_string(body.size()) +
              "\r\n\r\n");
    std::this_thread::sleep_for(1200ms);
    c.sendRaw(body);
    const auto r = c.readResponse();
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 503) << r.response->body;
    const json j = json::parse(r.response->body);
    EXPECT_EQ(j.at("error"), "deadline_missed");
    // The server stamps the first byte when its loop reads it, which on a loaded machine can be a
    // few ms after the client sent it: the bound is the 1.2 s wait with room for that, far above
    // the 300 ms deadline a stopped clock would report.
    EXPECT_GE(j.at("latency_ms").get<double>(), 1150);
    // On the histogram of every request (in its class, or in none if refused before the compiler).
    EXPECT_GE(gateway->snapshot().latency_us.max(), 1'150'000);  // microseconds
}

TEST_F(GatewayServerTest, AdminKnobsRetuneTheRunningGatewayAllOrNothingAndMarkTheTimeline) {
    start(serveScenario(R"("hedge_mode": "fixed", "hedge_delay_ms": 420)"), true);
    TestConnection c(gateway->bound());
    const auto ok = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 300, "breaker_threshold": 0.4})");
    ASSERT_EQ(ok.ending, Ending::Response) << ok.error;
    ASSERT_EQ(ok.response->status, 200) << ok.response->body;
    EXPECT_EQ(json::parse(ok.response->body).at("knobs").at("hedge_delay_ms"), 300);
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 300);
    EXPECT_EQ(gateway->params().real("breaker_threshold"), 0.4);
    EXPECT_TRUE(hasMark(gateway->snapshot(), gateway::MarkKind::Knob,
                        "breaker_threshold 0.8 -> 0.4, hedge_delay_ms 420 -> 300"));

    // One bad member refuses the whole change, naming where.
    const auto bad = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 250, "hedge_mode": "sometimes"})");
    ASSERT_EQ(bad.ending, Ending::Response);
    EXPECT_EQ(bad.response->status, 400);
    EXPECT_NE(json::parse(bad.response->body).at("message").get<std::string>().find("$.hedge_mode"),
              std::string::npos)
        << bad.response->body;
    const auto fixed = c.request("POST", "/admin/knobs", R"({"customers": 12})");
    ASSERT_EQ(fixed.ending, Ending::Response);
    EXPECT_EQ(fixed.response->status, 400);
    EXPECT_NE(fixed.response->body.find("customers cannot change during a run"), std::string::npos);
    const auto notJson = c.request("POST", "/admin/knobs", "{hedge");
    ASSERT_EQ(notJson.ending, Ending::Response);
    EXPECT_EQ(notJson.response->status, 400);
    // A knob given twice, or none: a 400, not the last value or a silent nothing.
    for (const auto& [body, says] : {std::pair{R"({"hedge_delay_ms": 250, "hedge_delay_ms": 200})", "$.hedge_delay_ms"},
                                     std::pair{"{}", "names no knob"}}) {
        const auto r = c.request("POST", "/admin/knobs", body);
        ASSERT_EQ(r.ending, Ending::Response);
        EXPECT_EQ(r.response->status, 400);
        EXPECT_NE(r.response->body.find(says), std::string::npos) << r.response->body;
    }
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 300);

    const auto state = c.request("GET", "/admin/state");
    ASSERT_EQ(state.ending, Ending::Response);
    EXPECT_EQ(json::parse(state.response->body).at("knobs").at("hedge_delay_ms"), 300);
    // The gateway still serves searches.
    EXPECT_EQ(search(c, "weather in lyon", key).response->status, 200);
}

// PROTOCOL.md: a knob change is marked on the gateway's timeline, which /metrics shows: the knob
// events so far, and every knob's value in force.
TEST_F(GatewayServerTest, AnAdminKnobChangeShowsOnMetrics) {
    start(serveScenario(R"("hedge_mode": "fixed", "hedge_delay_ms": 420)"), true);
    TestConnection c(gateway->bound());
    const auto metrics = [&] {
        const auto r = c.request("GET", "/metrics");
        EXPECT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(test::promtoolProblems(r.response->body), "");
        return test::promSamples(r.response->body);
    };
    const auto before = metrics();
    EXPECT_EQ(before.at("taillab_timeline_events_total{kind=\"knob\"}"), 0);
    EXPECT_EQ(before.at("taillab_knob_value{knob=\"hedge_delay_ms\"}"), 420);
    EXPECT_EQ(before.at("taillab_knob_choice{knob=\"hedge_mode\",choice=\"fixed\"}"), 1);

    const auto ok = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 300, "hedge_mode": "off"})");
    ASSERT_EQ(ok.ending, Ending::Response) << ok.error;
    ASSERT_EQ(ok.response->status, 200) << ok.response->body;
    const auto after = metrics();
    EXPECT_EQ(after.at("taillab_timeline_events_total{kind=\"knob\"}"), 1);
    EXPECT_EQ(after.at("taillab_knob_value{knob=\"hedge_delay_ms\"}"), 300);
    EXPECT_EQ(after.at("taillab_knob_choice{knob=\"hedge_mode\",choice=\"fixed\"}"), 0);
    EXPECT_EQ(after.at("taillab_knob_choice{knob=\"hedge_mode\",choice=\"off\"}"), 1);
    // A refused change is no event and leaves the values.
    EXPECT_EQ(c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": -5})").response->status, 400);
    const auto refused = metrics();
    EXPECT_EQ(refused.at("taillab_timeline_events_total{kind=\"knob\"}"), 1);
    EXPECT_EQ(refused.at("taillab_knob_value{knob=\"hedge_delay_ms\"}"), 300);
}

// What PROTOCOL.md promises of every answer: latency_ms in each JSON body, Allow on a 405,
// WWW-Authenticate on a 401, 415 for a body that is not JSON, refusals counted on /metrics, and
// an admin example the gateway takes.
TEST_F(GatewayServerTest, AnswersCarryWhatTheProtocolPromises) {
    start(serveScenario(""), true);
    TestConnection c(gateway->bound());
    const auto latencyIn = [](const test::TestResult& r) {
        return r.response && json::parse(r.response->body).contains("latency_ms");
    };
    const auto health = c.request("GET", "/healthz");
    EXPECT_TRUE(latencyIn(health)) << health.response->body;
    EXPECT_EQ(json::parse(health.response->body).at("status"), "serving");
    EXPECT_TRUE(latencyIn(c.request("GET", "/admin/state")));
    const auto knobs = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 300})");
    EXPECT_EQ(knobs.response->status, 200) << knobs.response->body;
    EXPECT_TRUE(latencyIn(knobs));
    for (const auto& [method, path, allow] : {std::tuple{"POST", "/admin/state", "GET"},
                                              std::tuple{"GET", "/admin/knobs", "POST"}}) {
        const auto r = c.request(method, path, std::string(method) == "POST" ? "{}" : "");
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 405);
        EXPECT_EQ(r.response->header("Allow"), allow) << path;
    }
    const auto plain = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 250})", {{"Content-Type", "text/plain"}});
    EXPECT_EQ(plain.response->status, 415) << plain.response->body;
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 300);
    EXPECT_EQ(c.request("POST", "/admin/knobs", "{").response->status, 400);
    const auto unknown = search(c, "anything", "not-a-key");
    EXPECT_EQ(unknown.response->status, 401);
    EXPECT_EQ(unknown.response->header("WWW-Authenticate"), "Bearer");
    const std::string metrics = c.request("GET", "/metrics").response->body;
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"405\"} 2\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"415\"} 1\n"), std::string::npos);
    EXPECT_NE(metrics.find("taillab_http_refused_total{status=\"400\"} 1\n"), std::string::npos);

    // The admin example in PROTOCOL.md is one the gateway takes.
    std::ifstream doc(std::string(TAILLAB_SOURCE_DIR) + "/core/live/PROTOCOL.md");
    const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
    const std::size_t from = text.find("(`{\"hedge_delay_ms\"");
    ASSERT_NE(from, std::string::npos);
    const std::string example = text.substr(from + 2, text.find("}`)", from) + 1 - (from + 2));
    const auto r = c.request("POST", "/admin/knobs", example);
    EXPECT_EQ(r.response->status, 200) << example << " -> " << r.response->body;
}

// /healthz and /metrics serve GET and HEAD: a 405 says both.
TEST_F(GatewayServerTest, A405OnHealthzOrMetricsAllowsGetAndHead) {
    start(serveScenario(""));
    TestConnection c(gateway->bound());
    for (const std::string path : {"/healthz", "/metrics"}) {
        SCOPED_TRACE(path);
        const auto r = c.request("POST", path, "{}");
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 405);
        EXPECT_EQ(r.response->header("Allow"), "GET, HEAD");
        EXPECT_NE(json::parse(r.response->body).value("message", "").find("GET or HEAD"), std::string::npos)
            << r.response->body;
        c.sendRaw("HEAD " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        const auto head = c.readHeadResponse();
        ASSERT_EQ(head.ending, Ending::Response) << head.error;
        EXPECT_EQ(head.response->status, 200);
    }
}

// Every refusal of /admin/knobs names the JSON path it is about: a knob that shapes the run
// ($.days, as PROTOCOL.md promises), and a nesting too deep, in the words of a request (array
// elements as $[0], no scenario in sight).
TEST_F(GatewayServerTest, AdminRefusalsNameTheirJsonPath) {
    start(serveScenario(""), true);
    TestConnection c(gateway->bound());
    const auto messageOf = [&](const std::string& body) {
        const auto r = c.request("POST", "/admin/knobs", body);
        EXPECT_EQ(r.ending, Ending::Response) << r.error;
        if (!r.response) return std::string();
        EXPECT_EQ(r.response->status, 400) << r.response->body;
        return json::parse(r.response->body).value("message", "");
    };
    EXPECT_EQ(messageOf(R"({"days": 3})"), "$.days: days cannot change during a run");
    EXPECT_EQ(messageOf(R"({"hedge_delay_ms": 300, "customers": 12})"), "$.customers: customers cannot change during a run");
    EXPECT_EQ(messageOf(R"({"load_multiplier": 2})").rfind("$.load_multiplier: ", 0), 0u);
    const std::string deep = std::string(70, '[') + std::string(70, ']');
    std::string zeros;
    for (int i = 0; i < 64; ++i) zeros += "[0]";
    EXPECT_EQ(messageOf(deep), "$" + zeros + ": nested deeper than 64 levels (an admin request needs three)");
    const std::string inKnob = messageOf(R"({"hedge_delay_ms": )" + deep + "}");
    EXPECT_EQ(inKnob.rfind("$.hedge_delay_ms[0][0]", 0), 0u) << inKnob;
    EXPECT_EQ(inKnob.find("scenario"), std::string::npos) << inKnob;
    EXPECT_EQ(messageOf(R"({"hedge_delay_ms": 1, "x": [{"a": 1, "a": 2}]})").rfind("$.x[0].a: duplicate key", 0), 0u);
    EXPECT_EQ(gateway->params().real("days"), 1);
}

TEST_F(GatewayServerTest, WithoutAdminTheAdminPathsAreNotThere) {
    start(serveScenario(""));
    TestConnection c(gateway->bound());
    const auto r = c.request("POST", "/admin/knobs", R"({"hedge_delay_ms": 300})");
    ASSERT_EQ(r.ending, Ending::Response);
    EXPECT_EQ(r.response->status, 404);
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), setup.params.real("hedge_delay_ms"));
}

TEST_F(GatewayServerTest, TheScenariosTimelineAppliesKnobsAtTheirTimesAndMarksFaults) {
    start(serveScenario(R"("hedge_mode": "fixed", "hedge_delay_ms": 420)",
                        R"([{"at": 1.5, "set": {"hedge_delay_ms": 180}},
                              {"at": 0, "until": 0.5, "fault": {"target": {"engine": "cirrus"}, "effect": "down"}}])"));
    const double started = gateway->startedAt();
    gateway::GatewaySnapshot s = gateway->snapshot();
    EXPECT_TRUE(hasMark(s, gateway::MarkKind::Fault, "cirrus down"));
    for (const auto& m : s.timeline) {
        if (m.kind == gateway::MarkKind::Fault) {
            EXPECT_NEAR(m.t_s, started, 1e-9);
            ASSERT_TRUE(m.end_s);
            EXPECT_NEAR(*m.end_s, started + 0.5, 1e-9);
        }
    }
    for (int i = 0; i < 1000 && gateway->params().real("hedge_delay_ms") != 180; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 180);
    EXPECT_GE(gateway->nowSeconds() - started, 1.5);  // never early
    s = gateway->snapshot();
    ASSERT_TRUE(hasMark(s, gateway::MarkKind::Knob, "hedge_delay_ms 420 -> 180"));
    for (const auto& m : s.timeline)
        if (m.kind == gateway::MarkKind::Knob) {
            EXPECT_GE(m.t_s - started, 1.5);
            // The steps behind the text, for a view to write in its own words.
            ASSERT_EQ(m.knobs.size(), 1u);
            EXPECT_EQ(m.knobs[0].key, "hedge_delay_ms");
            EXPECT_EQ(m.knobs[0].from, 420);
            EXPECT_EQ(m.knobs[0].to, 180);
        }
}

// A timeline change that finds its knobs already at its values is still drawn where it fired,
// with the text the simulator gives it, so a replay and its live run show the same marks.
TEST_F(GatewayServerTest, ATimelineChangeThatChangesNothingIsMarkedAsInTheSimulator) {
    const Scenario scenario = serveScenario(R"("hedge_mode": "fixed", "hedge_delay_ms": 420)",
                                            R"([{"at": 1.5, "set": {"hedge_delay_ms": 420}}])");
    gateway::GatewaySim sim(scenario.params, scenario.seed, scenario.timeline);
    ASSERT_TRUE(sim.advanceTo(2.0));
    const gateway::GatewaySnapshot simulated = sim.snapshot();
    ASSERT_TRUE(hasMark(simulated, gateway::MarkKind::Knob, "hedge_delay_ms 420 -> 420"));

    start(scenario);
    const double started = gateway->startedAt();
    bool marked = false;
    for (int i = 0; i < 1000 && !marked; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        marked = hasMark(gateway->snapshot(), gateway::MarkKind::Knob, "hedge_delay_ms 420 -> 420");
    }
    ASSERT_TRUE(marked);
    EXPECT_GE(gateway->nowSeconds() - started, 1.5);  // never early
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 420);
    TestConnection c(gateway->bound());
    EXPECT_EQ(search(c, "weather in lyon", key).response->status, 200);  // still serving
}

// A timeline change sets its own knobs only: an edit made before it comes (the admin endpoint,
// the GUI) is not undone by the knobs the timeline alone would have led to.
TEST_F(GatewayServerTest, ATimelineChangeKeepsAnEditMadeBeforeIt) {
    start(serveScenario(R"("hedge_mode": "fixed", "hedge_delay_ms": 420, "deadline_ms": 600)",
                        R"([{"at": 1.5, "set": {"hedge_delay_ms": 180}}])"));
    const double started = gateway->startedAt();
    gateway->applyChanges({KnobSetting{"deadline_ms", 900}});
    ASSERT_LT(gateway->nowSeconds() - started, 1.5) << "the edit came after the timeline's change";
    for (int i = 0; i < 1000 && gateway->params().real("hedge_delay_ms") != 180; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(gateway->params().real("hedge_delay_ms"), 180);
    EXPECT_EQ(gateway->params().real("deadline_ms"), 900);
    const gateway::GatewaySnapshot s = gateway->snapshot();
    EXPECT_TRUE(hasMark(s, gateway::MarkKind::Knob, "hedge_delay_ms 420 -> 180"));
}

// An edit can make a later timeline change one that cannot be made (here the ceiling below the
// floor an edit raised): the change is marked as not applied, and the knobs stay as they are.
TEST_F(GatewayServerTest, ATimelineChangeThatAnEditMadeInvalidIsMarkedNotApplied) {
    start(serveScenario(R"("admission_min_limit": 10, "admission_max_limit": 200)",
                        R"([{"at": 1.5, "set": {"admission_max_limit": 50}}])"));
    const double started = gateway->startedAt();
    gateway->applyChanges({KnobSetting{"admission_min_limit", 80}});
    ASSERT_LT(gateway->nowSeconds() - started, 1.5) << "the edit came after the timeline's change";
    bool marked = false;
    for (int i = 0; i < 1000 && !marked; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        for (const auto& m : gateway->snapshot().timeline)
            if (m.kind == gateway::MarkKind::Knob && m.what.starts_with("not applied: admission_max_limit 200 -> 50 ("))
                marked = true;
    }
    EXPECT_TRUE(marked);
    EXPECT_EQ(gateway->params().integer("admission_max_limit"), 200);
    EXPECT_EQ(gateway->params().integer("admission_min_limit"), 80);
    TestConnection c(gateway->bound());
    EXPECT_EQ(search(c, "weather in lyon", key).response->status, 200);  // still serving
}

TEST(GatewayServerTimeline, AKnobThatShapesTheRunIsRefusedBeforeListeningNamingTheEvent) {
    // The scenario parser refuses this already; a timeline built in code (the GUI's) is checked
    // again by the server.
    const Scenario s = serveScenario("");
    GatewaySetup setup = gatewaySetup(s);
    TimelineEvent e;
    e.at_s = 10;
    e.set = {KnobSetting{"customers", 12}};
    e.label = "customers 12";
    e.path = "/timeline/0";
    setup.timeline.events.push_back(e);
    Loop loop;
    const std::vector<Url> urls(setup.config.engines.size(), Url{HostPort{"127.0.0.1", 9}, "/"});
    try {
        GatewayServer server(loop, HostPort{"127.0.0.1", 0}, setup, urls, s.seed);
        FAIL() << "the timeline was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("/timeline/0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("customers cannot change during a run"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace taillab::live
