// A small real HTTP/1.1 server for the live tests: 127.0.0.1, a port the system picks, its own
// io_context on its own thread. It answers each request after a configurable delay, can stall
// (hold every answer until a moment passes), can answer garbage, a truncated answer or hang up
// instead, and counts the connections it holds open at once. Beast stays in stall_server.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "live/address.h"

namespace taillab::test {

struct SeenRequest {
    std::string method;
    std::string target;
    std::string authorization;
    std::string request_id;
    std::string content_type;
    std::string body;
};

class StallServer {
  public:
    // Answer: 200 with the body (setBody). Garbage: bytes that are not HTTP. Truncated: a 200 whose
    // Content-Length (100) promises more than the body it sends (5 bytes) before closing (a FIN).
    // TruncatedThenReset: the same bytes, then 50 ms later a TCP reset (RST) instead of a close.
    // HangUp: closes at once.
    // AnswerThenClose: a whole keep-alive answer, and the connection closed right after it.
    // Oversized: a 200 whose Content-Length is 99,999,999,999, with its first bytes in the same
    // write as the head; the connection stays open. ContinueFirst: an interim "100 Continue" at
    // once, then the answer as Answer gives it.
    enum class Mode { Answer, Garbage, Truncated, TruncatedThenReset, HangUp, AnswerThenClose, Oversized, ContinueFirst };

    StallServer();
    ~StallServer();
    StallServer(const StallServer&) = delete;
    StallServer& operator=(const StallServer&) = delete;

    live::HostPort at() const;
    std::string url(const std::string& path = "/search/lite") const;

    void setDelay(std::chrono::microseconds delay);
    void setMode(Mode mode);
    // What a 200 carries (default {"results":[],"latency_ms":0}).
    void setBody(std::string body);
    // Every answer due before now + length waits until then.
    void stallFor(std::chrono::milliseconds length);

    std::size_t maxConcurrentConnections() const;
    std::size_t openConnections() const;
    std::uint64_t requests() const;
    std::uint64_t answered() const;  // answers (or garbage, or cut answers) wholly sent
    SeenRequest lastRequest() const;

    struct State;

  private:
    std::shared_ptr<State> state_;
};

// A port on 127.0.0.1 where nothing listens (bound by this process, never listening).
std::uint16_t closedPort();

}  // namespace taillab::test
