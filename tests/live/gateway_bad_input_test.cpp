// Bad input against the real gateway on 127.0.0.1 (issue 9): malformed HTTP, oversized headers
// and bodies, a slowloris client, invalid JSON, unknown fields, missing or unknown API keys, and
// upstreams that hang, answer garbage, a truncated answer or a wrong shape. Each gets a clear
// status with a JSON error body within a bounded time, and the gateway keeps serving a good
// client meanwhile. The bounds are generous upper ones (a loaded 2-core machine): they catch a
// hang, not a slowdown.
#include <gtest/gtest.h>

#include <boost/system/system_error.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "gateway_rig.h"
#include "http_test_client.h"
#include "stall_server.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::Ending;
using test::StallServer;
using test::TestConnection;
using test::TestResult;

constexpr auto kBound = 10s;  // no bad input may hold an answer longer than this

Scenario badInputScenario(const std::string& params = "") {
    return parseScenario(R"({"schema_version": 1, "name": "bad-input-test", "title": "t", "lab": "gateway",
        "seed": 11, "params": {"days": 1, "fault_multiplier": 0, "slow_multiplier": 0, "atlas_median_ms": 5,
        "atlas_sigma": 0.01, "borealis_median_ms": 5, "borealis_sigma": 0.01, "cirrus_median_ms": 5,
        "cirrus_sigma": 0.01)" + (params.empty() ? "" : ", " + params) + "}}",
                         "bad-input-test.json");
}

// A JSON error answer: the status, a JSON body naming the error with a message and latency_ms,
// and no results.
void expectErrorReply(const TestResult& r, int status, const std::string& error = "") {
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, status) << r.response->body;
    EXPECT_EQ(r.response->header("Content-Type"), "application/json");
    const json body = json::parse(r.response->body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r.response->body;
    if (!error.empty()) {
        EXPECT_EQ(body.value("error", ""), error) << r.response->body;
    }
    EXPECT_FALSE(body.value("message", "").empty()) << r.response->body;
    EXPECT_TRUE(body.contains("latency_ms")) << r.response->body;
    EXPECT_FALSE(body.contains("results")) << r.response->body;
    EXPECT_LT(r.elapsed, kBound);
}

class GatewayBadInputTest : public ::testing::Test, protected test::GatewayRig {
protected:
    // The gateway in front of the emulated fleet, or of `upstream` for every engine.
    void start(const Scenario& s, HttpServerLimits limits = {}, StallServer* upstream = nullptr) {
        std::vector<std::string> args;
        if (upstream) {
            for (const char* name : {"atlas", "borealis", "cirrus"})
                args.push_back(std::string(name) + "=" + upstream->url("/engine"));
        } else {
            args = startFleet(s);
        }
        startGateway(s, args, limits);
    }
    void TearDown() override { stop(); }
    TestResult search(TestConnection& c, const std::string& query) {
        return c.request("POST", "/search/lite", json{{"query", query}}.dump(), {{"Authorization", "Bearer " + key}});
    }
    // A good client's search on its own connection, answered with results.
    void expectServed(TestConnection& c, const std::string& query) {
        const TestResult r = search(c, query);
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 200) << r.response->body;
        EXPECT_FALSE(json::parse(r.response->body).at("results").empty());
    }
};

TEST_F(GatewayBadInputTest, MalformedAndOversizedHttpGetJsonErrorsWhileAGoodClientIsServed) {
    start(badInputScenario());
    TestConnection good(gateway->bound());
    expectServed(good, "ferry times calais dover");

    TestConnection garbage(gateway->bound());
    garbage.sendRaw("\x16\x03\x01 this is TLS, or noise\r\n\r\n");
    expectErrorReply(garbage.readResponse(), 400, "bad_request");
    expectServed(good, "ferry times calais dover 2");

    TestConnection badVersion(gateway->bound());
    badVersion.sendRaw("POST /search/lite HTTP/9.9\r\nHost: a\r\n\r\n");
    expectErrorReply(badVersion.readResponse(), 400, "bad_request");

    TestConnection badLength(gateway->bound());
    badLength.sendRaw("POST /search/lite HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\n");
    expectErrorReply(badLength.readResponse(), 400, "bad_request");

    const std::vector<std::pair<std::string, std::string>> auth{{"Authorization", "Bearer " + key}};
    auto bigHeader = auth;
    bigHeader.emplace_back("X-Padding", std::string(32 * 1024, 'h'));  // 4 times the 8 KiB limit
    expectErrorReply(
        test::requestOnce(gateway->bound(), "POST", "/search/lite", R"({"query": "x"})", bigHeader),
        413, "payload_too_large");
    const std::string bigBody = json{{"query", std::string(1024 * 1024, 'q')}}.dump();
    expectErrorReply(test::requestOnce(gateway->bound(), "POST", "/search/lite", bigBody, auth),
                     413, "payload_too_large");
    expectServed(good, "ferry times calais dover 3");
}

// A client that sends one header byte a second never finishes its request: it is answered 408
// once the read timeout (2 s here) has passed since its first byte, however steadily it drips,
// and a good client is served every second meanwhile.
TEST_F(GatewayBadInputTest, ASlowlorisIsCutOffInBoundedTimeWhileOthersAreServed) {
    HttpServerLimits limits;
    limits.read_timeout = 2s;
    start(badInputScenario(), limits);
    TestConnection good(gateway->bound());
    TestConnection slow(gateway->bound(), 1000ms);  // each read waits a second: the drip's pace
    const std::string request = "POST /search/lite HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key +
                                "\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"query\": \"slow\"}";
    const auto start = std::chrono::steady_clock::now();
    TestResult cut;
    int served = 0;
    bool sendFailed = false;
    for (std::size_t i = 0; i < request.size() && std::chrono::steady_clock::now() - start < 3 * kBound; ++i) {
        try {
            slow.sendRaw(request.substr(i, 1));
        } catch (const boost::system::system_error&) {
            sendFailed = true;  // the server closed: what it said is still to be read
        }
        cut = slow.readResponse();
        if (cut.ending != Ending::TimedOut) break;
        expectServed(good, "tide tables saint malo " + std::to_string(i));
        ++served;
    }
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(cut.ending, Ending::Response) << cut.error << (sendFailed ? " (after a failed send)" : "");
    EXPECT_EQ(cut.response->status, 408) << cut.response->body;
    EXPECT_EQ(json::parse(cut.response->body).value("error", ""), "request_timeout");
    EXPECT_GE(took, 1900ms);  // not before the read timeout
    EXPECT_LT(took, kBound);  // and not as long as the client cares to drip
    EXPECT_GE(served, 1);
    EXPECT_LT(served, static_cast<int>(request.size()));  // cut off before the request was complete
}

TEST_F(GatewayBadInputTest, InvalidJsonAndUnknownFieldsGet400NamingTheProblem) {
    start(badInputScenario());
    TestConnection c(gateway->bound());
    const std::vector<std::pair<std::string, std::string>> auth{{"Authorization", "Bearer " + key}};
    for (const std::string& body : {std::string(R"({"query": "unterminated)"), std::string("not json at all"),
                                   std::string(R"(["query", "x"])"), std::string(R"({"query": 42})"),
                                   std::string(R"({"query": "x", "max_results": 0})"),
                                   std::string(R"({"query": "x", "max_results": "ten"})"),
                                   std::string(R"({"query": "x", "colour": "red"})"), std::string(R"({})"),
                                   std::string(R"({"query": "x"} trailing)")}) {
        SCOPED_TRACE(body);
        expectErrorReply(c.request("POST", "/search/lite", body, auth), 400, "bad_request");
    }
    const TestResult empty = c.request("POST", "/search/lite", "", auth);
    expectErrorReply(empty, 400, "bad_request");
    // The message names where the problem is.
    const TestResult unknown = c.request("POST", "/search/lite", R"({"query": "x", "colour": "red"})", auth);
    ASSERT_EQ(unknown.ending, Ending::Response);
    EXPECT_NE(json::parse(unknown.response->body).value("message", "").find("colour"), std::string::npos)
        << unknown.response->body;
    expectErrorReply(c.request("GET", "/search/lite", "", auth), 405);
    expectErrorReply(c.request("POST", "/search/slow", R"({"query": "x"})", auth), 404);
    // The gateway's own 400s name the field too.
    const auto messageOf = [&](const json& body) {
        const TestResult r = c.request("POST", "/search/lite", body.dump(), auth);
        expectErrorReply(r, 400, "bad_request");
        return r.response ? json::parse(r.response->body).value("message", "") : "";
    };
    EXPECT_EQ(messageOf({{"query", "x"}, {"max_results", 0}}), "$.max_results must be an integer from 1 to 50");
    EXPECT_EQ(messageOf({{"query", " \t "}}), "$.query: empty after normalization");
    // A query too long to send, as written or once normalized (U+FDFA is 3 bytes and 33 after
    // NFKC): a 400 for the client, not a 413 from every engine counted against their breakers.
    EXPECT_EQ(messageOf({{"query", std::string(16385, 'x')}}), "$.query must be at most 16384 bytes");
    std::string expands;
    for (int i = 0; i < 3000; ++i) expands += "\xEF\xB7\xBA";
    EXPECT_NE(messageOf({{"query", expands}}).find("$.query: 99000 bytes after normalization, over 4096"),
              std::string::npos);
    expectServed(c, "the connection still serves");
}

// No key or an unknown one is a 401; an Authorization header that is not "Bearer KEY" at all is a
// 400 that names the header (the HTTP layer reads it before the gateway judges the key).
TEST_F(GatewayBadInputTest, MissingOrUnknownApiKeysGet401AndAMalformedHeader400) {
    start(badInputScenario());
    TestConnection c(gateway->bound());
    const std::string body = R"({"query": "museum opening hours"})";
    expectErrorReply(c.request("POST", "/search/lite", body), 401, "unauthorized");
    // The simulation's probe keys skip rate limits and admission: over HTTP they are unknown.
    for (const std::string& unknown : {key + "x", std::string("tl-cust-999-revoked"), key.substr(0, key.size() - 1),
                                       std::string("tl-probe-eu"), std::string("tl-probe-us")}) {
        SCOPED_TRACE(unknown);
        expectErrorReply(
            c.request("POST", "/search/lite", body, {{"Authorization", "Bearer " + unknown}}), 401,
            "unauthorized");
    }
    for (const std::string& value : {std::string("Bearer"), std::string("Bearer "), std::string("Basic " + key),
                                     std::string("bearer-" + key)}) {
        SCOPED_TRACE(value);
        const TestResult r = c.request("POST", "/search/lite", body, {{"Authorization", value}});
        expectErrorReply(r, 400, "bad_request");
        if (r.response) {
            EXPECT_NE(r.response->body.find("Authorization"), std::string::npos) << r.response->body;
        }
    }
    expectServed(c, "museum opening hours");
}

// Valid JSON holding a value a search cannot take is said as the admin requests say it: the
// value's JSON path and the problem, not a syntax error at a column. A real syntax error still
// names its line and column.
TEST_F(GatewayBadInputTest, ValidJsonWithABadValueIsNamedByItsPath) {
    start(badInputScenario());
    TestConnection c(gateway->bound());
    const std::vector<std::pair<std::string, std::string>> auth{{"Authorization", "Bearer " + key}};
    const auto messageOf = [&](const std::string& body) {
        const TestResult r = c.request("POST", "/search/lite", body, auth);
        expectErrorReply(r, 400, "bad_request");
        return r.response ? json::parse(r.response->body).value("message", "") : "";
    };
    EXPECT_EQ(messageOf(R"({"query":"x","max_results":1e400})").rfind("$.max_results: the number 1e400 is out of range", 0),
              0u);
    EXPECT_EQ(messageOf(R"({"query":"\ud800"})"), R"($.query: a lone UTF-16 surrogate \ud800 is not a character)");
    EXPECT_EQ(messageOf(R"({"query":"tide \uDC00 brest"})"),
              R"($.query: a lone UTF-16 surrogate \uDC00 is not a character)");
    EXPECT_EQ(messageOf(R"({"query":"x", "language": "\ud83d"})"),
              R"($.language: a lone UTF-16 surrogate \ud83d is not a character)");
    EXPECT_EQ(messageOf("{\"query\": \"x\",\n \"max_results\": 3,}"),
              "the body is not valid JSON at line 2, column 19: unexpected '}'");
    // A surrogate pair is one character: served.
    const TestResult pair = c.request("POST", "/search/lite", R"({"query":"tide \ud83c\udf0a brest"})", auth);
    ASSERT_EQ(pair.ending, Ending::Response) << pair.error;
    EXPECT_EQ(pair.response->status, 200) << pair.response->body;
}

// Each header is held to what its error message says it takes. Empty is not absent: an empty
// X-Request-Id is not a decimal number, an empty Authorization is not "Bearer KEY". A key is one
// token: anything after it makes the header malformed (400), not an unknown key (401). X-Region
// is read in any case, as its message says. The language must be a language tag.
TEST_F(GatewayBadInputTest, HeadersAndTheLanguageAreCheckedAsTheirMessagesSay) {
    start(badInputScenario());
    TestConnection c(gateway->bound());
    const std::string body = R"({"query": "museum opening hours"})";
    // A request with exactly these headers (an empty value sent as "Name:").
    const auto send = [&](const std::vector<std::pair<std::string, std::string>>& headers,
                          const std::string& b) {
        std::string raw = "POST /search/lite HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
        for (const auto& [k, v] : headers) raw += k + ":" + (v.empty() ? "" : " " + v) + "\r\n";
        raw += "Content-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b;
        c.sendRaw(raw);
        return c.readResponse();
    };
    const std::pair<std::string, std::string> auth{"Authorization", "Bearer " + key};
    const auto refusedNaming = [&](const std::vector<std::pair<std::string, std::string>>& headers,
                                   const std::string& b, const std::string& names) {
        const TestResult r = send(headers, b);
        expectErrorReply(r, 400, "bad_request");
        if (r.response) {
            EXPECT_NE(json::parse(r.response->body).value("message", "").find(names), std::string::npos)
                << r.response->body;
        }
    };
    refusedNaming({auth, {"X-Request-Id", ""}}, body, "X-Request-Id");
    refusedNaming({auth, {"X-Region", ""}}, body, "X-Region");
    refusedNaming({{"Authorization", ""}}, body, "Authorization");
    refusedNaming({{"Authorization", "Bearer " + key + " extra"}}, body, "Authorization");
    refusedNaming({{"Authorization", "Bearer  " + key + " " + key}}, body, "Authorization");
    refusedNaming({auth, {"X-Region", "mars"}}, body, "X-Region must be EU, US or APAC (in any case)");
    for (const std::string language : {"e n", "", "en_US", "-en", "en-", "en--gb", "toolongtag", "en-toolongtag",
                                       "7z"}) {
        SCOPED_TRACE(language);
        refusedNaming({auth}, json{{"query", "museum"}, {"language", language}}.dump(), "$.language");
    }
    // What is taken: a region in any case, a key with spaces around it, tags as BCP 47 writes them.
    const TestResult apac = send({auth, {"X-Region", "apac"}}, body);
    ASSERT_EQ(apac.ending, Ending::Response) << apac.error;
    ASSERT_EQ(apac.response->status, 200) << apac.response->body;
    EXPECT_EQ(json::parse(apac.response->body).at("region"), "APAC");
    EXPECT_EQ(send({{"Authorization", "Bearer   " + key + "  "}}, body).response->status, 200);
    for (const std::string language : {"en", "de", "pt-BR", "zh-Hant-TW", "sr-Latn", "es-419", "x-klingon"}) {
        SCOPED_TRACE(language);
        const TestResult r = send({auth}, json{{"query", "museum"}, {"language", language}}.dump());
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 200) << r.response->body;
    }
}

// The upstreams: one StallServer for every engine, switched between good pages and bad answers.
// A query answered once is in the gateway's cache, so a good client can still be served while
// every engine misbehaves.
class GatewayBadUpstreamTest : public GatewayBadInputTest {
protected:
    void SetUp() override {
        upstream.setDelay(2ms);
        upstream.setBody(R"({"page": "results", "results": [{"title": "Tides", "url": "https://tides.example/brest",
            "snippet": "High and low water", "score": 0.9}]})");
        start(badInputScenario(R"("hedge_mode": "off")"), {}, &upstream);
        TestConnection warm(gateway->bound());
        expectServed(warm, kCached);
    }
    // A search that the bad upstream must turn into a 503 with Retry-After and a JSON body, while
    // a good client on another connection is answered from the cache.
    void expectCleanFailure(const std::string& query) {
        auto bad = std::async(std::launch::async, [&] {
            TestConnection c(gateway->bound());
            return search(c, query);
        });
        TestConnection good(gateway->bound());
        expectServed(good, kCached);
        const TestResult r = bad.get();
        expectErrorReply(r, 503);
        if (r.response) {
            EXPECT_TRUE(r.response->header("Retry-After"));
        }
    }

    static constexpr const char* kCached = "tide tables brest";
    StallServer upstream;
};

TEST_F(GatewayBadUpstreamTest, NotHttp) {
    upstream.setMode(StallServer::Mode::Garbage);
    expectCleanFailure("garbage please");
}

TEST_F(GatewayBadUpstreamTest, ATruncatedAnswer) {
    upstream.setMode(StallServer::Mode::Truncated);
    expectCleanFailure("truncated please");
}

TEST_F(GatewayBadUpstreamTest, AConnectionClosedWithoutAnAnswer) {
    upstream.setMode(StallServer::Mode::HangUp);
    expectCleanFailure("hang up please");
}

// A head that declares 93 GiB, with the body's first bytes right behind it: a bad answer, not
// an allocation (it used to end serve with std::bad_alloc).
TEST_F(GatewayBadUpstreamTest, AnAnswerDeclaringAHugeBody) {
    upstream.setMode(StallServer::Mode::Oversized);
    expectCleanFailure("oversized please");
}

TEST_F(GatewayBadUpstreamTest, A200ThatIsNotJson) {
    upstream.setBody("<html><body>Service Unavailable</body></html>");
    expectCleanFailure("html please");
}

TEST_F(GatewayBadUpstreamTest, JsonOfTheWrongShape) {
    for (const char* body : {R"({"results": "none"})", R"([1, 2, 3])", R"({"page": "results", "results": [{"title": 7}]})",
                             R"({"page": "results", "results": []})", R"({"page": "teapot", "results": []})"}) {
        SCOPED_TRACE(body);
        upstream.setBody(body);
        // No quotes in the query: a quoted phrase allows an empty page, rightly answered 200.
        expectCleanFailure("wrong shape " + std::to_string(std::hash<std::string>{}(body)));
    }
}

TEST_F(GatewayBadUpstreamTest, AnUpstreamThatHangs) {
    upstream.stallFor(60s);  // every answer held for a minute: the gateway's deadline ends it first
    expectCleanFailure("hang please");
}

// Seed 000's v3 bug over real HTTP: with timeout_reply set to it, a search whose engines never
// answer in time gets a 200 with an empty result list and no Retry-After, what July's clients
// saw, while the gateway's own figures still count it failed.
TEST_F(GatewayBadInputTest, WithTheV3BugATimeoutIsAnEmpty200OnTheWire) {
    StallServer upstream;
    upstream.stallFor(60s);
    start(badInputScenario(
              R"j("hedge_mode": "off", "timeout_reply": "200 with empty results (v3 bug)")j"),
          {}, &upstream);
    TestConnection c(gateway->bound());
    const TestResult r = search(c, "tide tables brest");
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_EQ(r.response->status, 200) << r.response->body;
    const json body = json::parse(r.response->body);
    EXPECT_TRUE(body.at("results").empty());
    EXPECT_GT(body.at("latency_ms").get<double>(), 500);  // answered at the 600 ms deadline
    EXPECT_FALSE(r.response->header("Retry-After"));
    EXPECT_FALSE(body.contains("error"));
}

}  // namespace
}  // namespace taillab::live
