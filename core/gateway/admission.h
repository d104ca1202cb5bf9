// Admission (seed 000, "Admit or shed"): enforces each region's adaptive concurrency limit
// (AdaptiveLimit, adaptive_limit.h, computes it from latency samples). An interactive request that
// finds its region at the limit is not queued: it spills to the nearest region with room when it
// is not pinned, else it is shed (503 with a short Retry-After). Batch traffic enters a separate
// lane with its own concurrency limit that yields whenever the interactive lane is above 80% of
// its limit; batch requests wait in a bounded FIFO (full: shed), each under its own deadline.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>

#include "gateway/adaptive_limit.h"
#include "gateway/config.h"

namespace taillab::gateway {

class Admission {
public:
    explicit Admission(const GatewayConfig& config);
    void reconfigure(const GatewayConfig& config);

    enum class Verdict : std::uint8_t { Admitted, Spilled, Shed, Queued };
    struct Decision {
        Verdict verdict = Verdict::Admitted;
        Region region = Region::EU;  // where it holds its slot (or waits)
        bool refused = false;  // a region with room was passed over: its breaker is open
    };
    // A region whose breaker is open takes no spill (the driver's health model decides).
    void setOpen(Region region, bool open) { at(region).open = open; }
    bool isOpen(Region region) const { return at(region).open; }
    // An interactive request arriving in `region`; on Admitted or Spilled it holds a slot in
    // decision.region until release().
    Decision admitInteractive(Time now, Region region, bool pinned);
    // A batch request: Admitted (holds a batch slot), Queued (waits; `ticket` comes back from
    // nextQueued() when it may start) or Shed (the queue is full).
    Decision admitBatch(Time now, Region region, std::uint32_t ticket);
    void release(Time now, Region region, Lane lane);
    // A queued batch request that may start now (it then holds a batch slot), if any.
    std::optional<std::uint32_t> nextQueued(Region region) {
        if (at(region).queue.empty()) return std::nullopt;  // the common case, inline
        return popQueued(region);
    }
    // Takes a request that gave up (its deadline passed) out of the queue.
    void dropQueued(Region region, std::uint32_t ticket);
    // A finished request's latency, for the region's limit.
    void onSample(Time now, Region region, Duration latency);

    int limit(Region r) const { return at(r).limit.limit(); }
    int inflight(Region r) const { return at(r).inflight; }
    int batchQueued(Region r) const { return static_cast<int>(at(r).queue.size()); }
    // The most requests in flight (plus batch queued) since the last call, per region.
    int takePeak(Region r);

private:
    struct PerRegion {
        AdaptiveLimit limit;
        int inflight = 0, peak = 0, batchInflight = 0;
        bool open = false;
        std::deque<std::uint32_t> queue;
    };
    PerRegion& at(Region r) { return regions_[static_cast<std::size_t>(r)]; }
    const PerRegion& at(Region r) const { return regions_[static_cast<std::size_t>(r)]; }
    bool batchRoom(const PerRegion& p) const;
    std::optional<std::uint32_t> popQueued(Region region);

    bool enabled_ = true;
    int batchLimit_ = 8;
    std::array<PerRegion, kRegions> regions_;
};

}  // namespace taillab::gateway
