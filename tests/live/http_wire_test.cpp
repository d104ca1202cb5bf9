#include "live/http_wire.h"

#include <gtest/gtest.h>

namespace taillab::live {
namespace {

// The plain writer must give Beast's bytes whenever it does not decline.
void expectSameResponse(const HttpReply& reply, bool keepAlive, bool plain) {
    std::string fast, beast;
    beastResponseBytes(beast, reply, keepAlive);
    ASSERT_EQ(plainResponseBytes(fast, reply, keepAlive), plain) << beast;
    if (plain) {
        EXPECT_EQ(fast, beast);
    }
    std::string written;
    writeResponseBytes(written, reply, keepAlive);
    EXPECT_EQ(written, beast);
}

void expectSameRequest(const HttpRequest& request, bool plain, bool keepAlive = true) {
    std::string fast, beast;
    EXPECT_EQ(beastRequestBytes(beast, request, "127.0.0.1:8080"), keepAlive);
    ASSERT_EQ(plainRequestBytes(fast, request, "127.0.0.1:8080"), plain) << beast;
    if (plain) {
        EXPECT_EQ(fast, beast);
    }
    std::string written;
    EXPECT_EQ(writeRequestBytes(written, request, "127.0.0.1:8080"), keepAlive);
    EXPECT_EQ(written, beast);
}

TEST(HttpWire, ResponsesTheGatewaySendsAreWrittenPlainAsBeastWould) {
    const std::string page = R"({"results":[{"url":"https://a.example/"}]})";
    for (const bool keepAlive : {true, false}) {
        expectSameResponse(HttpReply{200, {}, page}, keepAlive, true);
        expectSameResponse(HttpReply{200, {}, ""}, keepAlive, true);
        expectSameResponse(HttpReply{429,
                                     {{"Retry-After", "2"},
                                      {"X-RateLimit-Limit", "100"},
                                      {"X-RateLimit-Remaining", "0"},
                                      {"X-RateLimit-Reset", "2"}},
                                     R"({"error":"rate_limited"})"},
                           keepAlive, true);
        expectSameResponse(HttpReply{405, {{"Allow", "POST"}}, "{}"}, keepAlive, true);
        expectSameResponse(HttpReply{503, {{"Retry-After", "1"}}, "{}"}, keepAlive, true);
        // A reply's own Content-Type, in any case, replaces the default where the reply puts it.
        expectSameResponse(HttpReply{200, {{"X-A", "1"}, {"content-type", "text/plain"}}, "# metrics\n"},
                           keepAlive, true);
        // A code no reason phrase is known for.
        expectSameResponse(HttpReply{299, {}, "{}"}, keepAlive, true);
        expectSameResponse(HttpReply{999, {}, "{}"}, keepAlive, true);
    }
}

TEST(HttpWire, ResponsesBeastWouldRewriteAreLeftToIt) {
    for (const bool keepAlive : {true, false}) {
        // Beast rewrites the fields it manages.
        expectSameResponse(HttpReply{200, {{"Connection", "keep-alive"}}, "{}"}, keepAlive, false);
        expectSameResponse(HttpReply{200, {{"connection", "close"}}, "{}"}, keepAlive, false);
        expectSameResponse(HttpReply{200, {{"Content-Length", "99"}}, "{}"}, keepAlive, false);
        expectSameResponse(HttpReply{200, {{"Transfer-Encoding", "gzip"}}, "{}"}, keepAlive, false);
        // set() keeps the last of a name given twice, moved to the end.
        expectSameResponse(HttpReply{200, {{"X-A", "1"}, {"X-B", "2"}, {"x-a", "3"}}, "{}"}, keepAlive, false);
        // Values are stored trimmed.
        expectSameResponse(HttpReply{200, {{"X-A", " 1"}}, "{}"}, keepAlive, false);
        expectSameResponse(HttpReply{200, {{"X-A", "1\t"}}, "{}"}, keepAlive, false);
        // No body allowed.
        expectSameResponse(HttpReply{204, {}, ""}, keepAlive, false);
        expectSameResponse(HttpReply{304, {}, ""}, keepAlive, false);
    }
}

TEST(HttpWire, RequestsTheGatewayAndTheLoadGeneratorSendAreWrittenPlainAsBeastWould) {
    HttpRequest upstream;
    upstream.method = "POST";
    upstream.target = "/engines/atlas/search";
    upstream.headers = {{"X-TailLab-Trace", "0"},          {"X-TailLab-Role", "primary"},
                        {"X-TailLab-Region", "EU"},        {"X-TailLab-Egress", "0"},
                        {"X-TailLab-Class", "navigational"}, {"X-TailLab-Cache-Key", "bb9d68a389a"},
                        {"Content-Type", "application/json"}};
    upstream.body = R"({"query":"kakakakaka.com","language":"en","max_results":10})";
    expectSameRequest(upstream, true);

    // Content-Length goes with a body, or with POST and PUT whatever the body.
    const auto simple = [](std::string method, std::string target, std::string body) {
        HttpRequest r;
        r.method = std::move(method);
        r.target = std::move(target);
        r.body = std::move(body);
        return r;
    };
    expectSameRequest(simple("GET", "/metrics", ""), true);
    expectSameRequest(simple("POST", "/admin/knobs?x=1", ""), true);
    expectSameRequest(simple("PUT", "/", ""), true);
    expectSameRequest(simple("DELETE", "/", "x"), true);

    // A Host and a User-Agent of the caller's own, in any case.
    HttpRequest own = upstream;
    own.headers.insert(own.headers.begin(), {"host", "engine.example"});
    own.headers.emplace_back("User-Agent", "bench/1");
    expectSameRequest(own, true);
}

TEST(HttpWire, RequestsBeastWouldRewriteAreLeftToIt) {
    HttpRequest r;
    r.method = "POST";
    r.body = "{}";
    r.headers = {{"Connection", "close"}};
    expectSameRequest(r, false, false);
    r.headers = {{"Connection", "keep-alive"}};
    expectSameRequest(r, false, true);
    r.headers = {{"Content-Length", "5"}};
    expectSameRequest(r, false);
    r.headers = {{"Transfer-Encoding", "chunked"}};
    expectSameRequest(r, false);
    r.headers = {{"X-A", "1 "}};
    expectSameRequest(r, false);
    // insert() puts a repeated name next to its first.
    r.headers = {{"X-A", "1"}, {"X-B", "2"}, {"x-a", "3"}};
    expectSameRequest(r, false);
    r.headers.clear();
    r.method = "BREW";  // a method Beast does not know
    expectSameRequest(r, false);
}

// What a message read field by field says of its connection, as Beast's keep_alive() says it: by
// the first Connection field's tokens (any case, in a list), else by the version.
TEST(HttpWire, KeepAliveIsReadAsBeastReadsIt) {
    EXPECT_TRUE(keepAliveOf({}, 11));
    EXPECT_FALSE(keepAliveOf({}, 10));
    EXPECT_FALSE(keepAliveOf({{"Connection", "close"}}, 11));
    EXPECT_FALSE(keepAliveOf({{"connection", "Upgrade, CLOSE"}}, 11));
    EXPECT_TRUE(keepAliveOf({{"Connection", "keep-alive"}}, 11));
    EXPECT_TRUE(keepAliveOf({{"Connection", "Keep-Alive"}}, 10));
    EXPECT_FALSE(keepAliveOf({{"Connection", "upgrade"}}, 10));
    EXPECT_TRUE(keepAliveOf({{"Host", "a"}, {"Connection", "keep-alive"}, {"Connection", "close"}}, 11));
    EXPECT_FALSE(keepAliveOf({{"X-Connection", "keep-alive"}}, 10));
}

}  // namespace
}  // namespace taillab::live
