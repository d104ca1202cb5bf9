// The live gateway: LiveDriver on real sockets. An HttpServer takes client requests, an
// HttpClient calls the upstream engines (keep-alive pools, no connection cap), and one Loop
// timer wakes the driver when the gateway's earliest timer (a hedge, a deadline, a coalescing
// detach) or the end of a chart window comes. Everything runs on the Loop's one thread.
//
// The setup's timeline runs from start(): its knob changes apply at their times (all of them are
// checked in the constructor, before the gateway listens), and its faults are marked on the
// snapshot's timeline over their spans, as the simulation marks them (the fleet applies them).
#pragma once

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "gateway/snapshot.h"
#include "live/address.h"
#include "live/http_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"
#include "scenario/timeline.h"

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

    // The longest stop() waits for the searches in flight, unless told otherwise.
    static constexpr Duration kDefaultDrain = std::chrono::seconds(5);

    HostPort bound() const;
    void start();
    // Stops serving, gracefully. At once, no new connection or request is taken (one that comes
    // on an open connection is answered 503 with Retry-After) and the timeline stops; the
    // searches in flight go on and are answered as they end, within their deadline, for at most
    // `drain`. Those still in flight then are answered 503 with Retry-After, counted as failed.
    // So every search the gateway accepted gets a status and is counted (accepted = answered +
    // rejected + failed, none in flight), and the stop is bounded whatever the upstreams do. Then
    // every connection closes, and the snapshot's last chart window closes now (shorter than the
    // others) when anything ended in it. Idempotent; not from the loop's thread. With the loop
    // not running (nothing could end), it does not wait.
    void stop(Duration drain = kDefaultDrain);

    // Serves the admin requests (PROTOCOL.md, "Gateway admin") from start(): POST /admin/knobs
    // changes knobs as applyParams does, GET /admin/state shows them. Off unless asked for, since
    // whoever reaches the port could retune the gateway. Before start().
    void enableAdmin();

    // Any thread (they run on the loop).
    gateway::GatewaySnapshot snapshot();
    GatewayServerStats stats();
    // The gateway's knobs from now on: `params` holds all of the gateway lab's knobs, as
    // GatewaySetup::params does. Checked before anything changes: throws std::invalid_argument
    // naming the knob when one that shapes the whole run differs (fixedRunKnobs) or the values
    // contradict each other. Marked on the snapshot's timeline as `label`, or as "knob old -> new"
    // for each knob that changed; a call that changes nothing does nothing.
    void applyParams(const Params& params, const std::string& label = {});
    // Sets `changes` on top of the knobs in force, read and applied in one step on the loop, so
    // that a change landing meanwhile (the timeline, the admin endpoint) is kept, not undone.
    // Returns the knobs before and after. Throws std::invalid_argument as applyParams does.
    std::pair<Params, Params> applyChanges(const std::vector<KnobSetting>& changes,
                                           const std::string& label = {});
    Params params();
    // A mark on the snapshot's timeline; its times are on the snapshot's clock (nowSeconds()).
    void addMark(gateway::TimelineMark mark);
    double nowSeconds();
    // Seconds on the snapshot's clock at start(): where the scenario's timeline begins.
    double startedAt();

    struct Impl;

private:
    // How long the answers that end a drain get to be written before the connections close.
    static constexpr Duration kDrainFlush = std::chrono::milliseconds(200);
    void drainRequests(Duration drain);

    Loop& loop_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
