// The live gateway's driver, apart from sockets and timers: it owns the Gateway and is its Port.
// HTTP requests, upstream replies and wake-ups go in; HTTP replies, upstream requests and the
// time of the next wake-up come out, through LiveIo, which the socket layer implements (and a
// test can). Everything runs on one thread: the socket layer's event loop.
//
// Time is the driver's clock (LiveIo::now, since the driver started), so a stage's cost is what
// it really took: stageEnd answers with the clock, never with a model. Latency runs from the
// moment the server accepted the request, which the socket layer stamps.
//
// Re-entry: the gateway forbids inputs from inside its outputs. LiveIo implementations should
// not call back synchronously; when one does (an upstream call refused at once), the driver
// queues the input and delivers it after the current one returns.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gateway/config.h"
#include "gateway/flat_map.h"
#include "gateway/gateway.h"
#include "gateway/snapshot.h"
#include "knobs/knob.h"
#include "live/search_api.h"
#include "live/upstream_wire.h"

namespace taillab::live {

class LiveIo {
public:
    virtual ~LiveIo() = default;
    virtual Time now() const = 0;
    // Answer the client request `ticket` (each ticket is answered exactly once).
    virtual void reply(std::uint64_t ticket, HttpReply reply) = 0;
    // Send an upstream call to the engine with index `engine` (GatewayConfig::engines) and give
    // up after `timeout`; the answer comes back through LiveDriver::onUpstream with `call`.
    virtual void callUpstream(gateway::CallId call, int engine, UpstreamRequest request, Duration timeout) = 0;
    // The gateway no longer wants `call`'s answer (close its connection or let it finish).
    virtual void cancelUpstream(gateway::CallId call) = 0;
};

class LiveDriver final : private gateway::Port {
public:
    // `window`: the chart window for snapshots' per-window series.
    LiveDriver(const gateway::GatewayConfig& config, std::uint64_t seed, LiveIo& io, Duration window);
    ~LiveDriver() override;

    // Any HTTP request to the gateway's port: /search/lite, /search/fast, /metrics, /healthz.
    void onHttp(std::uint64_t ticket, const HttpRequestParts& request, Time accepted);
    void onUpstream(gateway::CallId call, UpstreamReply reply);
    // The time nextWake() named has come (or passed).
    void onWake();
    // When onWake next has work: a gateway timer or the end of the chart window.
    Time nextWake();

    // The first chart window opens at `at` (the server's start) and closes one window later.
    void openWindows(Time at);
    // Closes the open window now, shorter than the others, when anything ended in it: the end of
    // a run, whose last window would otherwise be lost. Later windows run from now.
    void closeLastWindow();

    // Answers every request still in the gateway now: 503 with Retry-After and `message`,
    // counted as failed (gateway::Gateway::endInFlight). A stop whose drain time is up.
    void endInFlight(std::string_view message);
    // Requests in the gateway still waiting for their answer.
    std::size_t inFlight() const { return gateway_.requestsInFlight(); }

    void reconfigure(const gateway::GatewayConfig& config);
    // A request the HTTP layer answered itself (HttpHandler::refused), counted on /metrics.
    void countRefused(int status) { ++refused_[status]; }
    void addMark(gateway::TimelineMark mark);
    // The knobs in force, shown on /metrics (the caller says so after each change).
    void setKnobs(const Params& knobs) { knobs_ = knobs; }
    gateway::GatewaySnapshot snapshot();
    std::uint64_t requests() const { return requests_; }

private:
    Time stageEnd(Time start, const gateway::StageWork& work) override;
    void startCall(const gateway::UpstreamCall& call) override;
    void cancelCall(gateway::CallId call) override;
    void respond(const gateway::Response& response) override;

    void drainQueued();

    LiveIo& io_;
    gateway::Gateway gateway_;
    Duration window_;
    Time windowEnd_;
    bool inInput_ = false;
    std::optional<std::uint64_t> currentTicket_;  // the request inside onRequest
    std::uint64_t currentTrace_ = 0;
    gateway::FlatMap<std::uint64_t> tickets_;  // by RequestId::key(): requests still in the gateway
    std::deque<std::pair<gateway::CallId, UpstreamReply>> queued_;
    std::uint64_t nextTrace_ = 1ULL << 63;  // ids of requests that came without X-Request-Id
    std::uint64_t requests_ = 0;
    std::map<int, std::uint64_t> refused_;  // answered before the gateway, by status
    std::optional<Params> knobs_;  // for /metrics, once setKnobs is called
};

}  // namespace taillab::live
