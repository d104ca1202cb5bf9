// The bytes of the HTTP/1.1 messages live mode writes: the server's responses and the client's
// requests, each built straight into one string.
//
// Why not a Beast message: building one costs an allocation and a tree insertion per header
// field, and Beast writes it as one buffer per field (a sendmsg of 15 iovecs for an upstream
// request). A proxied request pays that twice, upstream and back. The plain writers cover the
// messages the gateway sends on its hot path. For anything where Beast's field rules would change
// the message (a header Beast manages itself, a name given twice, a value it would trim, a status
// or method it treats apart) they decline, and the message is built and serialized by Beast as
// before. Either way the bytes are the same: tests/live/http_wire_test.cpp compares the two.
#pragma once

#include <string>
#include <string_view>

#include "live/http_client.h"
#include "live/search_api.h"

namespace taillab::live {

// Replaces `out` with the response for `reply`: status line, "Content-Type: application/json"
// unless the reply names its own, the reply's headers in order, "Connection: close" unless
// `keep_alive`, Content-Length and the body.
void writeResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive);

// The request for `request` on a connection to `host` (the Host header unless it names its own;
// User-Agent "taillab" unless given; Content-Length when there is a body or the method is POST
// or PUT). Returns whether the request lets the connection be kept alive (it asked no close).
bool writeRequestBytes(std::string& out, const HttpRequest& request, std::string_view host);

// As Beast's message::keep_alive(), for a message read field by field (the server's requests,
// the client's responses): the first Connection field's tokens, read by the HTTP version (11 for
// 1.1): 1.1 keeps the connection unless "close", 1.0 only with "keep-alive".
bool keepAliveOf(const HttpHeaders& headers, int version);

// The two ways, for tests: the plain writer (false, `out` unspecified, when it declines) and
// Beast's serializer.
bool plainResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive);
void beastResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive);
bool plainRequestBytes(std::string& out, const HttpRequest& request, std::string_view host);
bool beastRequestBytes(std::string& out, const HttpRequest& request, std::string_view host);

}  // namespace taillab::live
