#include "live/upstream_wire.h"

#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "live/http_wire.h"

#include "gateway/validation.h"

namespace taillab::live {
namespace {

using gateway::CallFailure;

// The upstream call's request as HttpClient's general writer takes it: POST `target` with the
// X-TailLab-* fields (values in PROTOCOL.md's order), Content-Type and `body`.
HttpRequest generalRequest(std::string target, std::vector<std::string> values, std::string body) {
    static const char* const kNames[] = {"X-TailLab-Trace",  "X-TailLab-Role",
                                         "X-TailLab-Region", "X-TailLab-Egress",
                                         "X-TailLab-Class",  "X-TailLab-Cache-Key"};
    HttpRequest r;
    r.method = "POST";
    r.target = std::move(target);
    for (std::size_t i = 0; i < values.size(); ++i)
        r.headers.emplace_back(kNames[i], std::move(values[i]));
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = std::move(body);
    return r;
}

TEST(UpstreamWire, ACallBecomesABodyAndTheTwinHeaders) {
    gateway::UpstreamCall call;
    call.trace = 99;
    call.role = gateway::CallRole::Hedge;
    call.region = gateway::Region::APAC;
    call.egress_ip = 3;
    call.query_class = gateway::QueryClass::News;
    call.query = "election results";
    call.lang = "fr";
    call.fetch_count = 20;
    call.cache_key = 0xabc;
    const UpstreamRequest r = upstreamRequest(call);
    const auto body = nlohmann::json::parse(r.body);
    EXPECT_EQ(body["query"], "election results");
    EXPECT_EQ(body["language"], "fr");
    EXPECT_EQ(body["max_results"], 20);

    // On the wire: the message HttpClient's own writer (and Beast's, which it is held to) makes
    // of the same method, target, fields and body, byte for byte.
    std::string wire;
    writeUpstreamRequest(wire, r, "/engines/atlas/search?x=1", "127.0.0.1:8081");
    const HttpRequest general =
        generalRequest("/engines/atlas/search?x=1",
                       {"99", "hedge", "APAC", "3", "news_live", "0000000000000abc"}, r.body);
    std::string plain, beast;
    EXPECT_TRUE(writeRequestBytes(plain, general, "127.0.0.1:8081"));
    EXPECT_TRUE(beastRequestBytes(beast, general, "127.0.0.1:8081"));
    EXPECT_EQ(wire, plain);
    EXPECT_EQ(wire, beast);
}

// Every field at its longest: the writer's room up front must hold them (a 64-bit trace and
// cache key, a negative egress index, the longest names), and a long target and host.
TEST(UpstreamWire, TheLongestValuesFitTheRequestWriter) {
    UpstreamRequest r;
    r.trace = ~std::uint64_t{0};
    r.cache_key = ~std::uint64_t{0};
    r.egress_ip = std::numeric_limits<int>::min();
    r.role = gateway::CallRole::LastChance;
    r.query_class = gateway::QueryClass::Evergreen;
    r.body = std::string(5000, 'b');
    const std::string target = "/" + std::string(3000, 't'), host = std::string(300, 'h') + ":65535";
    std::string wire;
    writeUpstreamRequest(wire, r, target, host);
    const HttpRequest general =
        generalRequest(target,
                       {"18446744073709551615", "last_chance", "EU", "-2147483648",
                        "evergreen_reference", "ffffffffffffffff"},
                       r.body);
    std::string plain;
    EXPECT_TRUE(writeRequestBytes(plain, general, host));
    EXPECT_EQ(wire, plain);
}

// A page's items outlive the bytes they were read from (the body keeps its own copy of their
// text), escaped or not.
TEST(UpstreamWire, APagesItemsOutliveTheBytesTheyWereReadFrom) {
    auto bytes = std::make_unique<std::string>(
        R"({"results": [{"title": "Caf\u00e9 \"Noir\"", "url": "https://a.org/x", "snippet": "plain", "score": 1},)"
        R"( {"title": "Two", "url": "https://b.org/", "snippet": "tab\there", "score": 0.5}]})");
    const UpstreamReply r = readUpstreamReply(200, *bytes);
    std::fill(bytes->begin(), bytes->end(), '#');  // what a reused receive buffer would do
    bytes.reset();
    ASSERT_EQ(r.failure, CallFailure::None) << r.problem;
    const auto items = r.page->items();
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0].title, "Caf\xc3\xa9 \"Noir\"");
    EXPECT_EQ(items[0].url, "https://a.org/x");
    EXPECT_EQ(items[0].snippet, "plain");
    EXPECT_EQ(items[1].title, "Two");
    EXPECT_EQ(items[1].snippet, "tab\there");
    EXPECT_EQ(items[1].score, 0.5);
    // The same list written down by hand is the same page.
    const gateway::ResultBody same(std::vector<gateway::ResultItem>{
        {"Caf\xc3\xa9 \"Noir\"", "https://a.org/x", "plain", 1}, {"Two", "https://b.org/", "tab\there", 0.5}});
    EXPECT_EQ(r.page->fingerprint(), same.fingerprint());
    EXPECT_EQ(r.page->ranked()->size(), 2u);
    // The body trusts the reader's UTF-8 check (it does not test the text again), so a field that
    // is not UTF-8 must never make a page at all.
    const UpstreamReply latin1 = readUpstreamReply(200, "{\"results\": [{\"title\": \"caf\xe9\"}]}");
    EXPECT_EQ(latin1.failure, CallFailure::BadPayload);
    EXPECT_EQ(latin1.problem, "not JSON at byte 28");  // the \xe9
}

// A page without escapes is kept as it arrived, its items viewing its bytes: they stay right
// once the string it came in is gone, and judge as a copy of the same list does.
TEST(UpstreamWire, APageWithoutEscapesKeepsItsOwnBytes) {
    auto bytes = std::make_unique<std::string>(
        R"({"page": "results", "results": [{"title": "One", "url": "https://a.org/x", "snippet": "s", "score": 1},)"
        R"( {"title": "Two", "url": "http://b.org/", "snippet": "", "score": 0.5}, {"url": "ftp://c"}]})");
    const UpstreamReply r = readUpstreamReply(200, std::move(*bytes));
    bytes.reset();
    ASSERT_EQ(r.failure, CallFailure::None) << r.problem;
    const auto items = r.page->items();
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[0].title, "One");
    EXPECT_EQ(items[0].url, "https://a.org/x");
    EXPECT_EQ(items[1].url, "http://b.org/");
    EXPECT_EQ(items[1].snippet, "");
    EXPECT_EQ(items[2].title, "");
    const gateway::ResultBody same(std::vector<gateway::ResultItem>{
        {"One", "https://a.org/x", "s", 1}, {"Two", "http://b.org/", "", 0.5}, {"", "ftp://c", "", 0}});
    EXPECT_EQ(r.page->fingerprint(), same.fingerprint());
    EXPECT_EQ(r.page->malformed(), same.malformed());
    EXPECT_TRUE(r.page->malformed());  // ftp:// is not an http(s) URL
    EXPECT_EQ(r.page->complete(), same.complete());
}

TEST(UpstreamWire, APageIsReadAndJudgedByTheGatewaysValidation) {
    const UpstreamReply ok = readUpstreamReply(
        200, R"({"page": "results", "echo": "00000000000000ff", "results": [
                 {"title": "A", "url": "https://a.org/", "snippet": "a", "score": 0.9},
                 {"title": "B", "url": "https://b.org/", "snippet": "b", "score": 0.5}]})");
    ASSERT_EQ(ok.failure, CallFailure::None) << ok.problem;
    EXPECT_EQ(ok.echo, 0xffu);
    EXPECT_EQ(ok.page->items().size(), 2u);
    EXPECT_EQ(gateway::validateAnswer(ok.answer(), false, std::nullopt), gateway::Validity::Valid);

    const UpstreamReply block = readUpstreamReply(200, R"({"page": "block", "results": []})");
    ASSERT_EQ(block.failure, CallFailure::None);
    EXPECT_EQ(block.page->kind(), gateway::PageKind::BlockPage);
    EXPECT_NE(gateway::validateAnswer(block.answer(), false, std::nullopt), gateway::Validity::Valid);

    const UpstreamReply empty = readUpstreamReply(200, R"({"results": []})");
    EXPECT_NE(gateway::validateAnswer(empty.answer(), false, std::nullopt), gateway::Validity::Valid);
    EXPECT_EQ(gateway::validateAnswer(empty.answer(), true, std::nullopt), gateway::Validity::Valid);

    // An incomplete item is read, then judged.
    const UpstreamReply partial = readUpstreamReply(200, R"({"results": [{"url": "https://a.org/"}]})");
    ASSERT_EQ(partial.failure, CallFailure::None);
    EXPECT_NE(gateway::validateAnswer(partial.answer(), false, std::nullopt), gateway::Validity::Valid);
}

TEST(UpstreamWire, WhatIsNotAPageIsAnHttpErrorOrABadPayloadSayingWhere) {
    EXPECT_EQ(readUpstreamReply(502, "").failure, CallFailure::HttpError);
    EXPECT_EQ(readUpstreamReply(502, "").http_status, 502);
    EXPECT_EQ(readUpstreamReply(200, "<html>").problem, "not JSON at byte 1");
    EXPECT_EQ(readUpstreamReply(200, "[]").problem, "$: not an object");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": 3})").problem, "$.results: missing or not an array");
    EXPECT_EQ(readUpstreamReply(200, R"({"page": "login", "results": []})").problem,
              "$.page: unknown page kind 'login'");
    EXPECT_EQ(readUpstreamReply(200, R"({"echo": "xyz", "results": []})").problem, "$.echo: not up to 16 hex digits");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"title": 1}]})").problem, "$.results[0].title: not a string");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"score": "high"}]})").problem,
              "$.results[0].score: not a number");
    // The whole body is read: a syntax error later in it is what is reported.
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"title": 1}]} x)").problem, "not JSON at byte 29");
    // Of several problems, the first of page, echo, results, then items in order.
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"title": 1}], "page": 7})").problem, "$.page: not a string");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"score": null, "title": []}]})").problem,
              "$.results[0].title: not a string");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{"title": "a"}, 3, {"url": 1}]})").problem,
              "$.results[1]: not an object");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": ["x", {"url": {"deep": [1, {"a": 2}]}}]})").problem,
              "$.results[0]: not an object");
    EXPECT_EQ(readUpstreamReply(200, R"({"results": [{}, {"url": {"deep": [1]}}]})").problem,
              "$.results[1].url: not a string");
    // A repeated key: the last one counts, as in a DOM.
    const UpstreamReply twice = readUpstreamReply(
        200, R"({"results": [{"url": "https://a.org/"}], "results": [{"url": "https://b.org/", "url": "https://c.org/"}]})");
    ASSERT_EQ(twice.failure, CallFailure::None) << twice.problem;
    ASSERT_EQ(twice.page->items().size(), 1u);
    EXPECT_EQ(twice.page->items()[0].url, "https://c.org/");
    // Fields it does not know, at any depth, are skipped.
    const UpstreamReply extra = readUpstreamReply(
        200, R"({"meta": {"results": 3, "page": [1]}, "results": [{"title": "t", "x": {"title": 1}, "score": 2}]})");
    ASSERT_EQ(extra.failure, CallFailure::None) << extra.problem;
    EXPECT_EQ(extra.page->items()[0].title, "t");
    EXPECT_EQ(extra.page->items()[0].score, 2.0);
    // So are keys one byte off the known ones, of the same length (the reader tells keys
    // apart by length first).
    const UpstreamReply near = readUpstreamReply(
        200, R"({"pagf": 1, "echp": 2, "resultz": 3, "results": [{"titlf": 1, "Title": 2, "urk": 3, "scorf": "x", "snippez": [1], "url": "https://a.org/"}]})");
    ASSERT_EQ(near.failure, CallFailure::None) << near.problem;
    ASSERT_EQ(near.page->items().size(), 1u);
    EXPECT_EQ(near.page->items()[0].url, "https://a.org/");
    EXPECT_EQ(near.page->items()[0].title, "");
    EXPECT_EQ(readUpstreamReply(200, "").problem, "not JSON at byte 1");
    EXPECT_EQ(readUpstreamReply(200, R"({"page": "block"})").problem, "$.results: missing or not an array");
    const UpstreamReply bad = readUpstreamReply(200, "{");
    EXPECT_EQ(bad.failure, CallFailure::BadPayload);
    EXPECT_EQ(bad.answer().page, nullptr);
    EXPECT_EQ(upstreamFailure(CallFailure::Reset).answer().failure, CallFailure::Reset);
}

}  // namespace
}  // namespace taillab::live
