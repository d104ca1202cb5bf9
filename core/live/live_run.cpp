#include "live/live_run.h"

#include <stdexcept>

#include "gateway_sim/gateway_lab.h"
#include "live/fleet_server.h"
#include "live/gateway_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"

namespace taillab::live {

LiveRun runLive(const Scenario& scenario, const LiveRunOptions& options,
                const LoadGenerator::IntervalCallback& onInterval) {
    if (scenario.lab != "gateway")
        throw std::invalid_argument("a live run needs a gateway scenario, not a '" + scenario.lab + "' lab");
    if (!(options.rate_per_s > 0)) throw std::invalid_argument("the rate must be above 0 requests per second");
    const GatewaySetup setup = gatewaySetup(scenario.params, scenario.seed);

    Loop fleetLoop, gatewayLoop;
    FleetServer fleet(fleetLoop, scenario);
    std::vector<std::string> upstreamArgs;
    for (const auto& [name, url] : fleet.engineUrls()) upstreamArgs.push_back(name + "=" + url);
    GatewayServer gateway(gatewayLoop, HostPort{"127.0.0.1", 0}, setup, upstreamUrls(setup.config, upstreamArgs),
                          scenario.seed);

    LiveRun run;
    LoadConfig& c = run.load_config;
    c.url = Url{gateway.bound(), "/search/lite"};
    c.schedule = RateSchedule::constant(options.rate_per_s);
    c.duration = options.duration;
    c.connections = options.connections;
    // The scenario's interactive customers, in turn (probe keys and the batch job stay out).
    for (const gateway::ApiKey& k : setup.config.keys)
        if (!k.probe && k.lane == gateway::Lane::Interactive) c.keys.push_back(k.key);
    LoadGenerator generator(c);

    fleetLoop.start();
    gatewayLoop.start();
    fleet.start();
    gateway.start();
    run.load = generator.run(onInterval);
    gateway.stop();
    fleet.stop();
    run.result = gateway::gatewayResult(gateway.snapshot(), scenario.params, scenario.seed);
    run.result.lab = scenario.lab;
    run.result.scenario = scenario.name;
    run.result.seed = scenario.seed;
    run.result.parameters = scenario.params.toJson();
    return run;
}

}  // namespace taillab::live
