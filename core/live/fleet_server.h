// The emulated upstream fleet over HTTP (PROTOCOL.md, "Gateway -> upstream engine"): one path per
// engine, `POST /engines/NAME/search`, answered after a delay drawn from the simulation's own
// fleet model (fleet/fleet.h), built from a gateway scenario exactly as the simulation builds it
// (fleetConfigFromParams). What the model draws becomes, on the wire:
//   a page (results, empty, block, CAPTCHA, consent)  200 {"page", "echo", "results"} after the
//                                                      drawn latency;
//   CallFailure::Reset                                 a TCP reset after the drawn latency;
//   CallFailure::Timeout                               no answer; closed at kHangMs.
//
// Each engine serves `engine_capacity` calls at once per region, as in the simulation; more wait
// in its queue (FIFO), and a call's drawn latency starts when it gets a slot.
//
// Same luck as the simulation: the call is built from the request's body (query, language,
// max_results: normalized, keyed and classified by the gateway's own compiler) and the optional
// X-TailLab-* headers (trace, role, region, egress, class, cache key), so a call that carries them
// gets what Fleet::answer gives it in-process. Without a trace the fleet numbers calls itself, from
// 1 up. The fleet's time (`at`: the rate limits of its egress IPs, the timeline) is the time since
// start(), plus options.start_at.
//
// The scenario's timeline applies at its times after start(): knob changes (the fleet's share of
// them), the faults that act on calls (down, slow, invalid, resets, latency) and capacity_lost.
// A surge (it shapes the arrivals) and a fault aimed at the gateway's compute (a provider or a
// zone) are not the fleet's: each is listed in notes() and left out.
//
// Runtime control, JSON in and out:
//   POST /admin/knobs         {"correlation": 0.3, "slow_multiplier": 2, "engines": {"atlas":
//                             {"median_ms": 40}}, "engine_capacity": 8, ...}: FleetConfig's
//                             fields and the engines' capacity, each checked against
//                             its knob's range; all or nothing; 400 naming the JSON path.
//   POST /admin/faults        {"id": "atlas-down", "target": {"engine": "atlas"}, "effect": "down",
//                             "duration_s": 30}: a fault as a timeline writes it, plus its id and an
//                             optional duration (else until removed).
//   DELETE /admin/faults/ID   removes it.
//   GET /admin/state          the knobs, the faults in force, and counts of what was answered.
//
// Threads: everything runs on the Loop's thread; construct, start and stop from any thread. A
// fleet is destroyed before its Loop.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/fleet.h"
#include "live/address.h"
#include "live/http_server.h"
#include "live/loop.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct FleetServerOptions {
    HostPort listen{"127.0.0.1", 0};
    HttpServerLimits limits;
    // When a hung call's connection is closed: the model's own timeout (kHangMs); tests shorten it.
    Duration hang_close = fromMs(fleet::kHangMs);
    // Where on the scenario's clock the fleet starts: timeline events before it apply at once
    // (faults that ended before it not at all), so a run can begin just before Tue 09:30.
    Duration start_at{};
};

// What the fleet has answered since start.
struct FleetCounters {
    std::uint64_t requests = 0;  // search requests accepted
    std::uint64_t results = 0, empty = 0, block = 0, captcha = 0, consent = 0;
    std::uint64_t resets = 0, hangs = 0;
    std::uint64_t queued = 0;        // waited for a free slot of their engine
    std::uint64_t abandoned = 0;     // the caller left before the answer; its slot freed then
    std::uint64_t bad_requests = 0;  // 400s on search requests
};

class FleetServer {
public:
    // Throws std::invalid_argument for a scenario of another lab or one whose knobs the fleet
    // cannot build from, std::runtime_error when it cannot listen.
    FleetServer(Loop& loop, const Scenario& scenario, FleetServerOptions options = {});
    ~FleetServer();
    FleetServer(const FleetServer&) = delete;
    FleetServer& operator=(const FleetServer&) = delete;

    // Accepts from now on; the fleet's clock and the timeline start here.
    void start();
    // Stops accepting, closes connections, drops answers not yet sent. Idempotent.
    void stop();

    HostPort bound() const;
    // (engine name, its URL), in the fleet's engine order.
    std::vector<std::pair<std::string, std::string>> engineUrls() const;
    // Timeline events the fleet leaves out, one sentence each.
    const std::vector<std::string>& notes() const;
    FleetCounters counters() const;  // any thread

    // What the admin requests do, without HTTP; any thread.
    // The fleet's share of `params` (all of the gateway lab's knobs) from now on. Throws
    // std::invalid_argument naming the knob when the fleet cannot be built from them.
    void applyParams(const Params& params);
    Params params() const;
    // Puts `fault` in force now under `id` (as POST /admin/faults), labelled `label`, for
    // `duration` (else until removed). Throws std::invalid_argument when the id is in use or the
    // fault's target is not in this fleet; a surge is refused (it shapes arrivals, not the fleet).
    void addFault(const std::string& id, const Fault& fault, const std::string& label,
                  std::optional<Duration> duration = std::nullopt);
    // False when no fault `id` is in force.
    bool removeFault(const std::string& id);

    struct Impl;

private:
    Loop& loop_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
