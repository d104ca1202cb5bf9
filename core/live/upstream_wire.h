// The gateway's side of the upstream protocol (PROTOCOL.md), apart from sockets: an upstream call
// written as an HTTP request, and an engine's HTTP answer read into what the gateway judges
// (gateway/answer.h). The emulated fleet speaks the other side.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/answer.h"
#include "gateway/contract.h"

namespace taillab::live {

// An upstream call as the wire will carry it: its JSON body and the values of the X-TailLab-*
// headers (PROTOCOL.md), which the request writer puts on the wire without a field list of
// their own (a name and a value string each, on every upstream call).
struct UpstreamRequest {
    std::string body;  // {"query": ..., "language": ..., "max_results": ...}
    std::uint64_t trace = 0;
    gateway::CallRole role = gateway::CallRole::Primary;
    gateway::Region region = gateway::Region::EU;
    int egress_ip = 0;
    gateway::QueryClass query_class = gateway::QueryClass::Evergreen;
    std::uint64_t cache_key = 0;
};

// The request for `call` (its query and language are copied: the views die with startCall()).
UpstreamRequest upstreamRequest(const gateway::UpstreamCall& call);

// Replaces `out` with the HTTP/1.1 request for `r`: POST `target`, Host `host`, User-Agent
// taillab, Content-Type application/json, the X-TailLab-* fields, Content-Length and the body.
// The same message HttpClient would write for these fields (tests/live/upstream_wire_test.cpp
// holds the two together), in one pass.
void writeUpstreamRequest(std::string& out, const UpstreamRequest& r, std::string_view target,
                          std::string_view host);

// An engine's answer, owning its page.
struct UpstreamReply {
    gateway::CallFailure failure = gateway::CallFailure::None;
    std::shared_ptr<gateway::ResultBody> page;
    std::uint64_t echo = 0;
    int http_status = 200;
    std::string problem;  // for a bad payload: what did not parse, and where
    // The gateway's view, valid while this object lives.
    gateway::UpstreamAnswer answer() const;
};

// Reads an answer that arrived: a status other than 200 is an HTTP error; a 200 body that is not
// a result page (not JSON, not an object, a field of the wrong type, an unknown page kind) is a
// bad payload. Items are taken as they come; whether they make a valid answer (complete, absolute
// URLs, not a block page, not empty) is validation's judgement, not the wire's.
// The body is taken: a page keeps it (its items view it) rather than a copy of their text.
UpstreamReply readUpstreamReply(int status, std::string body);

// The failures that arrive without a body.
UpstreamReply upstreamFailure(gateway::CallFailure failure);

}  // namespace taillab::live
