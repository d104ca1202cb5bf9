// The edge (seed 000): terminates TLS and picks the region that serves a request: its X-Region
// pin when it has one, else the nearest region, which is its key's home. A pinned request never
// leaves its region; an unpinned one may spill to another region when its own is at its
// admission limit, nearest first.
#pragma once

#include <array>
#include <optional>

#include "base/rng.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

// Where a region's unpinned traffic is sent instead of it, if anywhere (v3's failover: "traffic
// from the degraded region was rerouted to EU-West, which had no limit on how much it would
// accept").
using Reroutes = std::array<std::optional<Region>, kRegions>;

struct Edge {
    static Region route(std::optional<Region> pin, Region home) { return pin ? *pin : home; }
    // The same, with a region's unpinned traffic rerouted where `reroutes` says: all of it, or
    // the share `share` of it, chosen by the request's trace (so a request goes the same way
    // however often it is asked).
    static Region route(std::optional<Region> pin, Region home, const Reroutes& reroutes,
                        double share, std::uint64_t trace) {
        if (pin) return *pin;
        const std::optional<Region> to = reroutes[static_cast<std::size_t>(home)];
        if (!to) return home;
        if (share >= 1) return *to;
        // The top 53 bits as a uniform draw in [0, 1).
        const double u = static_cast<double>(mix64(trace ^ 0x7265726f757465ULL) >> 11) * 0x1p-53;  // "reroute"
        return u < share ? *to : home;
    }
    // The other regions, nearest first (EU: US, APAC; US: EU, APAC; APAC: EU, US).
    static const std::array<Region, 2>& spillOrder(Region from) {
        static constexpr std::array<std::array<Region, 2>, kRegions> kOrder{
            {{Region::US, Region::APAC}, {Region::EU, Region::APAC}, {Region::EU, Region::US}}};
        return kOrder[static_cast<std::size_t>(from)];
    }
};

}  // namespace taillab::gateway
