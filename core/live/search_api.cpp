#include "live/search_api.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "live/ascii.h"
#include "live/json_text.h"

namespace taillab::live {
namespace {

using nlohmann::json;

double latencyMs(Duration d) { return std::round(toMs(d) * 1000.0) / 1000.0; }

// Seconds, rounded up: a client that waits this long is never early.
std::string wholeSeconds(Duration d) {
    const std::int64_t ns = std::max<std::int64_t>(0, d.count());
    return std::to_string((ns + 999'999'999) / 1'000'000'000);
}

HttpReply badRequest(std::string message, Duration latency) {
    return errorReply(400, "bad_request", message, latency);
}

}  // namespace

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
    if (path.size() != in.target.size())
        return badRequest("query parameters are not read: send query, language and max_results in "
                          "the JSON body",
                          latency);
    if (!in.content_type.empty()) {
        const std::string_view type = trimSpaces(in.content_type.substr(0, in.content_type.find(';')));
        if (!equalsIgnoringCase(type, "application/json"))
            return errorReply(415, "unsupported_media_type",
                              "the body must be application/json, not " + std::string(type), latency);
    }
    // Authorization: Bearer KEY. A missing or unknown key is the gateway's 401.
    if (!in.authorization.empty()) {
        const std::string_view a = trimSpaces(in.authorization);
        const std::size_t space = a.find(' ');
        if (space == std::string_view::npos || !equalsIgnoringCase(a.substr(0, space), "bearer"))
            return badRequest("Authorization must be 'Bearer <API key>'", latency);
        out.api_key = std::string(trimSpaces(a.substr(space + 1)));
    }
    if (!in.region.empty()) {
        const std::string_view want = trimSpaces(in.region);
        for (int g = 0; g < gateway::kRegions; ++g)
            if (equalsIgnoringCase(want, gateway::kRegionNames[static_cast<std::size_t>(g)]))
                out.region_pin = static_cast<gateway::Region>(g);
        if (!out.region_pin)
            return badRequest("X-Region must be EU, US or APAC, not '" + std::string(want) + "'", latency);
    }
    if (!in.request_id.empty()) {
        const std::string_view id = trimSpaces(in.request_id);
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
        if (id.empty() || ec != std::errc{} || end != id.data() + id.size())
            return badRequest("X-Request-Id must be a decimal number below 2^64, not '" + std::string(id) + "'",
                              latency);
        out.request_id = v;
    }
    json body;
    try {
        body = json::parse(in.body);
    } catch (const json::parse_error& e) {
        // nlohmann's message names the line and column where parsing stopped; its exception
        // name and number mean nothing to a client.
        const std::string_view what = e.what();
        const std::size_t at = what.find("at line");
        std::string message = "the body is not valid JSON ";
        if (at == std::string_view::npos) {
            message += "at byte ";
            message += std::to_string(e.byte);
        } else {
            message += what.substr(at);
        }
        return badRequest(std::move(message), latency);
    }
    if (!body.is_object()) return badRequest("$: the body must be a JSON object", latency);
    bool sawQuery = false;
    for (auto it = body.begin(); it != body.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (k == "query") {
            if (!v.is_string()) return badRequest("$.query must be a string", latency);
            out.query = v.get<std::string>();
            sawQuery = true;
        } else if (k == "language") {
            if (!v.is_string() || v.get_ref<const std::string&>().empty() ||
                v.get_ref<const std::string&>().size() > 35)
                return badRequest("$.language must be a language tag such as \"en\" (1 to 35 characters)",
                                  latency);
            out.language = v.get<std::string>();
        } else if (k == "max_results") {
            if (!v.is_number_integer() || v.get<std::int64_t>() < -1'000'000 ||
                v.get<std::int64_t>() > 1'000'000)
                return badRequest("$.max_results must be an integer from 1 to 50", latency);
            out.max_results = static_cast<int>(v.get<std::int64_t>());
        } else {
            return badRequest("$." + k + " is not a field of a search (query, language, max_results)",
                              latency);
        }
    }
    if (!sawQuery) return badRequest("$.query is missing", latency);
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
        std::string& items = out.raw("results");
        items += '[';
        if (response.results) {
            for (int i = 0; i < response.result_count; ++i) {
                const gateway::ResultItem& item = response.results->items[static_cast<std::size_t>(i)];
                if (i > 0) items += ',';
                JsonObjectWriter(items)
                    .field("title", item.title)
                    .field("url", item.url)
                    .field("snippet", item.snippet)
                    .field("score", item.score)
                    .close();
            }
        }
        items += ']';
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
    if (response.rate_limit) {
        r.headers.emplace_back("X-RateLimit-Limit", std::to_string(response.rate_limit->limit));
        r.headers.emplace_back("X-RateLimit-Remaining", std::to_string(response.rate_limit->remaining));
        r.headers.emplace_back("X-RateLimit-Reset", wholeSeconds(response.rate_limit->reset));
    }
    return r;
}

}  // namespace taillab::live
