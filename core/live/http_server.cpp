#include "live/http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "live/ascii.h"
#include "live/http_wire.h"
#include "live/lazy_timer.h"
#include "live/loop_asio.h"

namespace taillab::live {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

asio::steady_timer::duration asioDuration(Duration d) {
    return std::chrono::duration_cast<asio::steady_timer::duration>(d);
}

bool isHttpError(const error_code& ec) {
    return &ec.category() == &http::make_error_code(http::error::bad_method).category();
}

class Session;

// Reads a request straight into a ServerRequest: Beast's parser without the field map that a
// request_parser builds (an allocation and a tree insertion per field) and onRead then copied
// field by field. What it keeps is what that copy kept: the method and target as sent, every
// field in order with its value trimmed as Beast stores it, and the body.
class RequestReader final : public http::basic_parser<true> {
public:
    ServerRequest request;

    // As Beast's message::keep_alive() (live/http_wire.h).
    bool keepAlive() const { return keepAliveOf(request.headers, version_); }

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
    void on_field_impl(http::field, beast::string_view name, beast::string_view value, error_code& ec) override {
        request.headers.emplace_back(text(name), std::string(trimSpaces(std::string_view(value.data(), value.size()))));
        ec = {};
    }
    void on_header_impl(error_code& ec) override { ec = {}; }
    // The parser has already held a declared length to the body limit.
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
        if (length) request.body.reserve(static_cast<std::size_t>(*length));
        ec = {};
    }
    std::size_t on_body_impl(beast::string_view body, error_code& ec) override {
        request.body.append(body.data(), body.size());
        ec = {};
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, beast::string_view, error_code& ec) override { ec = {}; }
    std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, error_code& ec) override {
        return on_body_impl(body, ec);
    }
    void on_finish_impl(error_code& ec) override { ec = {}; }

    int version_ = 11;
};

}  // namespace

struct Responder::Slot {
    std::weak_ptr<Session> session;
    std::function<void()> gone;
};

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
    Impl(Loop& l, HttpHandler& h, HttpServerLimits lim)
        : loop(l), handler(h), limits(lim), acceptor(ioContext(l)) {}
    Loop& loop;
    HttpHandler& handler;
    HttpServerLimits limits;
    tcp::acceptor acceptor;
    HostPort bound;
    bool stopped = false;
    std::unordered_set<Session*> sessions;

    void accept();
    void refuse(tcp::socket& socket);
};

namespace {

// One connection: waits for a request's first byte (idle), reads the request (read timeout),
// hands it to the handler and waits for its Responder, writes the answer, and again.
class Session : public std::enable_shared_from_this<Session> {
public:
    Session(std::shared_ptr<HttpServer::Impl> server, tcp::socket socket)
        : server_(std::move(server)),
          socket_(std::move(socket)),
          timer_(ioContext(server_->loop), [this] { timedOut(); }) {
        server_->sessions.insert(this);
        // Beast reads at most the buffer's free capacity at a time (512 bytes when it starts
        // empty): room for a typical request reads it in one receive.
        buffer_.reserve(4096);
        // readRequest() reads synchronously what is already there: without this, Asio would
        // block (poll) for the rest of a request that came in parts.
        error_code ignored;
        socket_.non_blocking(true, ignored);
    }
    ~Session() { server_->sessions.erase(this); }

    void awaitRequest() {
        // Bytes of a request sent before the last answer was written are already here.
        if (buffer_.size() > 0) return readRequest();
        arm(server_->limits.idle_timeout);
        waitReadable();
    }

    void answer(const std::shared_ptr<Responder::Slot>& slot, HttpReply reply) {
        if (!waiting(slot)) return;
        pending_.reset();  // a readable socket from here on means the next request
        send(std::move(reply), keepAlive_);
    }

    void abort(const std::shared_ptr<Responder::Slot>& slot, bool reset) {
        if (!waiting(slot)) return;
        slot->gone = nullptr;  // the handler ends it: nothing to tell it
        closeNow(reset);
    }

    bool waiting(const std::shared_ptr<Responder::Slot>& slot) const {
        return !closed_ && pending_ && pending_ == slot;
    }

    void closeNow(bool reset) {
        if (closed_) return;
        closed_ = true;
        const auto unanswered = std::move(pending_);
        timer_.cancel();
        error_code ignored;
        if (reset) socket_.set_option(asio::socket_base::linger(true, 0), ignored);
        socket_.close(ignored);
        if (unanswered && unanswered->gone) std::exchange(unanswered->gone, nullptr)();
    }

private:
    // The idle or read timeout, ended by onRead (clear()) on nearly every request: lazily, so
    // that ending it posts nothing to the loop (live/lazy_timer.h).
    void arm(Duration d) {
        timedOut_ = false;
        timer_.expireAfter(asioDuration(d));
    }
    // From the timer, only while the session is whole (~LazyTimer stops the callback first):
    // the read or wait in progress ends with an error, and onRead or waitReadable's handler
    // tells the client why.
    void timedOut() {
        if (closed_) return;
        timedOut_ = true;
        error_code ignored;
        socket_.cancel(ignored);
    }

    void readRequest() {
        parser_.emplace();
        parser_->header_limit(static_cast<std::uint32_t>(server_->limits.max_header_bytes));
        parser_->body_limit(server_->limits.max_body_bytes);
        // The socket is readable (a wait said so) or a request is already buffered, and most
        // requests arrive whole: read and parse what is there now, on this turn of the loop. An
        // asynchronous read would post its completion and take one more pass through epoll
        // before the handler runs, on every request's critical path. Only a request still
        // incomplete (would_block: the parser and buffer keep what came) goes asynchronous,
        // under the read timeout.
        error_code now;
        http::read(socket_, buffer_, *parser_, now);
        if (now != asio::error::would_block) return onRead(now);
        arm(server_->limits.read_timeout);
        http::async_read(socket_, buffer_, *parser_,
                         [self = shared_from_this()](const error_code& ec, std::size_t) { self->onRead(ec); });
    }

    void onRead(const error_code& ec) {
        timer_.clear();
        if (closed_) return;
        const Time now = server_->loop.now();
        if (ec) {
            const bool started = parser_->got_some() || buffer_.size() > 0;
            if (timedOut_ && started) {
                server_->handler.refused(408);
                return send(jsonError(server_->loop, now, 408, "request_timeout",
                                      "the request was not received within the read timeout"),
                            false);
            }
            if (ec == http::error::header_limit) {
                server_->handler.refused(413);
                return send(jsonError(server_->loop, now, 413, "payload_too_large",
                                      "the request's header block is over " +
                                          std::to_string(server_->limits.max_header_bytes) + " bytes"),
                            false);
            }
            if (ec == http::error::body_limit) {
                server_->handler.refused(413);
                return send(jsonError(server_->loop, now, 413, "payload_too_large",
                                      "the request's body is over " +
                                          std::to_string(server_->limits.max_body_bytes) + " bytes"),
                            false);
            }
            // The end of a keep-alive connection, a reset, or a timeout before any byte.
            if (ec == http::error::end_of_stream || !isHttpError(ec)) return closeNow(false);
            server_->handler.refused(400);
            return send(jsonError(server_->loop, now, 400, "bad_request",
                                  "malformed HTTP request: " + ec.message()),
                        false);
        }
        keepAlive_ = parser_->keepAlive();
        ServerRequest in = std::move(parser_->request);
        in.accepted = now;
        parser_.reset();
        pending_ = std::make_shared<Responder::Slot>();
        pending_->session = weak_from_this();
        const std::shared_ptr<Responder::Slot> slot = pending_;
        server_->handler.handle(in, Responder(pending_));
        // While the handler holds the request, a client that gives up closes its end: notice it
        // then, not when the answer (maybe never) comes. Watched from here, after the handler
        // has started the request's upstream work: the wait's registration (an epoll_ctl) stays
        // off the request's critical path, and a request answered inside handle() needs none.
        if (waiting(slot)) waitReadable();
    }

    // One wait for the socket to become readable, whatever it will mean: while the handler holds
    // a request, that the client closed (or sent its next request early); while idle, that a
    // request is coming. One outstanding wait serves both, so a request answered while its watch
    // is pending does not leave a stale wait to complete beside the next request's.
    void waitReadable() {
        if (waitingRead_) return;
        waitingRead_ = true;
        socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](const error_code& ec) {
            self->waitingRead_ = false;
            if (self->closed_) return;
            if (self->pending_) {
                if (ec) return;
                char byte;
                error_code peek;
                const std::size_t n =
                    self->socket_.receive(asio::buffer(&byte, 1), tcp::socket::message_peek, peek);
                // Nothing after all (the socket is non-blocking): wait on. Bytes of a next
                // request wait for this answer (awaitRequest waits again and finds them); an end
                // of stream or an error ends it.
                if (peek == asio::error::would_block) return self->waitReadable();
                if (n == 0 || peek) self->closeNow(false);
                return;
            }
            if (ec) return self->closeNow(false);  // idle too long, or the server stops
            self->readRequest();
        });
    }

    void send(HttpReply reply, bool keepAlive) {
        // One string, reused by every answer on this connection: no Beast field map to build and
        // one buffer to write (live/http_wire.h).
        writeResponseBytes(out_, reply, keepAlive);
        // An answer that fits the socket's send buffer (nearly all) is written now: no completion
        // to post, so no extra turn through epoll (a syscall) per request. The rest goes
        // asynchronously.
        error_code now;
        const std::size_t sent = socket_.write_some(asio::buffer(out_), now);
        if (now && now != asio::error::would_block) return closeNow(false);
        if (sent == out_.size()) return afterAnswer(keepAlive);
        asio::async_write(
            socket_, asio::buffer(out_) + sent,
            [self = shared_from_this(), keepAlive](const error_code& ec, std::size_t) {
                if (self->closed_) return;
                if (ec) return self->closeNow(false);
                self->afterAnswer(keepAlive);
            });
    }

    // The answer is out: the next request, or the end of the connection.
    void afterAnswer(bool keepAlive) {
        if (!keepAlive) {
            error_code ignored;
            socket_.shutdown(tcp::socket::shutdown_send, ignored);
            return closeNow(false);
        }
        // A next request already buffered (a pipelining client) is read from the loop, not from
        // here: answered inside the handler, it would come back to send() on this stack, and a
        // client with many requests queued could grow the stack without bound.
        if (buffer_.size() > 0) {
            asio::post(socket_.get_executor(), [self = shared_from_this()] {
                if (!self->closed_) self->awaitRequest();
            });
            return;
        }
        awaitRequest();
    }

    std::shared_ptr<HttpServer::Impl> server_;
    tcp::socket socket_;
    LazyTimer timer_;
    beast::flat_buffer buffer_;
    std::string out_;  // the answer being written
    std::optional<RequestReader> parser_;
    std::shared_ptr<Responder::Slot> pending_;  // the request the handler holds
    bool waitingRead_ = false;                   // an async_wait(wait_read) is outstanding
    bool keepAlive_ = true;
    bool timedOut_ = false;
    bool closed_ = false;
};

}  // namespace

void HttpServer::Impl::accept() {
    acceptor.async_accept([self = shared_from_this()](const error_code& ec, tcp::socket socket) {
        if (self->stopped) return;
        if (ec) {
            // Out of descriptors, most likely: try again shortly rather than spin.
            self->loop.runAfter(std::chrono::milliseconds(10), [self] {
                if (!self->stopped) self->accept();
            });
            return;
        }
        error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        if (static_cast<int>(self->sessions.size()) >= self->limits.max_connections) {
            self->refuse(socket);
        } else {
            std::make_shared<Session>(self, std::move(socket))->awaitRequest();
        }
        self->accept();
    });
}

void HttpServer::Impl::refuse(tcp::socket& socket) {
    // A short answer into an empty send buffer: written at once, never blocking the loop.
    handler.refused(503);
    const HttpReply r = jsonError(loop, loop.now(), 503, "overloaded",
                                  "the server holds its maximum of " +
                                      std::to_string(limits.max_connections) + " connections");
    const std::string text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                             "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
                             std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
    error_code ignored;
    asio::write(socket, asio::buffer(text), ignored);
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
}

std::optional<std::string_view> ServerRequest::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (equalsIgnoringCase(k, name)) return std::string_view(v);
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
        error_code ec;
        const auto address = asio::ip::make_address_v4(listen.host == "localhost" ? "127.0.0.1" : listen.host, ec);
        if (ec) throw std::runtime_error("cannot listen on " + toString(listen) + ": not an IPv4 address");
        const tcp::endpoint at(address, listen.port);
        auto& a = impl_->acceptor;
        a.open(at.protocol(), ec);
        if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) a.bind(at, ec);
        if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
        if (ec) throw std::runtime_error("cannot listen on " + toString(listen) + ": " + ec.message());
        impl_->bound = HostPort{listen.host, a.local_endpoint().port()};
    });
}

HttpServer::~HttpServer() { stop(); }

HostPort HttpServer::bound() const { return impl_->bound; }

void HttpServer::start() {
    loop_.invoke([&] { impl_->accept(); });
}

void HttpServer::stop() {
    loop_.invoke([&] {
        if (impl_->stopped) return;
        impl_->stopped = true;
        error_code ignored;
        impl_->acceptor.close(ignored);
        std::vector<std::shared_ptr<Session>> open;
        for (Session* s : impl_->sessions) open.push_back(s->shared_from_this());
        for (const auto& s : open) s->closeNow(false);
    });
}

int HttpServer::connections() const { return static_cast<int>(impl_->sessions.size()); }

HttpReply jsonError(const Loop& loop, Time accepted, int status, std::string_view error,
                    std::string_view message) {
    return errorReply(status, error, message, loop.now() - accepted);
}

}  // namespace taillab::live
