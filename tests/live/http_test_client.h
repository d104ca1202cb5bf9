// A minimal synchronous HTTP/1.1 client for live mode's tests: one blocking connection, a receive
// timeout, and what happened to each request (a response, a reset, a close without a response, a
// timeout). Beast stays in http_test_client.cpp so the test files compile fast.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "live/address.h"

namespace taillab::test {

struct TestResponse {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::optional<std::string> header(const std::string& name) const;
};

enum class Ending { Response, Reset, Closed, TimedOut, Error };

struct TestResult {
    Ending ending = Ending::Error;
    std::optional<TestResponse> response;
    std::string error;  // the socket error's text when there was no response
    std::chrono::steady_clock::duration elapsed{};
};

class TestConnection {
public:
    explicit TestConnection(const live::HostPort& at,
                            std::chrono::milliseconds receiveTimeout = std::chrono::seconds(10));
    ~TestConnection();

    // Sends a request (Content-Type: application/json when there is a body) and reads the answer.
    TestResult request(const std::string& method, const std::string& target, const std::string& body = "",
                       const std::vector<std::pair<std::string, std::string>>& headers = {});
    // Writes bytes as they are; then readResponse() reads what comes back.
    void sendRaw(const std::string& bytes);
    TestResult readResponse();
    // The same for an answer to HEAD: a head alone, whatever its Content-Length says.
    TestResult readHeadResponse();
    // Closes this side.
    void close();

private:
    TestResult read(bool head);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One request on a fresh connection.
TestResult requestOnce(const live::HostPort& at, const std::string& method, const std::string& target,
                       const std::string& body = "",
                       const std::vector<std::pair<std::string, std::string>>& headers = {});

}  // namespace taillab::test
