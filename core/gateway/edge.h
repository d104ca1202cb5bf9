// The edge (seed 000): terminates TLS and picks the region that serves a request: its X-Region
// pin when it has one, else the nearest region, which is its key's home. A pinned request never
// leaves its region; an unpinned one may spill to another region when its own is at its
// admission limit, nearest first.
#pragma once

#include <array>
#include <optional>

#include "gateway/gateway_types.h"

namespace taillab::gateway {

// Where a region's unpinned traffic is sent instead of it, if anywhere (v3's failover: "traffic
// from the degraded region was rerouted to EU-West, which had no limit on how much it would
// accept").
using Reroutes = std::array<std::optional<Region>, kRegions>;

struct Edge {
    static Region route(std::optional<Region> pin, Region home) { return pin ? *pin : home; }
    // The same, with a region's unpinned traffic rerouted where `reroutes` says.
    static Region route(std::optional<Region> pin, Region home, const Reroutes& reroutes) {
        if (pin) return *pin;
        return reroutes[static_cast<std::size_t>(home)].value_or(home);
    }
    // The other regions, nearest first (EU: US, APAC; US: EU, APAC; APAC: EU, US).
    static const std::array<Region, 2>& spillOrder(Region from) {
        static constexpr std::array<std::array<Region, 2>, kRegions> kOrder{
            {{Region::US, Region::APAC}, {Region::EU, Region::APAC}, {Region::EU, Region::US}}};
        return kOrder[static_cast<std::size_t>(from)];
    }
};

}  // namespace taillab::gateway
