// Live mode's HTTP/1.1 server, on a Loop (live/loop.h: edge-triggered epoll, each connection
// registered once), with Beast's request parser (basic_parser, fed the bytes as they come). The
// emulated fleet and the gateway's `serve` both run on it.
//
// One request at a time per connection (keep-alive, no pipelining: a request sent before the
// previous answer is read after that answer is written). Each request goes to the handler with a
// Responder, which answers now, later (after a timer, from the loop thread) or never:
//   respond(reply)  writes the answer; the connection stays open unless the client asked to close;
//   reset()         closes with SO_LINGER 0, so the client reads ECONNRESET and no response;
//   close()         closes without an answer (a graceful FIN), as a hung upstream's own timeout.
// A Responder dropped without any of these leaves the connection waiting (a hang): it ends when
// the client gives up or the server stops. Once the connection is gone, the Responder's calls do
// nothing (`open()` says so); a client that closes while its request waits is noticed at once,
// and onGone's function runs then (not when the handler itself ends it).
//
// The server answers on its own what never reaches the handler, every answer a JSON error body
// (search_api.h's errorReply): 400 for HTTP that does not parse (or HTTP/1.1 without exactly one
// Host), 501 for a transfer coding other than chunked, 415 for a content coding (nothing here
// decodes one), 413 for a header block or body over the limits, 408 for a request not received within the read timeout (a connection that
// sends nothing is closed silently instead), 503 when it already holds max_connections with a
// request in progress on each: a connection with none (a new one that has sent nothing yet, an
// idle keep-alive one) is closed to make room first, the one idle longest, as nginx does.
//
// A graceful stop is drain() then stop(): drain() stops taking connections and requests and
// lets those in progress end (each connection closes after its answer), stop() ends what is left.
//
// Threads: construct, start(), drain() and stop() from any thread (they run on the loop through
// Loop::invoke); the handler and every Responder call run on the loop thread. A server is
// destroyed before its Loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time.h"
#include "live/address.h"
#include "live/loop.h"
#include "live/search_api.h"

namespace taillab::live {

struct HttpServerLimits {
    std::size_t max_header_bytes = 8 * 1024;
    std::size_t max_body_bytes = 64 * 1024;
    // From a request's first byte to its last; for a connection's first request, from the accept
    // (a connection that sends nothing is closed after it).
    Duration read_timeout = std::chrono::seconds(10);
    Duration idle_timeout = std::chrono::seconds(60);  // a keep-alive connection with no request
    // An answer the client has not taken this long after its socket filled up: the connection is
    // reset (a client that stops reading would otherwise hold it, and its buffers, forever).
    Duration write_timeout = std::chrono::seconds(10);
    int max_connections = 4096;
};

struct ServerRequest {
    std::string method;  // as sent: "POST"
    std::string target;  // path and query
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    Time accepted{};  // Loop::now() when the request's first byte was read
    // The first header of that name (ASCII case-insensitive).
    std::optional<std::string_view> header(std::string_view name) const;
    // The first of `names` the request sends more than once (ASCII case-insensitive), spelled as
    // in `names`: for a header that takes one value, which header() alone would quietly pick.
    std::optional<std::string_view> repeatedHeader(std::span<const std::string_view> names) const;
    std::string_view path() const { return std::string_view(target).substr(0, target.find('?')); }
};

class Responder {
public:
    Responder() = default;
    void respond(HttpReply reply);
    void reset();
    void close();
    // The connection still waits for this answer.
    bool open() const;
    // fn runs (on the loop thread) if the connection ends before an answer: the client left, or
    // the server stopped. Ignored once the request is no longer open.
    void onGone(std::function<void()> fn);

    struct Slot;  // the connection's side, shared with it
    explicit Responder(std::shared_ptr<Slot> slot) : slot_(std::move(slot)) {}

private:
    std::shared_ptr<Slot> slot_;
};

class HttpHandler {
public:
    virtual ~HttpHandler() = default;
    virtual void handle(const ServerRequest& request, Responder responder) = 0;
    // The server answered a request itself with `status`, before any handle(): a read timeout
    // (408), an oversized header or body (413), malformed HTTP (400), a coding it cannot read
    // (415, 501), or no room for another connection (503). For counting.
    virtual void refused(int /*status*/) {}
};

class HttpServer {
public:
    // Binds and listens at once (throws std::runtime_error naming the address when it cannot);
    // accepts once start() is called.
    HttpServer(Loop& loop, const HostPort& listen, HttpHandler& handler, HttpServerLimits limits = {});
    ~HttpServer();  // stop()
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // The address bound: the system's port when 0 was asked for.
    HostPort bound() const;
    void start();
    // The first half of a graceful stop: the listening socket closes (a client trying to
    // connect is refused); a connection with no request in progress closes now; a request the
    // handler holds is answered as the handler answers it, with `Connection: close`; a request
    // still being read, or one that comes on an open connection afterwards, is answered 503 with
    // Retry-After (the server is stopping), and its connection closes. Idempotent.
    void drain();
    // Stops accepting and closes every connection (waiting answers are dropped). Idempotent.
    void stop();
    int connections() const;  // open now; loop thread

    struct Impl;

private:
    Loop& loop_;
    std::shared_ptr<Impl> impl_;
};

// An error answer with its latency from `accepted`: the server's own and its handlers'.
HttpReply jsonError(const Loop& loop, Time accepted, int status, std::string_view error,
                    std::string_view message);

}  // namespace taillab::live
