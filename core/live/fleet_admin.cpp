#include "live/fleet_admin.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "gateway_sim/gateway_lab.h"
#include "live/json_text.h"
#include "scenario/json_locate.h"
#include "scenario/json_validator.h"
#include "scenario/scenario.h"

namespace taillab::live {
namespace {

using nlohmann::json;

// The fleet's own names for its knobs (FleetConfig's), and the gateway lab's.
constexpr std::array<std::pair<const char*, const char*>, 7> kFleetKnobs{{
    {"correlation", "engine_correlation"},
    {"slow_multiplier", "slow_multiplier"},
    {"fault_multiplier", "fault_multiplier"},
    {"class_variability", "class_variability"},
    {"cold_connect_median_ms", "cold_connect_median_ms"},
    {"cold_connect_sigma", "cold_connect_sigma"},
    {"engine_capacity", "engine_capacity"},
}};
constexpr std::array<const char*, 6> kEngineKnobs{"median_ms",      "sigma",      "slow_probability",
                                                  "slow_median_ms", "slow_sigma", "invalid_rate"};

void setKnob(Params& p, const std::string& key, const json& value, const std::string& path) {
    try {
        p.setJson(key, value);
    } catch (const std::invalid_argument& e) {
        throw AdminError(path, e.what());
    }
}

void applyEngines(Params& p, const json& engines) {
    if (!engines.is_object()) throw AdminError("$.engines", "must be an object keyed by engine name");
    if (engines.empty()) throw AdminError("$.engines", "names no engine to change");
    for (auto e = engines.begin(); e != engines.end(); ++e) {
        const std::string at = "$.engines." + e.key();
        const auto name = std::find(gateway::kEngineNames.begin(), gateway::kEngineNames.end(), e.key());
        if (name == gateway::kEngineNames.end()) throw AdminError(at, "no engine of that name in this fleet");
        if (!e.value().is_object()) throw AdminError(at, "must be an object of the engine's knobs");
        if (e.value().empty()) throw AdminError(at, "names no knob to change");
        for (auto k = e.value().begin(); k != e.value().end(); ++k) {
            if (std::find_if(kEngineKnobs.begin(), kEngineKnobs.end(),
                             [&](const char* n) { return k.key() == n; }) == kEngineKnobs.end())
                throw AdminError(at + "." + k.key(),
                                 "not an engine knob (median_ms, sigma, slow_probability, "
                                 "slow_median_ms, slow_sigma, invalid_rate)");
            setKnob(p, e.key() + "_" + k.key(), k.value(), at + "." + k.key());
        }
    }
}

}  // namespace

Params applyFleetKnobs(const Params& params, const json& body) {
    if (!body.is_object()) throw AdminError("$", "the body must be a JSON object of knobs");
    if (body.empty()) throw AdminError("$", "names no knob to change");
    Params p = params;
    for (auto it = body.begin(); it != body.end(); ++it) {
        const std::string& k = it.key();
        const std::string at = "$." + k;
        if (k == "engines") {
            applyEngines(p, it.value());
        } else if (k == "cold_egress") {
            if (!it.value().is_boolean()) throw AdminError(at, "expected true or false");
            p.set("egress", it.value().get<bool>() ? 1 : 0);
        } else if (k == "egress_ips") {
            throw AdminError(at, "the egress IP pool is fixed when the fleet starts");
        } else {
            const auto f = std::find_if(kFleetKnobs.begin(), kFleetKnobs.end(),
                                        [&](const auto& n) { return k == n.first; });
            if (f == kFleetKnobs.end())
                throw AdminError(at, "not a fleet knob (correlation, slow_multiplier, fault_multiplier, "
                                     "class_variability, cold_egress, cold_connect_median_ms, "
                                     "cold_connect_sigma, engine_capacity, engines)");
            setKnob(p, f->second, it.value(), at);
        }
    }
    return p;
}

nlohmann::ordered_json fleetKnobsJson(const fleet::FleetConfig& c) {
    nlohmann::ordered_json j;
    j["correlation"] = c.correlation;
    j["slow_multiplier"] = c.slow_multiplier;
    j["fault_multiplier"] = c.fault_multiplier;
    j["class_variability"] = c.class_variability;
    j["cold_egress"] = c.cold_egress;
    j["cold_connect_median_ms"] = c.cold_connect.median_ms;
    j["cold_connect_sigma"] = c.cold_connect.sigma;
    j["egress_ips"] = c.egress_ips;
    nlohmann::ordered_json engines = nlohmann::ordered_json::object();
    for (const auto& e : c.engines)
        engines[e.name] = {{"median_ms", e.latency.body.median_ms},
                           {"sigma", e.latency.body.sigma},
                           {"slow_probability", e.latency.slow_probability},
                           {"slow_median_ms", e.latency.slow.median_ms},
                           {"slow_sigma", e.latency.slow.sigma},
                           {"invalid_rate", e.invalid_rate}};
    j["engines"] = std::move(engines);
    return j;
}

std::optional<FleetFault> fleetFaultOf(const Fault& fault, int egressIps) {
    if (fault.target.provider || fault.target.zone) return std::nullopt;
    FleetFault f;
    f.scope = gateway::faultScope(fault.target, egressIps);
    if (fault.effect == FaultEffect::CapacityLost) {
        f.capacity_lost = fault.share;
        return f;
    }
    f.call = gateway::callFaultOf(fault, f.scope);
    if (!f.call) return std::nullopt;
    return f;
}

std::string notTheFleets(const Fault& fault) {
    if (fault.target.provider || fault.target.zone)
        return "a provider or availability zone is the gateway's compute, which the fleet does not emulate";
    return std::string(kSurgeNotTheFleets) + ", not an upstream's answers";
}

json readAdminBody(std::string_view text) {
    // Duplicate keys, nesting and numbers out of range first, with their path: the parser would
    // keep the last of two keys without a word.
    if (const auto problem = findJsonTextProblem(text, "an admin request needs three")) {
        throw AdminError(problem->path, problem->message);
    }
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // Said as the gateway says it: line and column.
        throw AdminError("$", notJsonMessage(text).value_or("the body is not valid JSON (at byte " +
                                                            std::to_string(e.byte) + ")"));
    }
}

AdminFault readAdminFault(const json& body, const Params& params) {
    if (!body.is_object()) throw AdminError("$", "the body must be a JSON object");
    AdminFault out;
    json fault = body;
    const auto id = body.find("id");
    if (id == body.end()) throw AdminError("$.id", "is missing: name the fault so it can be removed");
    if (!id->is_string() || id->get_ref<const std::string&>().empty() ||
        id->get_ref<const std::string&>().size() > 64 ||
        id->get_ref<const std::string&>().find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
        throw AdminError("$.id", "must be 1 to 64 letters, digits, '.', '_' or '-'");
    out.id = id->get<std::string>();
    if (out.id.rfind("timeline-", 0) == 0)
        throw AdminError("$.id", "ids starting with 'timeline-' name the scenario's own faults: choose another");
    fault.erase("id");
    if (const auto d = body.find("duration_s"); d != body.end()) {
        if (!d->is_number() || !std::isfinite(d->get<double>()) || d->get<double>() <= 0 ||
            d->get<double>() > kLongestAdminFault_s)
            throw AdminError("$.duration_s", "must be a number of seconds above 0, at most a week (604800)");
        out.duration_s = d->get<double>();
        fault.erase("duration_s");
    }
    // The timeline's own parser checks the fault, so a fault reads the same here as in a file.
    const json doc = {{"timeline", json::array({{{"at", 0}, {"fault", fault}}})}};
    const std::string text = doc.dump();
    const JsonValidator validator(text, "admin fault", {});
    const auto lab = gateway::makeGatewayLab();
    Timeline t;
    try {
        t = parseTimeline(doc["timeline"], json::json_pointer("/timeline"), *lab->timelineVocabulary(params),
                          validator);
    } catch (const ScenarioError& e) {
        std::string path = e.path();
        const std::string prefix = "/timeline/0/fault";
        path = path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : "";
        throw AdminError(dottedJsonPath(path), e.detail());
    }
    const TimelineEvent& e = t.events.at(0);
    std::optional<FleetFault> f;
    try {
        f = fleetFaultOf(*e.fault, params.integer("egress_ips"));
    } catch (const std::invalid_argument& x) {
        throw AdminError("$.target", x.what());
    }
    if (!f)
        throw AdminError(e.fault->target.provider || e.fault->target.zone ? "$.target" : "$.effect",
                         notTheFleets(*e.fault));
    out.fault = *f;
    out.label = e.label;
    return out;
}

}  // namespace taillab::live
