// The emulated fleet's wire format (PROTOCOL.md, "Gateway -> upstream engine") apart from
// sockets: a search request read into the fleet model's UpstreamCall, and a page written as the
// answer's JSON. Pure functions, tested without a server.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "gateway/answer.h"
#include "gateway/contract.h"
#include "live/http_server.h"

namespace taillab::live {

// Where a request is wrong ("$.max_results", or a header's name) and how.
struct WireError {
    std::string path;
    std::string message;
};

struct FleetCall {
    gateway::UpstreamCall call;  // call.query is left empty: the model does not read it
    bool traced = false;         // X-TailLab-Trace was given (else call.trace is 0)
};

// Reads the body ({"query", "language", "max_results"}, no other keys) and the X-TailLab-*
// headers of a call to engine `engine`. The query is compiled as the gateway compiles it, so the
// cache key, class and fetch bucket are the gateway's unless headers say otherwise.
std::variant<FleetCall, WireError> readFleetCall(const ServerRequest& request, int engine, int egressIps);

// "results", "block", "captcha", "consent".
const char* pageKindName(gateway::PageKind kind);

// The items of a page as a JSON array, [{"title", "url", "snippet", "score"}, ...].
std::string resultItemsJson(const gateway::ResultBody& page);

// {"page": ..., "echo": "16 hex digits", "results": itemsJson}.
std::string pageJson(gateway::PageKind kind, std::uint64_t echo, const std::string& itemsJson);

// A 400 with {"error": "bad_request", "message": "PATH: message"}.
HttpReply wireErrorReply(const Loop& loop, Time accepted, const WireError& error);

}  // namespace taillab::live
