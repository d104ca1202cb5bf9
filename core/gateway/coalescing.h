// Request coalescing (seed 000, "one flight per key"): the first request that misses the cache for
// a key becomes the leader of a flight upstream; later requests for the same key join it and wait
// for its answer instead of going upstream themselves. Per instance, or across the region's
// instances through an L2 lock with a short lease (the region-wide mode), so a burst of identical
// queries spread over a region turns into one upstream call. A waiter is not held hostage by a
// slow leader: near its own deadline it detaches and makes its own call (the orchestrator arms
// that timer). The seed's lock has a 50 ms lease, which frees the lock when the instance holding
// it dies without releasing it; no instance dies mid-call here (a leader that gives up lands its
// flight, and its waiters go on alone), so the lease never acts and has no knob.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "gateway/config.h"
#include "gateway/flat_map.h"

namespace taillab::gateway {

class Flights {
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;

    void setMode(CoalescingMode mode) { mode_ = mode; }
    bool enabled() const { return mode_ != CoalescingMode::Off; }
    bool regionWide() const { return mode_ == CoalescingMode::RegionWide; }
    // What the flight is filed under: the cache key, salted per instance in the per-instance mode.
    std::uint64_t flightKey(std::uint64_t cacheKey, int instance) const {
        return mode_ == CoalescingMode::PerInstance
                   ? cacheKey ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(instance + 1))
                   : cacheKey;
    }
    // Joins the flight in the air under `flightKey` in `region`, if there is one.
    std::optional<std::uint32_t> join(Region region, std::uint64_t flightKey, std::uint32_t waiter);
    // Opens a flight led by `leader`.
    std::uint32_t lead(Region region, std::uint64_t flightKey, std::uint32_t leader);
    // Closes a flight (its leader has an answer, or has given up); its waiters go into `out`.
    void land(std::uint32_t flight, std::vector<std::uint32_t>& out);
    // A waiter that goes on its own (detached, or finished by its deadline).
    void leave(std::uint32_t flight, std::uint32_t waiter);
    std::uint32_t leader(std::uint32_t flight) const { return flights_[flight].leader; }

private:
    struct Flight {
        std::uint64_t key = 0;
        Region region = Region::EU;
        std::uint32_t leader = kNone;
        std::vector<std::uint32_t> waiters;
    };
    CoalescingMode mode_ = CoalescingMode::RegionWide;
    std::deque<Flight> flights_;
    std::vector<std::uint32_t> free_;
    std::array<FlatMap<std::uint32_t>, kRegions> index_;
};

}  // namespace taillab::gateway
