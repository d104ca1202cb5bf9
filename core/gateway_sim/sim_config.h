// From the gateway lab's knobs (one flat Params, gateway_knobs.cpp) to the configurations of the
// pieces a simulated run is built from: the gateway itself, the simulated fleet, and the driver's
// own settings. The gateway's engines are atlas and borealis (routed) and cirrus (last chance
// only); its API keys are the workload's customers, the batch job and the three probe keys.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet.h"
#include "gateway/config.h"
#include "gateway/snapshot.h"
#include "knobs/knob.h"
#include "scenario/timeline.h"
#include "workload/workload.h"

namespace taillab::gateway {

constexpr int kEngines = 3;
constexpr std::array<std::string_view, kEngines> kEngineNames{"atlas", "borealis", "cirrus"};
constexpr std::array<std::string_view, kRegions> kProbeKeys{"tl-probe-eu", "tl-probe-us",
                                                            "tl-probe-apac"};

// Where each region's gateway compute runs (seed 000, "Three providers, none above 45%"): on
// providers (gateway_types.h), each with three availability zones that share its part of the
// region's CPUs evenly. v3 ran everything on provider A; v4 spreads each region over A, B and C. Standby CPUs (the
// `standby_cpus` knob) run on provider B in either layout.
constexpr int kZones = 3;
constexpr std::array<std::string_view, kZones> kZoneNames{"a", "b", "c"};
constexpr int kStandbyProvider = 1;  // B
// A region's regular CPUs by provider, for the `providers` knob's layout.
std::array<double, kProviders> providerShares(const Params& p);
// The providers a timeline may name under that layout (B always: it hosts the standby).
std::vector<std::string> providerNames(const Params& p);

// Throws std::invalid_argument naming the knobs when they contradict each other.
GatewayConfig gatewayConfigFromParams(const Params& p, const Workload& workload);
fleet::FleetConfig fleetConfigFromParams(const Params& p);

// The knobs that shape a whole run (its calendar, customers, workload and pools): a timeline or a
// live change may not touch them.
const std::vector<std::string>& fixedRunKnobs();
// Throws std::invalid_argument naming the first fixed knob that differs between `from` and `to`.
void checkRunChange(const Params& from, const Params& to);
// Checks each knob change of `timeline`, in order, over the knobs before it (starting at
// `params`): the change itself (checkRunChange) and the gateway and fleet set-up the knobs after
// it make (gatewayConfigFromParams with `workload`, fleetConfigFromParams). Throws TimelineError
// at the first event that fails, with the reason.
void checkKnobChanges(const Params& params, const Timeline& timeline, const Workload& workload);
// "hedge_delay_ms 420 -> 300, hedge_mode adaptive -> fixed" for the knobs `keys` (in that order),
// each as a knob panel shows its value; how a timeline mark names a knob change.
std::string knobChangeText(const Params& from, const Params& to, const std::vector<std::string>& keys);
// How a timeline knob change reads on the charts: its own label, or, when that is the default
// one, knobChangeText for the knobs it sets (`to` is `from` with its settings).
std::string knobChangeText(const Params& from, const Params& to, const TimelineEvent& change);
// The steps knobChangeText writes, for a view to write them in its own words: one for each of
// `keys`; for a change with a label of its own, none.
std::vector<KnobStep> knobSteps(const Params& from, const Params& to, const std::vector<std::string>& keys);
std::vector<KnobStep> knobSteps(const Params& from, const Params& to, const TimelineEvent& change);
// The keys of the knobs whose values differ, in the knobs' order.
std::vector<std::string> changedKnobs(const Params& from, const Params& to);

// What a timeline fault's target names, as indices: engine -1 and no region for the whole fleet.
// Throws std::invalid_argument for a name this fleet does not have (providers and zones
// included) or an egress IP outside 0..egressIps-1.
struct FaultScope {
    int engine = -1;
    std::optional<Region> region;
    // Gateway compute (capacity_lost only): the provider and zone it hits; none: all of them.
    std::optional<int> provider, zone;
    bool compute() const { return provider || zone; }
};
// `providers`: the provider names a target may use; empty where nothing runs on providers (the
// live fleet), so that naming one is an error.
FaultScope faultScope(const FaultTarget& target, int egressIps,
                      const std::vector<std::string>& providers = {});

// The fault as the fleet applies it to calls (Fleet::addFault); nullopt for capacity_lost and
// surge, which act on the engines' queues and on the arrivals instead.
std::optional<fleet::CallFault> callFaultOf(const Fault& fault, const FaultScope& scope);

}  // namespace taillab::gateway
