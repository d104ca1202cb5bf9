// The gateway path under the lab contract (see gateway_lab.cpp).
#pragma once

#include <memory>

#include "gateway_sim/gateway_sim.h"
#include "labs/lab.h"

namespace taillab::gateway {

// A lab result (figures, charts, invariant checks) from a snapshot of a gateway run.
LabResult gatewayResult(const GatewaySnapshot& snapshot, const Params& params, std::uint64_t seed);
std::unique_ptr<Lab> makeGatewayLab();

}  // namespace taillab::gateway
