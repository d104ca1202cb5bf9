// An asynchronous HTTP/1.1 client on a Loop (live/loop.h): keep-alive connection pools per
// host:port of any size, a deadline per request, cancellation, and a completion callback that
// says how a request ended. The load generator runs on it, and the gateway calls its upstreams
// with it.
//
// Threading: everything happens on the loop's thread. Every member function must be called on
// that thread (post to the loop from elsewhere), and every callback runs on it.
// A callback is never called from inside request() or cancel(); it may start new requests.
//
// Pools: one per host:port. A request takes the most recently used idle connection (the loop
// reports an idle connection the server closes, and it is dropped then; one idle for a while is
// also peeked at first, for a close not yet reported), otherwise opens a new one while
// the pool holds fewer than max_connections_per_host (0: no limit), otherwise waits in a FIFO
// queue for the next connection to come free. The timeout runs from request(), so it covers the
// wait, the connect, the write and the read. A connection goes back to its pool after a complete
// response unless either side said "Connection: close".
//
// Failures are sorted by what a caller does about them: refused (nothing listens), reset (the
// connection broke, a TCP reset, or was closed before a byte of the response came), timeout,
// protocol (the bytes were not a valid HTTP/1.1 response, a response was cut short by the
// server's close, e.g. a body shorter than its Content-Length, or it was larger than the
// limits), other (anything the system reported that fits none of these, e.g. too many open
// files). The connection is closed after every failure.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "live/address.h"
#include "live/loop.h"

namespace taillab::live {

using SteadyClock = std::chrono::steady_clock;

enum class HttpFailure : std::uint8_t { None, Refused, Reset, Timeout, Protocol, Other };
constexpr int kHttpFailureKinds = 6;
// "refused", "reset", "timeout", "protocol", "other" ("none" for None).
std::string_view toString(HttpFailure failure);

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method = "GET";
    std::string target = "/";
    HttpHeaders headers;  // Host, Content-Length and User-Agent are added unless given
    std::string body;
    std::chrono::nanoseconds timeout = std::chrono::seconds(30);
};

// A request whose bytes the caller has written (a writer of its own on a hot path, e.g. the
// gateway's upstream calls): sent exactly as they are, so they must be one whole HTTP/1.1
// request, Host header included. `keep_alive`: the request did not ask to close the connection.
struct WireRequest {
    std::string wire;
    bool keep_alive = true;
    std::chrono::nanoseconds timeout = std::chrono::seconds(30);
};

struct HttpResponse {
    HttpFailure failure = HttpFailure::None;
    std::string error;  // the system's or the parser's words when failure != None
    int status = 0;     // 0 when no status line arrived
    HttpHeaders headers;
    std::string body;
    // When the request was given a connection (an idle one, or a new one before it connects):
    // the end of its wait for the pool. Empty if it failed or timed out while waiting.
    std::optional<SteadyClock::time_point> started;
    SteadyClock::time_point finished;
    bool reused_connection = false;  // sent on a keep-alive connection rather than a new one

    bool ok() const { return failure == HttpFailure::None; }
    // First header of that name, compared without regard to case.
    std::optional<std::string_view> header(std::string_view name) const;
};

struct HttpClientOptions {
    std::size_t max_connections_per_host = 0;  // 0: as many as requests need
    std::size_t max_response_body = 8 << 20;   // bytes; larger is a protocol failure
    std::size_t max_response_header = 64 << 10;
};

// Counts of one pool (host:port); `peak_open` is the most connections it ever held at once.
struct HttpPoolStats {
    std::size_t open = 0;
    std::size_t idle = 0;
    std::size_t waiting = 0;  // requests queued for a connection
    std::size_t peak_open = 0;
    std::uint64_t opened = 0;  // connections opened over the pool's life
};

class HttpClient {
  public:
    using RequestId = std::uint64_t;
    using Callback = std::function<void(HttpResponse&&)>;

    explicit HttpClient(Loop& loop, HttpClientOptions options = {});
    // Closes every connection; callbacks of requests still pending are never called.
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Starts a request; `done` is called once, later, on the loop's thread.
    RequestId request(const HostPort& to, HttpRequest request, Callback done);
    // The same for bytes written by the caller.
    RequestId request(const HostPort& to, WireRequest request, Callback done);
    // Abandons a request: a queued one leaves the queue, one in flight has its connection closed
    // (the server may still have seen it). Returns true if it was pending; its callback is then
    // never called. False for an unknown or finished id.
    bool cancel(RequestId id);

    std::size_t pending() const;  // requests started and not yet finished or cancelled
    HttpPoolStats poolStats(const HostPort& to) const;

    struct Impl;

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace taillab::live
