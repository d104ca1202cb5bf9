#include "live/serve_setup.h"

#include <stdexcept>

#include "gateway_sim/sim_config.h"
#include "workload/workload.h"

namespace taillab::live {
namespace {

std::string engineList(const gateway::GatewayConfig& config) {
    std::string out;
    for (const gateway::EngineSpec& e : config.engines) out += (out.empty() ? "" : ", ") + e.name;
    return out;
}

}  // namespace

GatewaySetup gatewaySetup(const Params& params, std::uint64_t seed) {
    GatewaySetup s;
    // The workload only lends its customers (names, keys, homes, plans): arrivals come over HTTP.
    const gateway::Workload workload(params, seed);
    s.config = gateway::gatewayConfigFromParams(params, workload);
    // The simulation's synthetic probe keys skip rate limits and admission and stay out of the
    // figures: over HTTP anyone could send them, so live mode knows none (they get a 401).
    std::erase_if(s.config.keys, [](const gateway::ApiKey& k) { return k.probe; });
    s.window = fromSeconds(params.real("window_s"));
    s.params = params;
    s.seed = seed;
    return s;
}

void checkStartAt(const Params& params, Duration start_at, const std::string& who) {
    const std::int64_t days = params.integer("days");
    if (start_at < kZero || start_at >= fromSeconds(days * 86400.0))
        throw std::invalid_argument(who + "'s start time must lie within the scenario's run (" + std::to_string(days) +
                                    (days == 1 ? " day)" : " days)"));
}

GatewaySetup gatewaySetup(const Scenario& scenario) {
    GatewaySetup s = gatewaySetup(scenario.params, scenario.seed);
    s.timeline = scenario.timeline;
    return s;
}

std::vector<Url> upstreamUrls(const gateway::GatewayConfig& config, const std::vector<std::string>& args) {
    std::vector<std::optional<Url>> byEngine(config.engines.size());
    for (const std::string& arg : args) {
        const std::size_t eq = arg.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("--upstream '" + arg + "': expected NAME=URL (engines: " + engineList(config) + ")");
        const std::string name = arg.substr(0, eq);
        std::size_t e = 0;
        while (e < config.engines.size() && config.engines[e].name != name) ++e;
        if (e == config.engines.size())
            throw std::invalid_argument("--upstream '" + arg + "': the scenario has no engine '" + name +
                                        "' (engines: " + engineList(config) + ")");
        if (byEngine[e]) throw std::invalid_argument("--upstream: engine '" + name + "' is given twice");
        try {
            byEngine[e] = parseUrl(arg.substr(eq + 1));
        } catch (const std::invalid_argument& err) {
            throw std::invalid_argument("--upstream " + name + ": " + err.what());
        }
    }
    std::vector<Url> out;
    for (std::size_t e = 0; e < byEngine.size(); ++e) {
        if (!byEngine[e])
            throw std::invalid_argument("no --upstream for engine '" + config.engines[e].name +
                                        "': give NAME=URL for each of " + engineList(config));
        out.push_back(*byEngine[e]);
    }
    return out;
}

}  // namespace taillab::live
