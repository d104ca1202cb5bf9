#include "gateway/coalescing.h"

#include <algorithm>

#include "gateway/pool.h"

namespace taillab::gateway {

std::optional<std::uint32_t> Flights::join(Region region, std::uint64_t flightKey,
                                           std::uint32_t waiter) {
    const std::uint32_t* f = index_[static_cast<std::size_t>(region)].find(flightKey);
    if (!f) return std::nullopt;
    flights_[*f].waiters.push_back(waiter);
    return *f;
}

std::uint32_t Flights::lead(Region region, std::uint64_t flightKey, std::uint32_t leader) {
    const std::uint32_t i = acquireSlot(flights_, free_);
    Flight& f = flights_[i];
    f.key = flightKey;
    f.region = region;
    f.leader = leader;
    f.waiters.clear();
    index_[static_cast<std::size_t>(region)].put(flightKey, i);
    return i;
}

void Flights::land(std::uint32_t flight, std::vector<std::uint32_t>& out) {
    Flight& f = flights_[flight];
    index_[static_cast<std::size_t>(f.region)].erase(f.key);
    out.assign(f.waiters.begin(), f.waiters.end());
    f.waiters.clear();  // keeps its capacity for the flight that reuses the slot
    f.leader = kNone;
    free_.push_back(flight);
}

void Flights::leave(std::uint32_t flight, std::uint32_t waiter) {
    auto& w = flights_[flight].waiters;
    w.erase(std::remove(w.begin(), w.end(), waiter), w.end());
}

}  // namespace taillab::gateway
