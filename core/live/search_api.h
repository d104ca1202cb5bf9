// The gateway's HTTP face, apart from sockets: a client's search request read into the gateway's
// Request, and the gateway's Response written as an HTTP answer (PROTOCOL.md). Pure functions, so
// every status, header and body shape is tested without a server; the live server only moves
// bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/time.h"
#include "gateway/contract.h"

namespace taillab::live {

// An HTTP answer, ready to be written: status, headers beyond Content-Type/Length, JSON body.
struct HttpReply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::optional<std::string_view> header(std::string_view name) const;
};

// What the server hands over of a request to /search/*. A header sent with an empty value is
// there (and wrong), not absent.
struct HttpRequestParts {
    std::string_view method;
    std::string_view target;                        // path (and query string)
    std::optional<std::string_view> authorization;  // the Authorization header
    std::optional<std::string_view> region;         // X-Region
    std::optional<std::string_view> request_id;     // X-Request-Id
    std::string_view content_type;                  // "" if absent
    std::string_view body;
    // One of kSingleValueHeaders sent more than once, "" if none: a 400 rather than a guess.
    std::string_view repeated_header;
};

// The request headers a search reads that take one value each.
inline constexpr std::array<std::string_view, 4> kSingleValueHeaders{"Authorization", "Content-Type", "X-Region",
                                                                     "X-Request-Id"};

// A search request that passed the HTTP layer's checks; owns its strings. The gateway judges the
// rest (unknown key: 401; max_results out of range or an empty query: 400), so those answers go
// through its accounting like any other.
struct SearchRequest {
    gateway::Endpoint endpoint = gateway::Endpoint::Lite;
    std::string api_key;
    std::string query;
    std::string language = "en";
    int max_results = 10;
    std::optional<gateway::Region> region_pin;
    std::optional<std::uint64_t> request_id;
    // The gateway's view, valid while this object lives.
    gateway::Request view(std::uint64_t trace, Time accepted) const;
};

// A search's `language`: a language tag as BCP 47 writes one (RFC 5646's form, not its
// registry): subtags of 1 to 8 ASCII letters or digits joined by '-', the first of letters only,
// at most 35 characters in all ("en", "pt-BR", "zh-Hant-TW", "es-419"). The gateway and the
// fleet take the same.
bool isLanguageTag(std::string_view tag);
inline constexpr std::string_view kLanguageTagRule =
    "must be a language tag such as \"en\" or \"pt-BR\" (subtags of 1 to 8 ASCII letters or digits "
    "joined by '-', the first of letters only; at most 35 characters)";

// The longest query text a search may send, in bytes (the gateway also bounds it after
// normalization: gateway::kMaxNormalizedQueryBytes).
inline constexpr std::size_t kMaxQueryTextBytes = 16384;

// Reads a request to /search/lite or /search/fast. On a problem the HTTP layer itself answers
// (404 for another path, 405 for another method, 415 for a body that is not JSON by its
// Content-Type, 400 for a body or header that does not parse or a header of one value sent
// twice, naming the JSON path or header),
// returns that reply, with `latency` as its latency_ms.
std::variant<SearchRequest, HttpReply> readSearch(const HttpRequestParts& in, Duration latency);

// A body's Content-Type that is there and is not application/json: its 415. Absent is JSON.
std::optional<HttpReply> refuseNonJson(std::string_view content_type, Duration latency);

// Milliseconds as every answer's latency_ms writes them (to the microsecond).
double latencyMs(Duration d);

// {"error": error, "message": message, "latency_ms": ...} with the given status.
HttpReply errorReply(int status, std::string_view error, std::string_view message, Duration latency,
                     std::optional<Duration> retry_after = std::nullopt);

// The gateway's response as HTTP: 200 with the results, or the error with its status;
// Retry-After on 429 and 503 and the X-RateLimit-* fields whenever the gateway gave them.
HttpReply writeResponse(const gateway::Response& response);

}  // namespace taillab::live
