#include "http_test_client.h"

#include <strings.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <limits>
#include <optional>

namespace taillab::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

std::optional<std::string> TestResponse::header(const std::string& name) const {
    for (const auto& [k, v] : headers)
        if (strcasecmp(k.c_str(), name.c_str()) == 0) return v;
    return std::nullopt;
}

struct TestConnection::Impl {
    asio::io_context io;
    tcp::socket socket{io};
    boost::beast::flat_buffer buffer;
    std::chrono::milliseconds timeout{};
};

TestConnection::TestConnection(const live::HostPort& at, std::chrono::milliseconds receiveTimeout)
    : impl_(std::make_unique<Impl>()) {
    impl_->socket.connect(tcp::endpoint(asio::ip::make_address_v4(at.host), at.port));
    impl_->timeout = receiveTimeout;
}

TestConnection::~TestConnection() = default;

void TestConnection::sendRaw(const std::string& bytes) { asio::write(impl_->socket, asio::buffer(bytes)); }

TestResult TestConnection::request(const std::string& method, const std::string& target, const std::string& body,
                                   const std::vector<std::pair<std::string, std::string>>& headers) {
    const auto start = std::chrono::steady_clock::now();
    http::request<http::string_body> req(http::string_to_verb(method), target, 11);
    req.set(http::field::host, "127.0.0.1");
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    req.keep_alive(true);
    req.prepare_payload();
    boost::system::error_code ec;
    http::write(impl_->socket, req, ec);
    TestResult r = readResponse();
    r.elapsed = std::chrono::steady_clock::now() - start;
    return r;
}

TestResult TestConnection::readResponse() { return read(false); }

TestResult TestConnection::readHeadResponse() { return read(true); }

TestResult TestConnection::read(bool head) {
    const auto start = std::chrono::steady_clock::now();
    TestResult r;
    http::response_parser<http::string_body> parser;
    // No limit, written as the largest one: Boost 1.74's header check compares the length with
    // the optional limit, and an empty optional is less than any length, so body_limit(none)
    // failed every answer whose head ended exactly where a read ended (the body read later).
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.skip(head);  // an answer to HEAD: its Content-Length describes a body not sent
    // Asio's blocking reads wait through SO_RCVTIMEO; an asynchronous read run for the timeout
    // and then cancelled gives up as a client would.
    std::optional<boost::system::error_code> done;
    http::async_read(impl_->socket, impl_->buffer, parser,
                     [&](const boost::system::error_code& e, std::size_t) { done = e; });
    impl_->io.restart();
    impl_->io.run_for(impl_->timeout);
    if (!done) {
        boost::system::error_code ignored;
        impl_->socket.cancel(ignored);
        impl_->io.restart();
        impl_->io.run();
    }
    const bool timedOut = !done || *done == asio::error::operation_aborted;
    const boost::system::error_code ec = timedOut ? asio::error::timed_out : *done;
    r.elapsed = std::chrono::steady_clock::now() - start;
    if (!ec) {
        const http::response<http::string_body>& res = parser.get();
        r.ending = Ending::Response;
        TestResponse out;
        out.status = static_cast<int>(res.result_int());
        for (const auto& f : res) out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        out.body = res.body();
        r.response = std::move(out);
        return r;
    }
    r.error = ec.message();
    if (ec == asio::error::connection_reset) {
        r.ending = Ending::Reset;
    } else if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == http::error::partial_message) {
        r.ending = Ending::Closed;
    } else if (ec == asio::error::would_block || ec == asio::error::try_again || ec == asio::error::timed_out) {
        r.ending = Ending::TimedOut;
    } else {
        r.ending = Ending::Error;
    }
    return r;
}

void TestConnection::close() {
    boost::system::error_code ignored;
    impl_->socket.close(ignored);
}

TestResult requestOnce(const live::HostPort& at, const std::string& method, const std::string& target,
                       const std::string& body, const std::vector<std::pair<std::string, std::string>>& headers) {
    TestConnection c(at);
    return c.request(method, target, body, headers);
}

}  // namespace taillab::test
