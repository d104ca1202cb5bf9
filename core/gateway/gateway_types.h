// Vocabulary shared by the gateway's stages, its drivers (simulated and live) and the views:
// regions, endpoints, query classes, stages, breaker states and request outcomes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace taillab::gateway {

enum class Region : std::uint8_t { EU, US, APAC };
constexpr int kRegions = 3;
constexpr std::array<std::string_view, kRegions> kRegionNames{"EU", "US", "APAC"};

// The providers a region's gateway compute may run on (seed 000: three, none above 45%).
constexpr int kProviders = 3;
constexpr std::array<std::string_view, kProviders> kProviderNames{"A", "B", "C"};

enum class Endpoint : std::uint8_t { Lite, Fast };
constexpr int kEndpoints = 2;
constexpr std::array<std::string_view, kEndpoints> kEndpointPaths{"/search/lite", "/search/fast"};

// Freshness classes of seed 000's cache table, in its order.
enum class QueryClass : std::uint8_t { Navigational, Evergreen, Product, LongTail, News };
constexpr int kClasses = 5;
constexpr std::array<std::string_view, kClasses> kClassNames{
    "navigational", "evergreen_reference", "product_pricing", "long_tail_agent", "news_live"};
// The same classes in words, for legends and tables.
constexpr std::array<std::string_view, kClasses> kClassLabels{
    "navigational", "evergreen reference", "product pricing", "long-tail agent", "news (live)"};

// The range of a request's max_results (seed 000: 1 to 50, fetched in buckets of 10, 20 and 50),
// the one definition every reader of a request holds it to: the gateway answers a 400 outside it
// and its compiler's buckets end at the top; the live search readers, the emulated engines and the
// load generator refuse a value outside it with maxResultsRangeText().
constexpr int kMaxResultsLowest = 1;
constexpr int kMaxResultsHighest = 50;
constexpr bool maxResultsInRange(std::int64_t n) {
    return n >= kMaxResultsLowest && n <= kMaxResultsHighest;
}
// The result-count bucket of an n in the range: 1..10 -> 10, 11..20 -> 20, 21..50 -> 50.
constexpr int maxResultsBucketInRange(int n) { return n <= 10 ? 10 : n <= 20 ? 20 : kMaxResultsHighest; }
// What a value outside the range is told, after the field's name: "must be an integer from 1 to 50".
inline std::string maxResultsRangeText() {
    return "must be an integer from " + std::to_string(kMaxResultsLowest) + " to " +
           std::to_string(kMaxResultsHighest);
}

// The request path, left to right, as in seed 000's budget table.
enum class Stage : std::uint8_t { Edge, Gateway, Compiler, Cache, Router, Engines, Merge };
constexpr int kStages = 7;
constexpr std::array<std::string_view, kStages> kStageNames{"edge",   "gateway", "compiler", "cache",
                                                             "router", "engines", "merge"};

enum class BreakerState : std::uint8_t { Closed, Open, HalfOpen };
constexpr std::array<std::string_view, 3> kBreakerStateNames{"closed", "open", "half_open"};

// How an accepted request ended. Every accepted request ends exactly once, in one of these.
enum class Outcome : std::uint8_t {
    Ok,             // 200 with at least one result (or a legitimately empty site:/exact answer)
    BadRequest,     // 400: the query is not valid UTF-8, empty, or max_results is out of range
    Unauthorized,   // 401: unknown API key
    RateLimited,    // 429: the key's token bucket for this endpoint is empty
    Shed,           // 503: region at its concurrency limit and no region to spill to
    DeadlineMissed, // 503: no valid answer before the deadline
    NoEngine,       // 503: every engine's breaker open, or every call failed in time
};
constexpr int kOutcomes = 7;
constexpr std::array<std::string_view, kOutcomes> kOutcomeNames{
    "ok", "bad_request", "unauthorized", "rate_limited", "shed", "deadline_missed", "no_engine"};
constexpr std::array<int, kOutcomes> kOutcomeStatus{200, 400, 401, 429, 503, 503, 503};
// Rejected: turned away before any upstream work (400, 401, 429, shed). Failed: accepted into the
// path but ended without an answer (deadline, no engine).
constexpr bool isRejected(Outcome o) {
    return o == Outcome::BadRequest || o == Outcome::Unauthorized || o == Outcome::RateLimited ||
           o == Outcome::Shed;
}
constexpr bool isFailed(Outcome o) { return o == Outcome::DeadlineMissed || o == Outcome::NoEngine; }

}  // namespace taillab::gateway
