// The gateway path under the lab contract (see gateway_lab.cpp).
#pragma once

#include <memory>
#include <string>

#include "gateway_sim/gateway_sim.h"
#include "labs/lab.h"

namespace taillab::gateway {

// How a result's time charts count time (their x, the annotations): a simulated run's hours since
// its first day's 00:00, or a live run's seconds since it started (liveTimeAxis), as the GUI's live
// charts count them. x = (t_s - origin_s) / unit_s, where t_s is on the snapshot's clock.
struct TimeAxis {
    double origin_s = 0;
    double unit_s = 3600;
    std::string label = "Simulated time (h since the first day's 00:00)";
};
// Seconds since `started_s` (on the snapshot's clock): each window at its end, the last one
// possibly shorter.
TimeAxis liveTimeAxis(double started_s);

// A lab result (figures, charts, invariant checks) from a snapshot of a gateway run.
LabResult gatewayResult(const GatewaySnapshot& snapshot, const Params& params, std::uint64_t seed,
                        const TimeAxis& axis = {});
std::unique_ptr<Lab> makeGatewayLab();

}  // namespace taillab::gateway
