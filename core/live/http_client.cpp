// The one translation unit that compiles Beast's client side (Beast is slow to compile; the header
// keeps it out of every includer).
#include "live/http_client.h"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <deque>
#include <functional>
#include <unordered_map>

#include "live/ascii.h"
#include "live/http_wire.h"
#include "live/lazy_timer.h"

namespace taillab::live {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

struct Pool;
struct Connection;

// Reads a response straight into an HttpResponse: Beast's parser without the field map that a
// response_parser builds (a node per field) and answered() then copied field by field. What it
// keeps is what that copy kept: the status, every field in order with its value trimmed as Beast
// stores it, and the body.
class ResponseReader final : public http::basic_parser<false> {
public:
    HttpResponse response;

    // As Beast's message::keep_alive() (live/http_wire.h).
    bool keepAlive() const { return keepAliveOf(response.headers, version_); }

private:
    void on_request_impl(http::verb, boost::beast::string_view, boost::beast::string_view, int,
                         error_code& ec) override {
        ec = {};
    }
    void on_response_impl(int code, boost::beast::string_view, int version, error_code& ec) override {
        response.status = code;
        response.headers.reserve(8);  // an engine's usual few, without growing one by one
        version_ = version;
        ec = {};
    }
    void on_field_impl(http::field, boost::beast::string_view name, boost::beast::string_view value,
                       error_code& ec) override {
        response.headers.emplace_back(std::string(name.data(), name.size()),
                                      std::string(trimSpaces(std::string_view(value.data(), value.size()))));
        ec = {};
    }
    void on_header_impl(error_code& ec) override { ec = {}; }
    // The parser has already held a declared length to the body limit.
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
        if (length) response.body.reserve(static_cast<std::size_t>(*length));
        ec = {};
    }
    std::size_t on_body_impl(boost::beast::string_view body, error_code& ec) override {
        response.body.append(body.data(), body.size());
        ec = {};
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, boost::beast::string_view, error_code& ec) override { ec = {}; }
    std::size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, error_code& ec) override {
        return on_body_impl(body, ec);
    }
    void on_finish_impl(error_code& ec) override { ec = {}; }

    int version_ = 11;
};

// A request from request() until it finishes or is cancelled.
struct Pending {
    Pending(HttpClient::RequestId id, Pool& pool, std::chrono::nanoseconds timeout)
        : id(id), pool(&pool), timeout(timeout) {}
    HttpClient::RequestId id;
    Pool* pool;
    std::string wire;        // the request's bytes (live/http_wire.h)
    bool keepAlive = true;   // the request did not ask to close the connection
    HttpClient::Callback done;
    std::chrono::nanoseconds timeout;  // from request() to a whole response
    Connection* connection = nullptr;  // while it holds one
    std::optional<SteadyClock::time_point> started;
    bool reused = false;
    bool queued = false;    // in its pool's queue (entries that leave early are skipped lazily)
    bool finished = false;  // answered, failed or cancelled: nothing may touch it again
};

struct Connection : std::enable_shared_from_this<Connection> {
    Connection(asio::io_context& io, Pool& pool, std::shared_ptr<HttpClient::Impl> owner)
        : socket(io), pool(&pool), owner(std::move(owner)) {
        // Beast reads at most the buffer's free capacity at a time (512 bytes when it starts
        // empty, and a buffer that is read and consumed never grows): room for a whole result
        // page reads it in one receive instead of three.
        buffer.reserve(kReadBuffer);
    }
    static constexpr std::size_t kReadBuffer = 16384;
    tcp::socket socket;
    boost::beast::flat_buffer buffer;
    std::optional<ResponseReader> parser;
    std::shared_ptr<Pending> current;
    Pool* pool;
    // Keeps the client's state (and so the pool) alive while an operation of this connection is
    // outstanding, even after the HttpClient itself is gone.
    std::shared_ptr<HttpClient::Impl> owner;
    bool closed = false;
};

struct Pool {
    HostPort at;
    tcp::endpoint endpoint;
    std::string hostHeader;
    std::vector<std::shared_ptr<Connection>> idle;  // most recently used last
    std::deque<std::shared_ptr<Pending>> queue;
    std::size_t waiting = 0;  // entries of `queue` still queued
    std::size_t open = 0;     // connecting, busy and idle
    std::size_t peakOpen = 0;
    std::uint64_t opened = 0;
};

const error_code& httpCategoryProbe() {
    static const error_code probe = http::error::bad_version;
    return probe;
}

HttpFailure classify(const error_code& ec) {
    if (ec == asio::error::connection_refused) return HttpFailure::Refused;
    if (ec == asio::error::connection_reset || ec == asio::error::eof ||
        ec == asio::error::broken_pipe || ec == asio::error::connection_aborted ||
        ec == http::error::end_of_stream || ec == http::error::partial_message)
        return HttpFailure::Reset;
    if (&ec.category() == &httpCategoryProbe().category()) return HttpFailure::Protocol;
    return HttpFailure::Other;
}

// A keep-alive connection the server has closed (or written to unasked) is not worth a request:
// a non-blocking peek tells without consuming anything.
bool stillUsable(Connection& c) {
    char byte = 0;
    const ssize_t n = ::recv(c.socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

}  // namespace

std::string_view toString(HttpFailure failure) {
    switch (failure) {
        case HttpFailure::None: return "none";
        case HttpFailure::Refused: return "refused";
        case HttpFailure::Reset: return "reset";
        case HttpFailure::Timeout: return "timeout";
        case HttpFailure::Protocol: return "protocol";
        case HttpFailure::Other: return "other";
    }
    return "other";
}

std::optional<std::string_view> HttpResponse::header(std::string_view name) const {
    for (const auto& [key, value] : headers)
        if (equalsIgnoringCase(key, name)) return std::string_view(value);
    return std::nullopt;
}

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    Impl(asio::io_context& io, HttpClientOptions options)
        : io(io), options(options), timeouts(io, [this] { timeOut(); }) {}

    asio::io_context& io;
    HttpClientOptions options;
    std::unordered_map<std::string, std::unique_ptr<Pool>> pools;
    std::unordered_map<RequestId, std::shared_ptr<Pending>> pending;
    RequestId nextId = 1;

    // Every request's timeout, earliest first, and one timer at or before the earliest that is
    // still pending. A request that ends leaves its entry (ids are never reused, so an entry
    // whose id is no longer pending is skipped); cancelling a timer per request would cost the
    // loop a turn through epoll each time (live/lazy_timer.h). Only when nothing is pending is
    // the timer cancelled (forget()).
    struct Deadline {
        SteadyClock::time_point at;
        RequestId id;
        bool operator>(const Deadline& o) const { return at > o.at; }
    };
    std::vector<Deadline> deadlines;  // a min-heap on `at`
    LazyTimer timeouts;

    void addDeadline(SteadyClock::time_point at, RequestId id) {
        // Entries of ended requests wait for their time to be dropped; when they outnumber the
        // pending ones, they go at once, so the heap stays within a few times what is in flight.
        if (deadlines.size() > 2 * pending.size() + 1024) {
            std::erase_if(deadlines, [&](const Deadline& d) { return !pending.contains(d.id); });
            std::make_heap(deadlines.begin(), deadlines.end(), std::greater<>());
        }
        deadlines.push_back(Deadline{at, id});
        std::push_heap(deadlines.begin(), deadlines.end(), std::greater<>());
        if (!timeouts.deadline() || at < *timeouts.deadline()) timeouts.expireAt(at);
    }

    void timeOut() {
        const auto keep = shared_from_this();  // a callback may let go of the HttpClient
        const SteadyClock::time_point now = SteadyClock::now();
        while (!deadlines.empty() && deadlines.front().at <= now) {
            const RequestId id = deadlines.front().id;
            std::pop_heap(deadlines.begin(), deadlines.end(), std::greater<>());
            deadlines.pop_back();
            if (const auto it = pending.find(id); it != pending.end()) {
                const std::shared_ptr<Pending> p = it->second;
                timedOut(p, p->timeout);
            }
        }
        while (!deadlines.empty() && !pending.contains(deadlines.front().id)) {
            std::pop_heap(deadlines.begin(), deadlines.end(), std::greater<>());
            deadlines.pop_back();
        }
        if (!deadlines.empty()) timeouts.expireAt(deadlines.front().at);
    }

    RequestId start(Pool& pool, WireRequest request, Callback done) {
        const RequestId id = nextId++;
        auto p = std::make_shared<Pending>(id, pool, request.timeout);
        p->done = std::move(done);
        p->wire = std::move(request.wire);
        p->keepAlive = request.keep_alive;
        const auto expiry = SteadyClock::now() + request.timeout;  // the timeout runs from here
        // Sent first (on an idle connection the bytes leave inside assign()), then the
        // bookkeeping that nothing before the send needs: the send is on the caller's critical
        // path, the timer's queue insertion and the id's map entry are not. assign() never
        // answers `p` itself (a failure comes later, from the loop), so neither can be too late.
        assign(pool, p);
        pending.emplace(id, p);
        addDeadline(expiry, id);
        return id;
    }

    Pool& poolFor(const HostPort& at) {
        auto& slot = pools[toString(at)];
        if (!slot) {
            slot = std::make_unique<Pool>();
            slot->at = at;
            slot->hostHeader = toString(at);
            error_code ec;
            const auto address = asio::ip::make_address_v4(at.host, ec);
            if (!ec) slot->endpoint = tcp::endpoint(address, at.port);
        }
        return *slot;
    }

    bool canOpen(const Pool& pool) const {
        return options.max_connections_per_host == 0 || pool.open < options.max_connections_per_host;
    }

    void assign(Pool& pool, const std::shared_ptr<Pending>& p) {
        while (!pool.idle.empty()) {
            std::shared_ptr<Connection> c = std::move(pool.idle.back());
            pool.idle.pop_back();
            if (stillUsable(*c)) {
                p->reused = true;
                begin(c, p);
                write(c);
                return;
            }
            close(*c);
        }
        if (canOpen(pool)) {
            connect(pool, p);
            return;
        }
        p->queued = true;
        pool.queue.push_back(p);
        ++pool.waiting;
    }

    void begin(const std::shared_ptr<Connection>& c, const std::shared_ptr<Pending>& p) {
        c->current = p;
        p->connection = c.get();
        p->started = SteadyClock::now();
    }

    void connect(Pool& pool, const std::shared_ptr<Pending>& p) {
        auto c = std::make_shared<Connection>(io, pool, shared_from_this());
        ++pool.open;
        ++pool.opened;
        pool.peakOpen = std::max(pool.peakOpen, pool.open);
        begin(c, p);
        if (pool.endpoint.port() == 0) {
            failSoon(c, HttpFailure::Other, "'" + pool.hostHeader + "' is not an IPv4 address and port");
            return;
        }
        error_code ec;
        c->socket.open(tcp::v4(), ec);
        if (ec) {
            failSoon(c, classify(ec), ec.message());
            return;
        }
        c->socket.async_connect(pool.endpoint, [this, c, p](const error_code& ec) {
            if (c->closed) return;
            if (ec) return fail(c, classify(ec), "connect: " + ec.message());
            error_code ignored;
            c->socket.set_option(tcp::no_delay(true), ignored);
            c->socket.non_blocking(true, ignored);  // write() must not block on a full buffer
            write(c);
        });
    }

    // A failure found before any asynchronous step: reported from the io_context, never from
    // inside request().
    void failSoon(const std::shared_ptr<Connection>& c, HttpFailure kind, std::string why) {
        asio::post(io, [this, c, self = shared_from_this(), kind, why = std::move(why)] {
            if (!c->closed) fail(c, kind, why);
        });
    }

    void write(const std::shared_ptr<Connection>& c) {
        std::shared_ptr<Pending> p = c->current;
        // A request fits the socket's send buffer: written now, it needs no completion posted
        // to the loop, and so no extra turn through epoll (a syscall) per request. What does not
        // fit goes asynchronously; a failure is reported from the loop, as request() promises.
        error_code now;
        const std::size_t sent = c->socket.write_some(asio::buffer(p->wire), now);
        if (now && now != asio::error::would_block)
            return failSoon(c, classify(now), "write: " + now.message());
        if (sent == p->wire.size()) return read(c);
        asio::async_write(c->socket, asio::buffer(p->wire) + sent,
                          [this, c, p](const error_code& ec, std::size_t) {
                              if (c->closed) return;
                              if (ec) return fail(c, classify(ec), "write: " + ec.message());
                              read(c);
                          });
    }

    void read(const std::shared_ptr<Connection>& c) {
        c->parser.emplace();
        c->parser->body_limit(options.max_response_body);
        c->parser->header_limit(static_cast<std::uint32_t>(options.max_response_header));
        http::async_read(c->socket, c->buffer, *c->parser, [this, c](const error_code& ec, std::size_t) {
            if (c->closed) return;
            if (ec) return fail(c, classify(ec), "read: " + ec.message());
            answered(c);
        });
    }

    void answered(const std::shared_ptr<Connection>& c) {
        std::shared_ptr<Pending> p = std::move(c->current);
        p->connection = nullptr;
        const bool keepAlive = c->parser->keepAlive();
        HttpResponse r = std::move(c->parser->response);
        c->parser.reset();
        Pool& pool = *c->pool;
        if (keepAlive && p->keepAlive) {
            pool.idle.push_back(c);
        } else {
            close(*c);
        }
        pump(pool);
        finish(p, std::move(r));
    }

    // The request on `c` failed: the connection is closed, never reused.
    void fail(const std::shared_ptr<Connection>& c, HttpFailure kind, std::string why) {
        std::shared_ptr<Pending> p = std::move(c->current);
        Pool& pool = *c->pool;
        close(*c);
        pump(pool);
        if (!p) return;
        p->connection = nullptr;
        HttpResponse r;
        r.failure = kind;
        r.error = std::move(why);
        finish(p, std::move(r));
    }

    void close(Connection& c) {
        if (c.closed) return;
        c.closed = true;
        error_code ignored;
        c.socket.close(ignored);
        --c.pool->open;
    }

    // Hands queued requests the connections that came free (or room for new ones).
    void pump(Pool& pool) {
        while (pool.waiting > 0 && (!pool.idle.empty() || canOpen(pool))) {
            std::shared_ptr<Pending> p = std::move(pool.queue.front());
            pool.queue.pop_front();
            if (!p->queued) continue;
            p->queued = false;
            --pool.waiting;
            assign(pool, p);
        }
        if (pool.waiting == 0) pool.queue.clear();
    }

    // Takes `p` out of its queue or off its connection (closing it), without answering it.
    void detach(const std::shared_ptr<Pending>& p) {
        Pool& pool = *p->pool;
        if (p->queued) {
            p->queued = false;
            --pool.waiting;
        } else if (Connection* c = p->connection) {
            c->current.reset();
            p->connection = nullptr;
            close(*c);
        }
        pump(pool);
    }

    // After this nothing answers `p`: its id is forgotten (and with it its timeout). With nothing
    // pending, the timer lets go of the io_context, so that its run() can return.
    void forget(const std::shared_ptr<Pending>& p) {
        p->finished = true;
        pending.erase(p->id);
        if (pending.empty()) {
            deadlines.clear();
            timeouts.cancel();
        }
    }

    void finish(const std::shared_ptr<Pending>& p, HttpResponse&& r) {
        if (p->finished) return;
        forget(p);
        r.finished = SteadyClock::now();
        r.started = p->started;
        r.reused_connection = p->reused;
        Callback done = std::move(p->done);
        done(std::move(r));
    }

    void timedOut(const std::shared_ptr<Pending>& p, std::chrono::nanoseconds timeout) {
        if (p->finished) return;
        detach(p);
        HttpResponse r;
        r.failure = HttpFailure::Timeout;
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
        r.error = (p->started ? "no whole response within " : "no connection free within ") +
                  std::to_string(ms) + " ms";
        finish(p, std::move(r));
    }

    void shutdown() {
        for (auto& [id, p] : pending) {
            p->finished = true;
            p->done = nullptr;
            if (Connection* c = p->connection) {
                c->current.reset();
                close(*c);
            }
        }
        pending.clear();
        deadlines.clear();
        timeouts.cancel();
        for (auto& [name, pool] : pools) {
            for (auto& c : pool->idle) close(*c);
            pool->idle.clear();
            pool->queue.clear();
            pool->waiting = 0;
        }
    }
};

HttpClient::HttpClient(asio::io_context& io, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(io, options)) {}

HttpClient::~HttpClient() { impl_->shutdown(); }

HttpClient::RequestId HttpClient::request(const HostPort& to, HttpRequest request, Callback done) {
    Pool& pool = impl_->poolFor(to);
    WireRequest w;
    w.keep_alive = writeRequestBytes(w.wire, request, pool.hostHeader);
    w.timeout = request.timeout;
    return impl_->start(pool, std::move(w), std::move(done));
}

HttpClient::RequestId HttpClient::request(const HostPort& to, WireRequest request, Callback done) {
    return impl_->start(impl_->poolFor(to), std::move(request), std::move(done));
}

bool HttpClient::cancel(RequestId id) {
    const auto it = impl_->pending.find(id);
    if (it == impl_->pending.end()) return false;
    std::shared_ptr<Pending> p = it->second;
    impl_->forget(p);
    impl_->detach(p);
    return true;
}

std::size_t HttpClient::pending() const { return impl_->pending.size(); }

HttpPoolStats HttpClient::poolStats(const HostPort& to) const {
    const auto it = impl_->pools.find(toString(to));
    if (it == impl_->pools.end()) return {};
    const Pool& pool = *it->second;
    return HttpPoolStats{pool.open, pool.idle.size(), pool.waiting, pool.peakOpen, pool.opened};
}

}  // namespace taillab::live
