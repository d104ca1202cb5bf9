// The gateway contract: what a driver hands the gateway, and what the gateway hands back. In the
// manner of quinn-proto, the gateway is a state machine with no clock, no sockets and no threads.
//
// Inputs (methods of Gateway, each carrying `now`):
//   onRequest(now, Request)           a request the edge accepted;
//   onAnswer(now, CallId, answer)     an upstream call's answer: a result page or a failure kind;
//   onTimeout(now)                    the time pollTimeout() named has come;
//   reconfigure(now, GatewayConfig)   new settings from now on.
// Outputs (calls on the driver's Port, made from inside an input):
//   startCall(UpstreamCall)           send a query to an upstream engine;
//   cancelCall(CallId)                tear down a call whose answer is no longer wanted;
//   respond(Response)                 the response: status, results or an error, Retry-After,
//                                     rate-limit fields, latency;
//   stageEnd(start, StageWork)        the driver's clock: the gateway did a stage's work for a
//                                     request starting at `start`; when did that work end? The
//                                     simulation adds a modelled cost; the live driver answers
//                                     with its clock. The gateway never invents time.
// Timers are the gateway's own (hedge, last chance, deadline, coalescing detach): it arms and
// cancels them internally, pollTimeout() says when the earliest is due, and the driver calls
// onTimeout(now) then. One wake-up for the driver instead of a timer per request.
//
// Ids carry a generation: a RequestId or CallId names one request or call, never a later one that
// reuses its slot, so an answer that arrives after its call was cancelled (or after its request
// finished) is recognised and ignored (counted as a stale answer).
//
// Re-entry: a Port implementation must not call back into the gateway from inside an output
// (startCall, cancelCall, respond, stageEnd). The gateway detects it and throws std::logic_error;
// a driver that learns something synchronously (an upstream that fails at once) queues it and
// delivers it after the input returns.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/time.h"
#include "gateway/answer.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

struct AnalyzedQuery;  // compiler.h

struct RequestId {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;  // 0 is never a live generation
    bool operator==(const RequestId&) const = default;
    // Slot and generation in one word, never 0 for a live id: a key for a driver's own tables.
    std::uint64_t key() const { return std::uint64_t{generation} << 32 | slot; }
};
struct CallId {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;  // 0 is never a live generation
    bool operator==(const CallId&) const = default;
    std::uint64_t key() const { return std::uint64_t{generation} << 32 | slot; }  // as RequestId's
};

enum class CallRole : std::uint8_t { Primary, Hedge, LastChance, Retry, Refresh };
constexpr std::array<std::string_view, 5> kCallRoleNames{"primary", "hedge", "last_chance",
                                                         "retry", "refresh"};

struct Request {
    // The driver's id for the request (a counter, or X-Request-Id): the gateway's own randomness
    // for the request (routing samples, breaker probes) derives from it and the seed, never from
    // the order of requests, so two runs with the same seed make the same draws for it.
    std::uint64_t trace = 0;
    std::string_view api_key;  // the bearer token
    Endpoint endpoint = Endpoint::Lite;
    std::string_view query;    // raw UTF-8, as the client sent it
    std::string_view lang = "en";
    int max_results = 10;      // maxResultsInRange (gateway_types.h), else a 400
    std::optional<Region> region_pin;  // X-Region
    std::optional<Time> accepted;      // when the edge accepted it; default: now
    // What the driver already worked out of `query` with the gateway's own functions, so that
    // the gateway need not do it again: CompilerMemo::hashOf(query) (0: none), and
    // analyzeQuery(query) (null: none; valid for the duration of the call). A driver that draws
    // requests ahead on another thread works them out there. Either is optional; a wrong one
    // gives wrong answers, so a driver passes none rather than a guess.
    std::uint64_t query_hash = 0;
    const AnalyzedQuery* analysis = nullptr;
};

// X-RateLimit-Limit / -Remaining / -Reset, on every response to a known key.
struct RateLimitFields {
    int limit = 0;
    int remaining = 0;
    Duration reset{};  // until the bucket is full again
};

struct Response {
    RequestId request;
    std::uint64_t trace = 0;
    Outcome outcome = Outcome::Ok;
    int status = 200;
    // 200: the merged results; the response carries the first `result_count` of them. Valid for
    // the duration of respond().
    const RankedResults* results = nullptr;
    int result_count = 0;
    std::optional<Duration> retry_after;         // 429, 503
    std::optional<RateLimitFields> rate_limit;   // every response to a known key
    std::string_view error;    // machine-readable: "deadline_exceeded", "rate_limited", ...
    std::string_view message;  // one human sentence; valid for the duration of respond()
    Region region = Region::EU;  // where it was served
    QueryClass query_class = QueryClass::Evergreen;
    bool cache_hit = false, stale = false, coalesced = false, probe = false;
    // A failure answered as a success (TimeoutReply::EmptyOk): `outcome` is the truth, `status`
    // is 200 with no results, what the client saw.
    bool disguised = false;
    Time accepted{}, at{};
    Duration latency{};  // at - accepted: the latency_ms of the body
};

struct UpstreamCall {
    CallId id;
    RequestId request;
    std::uint64_t trace = 0;  // the request's
    int engine = 0;           // index into GatewayConfig::engines
    Region region = Region::EU;
    int egress_ip = 0;
    CallRole role = CallRole::Primary;
    QueryClass query_class = QueryClass::Evergreen;
    std::string_view query;   // normalized text; valid for the duration of startCall()
    std::string_view lang;    // the client's language tag; valid for the duration of startCall()
    std::uint64_t cache_key = 0;
    int fetch_count = 10;     // the maxResults bucket to fetch
    Time at{};                // when the call leaves the gateway (>= the input's now)
    Duration budget{};        // what the deadline leaves it: the call's own timeout
    // The instance has no open connection to this engine through this IP yet (a cold standby's
    // first call on it): the driver charges a connect.
    bool cold_connection = false;
};

// One stage's work for one request, for the driver's clock (Port::stageEnd).
struct StageWork {
    Stage stage = Stage::Edge;
    std::uint64_t trace = 0;
    Region region = Region::EU;
    bool background = false;     // a stale-while-revalidate refresh, nobody waiting on it
    bool l2 = false;             // cache: L1 missed and the regional L2 was consulted
    bool shared_answer = false;  // cache: a coalesced waiter on another instance reads the
                                 // leader's answer through L2
    std::optional<Region> spilled_from;  // gateway: admitted here after its own region was full
};

// A decision about a request that its response does not tell: for tail attribution ("the hedge
// budget was empty at 420 ms"). Refusals that end a request are in its Response instead.
enum class NoteKind : std::uint8_t {
    SpillRefused,  // not rerouted or spilled: the other region's breaker is open
    HedgeDenied,   // the hedge timer fired and the hedge budget was empty
    HedgeTooLate,  // the hedge timer fired with too little deadline left to call again
    HedgeNoEngine, // the hedge timer fired and no other engine would take the call
    AnswerInvalid, // an answer failed validation (a failed call, a block page, a wrong page)
};
inline constexpr const char* kNoteKindNames[] = {"spill_refused", "hedge_denied", "hedge_too_late",
                                                 "hedge_no_engine", "answer_invalid"};
struct RequestNote {
    std::uint64_t trace = 0;
    Time at{};
    NoteKind kind = NoteKind::HedgeDenied;
    Region region = Region::EU;  // the request's region (where it stays)
};

class Port {
public:
    virtual ~Port() = default;
    virtual Time stageEnd(Time start, const StageWork& work) = 0;  // >= start
    virtual void startCall(const UpstreamCall& call) = 0;
    virtual void cancelCall(CallId call) = 0;
    virtual void respond(const Response& response) = 0;
    // Optional: a driver that attributes requests listens; the others ignore it.
    virtual void note(const RequestNote&) {}
};

}  // namespace taillab::gateway
