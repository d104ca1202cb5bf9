#include "live/gateway_server.h"

#include <algorithm>
#include <unordered_map>

#include "live/http_client.h"
#include "live/live_driver.h"
#include "live/loop_asio.h"

namespace taillab::live {
namespace {

// How an HTTP exchange that failed looks to the gateway.
gateway::CallFailure callFailure(HttpFailure f) {
    switch (f) {
        case HttpFailure::Timeout: return gateway::CallFailure::Timeout;
        case HttpFailure::Protocol: return gateway::CallFailure::BadPayload;
        case HttpFailure::None:
        case HttpFailure::Refused:
        case HttpFailure::Reset:
        case HttpFailure::Other: break;
    }
    return gateway::CallFailure::Reset;
}

struct CallKey {
    std::uint32_t slot, generation;
    bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
    std::size_t operator()(const CallKey& k) const { return (std::size_t{k.generation} << 32) ^ k.slot; }
};

}  // namespace

struct GatewayServer::Impl final : HttpHandler, LiveIo {
    Impl(Loop& l, const HostPort& listen, const GatewaySetup& setup, std::vector<Url> urls, std::uint64_t seed,
         HttpServerLimits limits)
        : loop(l), upstreams(std::move(urls)), client(ioContext(l)),
          driver(setup.config, seed, *this, setup.window), server(l, listen, *this, limits) {}

    // HttpHandler
    void handle(const ServerRequest& r, Responder responder) override {
        ++stats.requests;
        const std::uint64_t ticket = nextTicket++;
        responders.emplace(ticket, std::move(responder));
        HttpRequestParts parts;
        parts.method = r.method;
        parts.target = r.target;
        parts.authorization = r.header("Authorization").value_or("");
        parts.region = r.header("X-Region").value_or("");
        parts.request_id = r.header("X-Request-Id").value_or("");
        parts.content_type = r.header("Content-Type").value_or("");
        parts.body = r.body;
        driver.onHttp(ticket, parts, r.accepted);
        rearm();
    }

    // LiveIo
    Time now() const override { return loop.now(); }
    void reply(std::uint64_t ticket, HttpReply r) override {
        const auto it = responders.find(ticket);
        if (it == responders.end()) return;
        it->second.respond(std::move(r));  // does nothing if the client has gone
        responders.erase(it);
    }
    void callUpstream(gateway::CallId call, int engine, UpstreamRequest r, Duration timeout) override {
        ++stats.upstream_calls;
        const Url& url = upstreams[static_cast<std::size_t>(engine)];
        HttpRequest req;
        req.method = "POST";
        req.target = url.target;
        req.headers = std::move(r.headers);
        req.headers.emplace_back("Content-Type", "application/json");
        req.body = std::move(r.body);
        req.timeout = std::max(timeout, Duration{std::chrono::milliseconds(1)});
        const HttpClient::RequestId id = client.request(url.at, std::move(req), [this, call](HttpResponse&& res) {
            inFlight.erase(CallKey{call.slot, call.generation});
            UpstreamReply reply = res.ok() ? readUpstreamReply(res.status, res.body) : upstreamFailure(callFailure(res.failure));
            if (reply.failure != gateway::CallFailure::None) ++stats.upstream_failures;
            driver.onUpstream(call, std::move(reply));
            rearm();
        });
        inFlight[CallKey{call.slot, call.generation}] = id;
    }
    void cancelUpstream(gateway::CallId call) override {
        const auto it = inFlight.find(CallKey{call.slot, call.generation});
        if (it == inFlight.end()) return;
        client.cancel(it->second);
        inFlight.erase(it);
    }

    // One timer for the driver: at its next wake-up, re-armed after every input.
    void rearm() {
        const Time at = driver.nextWake();
        if (timer && armedAt == at) return;
        if (timer) loop.cancel(*timer);
        armedAt = at;
        timer = loop.runAfter(std::max(Duration{}, at - loop.now()), [this] {
            timer.reset();
            driver.onWake();
            rearm();
        });
    }

    Loop& loop;
    std::vector<Url> upstreams;
    HttpClient client;
    LiveDriver driver;
    HttpServer server;
    std::unordered_map<std::uint64_t, Responder> responders;
    std::unordered_map<CallKey, HttpClient::RequestId, CallKeyHash> inFlight;
    std::uint64_t nextTicket = 1;
    std::optional<Loop::TimerId> timer;
    Time armedAt{};
    GatewayServerStats stats;
};

GatewayServer::GatewayServer(Loop& loop, const HostPort& listen, const GatewaySetup& setup, std::vector<Url> upstreams,
                             std::uint64_t seed, HttpServerLimits limits)
    : loop_(loop) {
    if (upstreams.size() != setup.config.engines.size())
        throw std::invalid_argument("one upstream URL per engine is needed");
    loop_.invoke([&] { impl_ = std::make_unique<Impl>(loop, listen, setup, std::move(upstreams), seed, limits); });
}

GatewayServer::~GatewayServer() {
    stop();
    loop_.invoke([&] { impl_.reset(); });
}

HostPort GatewayServer::bound() const { return impl_->server.bound(); }

void GatewayServer::start() {
    impl_->server.start();
    loop_.invoke([&] { impl_->rearm(); });
}

void GatewayServer::stop() {
    impl_->server.stop();
    loop_.invoke([&] {
        if (impl_->timer) loop_.cancel(*impl_->timer);
        impl_->timer.reset();
    });
}

gateway::GatewaySnapshot GatewayServer::snapshot() {
    gateway::GatewaySnapshot s;
    loop_.invoke([&] { s = impl_->driver.snapshot(); });
    return s;
}

void GatewayServer::reconfigure(const gateway::GatewayConfig& config) {
    loop_.invoke([&] {
        impl_->driver.reconfigure(config);
        impl_->rearm();
    });
}

GatewayServerStats GatewayServer::stats() {
    GatewayServerStats s;
    loop_.invoke([&] { s = impl_->stats; });
    return s;
}

}  // namespace taillab::live
