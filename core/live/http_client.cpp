// The HTTP client on a Loop (live/loop.h): plain non-blocking sockets, each registered with the
// loop once, and Beast's response parser (basic_parser, fed the bytes as they come).
#include "live/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <unordered_map>

#include "live/ascii.h"
#include "live/http_wire.h"
#include "live/socket_io.h"

namespace taillab::live {

namespace http = boost::beast::http;
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

    // The largest body taken; also handed to Beast's own limit (which holds chunked bodies and
    // bodies that run to the end of the stream to it).
    void limitBody(std::uint64_t bytes) {
        bodyLimit_ = bytes;
        body_limit(bytes);
    }

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
    // A declared length is held to the limit here, not left to Beast: Boost 1.74's parser sets
    // its body_limit error at the end of the head but, with body bytes in the same buffer and
    // eager parsing on, goes on to the body, and a reserve of a length of 93 GiB would throw.
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
        if (length && *length > bodyLimit_) {
            ec = http::error::body_limit;
            return;
        }
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
    std::uint64_t bodyLimit_ = 0;
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

struct Pool {
    HostPort at;
    sockaddr_in address{};
    bool addressOk = false;
    std::string hostHeader;
    std::vector<std::shared_ptr<Connection>> idle;  // most recently used last
    std::deque<std::shared_ptr<Pending>> queue;
    std::size_t waiting = 0;  // entries of `queue` still queued
    std::size_t open = 0;     // connecting, busy and idle
    std::size_t peakOpen = 0;
    std::uint64_t opened = 0;
};

// Why a socket call failed, as the caller sorts it.
HttpFailure classifyErrno(int e) {
    switch (e) {
        case ECONNREFUSED: return HttpFailure::Refused;
        case ECONNRESET:
        case EPIPE:
        case ECONNABORTED:
        case ENOTCONN: return HttpFailure::Reset;
        default: return HttpFailure::Other;
    }
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

namespace {

// One connection to a pool's host: connecting, writing a request, reading its response, or idle
// in the pool. Registered with the loop once; an idle connection that reports anything (the
// server closed it, or wrote unasked) is closed at once, so no request is sent on it.
struct Connection final : std::enable_shared_from_this<Connection>, Loop::IoHandler {
    enum class State : std::uint8_t { Connecting, Writing, Reading, Idle };
    Connection(HttpClient::Impl& owner, Pool& pool) : owner(&owner), pool(&pool) {}
    ~Connection() {
        watch.reset();
        if (fd >= 0) ::close(fd);
    }
    void onIo(std::uint32_t events) override;

    HttpClient::Impl* owner;
    Pool* pool;
    int fd = -1;
    Loop::Watch watch;
    State state = State::Connecting;
    ReadBuffer buffer;
    std::optional<ResponseReader> parser;
    std::shared_ptr<Pending> current;
    std::size_t sent = 0;     // bytes of current->wire written
    bool readable = false;    // bytes or an end may be waiting unread
    bool peerClosed = false;  // the loop reported the server's end (or an error)
    Time idleSince{};         // Loop::now() when it went idle
    bool closed = false;
};

// An idle connection this long is peeked at before it is used: a close that has arrived but that
// the loop has not yet reported (one wait's worth of time) would otherwise cost a request.
constexpr Duration kPeekAfterIdle = std::chrono::milliseconds(50);

}  // namespace

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    Impl(Loop& loop, HttpClientOptions options)
        : loop(loop), options(options), timeouts(loop, [this] { timeOut(); }) {}

    Loop& loop;
    HttpClientOptions options;
    // One per host and port, found by a scan: a client talks to a handful of hosts (serve: its
    // engines, which a fleet puts behind one port; the load generator: one), and a scan that
    // compares the port first builds no key string per request, as a map by "host:port" did.
    std::vector<std::unique_ptr<Pool>> pools;

    Pool* findPool(const HostPort& at) const {
        for (const auto& p : pools)
            if (p->at.port == at.port && p->at.host == at.host) return p.get();
        return nullptr;
    }
    std::unordered_map<RequestId, std::shared_ptr<Pending>> pending;
    std::unordered_map<Connection*, std::shared_ptr<Connection>> connections;  // every open one
    RequestId nextId = 1;

    // Every request's timeout, earliest first, and one timer at or before the earliest that is
    // still pending. A request that ends leaves its entry (ids are never reused, so an entry
    // whose id is no longer pending is skipped).
    struct Deadline {
        SteadyClock::time_point at;
        RequestId id;
        bool operator>(const Deadline& o) const { return at > o.at; }
    };
    std::vector<Deadline> deadlines;  // a min-heap on `at`
    Loop::Timer timeouts;

    void armTimeouts() {
        const auto wait = deadlines.front().at - SteadyClock::now();
        timeouts.setAfter(std::max(Duration::zero(), std::chrono::duration_cast<Duration>(wait)));
    }

    void addDeadline(SteadyClock::time_point at, RequestId id) {
        // Entries of ended requests wait for their time to be dropped; when they outnumber the
        // pending ones, they go at once, so the heap stays within a few times what is in flight.
        if (deadlines.size() > 2 * pending.size() + 1024) {
            std::erase_if(deadlines, [&](const Deadline& d) { return !pending.contains(d.id); });
            std::make_heap(deadlines.begin(), deadlines.end(), std::greater<>());
        }
        const bool earliest = deadlines.empty() || at < deadlines.front().at;
        deadlines.push_back(Deadline{at, id});
        std::push_heap(deadlines.begin(), deadlines.end(), std::greater<>());
        if (earliest || !timeouts.deadline()) armTimeouts();
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
        if (!deadlines.empty()) armTimeouts();
    }

    RequestId start(Pool& pool, WireRequest request, Callback done) {
        const RequestId id = nextId++;
        auto p = std::make_shared<Pending>(id, pool, request.timeout);
        p->done = std::move(done);
        p->wire = std::move(request.wire);
        p->keepAlive = request.keep_alive;
        const auto expiry = SteadyClock::now() + request.timeout;  // the timeout runs from here
        // Sent first (on an idle connection the bytes leave inside assign()), then the
        // bookkeeping that nothing before the send needs. assign() never answers `p` itself (a
        // failure comes later, from the loop), so neither can be too late.
        assign(pool, p);
        pending.emplace(id, p);
        addDeadline(expiry, id);
        return id;
    }

    Pool& poolFor(const HostPort& at) {
        if (Pool* known = findPool(at)) return *known;
        Pool& pool = *pools.emplace_back(std::make_unique<Pool>());
        pool.at = at;
        pool.hostHeader = toString(at);
        pool.addressOk = socketAddress(at, pool.address) && at.port != 0;
        return pool;
    }

    bool canOpen(const Pool& pool) const {
        return options.max_connections_per_host == 0 || pool.open < options.max_connections_per_host;
    }

    // A connection idle a while: has its server closed it (or written to it unasked)?
    static bool stillUsable(const Connection& c) {
        char byte = 0;
        const ssize_t n = ::recv(c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }

    void assign(Pool& pool, const std::shared_ptr<Pending>& p) {
        while (!pool.idle.empty()) {
            std::shared_ptr<Connection> c = std::move(pool.idle.back());
            pool.idle.pop_back();
            if (loop.now() - c->idleSince < kPeekAfterIdle || stillUsable(*c)) {
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
        c->sent = 0;
        p->connection = c.get();
        p->started = SteadyClock::now();
    }

    void connect(Pool& pool, const std::shared_ptr<Pending>& p) {
        auto c = std::make_shared<Connection>(*this, pool);
        connections.emplace(c.get(), c);
        ++pool.open;
        ++pool.opened;
        pool.peakOpen = std::max(pool.peakOpen, pool.open);
        begin(c, p);
        if (!pool.addressOk)
            return failSoon(c, HttpFailure::Other, "'" + pool.hostHeader + "' is not an IPv4 address and port");
        c->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->fd < 0) return failSoon(c, classifyErrno(errno), std::string("socket: ") + std::strerror(errno));
        const int one = 1;
        ::setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->state = Connection::State::Connecting;
        const int done = ::connect(c->fd, reinterpret_cast<const sockaddr*>(&pool.address), sizeof pool.address);
        if (done != 0 && errno != EINPROGRESS && errno != EINTR)
            return failSoon(c, classifyErrno(errno), std::string("connect: ") + std::strerror(errno));
        try {
            c->watch = Loop::Watch(loop, c->fd, *c);
        } catch (const std::system_error& e) {
            return failSoon(c, HttpFailure::Other, e.what());
        }
        if (done == 0) return connected(c);
        // The loop reports the end of the connect (EPOLLOUT, or an error).
    }

    void connected(const std::shared_ptr<Connection>& c) {
        c->state = Connection::State::Writing;
        write(c);
    }

    // A failure found before the loop has run: reported from the loop, never from inside
    // request().
    void failSoon(const std::shared_ptr<Connection>& c, HttpFailure kind, std::string why) {
        loop.post([this, c, self = shared_from_this(), kind, why = std::move(why)] {
            if (!c->closed) fail(c, kind, why);
        });
    }

    // Writes what the socket takes of the request; the rest when the loop reports room. A
    // failure is reported from the loop, as request() promises.
    void write(const std::shared_ptr<Connection>& c) {
        c->state = Connection::State::Writing;
        const int error = sendWhatFits(c->fd, c->current->wire, c->sent);
        if (error == EAGAIN) return;
        if (error != 0) return failSoon(c, classifyErrno(error), std::string("write: ") + std::strerror(error));
        c->state = Connection::State::Reading;
        newParser(*c);
        // The answer cannot be here yet unless the loop already said so.
        if (c->readable || !c->buffer.empty()) read(c);
    }

    void newParser(Connection& c) const {
        c.parser.emplace();
        c.parser->eager(true);
        c.parser->limitBody(options.max_response_body);
        c.parser->header_limit(static_cast<std::uint32_t>(options.max_response_header));
    }

    // Parses what is buffered and reads what the socket holds, until the response is whole or
    // nothing more is there. An interim response (1xx, such as 100 Continue, but not 101
    // Switching Protocols, which ends the exchange) is skipped: the final one follows it on the
    // same connection (RFC 9110, 15.2).
    void read(const std::shared_ptr<Connection>& c) {
        error_code ec;
        int error = 0;
        // Room for a whole result page in one receive.
        switch (readMessage(c->fd, c->buffer, *c->parser, 16384, c->readable, c->peerClosed, ec, error)) {
            case ReadOutcome::Whole: {
                const int status = c->parser->response.status;
                if (status < 100 || status > 199 || status == 101) return answered(c);
                newParser(*c);
                return read(c);
            }
            case ReadOutcome::Refused: return fail(c, HttpFailure::Protocol, "read: " + ec.message());
            case ReadOutcome::Failed:
                return fail(c, classifyErrno(error), std::string("read: ") + std::strerror(error));
            case ReadOutcome::End:
                // The end of a response that runs to it; or the server hung up without a byte of
                // one (a reset); or a cut: a response begun and closed (a FIN, not an RST: that is
                // a read error above) before it was whole is a truncated, malformed one.
                if (!c->parser->got_some()) return fail(c, HttpFailure::Reset, "read: end of stream");
                c->parser->put_eof(ec);
                if (!ec && c->parser->is_done()) return answered(c);
                return fail(c, HttpFailure::Protocol,
                            "read: the response was cut short by the server's close (" +
                                (ec ? ec.message() : std::string("end of stream")) + ")");
            case ReadOutcome::Blocked: return;
        }
    }

    void onIo(const std::shared_ptr<Connection>& c, std::uint32_t events) {
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->readable = true;
        if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->peerClosed = true;
        switch (c->state) {
            case Connection::State::Connecting: {
                if (!(events & (EPOLLOUT | EPOLLHUP | EPOLLERR))) return;
                int error = 0;
                socklen_t length = sizeof error;
                if (::getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
                if (error != 0) return fail(c, classifyErrno(error), std::string("connect: ") + std::strerror(error));
                if (!(events & EPOLLOUT)) return;
                return connected(c);
            }
            case Connection::State::Writing:
                if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) write(c);
                return;
            case Connection::State::Reading: return read(c);
            case Connection::State::Idle:
                // Closed by the server, or bytes nobody asked for: not worth a request.
                if (!(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return;
                dropIdle(c);
                return;
        }
    }

    void dropIdle(const std::shared_ptr<Connection>& c) {
        auto& idle = c->pool->idle;
        if (const auto it = std::find(idle.begin(), idle.end(), c); it != idle.end()) idle.erase(it);
        close(*c);
    }

    void answered(const std::shared_ptr<Connection>& c) {
        std::shared_ptr<Pending> p = std::move(c->current);
        p->connection = nullptr;
        const bool keepAlive = c->parser->keepAlive();
        HttpResponse r = std::move(c->parser->response);
        c->parser.reset();
        Pool& pool = *c->pool;
        // Bytes after the response are bytes nobody asked for, and a connection the server has
        // closed (reported with the answer) has no next answer: neither is reused.
        if (keepAlive && p->keepAlive && c->buffer.empty() && !c->peerClosed) {
            c->state = Connection::State::Idle;
            c->idleSince = loop.now();
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
        c.watch.reset();
        if (c.fd >= 0) ::close(c.fd);
        c.fd = -1;
        --c.pool->open;
        connections.erase(&c);  // callers hold their own reference
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
            const std::shared_ptr<Connection> keep = c->shared_from_this();
            c->current.reset();
            p->connection = nullptr;
            close(*c);
        }
        pump(pool);
    }

    // After this nothing answers `p`: its id is forgotten (and with it its timeout).
    void forget(const std::shared_ptr<Pending>& p) {
        p->finished = true;
        pending.erase(p->id);
        if (pending.empty()) {
            deadlines.clear();
            timeouts.clear();
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
            p->connection = nullptr;
        }
        pending.clear();
        deadlines.clear();
        timeouts.clear();
        std::vector<std::shared_ptr<Connection>> open;
        for (const auto& [key, c] : connections) open.push_back(c);
        for (const auto& c : open) {
            c->current.reset();
            close(*c);
        }
        for (auto& pool : pools) {
            pool->idle.clear();
            pool->queue.clear();
            pool->waiting = 0;
        }
    }
};

void Connection::onIo(std::uint32_t events) {
    if (closed) return;
    const auto self = shared_from_this();
    owner->onIo(self, events);
}

HttpClient::HttpClient(Loop& loop, HttpClientOptions options) : impl_(std::make_shared<Impl>(loop, options)) {}

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
    const Pool* found = impl_->findPool(to);
    if (!found) return {};
    const Pool& pool = *found;
    return HttpPoolStats{pool.open, pool.idle.size(), pool.waiting, pool.peakOpen, pool.opened};
}

}  // namespace taillab::live
