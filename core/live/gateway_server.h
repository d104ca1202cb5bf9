// The live gateway: LiveDriver on real sockets. An HttpServer takes client requests, an
// HttpClient calls the upstream engines (keep-alive pools, no connection cap), and one Loop
// timer wakes the driver when the gateway's earliest timer (a hedge, a deadline, a coalescing
// detach) or the end of a chart window comes. Everything runs on the Loop's one thread.
#pragma once

#include <memory>
#include <vector>

#include "gateway/snapshot.h"
#include "live/address.h"
#include "live/http_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"

namespace taillab::live {

struct GatewayServerStats {
    std::uint64_t requests = 0;        // HTTP requests handled (every path)
    std::uint64_t upstream_calls = 0;  // sent
    std::uint64_t upstream_failures = 0;  // refused, reset, timed out or unparseable
};

class GatewayServer {
public:
    // Binds at once (throws std::runtime_error naming the address when it cannot); serves once
    // start() is called. `upstreams`: one URL per engine of setup.config, in engine order.
    GatewayServer(Loop& loop, const HostPort& listen, const GatewaySetup& setup, std::vector<Url> upstreams,
                  std::uint64_t seed, HttpServerLimits limits = {});
    ~GatewayServer();
    GatewayServer(const GatewayServer&) = delete;
    GatewayServer& operator=(const GatewayServer&) = delete;

    HostPort bound() const;
    void start();
    void stop();

    // Any thread (they run on the loop).
    gateway::GatewaySnapshot snapshot();
    void reconfigure(const gateway::GatewayConfig& config);
    GatewayServerStats stats();

    struct Impl;

private:
    Loop& loop_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
