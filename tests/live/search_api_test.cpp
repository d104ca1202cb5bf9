#include "live/search_api.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/rng.h"
#include "live/json_text.h"

namespace taillab::live {
namespace {

using nlohmann::json;

HttpRequestParts post(std::string_view body, std::string_view target = "/search/lite") {
    HttpRequestParts p;
    p.method = "POST";
    p.target = target;
    p.authorization = "Bearer key-a";
    p.content_type = "application/json";
    p.body = body;
    return p;
}

// The error reply's status and message, or {0, ""} when the request was read.
std::pair<int, std::string> problem(const HttpRequestParts& p) {
    auto out = readSearch(p, fromMs(0.25));
    if (std::holds_alternative<SearchRequest>(out)) return {0, ""};
    const HttpReply& r = std::get<HttpReply>(out);
    const json body = json::parse(r.body);
    EXPECT_EQ(body["latency_ms"], 0.25);
    return {r.status, body["message"].get<std::string>()};
}

TEST(SearchApi, ReadsAWellFormedSearch) {
    HttpRequestParts p = post(R"({"query": "penguins", "language": "de", "max_results": 7})", "/search/fast");
    p.region = "apac";
    p.request_id = "42";
    auto out = readSearch(p, {});
    ASSERT_TRUE(std::holds_alternative<SearchRequest>(out));
    const SearchRequest& s = std::get<SearchRequest>(out);
    EXPECT_EQ(s.endpoint, gateway::Endpoint::Fast);
    EXPECT_EQ(s.api_key, "key-a");
    EXPECT_EQ(s.query, "penguins");
    EXPECT_EQ(s.language, "de");
    EXPECT_EQ(s.max_results, 7);
    EXPECT_EQ(s.region_pin, gateway::Region::APAC);
    EXPECT_EQ(s.request_id, 42u);
    const gateway::Request r = s.view(42, fromMs(3));
    EXPECT_EQ(r.query, "penguins");
    EXPECT_EQ(r.accepted, fromMs(3));
    // Defaults; a missing key is left to the gateway (its 401 is counted like any answer).
    HttpRequestParts bare = post(R"({"query": "x"})");
    bare.authorization.reset();
    bare.content_type = "";
    auto d = readSearch(bare, {});
    ASSERT_TRUE(std::holds_alternative<SearchRequest>(d));
    EXPECT_EQ(std::get<SearchRequest>(d).language, "en");
    EXPECT_EQ(std::get<SearchRequest>(d).max_results, 10);
    EXPECT_EQ(std::get<SearchRequest>(d).api_key, "");
    // Escapes are read; -0 is an integer (the gateway judges its range).
    auto e = readSearch(post(R"({"query": "caf\u00e9 \"x\"", "max_results": -0})"), {});
    ASSERT_TRUE(std::holds_alternative<SearchRequest>(e));
    EXPECT_EQ(std::get<SearchRequest>(e).query, "caf\xc3\xa9 \"x\"");
    EXPECT_EQ(std::get<SearchRequest>(e).max_results, 0);
}

TEST(SearchApi, EachProblemGetsItsStatusAndSaysWhere) {
    EXPECT_EQ(problem(post("{}", "/search/slow")).first, 404);
    HttpRequestParts get = post("{}");
    get.method = "GET";
    EXPECT_EQ(problem(get), (std::pair<int, std::string>{405, "/search/lite takes POST, not GET"}));
    HttpRequestParts form = post("query=x");
    form.content_type = "application/x-www-form-urlencoded";
    EXPECT_EQ(problem(form).first, 415);
    EXPECT_EQ(problem(post(R"({"query": "x"})", "/search/lite?q=x")).first, 400);
    HttpRequestParts basic = post(R"({"query": "x"})");
    basic.authorization = "Basic a2V5";
    EXPECT_EQ(problem(basic).second, "Authorization must be 'Bearer <API key>'");
    HttpRequestParts region = post(R"({"query": "x"})");
    region.region = "Mars";
    EXPECT_EQ(problem(region).second, "X-Region must be EU, US or APAC (in any case), not 'Mars'");
    // Sent empty is not absent: each header is then as wrong as its message says.
    for (std::optional<std::string_view> HttpRequestParts::*header :
         {&HttpRequestParts::authorization, &HttpRequestParts::region, &HttpRequestParts::request_id}) {
        HttpRequestParts empty = post(R"({"query": "x"})");
        empty.*header = "";
        EXPECT_EQ(problem(empty).first, 400);
    }
    // A key is one token: more after it is a malformed header, not an unknown key.
    HttpRequestParts extra = post(R"({"query": "x"})");
    extra.authorization = "Bearer key-a extra";
    EXPECT_EQ(problem(extra).second, "Authorization must be 'Bearer <API key>'");
    extra.authorization = " bearer\tkey-a ";
    EXPECT_EQ(problem(extra).first, 0);
    HttpRequestParts twice = post(R"({"query": "x"})");
    twice.repeated_header = "X-Region";
    EXPECT_EQ(problem(twice), (std::pair<int, std::string>{400, "X-Region is sent more than once: it takes one value"}));
    HttpRequestParts id = post(R"({"query": "x"})");
    id.request_id = "12a";
    EXPECT_EQ(problem(id).first, 400);
    const auto notJson = problem(post(R"({"query": "x",})"));
    EXPECT_EQ(notJson.first, 400);
    EXPECT_EQ(notJson.second.rfind("the body is not valid JSON at line 1, column 15: ", 0), 0u)
        << notJson.second;
    EXPECT_EQ(problem(post("{\n  \"query\": \"x\"\n  \"language\": \"en\"}")).second,
              "the body is not valid JSON at line 3, column 3: unexpected '\"'");
    EXPECT_EQ(problem(post(R"({"query": "x")")).second, "the body is not valid JSON at line 1, column 14: it ends early");
    EXPECT_EQ(problem(post("")).second, "the body is not valid JSON at line 1, column 1: it ends early");
    // A syntax error anywhere wins over a wrong field before it.
    EXPECT_EQ(problem(post(R"({"query": 3, "language": })")).second.rfind("the body is not valid JSON", 0), 0u);
    EXPECT_EQ(problem(post("[1]")).second, "$: the body must be a JSON object");
    EXPECT_EQ(problem(post(R"("x")")).second, "$: the body must be a JSON object");
    EXPECT_EQ(problem(post(R"({"query": {"text": "x"}})")).second, "$.query must be a string");
    EXPECT_EQ(problem(post(R"({"query": "x", "language": "a-very-long-language-tag-beyond-35-chars"})")).first, 400);
    EXPECT_EQ(problem(post(R"({"query": "x", "max_results": 1e1})")).second,
              "$.max_results must be an integer from 1 to 50");
    EXPECT_EQ(problem(post(R"({"query": "x", "max_results": 99999999999999999999})")).second,
              "$.max_results must be an integer from 1 to 50");
    // The first problem in the body's order.
    EXPECT_EQ(problem(post(R"({"query": [], "max_results": "ten"})")).second, "$.query must be a string");
    EXPECT_EQ(problem(post(R"({"query": 3})")).second, "$.query must be a string");
    EXPECT_EQ(problem(post(R"({"language": "en"})")).second, "$.query is missing");
    EXPECT_EQ(problem(post(R"({"query": "x", "max_results": 2.5})")).second,
              "$.max_results must be an integer from 1 to 50");
    EXPECT_EQ(problem(post(R"({"query": "x", "maxResults": 5})")).second,
              "$.maxResults is not a field of a search (query, language, max_results)");
    EXPECT_EQ(problem(post(R"({"query": "x", "language": ""})")).first, 400);
    EXPECT_EQ(problem(post(R"({"query": "x", "language": "e n"})")).second,
              "$.language " + std::string(kLanguageTagRule));
    // A field given twice: its key and where the first one is, not the last value kept silently.
    EXPECT_EQ(problem(post(R"({"query":"zz","max_results":99,"max_results":5})")),
              (std::pair<int, std::string>{400, "$.max_results: duplicate key \"max_results\" (first at line 1, "
                                                "column 15): a key may appear once in an object"}));
    EXPECT_EQ(problem(post(R"({"query": "a", "query": "b"})")).second.rfind("$.query: duplicate key", 0), 0u);
    EXPECT_EQ(problem(post(R"({"query": 3, "query": "b"})")).second, "$.query must be a string");
    // Out of range but an integer: the gateway's own 400, through its accounting.
    EXPECT_EQ(problem(post(R"({"query": "x", "max_results": 80})")).first, 0);
}

TEST(SearchApi, ALanguageIsATagAsBcp47WritesOne) {
    for (const char* tag : {"en", "EN", "de", "pt-BR", "zh-Hant-TW", "sr-Latn-RS", "es-419", "x-klingon", "i-ami",
                            "abcdefgh-12345678"})
        EXPECT_TRUE(isLanguageTag(tag)) << tag;
    for (const char* tag : {"", "e n", "en_US", "-en", "en-", "en--gb", "abcdefghi", "en-123456789", "7z", "en-ü",
                            "en\n", "aaaaaaaa-bbbbbbbb-cccccccc-dddddddd-e"})
        EXPECT_FALSE(isLanguageTag(tag)) << tag;
}

TEST(SearchApi, ErrorBodiesAreJsonEvenForBytesThatAreNotUtf8) {
    HttpRequestParts region = post(R"({"query": "x"})");
    region.region = "\xff\xfe";
    auto out = readSearch(region, {});
    ASSERT_TRUE(std::holds_alternative<HttpReply>(out));
    EXPECT_TRUE(json::accept(std::get<HttpReply>(out).body));
}

TEST(SearchApi, AnswersCarryResultsLatencyAndTheirHeaders) {
    std::vector<gateway::ResultItem> items;
    for (int i = 0; i < 4; ++i)
        items.push_back({std::string("t").append(std::to_string(i)),
                         std::string("https://e.org/").append(std::to_string(i)), "s", 1.0 - i * 0.1});
    const gateway::RankedResults ranked = gateway::RankedResults::copyOf(std::move(items));
    gateway::Response ok;
    ok.status = 200;
    ok.results = &ranked;
    ok.result_count = 3;
    ok.latency = fromMs(12.3456);
    ok.cache_hit = true;
    ok.stale = true;
    ok.query_class = gateway::QueryClass::News;
    ok.region = gateway::Region::US;
    ok.rate_limit = gateway::RateLimitFields{100, 37, fromMs(1500)};
    const HttpReply r = writeResponse(ok);
    EXPECT_EQ(r.status, 200);
    const json body = json::parse(r.body);
    ASSERT_EQ(body["results"].size(), 3u);
    EXPECT_EQ(body["results"][2]["url"], "https://e.org/2");
    EXPECT_EQ(body["latency_ms"], 12.346);
    EXPECT_EQ(body["cache"], "stale");
    EXPECT_EQ(body["class"], "news_live");
    EXPECT_EQ(body["region"], "US");
    EXPECT_EQ(r.header("X-RateLimit-Limit"), "100");
    EXPECT_EQ(r.header("x-ratelimit-remaining"), "37");
    EXPECT_EQ(r.header("X-RateLimit-Reset"), "2");  // rounded up: never early
    EXPECT_FALSE(r.header("Retry-After"));

    gateway::Response late;
    late.status = 503;
    late.outcome = gateway::Outcome::DeadlineMissed;
    late.error = "deadline_missed";
    late.message = "the deadline passed";
    late.retry_after = std::chrono::seconds(1);
    late.latency = fromMs(700);
    const HttpReply l = writeResponse(late);
    EXPECT_EQ(l.status, 503);
    EXPECT_EQ(l.header("Retry-After"), "1");
    EXPECT_FALSE(l.header("X-RateLimit-Limit"));  // no key known
    const json lb = json::parse(l.body);
    EXPECT_EQ(lb["error"], "deadline_missed");
    EXPECT_EQ(lb["latency_ms"], 700);
    EXPECT_FALSE(lb.contains("results"));  // never an empty 200
}

// The results array is written through a cursor into room reserved once; its bytes must be those
// of one JsonObjectWriter per item, whatever the items hold: escapes, bytes that are not UTF-8,
// empty strings, scores that are long, negative, huge or not finite.
TEST(SearchApi, ResultsAreWrittenAsAWriterPerItemWritesThem) {
    Rng rng(21);
    const auto text = [&rng](std::size_t most) {
        std::string s(rng.below(most + 1), '\0');
        for (char& c : s) c = static_cast<char>(rng.below(4) == 0 ? rng.below(256) : 'a' + rng.below(26));
        return s;
    };
    const double scores[] = {0.93, 0.1 + 0.2, -1.5, 1e300, 5e-324, std::nan(""), HUGE_VAL, 0.0};
    for (int round = 0; round < 300; ++round) {
        std::vector<gateway::ResultItem> items;
        const int n = static_cast<int>(rng.below(12));
        for (int i = 0; i < n; ++i)
            items.push_back({text(40), text(80), text(300), scores[rng.below(std::size(scores))]});
        std::string expected = "{\"results\":[";
        for (int i = 0; i < n; ++i) {
            if (i > 0) expected += ',';
            JsonObjectWriter(expected)
                .field("title", items[static_cast<std::size_t>(i)].title)
                .field("url", items[static_cast<std::size_t>(i)].url)
                .field("snippet", items[static_cast<std::size_t>(i)].snippet)
                .field("score", items[static_cast<std::size_t>(i)].score)
                .close();
        }
        expected += ']';
        const gateway::RankedResults ranked = gateway::RankedResults::copyOf(std::move(items));
        gateway::Response ok;
        ok.status = 200;
        ok.results = &ranked;
        ok.result_count = n;
        const HttpReply r = writeResponse(ok);
        ASSERT_EQ(r.body.substr(0, expected.size()), expected) << "round " << round;
        json parsed;
        EXPECT_NO_THROW(parsed = json::parse(r.body));
    }
}

}  // namespace
}  // namespace taillab::live
