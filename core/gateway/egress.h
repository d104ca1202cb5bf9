// Egress (seed 000, "the milliseconds before the request"): each region reaches each engine
// through a pool of egress IPs. IPs are scored per upstream: one that draws a block page or a
// CAPTCHA from an engine, or an answer byte-identical to its previous answer for a different query
// (a cached block page), is rested for that engine only, for a minute, and rotation skips it; when
// every IP is resting, the one whose rest ends first is used. Each (region, IP, engine) remembers
// its previous answer's fingerprint and query, which validation needs for the duplicate check.
// (Warm pools, TLS resumption and DNS caching are the driver's: the simulated fleet models cold
// connections as a cost, the live driver keeps its pools warm.)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/time.h"
#include "gateway/config.h"

namespace taillab::gateway {

class Egress {
public:
    explicit Egress(const GatewayConfig& config);

    // The IP a call to `engine` from `region` leaves through at `at`.
    int pick(Time at, Region region, int engine);
    // The fingerprint of the previous answer through this IP from this engine, when that answer
    // was for a query other than `key`.
    std::optional<std::uint64_t> previousOtherQuery(Region region, int ip, int engine,
                                                    std::uint64_t key) const;
    // What the IP drew. `blocked`: a block page, a CAPTCHA, or a duplicate of another query's
    // answer (rest the IP for this engine). `fingerprint` of a page (0: no page). Returns true
    // when this starts a new rest.
    bool onAnswer(Time now, Region region, int ip, int engine, std::uint64_t key,
                  std::uint64_t fingerprint, bool blocked);
    int ips() const { return ips_; }

private:
    struct State {
        Time rest_until{};
        std::uint64_t last_fingerprint = 0;
        std::uint64_t last_key = 0;
    };
    State& at(Region region, int ip, int engine) {
        return states_[static_cast<std::size_t>((static_cast<int>(region) * ips_ + ip) * engines_ + engine)];
    }
    const State& at(Region region, int ip, int engine) const {
        return states_[static_cast<std::size_t>((static_cast<int>(region) * ips_ + ip) * engines_ + engine)];
    }
    int ips_, engines_;
    std::vector<State> states_;  // [(region * ips + ip) * engines + engine]
    std::vector<int> next_;      // rotation, per (region, engine)
};

}  // namespace taillab::gateway
