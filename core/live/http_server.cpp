#include "live/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "live/ascii.h"
#include "live/http_wire.h"
#include "live/socket_io.h"

namespace taillab::live {

namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;

namespace {

class Session;

// Reads a request straight into a ServerRequest: Beast's parser without the field map that a
// request_parser builds (an allocation and a tree insertion per field) and onRead then copied
// field by field. What it keeps is what that copy kept: the method and target as sent, every
// field in order with its value trimmed as Beast stores it, and the body.
class RequestReader final : public http::basic_parser<true> {
public:
    ServerRequest request;
    // A head the parser takes but this server will not: what to answer (the parser stops there,
    // before any body).
    struct Refusal {
        int status;
        std::string_view error;
        std::string message;
    };
    std::optional<Refusal> refusal;

    // As Beast's message::keep_alive() (live/http_wire.h).
    bool keepAlive() const { return keepAliveOf(request.headers, version_); }
    bool http11() const { return version_ == 11; }

private:
    static std::string text(beast::string_view s) { return std::string(s.data(), s.size()); }

    void on_request_impl(http::verb, beast::string_view method, beast::string_view target, int version,
                         error_code& ec) override {
        request.method = text(method);
        request.target = text(target);
        request.headers.reserve(12);  // a request's usual few, without growing one by one
        version_ = version;
        ec = {};
    }
    void on_response_impl(int, beast::string_view, int, error_code& ec) override { ec = {}; }
    void on_field_impl(http::field field, beast::string_view name, beast::string_view value, error_code& ec) override {
        request.headers.emplace_back(text(name), std::string(trimSpaces(std::string_view(value.data(), value.size()))));
        if (field == http::field::host) ++hosts_;
        ec = {};
    }
    // What the server cannot read as meant: an HTTP/1.1 request without exactly one Host
    // (RFC 9112 3.2), a transfer coding other than chunked (501, RFC 9112 6.1: gzip under it
    // would be taken as the body), a content coding (415, RFC 9110 8.4.1: nothing here decodes it).
    void on_header_impl(error_code& ec) override {
        ec = {};
        const auto refuse = [&](int status, std::string_view error, std::string message) {
            refusal = Refusal{status, error, std::move(message)};
            ec = http::error::bad_field;
        };
        if (version_ == 11 && hosts_ != 1)
            return refuse(400, "bad_request", hosts_ == 0 ? "an HTTP/1.1 request must have a Host header"
                                                          : "a request may have one Host header, not " +
                                                                std::to_string(hosts_));
        for (const auto& [name, value] : request.headers) {
            if (equalsIgnoringCase(name, "Transfer-Encoding") && !equalsIgnoringCase(value, "chunked"))
                return refuse(501, "not_implemented",
                              "Transfer-Encoding '" + value + "' is not supported: only chunked");
            if (equalsIgnoringCase(name, "Content-Encoding") && !equalsIgnoringCase(value, "identity"))
                return refuse(415, "unsupported_media_type",
                              "Content-Encoding '" + value + "' is not supported: send the body as it is");
        }
    }
    // Beast's eager parser goes on into a body that came with the head even after on_header_impl
    // refused it (it loops back and clears the error): each later callback refuses again.
    bool stillRefused(error_code& ec) const {
        ec = refusal ? error_code(http::error::bad_field) : error_code{};
        return refusal.has_value();
    }
    // The parser has already held a declared length to the body limit.
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
        if (stillRefused(ec)) return;
        if (length) request.body.reserve(static_cast<std::size_t>(*length));
    }
    std::size_t on_body_impl(beast::string_view body, error_code& ec) override {
        if (stillRefused(ec)) return 0;
        request.body.append(body.data(), body.size());
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, beast::string_view, error_code& ec) override { stillRefused(ec); }
    std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, error_code& ec) override {
        return on_body_impl(body, ec);
    }
    void on_finish_impl(error_code& ec) override { stillRefused(ec); }

    int version_ = 11;
    int hosts_ = 0;
};

}  // namespace

struct Responder::Slot {
    std::weak_ptr<Session> session;
    std::function<void()> gone;
};

struct HttpServer::Impl final : std::enable_shared_from_this<HttpServer::Impl>, Loop::IoHandler {
    Impl(Loop& l, HttpHandler& h, HttpServerLimits lim) : loop(l), handler(h), limits(lim) {}
    ~Impl() {
        watch.reset();
        if (fd >= 0) ::close(fd);
    }
    Loop& loop;
    HttpHandler& handler;
    HttpServerLimits limits;
    int fd = -1;  // the listening socket
    Loop::Watch watch;
    std::optional<Loop::Timer> retry;  // accept again after running out of descriptors
    HostPort bound;
    bool stopped = false;
    bool draining = false;  // drain(): no new connection, no new request
    std::unordered_map<Session*, std::shared_ptr<Session>> sessions;
    // The connections with no request in progress (new ones and idle keep-alive ones), the one
    // idle longest first: at max_connections the first is closed to make room for a new one.
    // Linked through the sessions themselves, so that a keep-alive request costs no allocation.
    Session* idleFirst = nullptr;
    Session* idleLast = nullptr;

    void onIo(std::uint32_t) override { acceptAll(); }
    void acceptAll();
    void refuse(int client);
};

namespace {

// One connection: waits for a request's first byte (idle), reads the request (read timeout),
// hands it to the handler and waits for its Responder, writes the answer, and again. Registered
// with the loop once, edge-triggered: `readable_` remembers whether bytes (or the peer's close)
// may be waiting unread, so that nothing is read in vain and nothing is missed.
class Session final : public std::enable_shared_from_this<Session>, public Loop::IoHandler {
public:
    Session(HttpServer::Impl& server, int fd)
        : server_(server), fd_(fd), timer_(server.loop, [this] { timedOut(); }) {}
    ~Session() {
        if (fd_ >= 0) {
            watch_.reset();
            ::close(fd_);
        }
    }

    // Registers the connection and waits for its first request, which must be whole within the
    // read timeout from now: a connection that sends nothing is closed then (as nginx's
    // client_header_timeout), not held for the idle timeout.
    void open() {
        watch_ = Loop::Watch(server_.loop, fd_, *this);
        idle(server_.limits.read_timeout);
    }

    void onIo(std::uint32_t events) override {
        if (closed_) return;
        const auto self = shared_from_this();
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) readable_ = true;
        if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) peerClosed_ = true;
        switch (state_) {
            case State::Idle:
            case State::Reading: return readRequest();
            case State::Pending: return checkGone();
            case State::Writing:
                if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) return write();
                return;
        }
    }

    void answer(const std::shared_ptr<Responder::Slot>& slot, HttpReply reply) {
        if (!waiting(slot)) return;
        pending_.reset();
        send(std::move(reply), keepAlive_);
    }

    void abort(const std::shared_ptr<Responder::Slot>& slot, bool reset) {
        if (!waiting(slot)) return;
        slot->gone = nullptr;  // the handler ends it: nothing to tell it
        closeNow(reset);
    }

    // drain(): a connection with no request in progress closes (after reading what it already
    // holds: a request that came is answered 503); one with a request closes after its answer.
    void drain() {
        if (closed_) return;
        const auto self = shared_from_this();
        switch (state_) {
            case State::Idle:
                if (!buffer_.empty() || readable_) readRequest();
                if (!closed_ && state_ == State::Idle) closeNow(false);
                return;
            case State::Reading: return;  // answered 503 once read (or at the read timeout)
            case State::Pending: keepAlive_ = false; return;
            case State::Writing: sendKeepAlive_ = false; return;
        }
    }

    bool waiting(const std::shared_ptr<Responder::Slot>& slot) const {
        return !closed_ && pending_ && pending_ == slot;
    }

    void closeNow(bool reset) {
        if (closed_) return;
        closed_ = true;
        const auto self = shared_from_this();  // the server's map lets go of it below
        const auto unanswered = std::move(pending_);
        leaveIdle();
        timer_.clear();
        watch_.reset();
        if (reset) {
            const linger l{1, 0};
            ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        }
        ::close(fd_);
        fd_ = -1;
        server_.sessions.erase(this);
        if (unanswered && unanswered->gone) std::exchange(unanswered->gone, nullptr)();
    }

private:
    enum class State : std::uint8_t { Idle, Reading, Pending, Writing };

    // Waiting for a next request: an idle connection is closed silently after `timeout` (the
    // idle timeout for a keep-alive connection), or sooner to make room for a new one.
    void idle(Duration timeout) {
        setState(State::Idle);
        joinIdle();
        timer_.setAfter(timeout);
        if (!buffer_.empty() || readable_) readRequest();
    }

    void setState(State s) {
        if (s != State::Idle) leaveIdle();
        state_ = s;
    }
    void joinIdle() {
        if (inIdle_) return;
        inIdle_ = true;
        idlePrev_ = server_.idleLast;
        idleNext_ = nullptr;
        (idlePrev_ ? idlePrev_->idleNext_ : server_.idleFirst) = this;
        server_.idleLast = this;
    }
    void leaveIdle() {
        if (!inIdle_) return;
        inIdle_ = false;
        (idlePrev_ ? idlePrev_->idleNext_ : server_.idleFirst) = idleNext_;
        (idleNext_ ? idleNext_->idlePrev_ : server_.idleLast) = idlePrev_;
        idlePrev_ = idleNext_ = nullptr;
    }

    // The idle, the read or the write timeout has passed.
    void timedOut() {
        if (closed_) return;
        const auto self = shared_from_this();
        if (state_ == State::Reading) {
            server_.handler.refused(408);
            return send(jsonError(server_.loop, requestStart(), 408, "request_timeout",
                                  "the request was not received within the read timeout"),
                        false);
        }
        if (state_ == State::Idle) closeNow(false);
        if (state_ == State::Writing) closeNow(true);
    }

    // Parses what is buffered and reads what the socket holds until the request is whole (then
    // hands it over) or nothing more is there (then waits, under the read timeout).
    void readRequest() {
        if (!parser_) {
            parser_.emplace();
            parser_->eager(true);
            parser_->header_limit(static_cast<std::uint32_t>(server_.limits.max_header_bytes));
            parser_->body_limit(server_.limits.max_body_bytes);
        }
        error_code ec;
        int error = 0;
        // A request's latency runs from its first byte, as nginx's $request_time: bytes already
        // buffered (pipelined behind the request before) count from when this one's turn came.
        if (!started_ && !buffer_.empty()) started_ = server_.loop.now();
        const ReadOutcome outcome = readMessage(fd_, buffer_, *parser_, 4096, readable_, peerClosed_, ec, error);
        if (!started_ && (parser_->got_some() || !buffer_.empty())) started_ = server_.loop.now();
        switch (outcome) {
            case ReadOutcome::Whole: return onRequest();
            case ReadOutcome::Refused: return refuseRequest(ec);
            case ReadOutcome::Failed: return closeNow(false);  // a reset
            case ReadOutcome::End:
                // A keep-alive connection's end, or a request cut short (put_eof is for a parser
                // that has begun a message).
                if (!parser_->got_some()) return closeNow(false);
                parser_->put_eof(ec);
                if (ec) return refuseRequest(ec);
                return closeNow(false);
            case ReadOutcome::Blocked: break;
        }
        // A client that sent "Expect: 100-continue" waits for a go-ahead before its body
        // (RFC 9110 10.1.1): give it once the head is read, rather than let it wait out its own
        // timer (a second in curl).
        if (!continued_ && parser_->is_header_done() && !parser_->is_done() && parser_->http11()) {
            const auto expect = parser_->request.header("Expect");
            if (expect && equalsIgnoringCase(*expect, "100-continue")) {
                continued_ = true;
                std::size_t sent = 0;
                sendWhatFits(fd_, "HTTP/1.1 100 Continue\r\n\r\n", sent);  // into an empty socket
            }
        }
        // Incomplete: wait for the rest, under the read timeout from the first byte on (from
        // the accept for a connection's first request: its timer runs already).
        if (state_ == State::Idle && (parser_->got_some() || !buffer_.empty())) {
            if (!firstRequest_) timer_.setAfter(server_.limits.read_timeout);
            setState(State::Reading);
        } else if (state_ == State::Idle) {
            joinIdle();  // after a pipelined check that found nothing
        }
    }

    // A request the parser refused: 413 for a limit, the head's own refusal, else 400; the
    // connection closes after.
    void refuseRequest(const error_code& ec) {
        const Time now = requestStart();
        if (parser_->refusal) {
            const RequestReader::Refusal r = *parser_->refusal;
            server_.handler.refused(r.status);
            return send(jsonError(server_.loop, now, r.status, r.error, r.message), false);
        }
        if (ec == http::error::header_limit || ec == http::error::body_limit) {
            server_.handler.refused(413);
            const bool header = ec == http::error::header_limit;
            const std::size_t limit = header ? server_.limits.max_header_bytes : server_.limits.max_body_bytes;
            return send(jsonError(server_.loop, now, 413, "payload_too_large",
                                  std::string(header ? "the request's header block is over "
                                                     : "the request's body is over ") +
                                      std::to_string(limit) + " bytes"),
                        false);
        }
        server_.handler.refused(400);
        send(jsonError(server_.loop, now, 400, "bad_request", "malformed HTTP request: " + ec.message()), false);
    }

    void onRequest() {
        timer_.clear();
        keepAlive_ = parser_->keepAlive();
        http10_ = !parser_->http11();
        ServerRequest in = std::move(parser_->request);
        in.accepted = requestStart();
        started_.reset();
        continued_ = false;
        firstRequest_ = false;
        head_ = in.method == "HEAD";
        parser_.reset();
        if (server_.draining) {
            // The server is stopping: a request that comes now is refused, and its client told
            // when to try again (at a server that may be back by then).
            server_.handler.refused(503);
            HttpReply r = jsonError(server_.loop, in.accepted, 503, "shutting_down",
                                    "the server is stopping: send the request again shortly");
            r.headers.emplace_back("Retry-After", "1");
            return send(std::move(r), false);
        }
        setState(State::Pending);
        pending_ = std::make_shared<Responder::Slot>();
        pending_->session = weak_from_this();
        const std::shared_ptr<Responder::Slot> slot = pending_;
        server_.handler.handle(in, Responder(pending_));
        // A client that gave up while its request was being read is noticed now; one that gives
        // up later is reported by the loop (onIo), with nothing to arm per request.
        if (waiting(slot) && (peerClosed_ || readable_)) checkGone();
    }

    // While the handler holds a request, the socket turned readable: the client closed, or sent
    // its next request early (which waits for this answer).
    void checkGone() {
        if (!readable_ && !peerClosed_) return;
        char byte;
        const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK);
        if (n > 0) return;  // bytes of a next request: read after this answer
        if (n < 0 && errno == EINTR) return checkGone();
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            readable_ = false;
            return;
        }
        closeNow(false);
    }

    // When the request being answered began: its first byte's arrival (now, if none came).
    Time requestStart() const { return started_.value_or(server_.loop.now()); }

    void send(HttpReply reply, bool keepAlive) {
        // One string, reused by every answer on this connection (live/http_wire.h).
        writeResponseBytes(out_, reply, keepAlive);
        // HTTP/1.0 closes unless the answer says otherwise (RFC 9112 9.3, appendix C.2.2).
        if (keepAlive && http10_) out_.insert(out_.find("\r\n") + 2, "Connection: keep-alive\r\n");
        // The answer to HEAD is GET's head alone: its Content-Length says what GET would send.
        if (head_) out_.resize(out_.size() - reply.body.size());
        head_ = false;
        started_.reset();
        sent_ = 0;
        sendKeepAlive_ = keepAlive;
        setState(State::Writing);
        timer_.clear();
        write();
    }

    // Writes what the socket takes; the rest when the loop reports room, under the write timeout
    // from the first time the socket was full (most answers go at once and arm nothing).
    void write() {
        const int error = sendWhatFits(fd_, out_, sent_);
        if (error == EAGAIN) {
            if (!timer_.deadline()) timer_.setAfter(server_.limits.write_timeout);
            return;
        }
        if (error != 0) return closeNow(false);
        afterAnswer();
    }

    // The answer is out: the next request, or the end of the connection.
    void afterAnswer() {
        if (!sendKeepAlive_ || server_.draining) {
            ::shutdown(fd_, SHUT_WR);
            return closeNow(false);
        }
        // A next request already here (a pipelining client) is read from the loop, not from
        // here: answered inside the handler, it would come back to send() on this stack, and a
        // client with many requests queued could grow the stack without bound.
        if (!buffer_.empty() || readable_) {
            setState(State::Idle);  // not one to close for room: a request may be here
            timer_.setAfter(server_.limits.idle_timeout);
            server_.loop.post([self = shared_from_this()] {
                if (!self->closed_ && self->state_ == State::Idle) self->readRequest();
            });
            return;
        }
        idle(server_.limits.idle_timeout);
    }

    HttpServer::Impl& server_;
    int fd_;
    Loop::Watch watch_;
    Loop::Timer timer_;
    ReadBuffer buffer_;
    std::string out_;  // the answer being written
    std::size_t sent_ = 0;
    std::optional<RequestReader> parser_;
    std::shared_ptr<Responder::Slot> pending_;  // the request the handler holds
    State state_ = State::Idle;
    bool readable_ = true;     // bytes or an end may be waiting unread
    bool peerClosed_ = false;  // the loop reported the peer's end
    bool keepAlive_ = true;
    bool http10_ = false;  // the request being answered is HTTP/1.0
    bool head_ = false;             // the request being answered is a HEAD
    bool continued_ = false;        // "100 Continue" went out for the request being read
    std::optional<Time> started_;   // when the request being read or answered began
    bool sendKeepAlive_ = true;
    bool closed_ = false;
    bool firstRequest_ = true;  // no request read yet: the read timeout runs from the accept
    // In the server's idle list, between these two.
    bool inIdle_ = false;
    Session* idlePrev_ = nullptr;
    Session* idleNext_ = nullptr;
};

}  // namespace

void HttpServer::Impl::acceptAll() {
    while (!stopped && !draining) {
        const int client = ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            // Out of descriptors or memory, most likely: the connections stay queued, and
            // edge-triggered, nothing would report them again: try again shortly.
            if (!retry) retry.emplace(loop, [this] { acceptAll(); });
            retry->setAfter(std::chrono::milliseconds(10));
            return;
        }
        const int one = 1;
        ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // At the limit, a connection with no request in progress makes room (the one idle
        // longest, as nginx reuses an idle keep-alive connection); only busy ones refuse.
        if (static_cast<int>(sessions.size()) >= limits.max_connections && idleFirst) {
            const auto oldest = sessions.at(idleFirst);  // closing lets go of the map's own
            oldest->closeNow(false);
        }
        if (static_cast<int>(sessions.size()) >= limits.max_connections) {
            refuse(client);
            continue;
        }
        auto s = std::make_shared<Session>(*this, client);
        Session* key = s.get();
        sessions.emplace(key, s);
        try {
            s->open();
        } catch (const std::exception&) {
            s->closeNow(false);
        }
    }
}

void HttpServer::Impl::refuse(int client) {
    // A short answer into an empty send buffer: written at once, never blocking the loop.
    handler.refused(503);
    const HttpReply r = jsonError(loop, loop.now(), 503, "overloaded",
                                  "the server holds its maximum of " +
                                      std::to_string(limits.max_connections) + " connections");
    const std::string text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                             "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
                             std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
    [[maybe_unused]] const ssize_t n = ::send(client, text.data(), text.size(), MSG_NOSIGNAL);
    ::shutdown(client, SHUT_WR);
    ::close(client);
}

std::optional<std::string_view> ServerRequest::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (equalsIgnoringCase(k, name)) return std::string_view(v);
    return std::nullopt;
}

std::optional<std::string_view> ServerRequest::repeatedHeader(std::span<const std::string_view> names) const {
    for (const std::string_view name : names) {
        int seen = 0;
        for (const auto& [k, v] : headers)
            if (equalsIgnoringCase(k, name) && ++seen == 2) return name;
    }
    return std::nullopt;
}

void Responder::respond(HttpReply reply) {
    if (!slot_) return;
    if (const auto s = slot_->session.lock()) s->answer(slot_, std::move(reply));
}

void Responder::reset() {
    if (!slot_) return;
    if (const auto s = slot_->session.lock()) s->abort(slot_, true);
}

void Responder::close() {
    if (!slot_) return;
    if (const auto s = slot_->session.lock()) s->abort(slot_, false);
}

void Responder::onGone(std::function<void()> fn) {
    if (open()) slot_->gone = std::move(fn);
}

bool Responder::open() const {
    if (!slot_) return false;
    const auto s = slot_->session.lock();
    return s && s->waiting(slot_);
}

HttpServer::HttpServer(Loop& loop, const HostPort& listen, HttpHandler& handler, HttpServerLimits limits)
    : loop_(loop), impl_(std::make_shared<Impl>(loop, handler, limits)) {
    loop_.invoke([&] {
        sockaddr_in at;
        if (!socketAddress(listen, at))
            throw std::runtime_error("cannot listen on " + toString(listen) + ": not an IPv4 address");
        const auto fail = [&](int e) {
            throw std::runtime_error("cannot listen on " + toString(listen) + ": " + std::strerror(e));
        };
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) fail(errno);
        impl_->fd = fd;
        const int one = 1;
        if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) fail(errno);
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) fail(errno);
        if (::listen(fd, SOMAXCONN) != 0) fail(errno);
        sockaddr_in got{};
        socklen_t length = sizeof got;
        if (::getsockname(fd, reinterpret_cast<sockaddr*>(&got), &length) != 0) fail(errno);
        impl_->bound = HostPort{listen.host, ntohs(got.sin_port)};
    });
}

HttpServer::~HttpServer() {
    stop();
    // Its timers and watches belong to the loop's thread.
    loop_.invoke([&] { impl_.reset(); });
}

HostPort HttpServer::bound() const { return impl_->bound; }

void HttpServer::start() {
    loop_.invoke([&] {
        if (impl_->stopped || impl_->draining || impl_->watch) return;
        impl_->watch = Loop::Watch(impl_->loop, impl_->fd, *impl_);
        impl_->acceptAll();  // connections that came before the watch
    });
}

namespace {

// Stops listening: connections the system has queued and not yet handed over are refused.
void closeListener(HttpServer::Impl& impl) {
    impl.watch.reset();
    impl.retry.reset();
    if (impl.fd >= 0) ::close(impl.fd);
    impl.fd = -1;
}

std::vector<std::shared_ptr<Session>> openSessions(const HttpServer::Impl& impl) {
    std::vector<std::shared_ptr<Session>> open;
    open.reserve(impl.sessions.size());
    for (const auto& [key, s] : impl.sessions) open.push_back(s);
    return open;
}

}  // namespace

void HttpServer::drain() {
    loop_.invoke([&] {
        if (impl_->stopped || impl_->draining) return;
        impl_->draining = true;
        closeListener(*impl_);
        for (const auto& s : openSessions(*impl_)) s->drain();
    });
}

void HttpServer::stop() {
    loop_.invoke([&] {
        if (impl_->stopped) return;
        impl_->stopped = true;
        closeListener(*impl_);
        for (const auto& s : openSessions(*impl_)) s->closeNow(false);
    });
}

int HttpServer::connections() const { return static_cast<int>(impl_->sessions.size()); }

HttpReply jsonError(const Loop& loop, Time accepted, int status, std::string_view error,
                    std::string_view message) {
    return errorReply(status, error, message, loop.now() - accepted);
}

}  // namespace taillab::live
