#include "stall_server.h"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <mutex>
#include <optional>
#include <thread>

namespace taillab::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct StallServer::State {
    // Held by pointer so that ~StallServer can destroy it (and the sessions its handlers own)
    // while the counters below still exist.
    std::unique_ptr<asio::io_context> ioHolder = std::make_unique<asio::io_context>();
    asio::io_context& io = *ioHolder;
    std::optional<tcp::acceptor> acceptor{std::in_place, io};
    std::thread thread;
    std::uint16_t port = 0;
    std::atomic<std::int64_t> delayUs{0};
    std::atomic<Clock::rep> stallUntil{0};
    std::atomic<int> mode{static_cast<int>(Mode::Answer)};
    std::atomic<std::size_t> open{0};
    std::atomic<std::size_t> maxOpen{0};
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> answered{0};  // answers wholly written (and closed, if they close)
    mutable std::mutex mutex;
    SeenRequest last;
    std::string body = R"({"results":[],"latency_ms":0})";

    void accept();
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
  public:
    Session(tcp::socket socket, StallServer::State& state)
        : socket_(std::move(socket)), timer_(socket_.get_executor()), state_(state) {
        const std::size_t now = ++state_.open;
        std::size_t seen = state_.maxOpen.load();
        while (now > seen && !state_.maxOpen.compare_exchange_weak(seen, now)) {
        }
    }
    ~Session() { --state_.open; }

    void read() {
        request_ = {};
        http::async_read(socket_, buffer_, request_, [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
            if (!ec) self->received();
        });
    }

  private:
    void received() {
        ++state_.requests;
        {
            std::lock_guard lock(state_.mutex);
            state_.last = SeenRequest{std::string(request_.method_string()), std::string(request_.target()),
                                      std::string(request_[http::field::authorization]),
                                      std::string(request_["X-Request-Id"]),
                                      std::string(request_[http::field::content_type]), request_.body()};
        }
        const auto mode = static_cast<StallServer::Mode>(state_.mode.load());
        if (mode == StallServer::Mode::HangUp) {
            boost::system::error_code ignored;
            socket_.close(ignored);
            return;
        }
        Clock::time_point due = Clock::now() + std::chrono::microseconds(state_.delayUs.load());
        due = std::max(due, Clock::time_point(Clock::duration(state_.stallUntil.load())));
        if (mode == StallServer::Mode::ContinueFirst) {
            static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
            asio::async_write(socket_, asio::buffer(kContinue),
                              [self = shared_from_this(), due](boost::system::error_code ec, std::size_t) {
                                  if (!ec) self->answerAt(due, StallServer::Mode::Answer);
                              });
            return;
        }
        answerAt(due, mode);
    }

    void answerAt(Clock::time_point due, StallServer::Mode mode) {
        timer_.expires_at(due);
        timer_.async_wait([self = shared_from_this(), mode](boost::system::error_code ec) {
            if (ec) return;
            if (mode == StallServer::Mode::Garbage) return self->garbage();
            if (mode == StallServer::Mode::Truncated) return self->truncated(false);
            if (mode == StallServer::Mode::TruncatedThenReset) return self->truncated(true);
            if (mode == StallServer::Mode::Oversized) return self->oversized();
            self->answer(mode == StallServer::Mode::AnswerThenClose);
        });
    }

    void answer(bool thenClose = false) {
        response_ = {};
        response_.result(http::status::ok);
        response_.version(11);
        response_.set(http::field::content_type, "application/json");
        response_.set("X-RateLimit-Remaining", "41");
        response_.set(http::field::retry_after, "2");
        {
            std::lock_guard lock(state_.mutex);
            response_.body() = state_.body;
        }
        response_.keep_alive(request_.keep_alive());
        response_.prepare_payload();
        http::async_write(socket_, response_, [self = shared_from_this(), thenClose](boost::system::error_code ec, std::size_t) {
            if (thenClose) {
                boost::system::error_code ignored;
                self->socket_.shutdown(tcp::socket::shutdown_both, ignored);
                self->socket_.close(ignored);
                ++self->state_.answered;
                return;
            }
            ++self->state_.answered;
            if (!ec && self->response_.keep_alive()) self->read();
        });
    }

    void garbage() {
        static const std::string kGarbage = "this is not HTTP\r\n\r\n";
        asio::async_write(socket_, asio::buffer(kGarbage),
                          [self = shared_from_this()](boost::system::error_code, std::size_t) { ++self->state_.answered; });
    }

    // 5 bytes of the 100 promised, then a close (a FIN) or, once they have had time to arrive, a
    // reset (SO_LINGER 0: an RST, the client reads ECONNRESET).
    void truncated(bool reset) {
        static const std::string kTruncated =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pag";
        asio::async_write(socket_, asio::buffer(kTruncated), [self = shared_from_this(), reset](boost::system::error_code, std::size_t) {
            if (!reset) {
                boost::system::error_code ignored;
                self->socket_.shutdown(tcp::socket::shutdown_both, ignored);
                self->socket_.close(ignored);
                ++self->state_.answered;
                return;
            }
            self->timer_.expires_after(std::chrono::milliseconds(50));
            self->timer_.async_wait([self](boost::system::error_code) {
                boost::system::error_code ignored;
                self->socket_.set_option(asio::socket_base::linger(true, 0), ignored);
                self->socket_.close(ignored);
                ++self->state_.answered;
            });
        });
    }

    void oversized() {
        static const std::string kOversized =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n"
            R"({"page": "results", "results": [)";
        asio::async_write(socket_, asio::buffer(kOversized),
                          [self = shared_from_this()](boost::system::error_code, std::size_t) { ++self->state_.answered; });
    }

    tcp::socket socket_;
    asio::steady_timer timer_;
    StallServer::State& state_;
    boost::beast::flat_buffer buffer_;
    http::request<http::string_body> request_;
    http::response<http::string_body> response_;
};

}  // namespace

void StallServer::State::accept() {
    acceptor->async_accept([this](boost::system::error_code ec, tcp::socket socket) {
        if (ec) return;
        socket.set_option(tcp::no_delay(true), ec);
        std::make_shared<Session>(std::move(socket), *this)->read();
        accept();
    });
}

StallServer::StallServer() : state_(std::make_shared<State>()) {
    const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
    state_->acceptor->open(endpoint.protocol());
    state_->acceptor->set_option(tcp::acceptor::reuse_address(true));
    state_->acceptor->bind(endpoint);
    state_->acceptor->listen(asio::socket_base::max_listen_connections);
    state_->port = state_->acceptor->local_endpoint().port();
    state_->accept();
    state_->thread = std::thread([s = state_.get()] { s->io.run(); });
}

StallServer::~StallServer() {
    state_->io.stop();
    state_->thread.join();
    state_->acceptor.reset();
    state_->ioHolder.reset();
}

live::HostPort StallServer::at() const { return {"127.0.0.1", state_->port}; }

std::string StallServer::url(const std::string& path) const { return "http://" + live::toString(at()) + path; }

void StallServer::setDelay(std::chrono::microseconds delay) { state_->delayUs = delay.count(); }

void StallServer::setMode(Mode mode) { state_->mode = static_cast<int>(mode); }

void StallServer::setBody(std::string body) {
    std::lock_guard lock(state_->mutex);
    state_->body = std::move(body);
}

void StallServer::stallFor(std::chrono::milliseconds length) {
    state_->stallUntil = (Clock::now() + length).time_since_epoch().count();
}

std::size_t StallServer::maxConcurrentConnections() const { return state_->maxOpen.load(); }
std::size_t StallServer::openConnections() const { return state_->open.load(); }
std::uint64_t StallServer::requests() const { return state_->requests.load(); }

std::uint64_t StallServer::answered() const { return state_->answered.load(); }

SeenRequest StallServer::lastRequest() const {
    std::lock_guard lock(state_->mutex);
    return state_->last;
}

std::uint16_t closedPort() {
    // Bound for the whole process and never listening: a connection is refused, and no other
    // process (a parallel test) can take the port in between, as it could once it was released.
    static asio::io_context io;
    static tcp::acceptor bound = [] {
        tcp::acceptor a(io);
        a.open(tcp::v4());
        a.bind(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), 0));
        return a;
    }();
    return bound.local_endpoint().port();
}

}  // namespace taillab::test
