// A timeline's traffic surges applied to the workload's arrivals, the one way every driver applies
// them (the simulation, and live runs that send the workload's own arrivals): a surge that raises
// traffic (factor above 1) adds (factor - 1) x the hour's interactive count over the time it
// covers, from the customers homed in its region (Workload::generateSurge); one that lowers it
// drops (1 - factor) of the arrivals it covers, of its region's customers, chosen by trace id so
// that every run of the seed drops the same ones.
#pragma once

#include <cstdint>
#include <vector>

#include "base/time.h"
#include "scenario/timeline.h"
#include "workload/workload.h"

namespace taillab::gateway {

class Surges {
public:
    Surges() = default;  // none
    // The timeline's surge events; `end` is where a surge without `until` stops (the run's end).
    // The timeline must already be checked (faultScope accepts every target).
    Surges(const Timeline& timeline, std::uint64_t seed, int egressIps, Time end);
    bool empty() const { return events_.empty(); }
    // Appends hour h's surge arrivals to `hour` (that hour's regular arrivals) and keeps it in time
    // order.
    void addArrivals(Workload& workload, int h, std::vector<RequestSpec>& hour) const;
    // Whether a surge that lowers traffic drops this arrival.
    bool thinnedOut(const Workload& workload, const RequestSpec& spec) const;

private:
    struct Event {
        std::uint32_t index;  // in the timeline: keys the surge's own stream
        Time from, to;
        double factor;
        std::optional<Region> region;
    };
    std::vector<Event> events_;
    std::uint64_t seed_ = 0;
};

}  // namespace taillab::gateway
