#include "live/search_api.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "live/ascii.h"
#include "live/json_text.h"
#include "scenario/json_locate.h"

namespace taillab::live {
namespace {

// Seconds, rounded up: a client that waits this long is never early.
std::string wholeSeconds(Duration d) {
    const std::int64_t ns = std::max<std::int64_t>(0, d.count());
    return std::to_string((ns + 999'999'999) / 1'000'000'000);
}

// The results array, [{"title":...,"url":...,"snippet":...,"score":...},...]: every item's
// room (its bound) reserved once in a scratch buffer and written through a cursor, then appended
// in one piece. The bytes are those a JsonObjectWriter per item writes, at a fraction of the
// appends (this is on every answer's way back to the client).
void appendResults(std::string& out, int count, const gateway::RankedResults* results) {
    static constexpr std::string_view kTitle = "{\"title\":", kUrl = ",\"url\":",
                                      kSnippet = ",\"snippet\":", kScore = ",\"score\":";
    std::size_t bound = 2;
    for (int i = 0; i < count; ++i) {
        const gateway::ResultRef& item = (*results)[static_cast<std::size_t>(i)];
        bound += kTitle.size() + kUrl.size() + kSnippet.size() + kScore.size() + 2 +
                 jsonStringBound(item.title.size()) + jsonStringBound(item.url.size()) +
                 jsonStringBound(item.snippet.size()) + kJsonNumberBound;
    }
    thread_local std::string scratch;  // grows to the largest answer, then stays
    if (scratch.size() < bound) scratch.resize(std::max(bound, 2 * scratch.size()));
    char* const start = scratch.data();
    char* p = start;
    const auto put = [&p](std::string_view s) {
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    };
    *p++ = '[';
    for (int i = 0; i < count; ++i) {
        const gateway::ResultRef& item = (*results)[static_cast<std::size_t>(i)];
        if (i > 0) *p++ = ',';
        put(kTitle);
        p = putJsonString(p, item.title);
        put(kUrl);
        p = putJsonString(p, item.url);
        put(kSnippet);
        p = putJsonString(p, item.snippet);
        put(kScore);
        p = putJsonNumber(p, item.score);
        *p++ = '}';
    }
    *p++ = ']';
    out.append(start, p);
}

// How deep a search's body needs to go, for a body nested too deep (findJsonTextProblem).
constexpr std::string_view kSearchDepth = "a search needs one";

HttpReply badRequest(std::string message, Duration latency) {
    return errorReply(400, "bad_request", message, latency);
}

// A search's body, {"query": ..., "language": ..., "max_results": ...}, read as events into a
// SearchRequest. The first problem in the body's order is kept (and reported once the whole body
// has been read as JSON: a syntax error anywhere wins).
class SearchBodyReader final : public JsonEvents {
public:
    explicit SearchBodyReader(SearchRequest& out) : out_(out) {}
    std::string problem;
    bool sawQuery = false;
    bool duplicate = false;  // a field given twice is the first problem (readSearch says where)

    void null() override { wrong(); }
    void boolean(bool) override { wrong(); }
    void number(double, std::string_view literal) override {
        if (depth_ != 1 || field_ != Field::MaxResults) return wrong();
        // An integer literal within +-1,000,000; the gateway itself says what range it takes.
        std::int64_t v = 0;
        const bool integer = literal.find_first_of(".eE") == std::string_view::npos;
        const auto r = std::from_chars(literal.data(), literal.data() + literal.size(), v);
        if (!integer || r.ec != std::errc{} || v < -1'000'000 || v > 1'000'000)
            return fail("$.max_results " + gateway::maxResultsRangeText());
        out_.max_results = static_cast<int>(v);
    }
    void string(std::string_view v) override {
        if (depth_ != 1) return wrong();
        switch (field_) {
            case Field::Query:
                // Longer than any real query; bounded so that one client's text cannot make the
                // engines' requests too large for them (which would count against their breakers).
                if (v.size() > kMaxQueryTextBytes)
                    return fail("$.query must be at most " + std::to_string(kMaxQueryTextBytes) + " bytes");
                out_.query = v;
                sawQuery = true;
                return;
            case Field::Language:
                if (!isLanguageTag(v)) return wrong();
                out_.language = v;
                return;
            default: return wrong();
        }
    }
    void key(std::string_view k) override {
        if (depth_ != 1) return;
        if (k == "query") {
            field_ = Field::Query;
        } else if (k == "language") {
            field_ = Field::Language;
        } else if (k == "max_results") {
            field_ = Field::MaxResults;
        } else {
            field_ = Field::Other;
            return fail("$." + std::string(k) + " is not a field of a search (query, language, max_results)");
        }
        // JSON leaves two of one key open; a reader that kept the last would hide the first.
        const auto bit = static_cast<std::uint8_t>(1u << static_cast<unsigned>(field_));
        if ((seen_ & bit) != 0 && problem.empty()) {
            duplicate = true;
            fail("$." + std::string(k) + ": duplicate key");
        }
        seen_ |= bit;
    }
    void startObject() override {
        if (depth_ != 0) wrong();
        ++depth_;
    }
    void startArray() override {
        wrong();
        ++depth_;
    }
    void endObject() override { --depth_; }
    void endArray() override { --depth_; }

private:
    enum class Field : std::uint8_t { Query, Language, MaxResults, Other };
    // A value of the wrong kind where it stands (nothing inside a field's own value counts twice).
    void wrong() {
        if (depth_ == 0) return fail("$: the body must be a JSON object");
        if (depth_ != 1) return;
        switch (field_) {
            case Field::Query: return fail("$.query must be a string");
            case Field::Language:
                return fail("$.language " + std::string(kLanguageTagRule));
            case Field::MaxResults: return fail("$.max_results " + gateway::maxResultsRangeText());
            case Field::Other: return;  // already said
        }
    }
    void fail(std::string message) {
        if (problem.empty()) problem = std::move(message);
    }

    SearchRequest& out_;
    int depth_ = 0;
    Field field_ = Field::Other;
    std::uint8_t seen_ = 0;  // the fields read, a bit each
};

}  // namespace

bool isLanguageTag(std::string_view tag) {
    if (tag.empty() || tag.size() > 35) return false;
    std::size_t subtag = 0;  // the length of the one being read
    bool first = true;
    for (const char c : tag) {
        if (c == '-') {
            if (subtag == 0) return false;
            subtag = 0;
            first = false;
            continue;
        }
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool digit = c >= '0' && c <= '9';
        if (!letter && !(digit && !first)) return false;
        if (++subtag > 8) return false;
    }
    return subtag > 0;
}

double latencyMs(Duration d) { return std::round(toMs(d) * 1000.0) / 1000.0; }

std::optional<HttpReply> refuseNonJson(std::string_view content_type, Duration latency) {
    if (content_type.empty()) return std::nullopt;
    const std::string_view type = trimSpaces(content_type.substr(0, content_type.find(';')));
    if (equalsIgnoringCase(type, "application/json")) return std::nullopt;
    return errorReply(415, "unsupported_media_type", "the body must be application/json, not " + std::string(type),
                      latency);
}

std::optional<std::string_view> HttpReply::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (equalsIgnoringCase(k, name)) return std::string_view(v);
    return std::nullopt;
}

gateway::Request SearchRequest::view(std::uint64_t trace, Time accepted) const {
    gateway::Request r;
    r.trace = trace;
    r.api_key = api_key;
    r.endpoint = endpoint;
    r.query = query;
    r.lang = language;
    r.max_results = max_results;
    r.region_pin = region_pin;
    r.accepted = accepted;
    return r;
}

std::variant<SearchRequest, HttpReply> readSearch(const HttpRequestParts& in, Duration latency) {
    SearchRequest out;
    const std::string_view path = in.target.substr(0, in.target.find('?'));
    if (path == "/search/lite") {
        out.endpoint = gateway::Endpoint::Lite;
    } else if (path == "/search/fast") {
        out.endpoint = gateway::Endpoint::Fast;
    } else {
        return errorReply(404, "not_found",
                          "no such endpoint: " + std::string(path) + " (POST /search/lite or /search/fast)",
                          latency);
    }
    if (in.method != "POST") {
        HttpReply r = errorReply(405, "method_not_allowed",
                                 std::string(path) + " takes POST, not " + std::string(in.method), latency);
        r.headers.emplace_back("Allow", "POST");
        return r;
    }
    if (!in.repeated_header.empty())
        return badRequest(std::string(in.repeated_header) + " is sent more than once: it takes one value",
                          latency);
    if (path.size() != in.target.size())
        return badRequest("query parameters are not read: send query, language and max_results in "
                          "the JSON body",
                          latency);
    if (auto refused = refuseNonJson(in.content_type, latency)) return std::move(*refused);
    // Authorization: Bearer KEY, the key one token (RFC 6750's b64token has no space). A missing
    // or unknown key is the gateway's 401; a header that is not that form at all, empty
    // included, is a 400 (the header is wrong, not the key).
    if (in.authorization) {
        const std::string_view a = trimSpaces(*in.authorization);
        const std::size_t space = a.find_first_of(" \t");
        const std::string_view key = space == std::string_view::npos ? "" : trimSpaces(a.substr(space + 1));
        if (key.empty() || key.find_first_of(" \t") != std::string_view::npos ||
            !equalsIgnoringCase(a.substr(0, space), "bearer"))
            return badRequest("Authorization must be 'Bearer <API key>'", latency);
        out.api_key = std::string(key);
    }
    if (in.region) {
        const std::string_view want = trimSpaces(*in.region);
        for (int g = 0; g < gateway::kRegions; ++g)
            if (equalsIgnoringCase(want, gateway::kRegionNames[static_cast<std::size_t>(g)]))
                out.region_pin = static_cast<gateway::Region>(g);
        if (!out.region_pin)
            return badRequest("X-Region must be EU, US or APAC (in any case), not '" + std::string(want) + "'",
                              latency);
    }
    if (in.request_id) {
        const std::string_view id = trimSpaces(*in.request_id);
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
        if (id.empty() || ec != std::errc{} || end != id.data() + id.size())
            return badRequest("X-Request-Id must be a decimal number below 2^64, not '" + std::string(id) + "'",
                              latency);
        out.request_id = v;
    }
    SearchBodyReader body(out);
    if (const std::optional<std::size_t> at = readJson(in.body, body)) {
        // JSON's grammar takes what this reader refuses (a number beyond the largest double, a
        // lone surrogate escape): such a value is said by its path, as the admin requests say it,
        // not as a syntax error at a column.
        if (const auto value = findJsonTextProblem(in.body, kSearchDepth); value && value->offset < *at)
            return badRequest(value->path + ": " + value->message, latency);
        return badRequest(notJsonMessage(in.body, *at), latency);
    }
    // A duplicate is said as the admin requests say it, with where the first one stands.
    if (body.duplicate)
        if (const auto dup = findJsonTextProblem(in.body, kSearchDepth))
            return badRequest(dup->path + ": " + dup->message, latency);
    if (!body.problem.empty()) return badRequest(std::move(body.problem), latency);
    if (!body.sawQuery) return badRequest("$.query is missing", latency);
    return out;
}

HttpReply errorReply(int status, std::string_view error, std::string_view message, Duration latency,
                     std::optional<Duration> retry_after) {
    HttpReply r;
    r.status = status;
    if (retry_after) r.headers.emplace_back("Retry-After", wholeSeconds(*retry_after));
    // A message may quote what the client sent, which need not be UTF-8: replaced, never thrown.
    JsonObjectWriter(r.body)
        .field("error", error)
        .field("message", message)
        .field("latency_ms", latencyMs(latency))
        .close();
    return r;
}

HttpReply writeResponse(const gateway::Response& response) {
    HttpReply r;
    if (response.status == 200) {
        r.status = 200;
        std::string& body = r.body;
        body.reserve(256 + 256 * static_cast<std::size_t>(std::max(0, response.result_count)));
        JsonObjectWriter out(body);
        appendResults(out.raw("results"), response.results ? response.result_count : 0, response.results);
        const char* cache = response.cache_hit ? (response.stale ? "stale" : "hit") : "miss";
        out.field("latency_ms", latencyMs(response.latency))
            .field("region", gateway::kRegionNames[static_cast<std::size_t>(response.region)])
            .field("class", gateway::kClassNames[static_cast<std::size_t>(response.query_class)])
            .field("cache", cache)
            .field("coalesced", response.coalesced)
            .close();
    } else {
        r = errorReply(response.status, response.error, response.message, response.latency,
                       response.retry_after);
    }
    if (response.status != 200 && response.retry_after && !r.header("Retry-After"))
        r.headers.emplace_back("Retry-After", wholeSeconds(*response.retry_after));
    // RFC 9110 11.6.1: a 401 names the scheme that would be accepted (RFC 6750).
    if (response.status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
    if (response.rate_limit) {
        r.headers.reserve(r.headers.size() + 3);
        r.headers.emplace_back("X-RateLimit-Limit", std::to_string(response.rate_limit->limit));
        r.headers.emplace_back("X-RateLimit-Remaining", std::to_string(response.rate_limit->remaining));
        r.headers.emplace_back("X-RateLimit-Reset", wholeSeconds(response.rate_limit->reset));
    }
    return r;
}

}  // namespace taillab::live
