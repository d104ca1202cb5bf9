// The emulated fleet's admin requests apart from sockets: knob changes read into new Params, a
// fault read into what Fleet::addFault takes, and the fleet's knobs as JSON. Pure functions; every
// error names the JSON path it is about.
#pragma once

#include <optional>
#include <string_view>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "fleet/fleet.h"
#include "gateway_sim/sim_config.h"
#include "knobs/knob.h"

namespace taillab::live {

class AdminError : public std::invalid_argument {
public:
    AdminError(std::string path, const std::string& message)
        : std::invalid_argument(path + ": " + message), path_(std::move(path)) {}
    const std::string& path() const { return path_; }  // "$.engines.atlas.median_ms"

private:
    std::string path_;
};

// `params` (the gateway lab's) with the fleet knobs in `body` changed:
//   {"correlation", "slow_multiplier", "fault_multiplier", "class_variability", "cold_egress",
//    "cold_connect_median_ms", "cold_connect_sigma", "engine_capacity",
//    "engines": {"atlas": {"median_ms", "sigma", "slow_probability", "slow_median_ms",
//                          "slow_sigma", "invalid_rate"}, ...}}
// Each value is checked as its knob checks a scenario's; throws AdminError at the first problem.
Params applyFleetKnobs(const Params& params, const nlohmann::json& body);

// The fleet's configuration in the same names.
nlohmann::ordered_json fleetKnobsJson(const fleet::FleetConfig& config);

// A timeline fault as the live fleet applies it: to calls (Fleet::addFault), or to the share of
// its engines' slots it takes away (capacity_lost, as the simulation's driver applies it).
struct FleetFault {
    std::optional<fleet::CallFault> call;
    std::optional<double> capacity_lost;
    gateway::FaultScope scope;
};

// An admin request's body as JSON, or AdminError: not JSON ("$"), or a duplicate key, too deep
// a nesting or a number out of range (at its path).
nlohmann::json readAdminBody(std::string_view text);

// nullopt for a fault that is not the fleet's to apply: a surge (it shapes the arrivals) or one
// aimed at the gateway's compute (a provider or an availability zone). Throws
// std::invalid_argument for a target this fleet does not have.
std::optional<FleetFault> fleetFaultOf(const Fault& fault, int egressIps);
// How notTheFleets begins for a surge (a live run's load generator applies surges).
inline constexpr std::string_view kSurgeNotTheFleets = "a surge shapes the arrivals";
// Why fleetFaultOf gives nullopt for `fault`, in words.
std::string notTheFleets(const Fault& fault);

// The longest an admin fault may last, in seconds: a week.
inline constexpr double kLongestAdminFault_s = 7 * 86400.0;

struct AdminFault {
    std::string id;
    FleetFault fault;
    std::string label;                  // as a timeline labels it ("atlas down")
    std::optional<double> duration_s;   // removed after it; else only by DELETE
};

// {"id": "atlas-down", "target": {...}, "effect": "down", ..., "duration_s": 30}: the fault keys
// exactly as a timeline's fault takes them (scenario/timeline.h), checked by the same parser.
// Throws AdminError.
AdminFault readAdminFault(const nlohmann::json& body, const Params& params);

}  // namespace taillab::live
