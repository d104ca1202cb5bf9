#include "live/live_run.h"

#include <stdexcept>

#include "gateway_sim/gateway_lab.h"
#include "live/live_stack.h"

namespace taillab::live {

LiveRun runLive(const Scenario& scenario, const LiveRunOptions& options,
                const LoadGenerator::IntervalCallback& onInterval) {
    LiveStackOptions o;
    o.rate_per_s = options.rate_per_s;
    o.duration = options.duration;
    o.connections = options.connections;
    o.start_at = options.start_at;
    o.on_interval = onInterval;
    LiveStack stack(scenario, std::move(o));
    stack.start();
    stack.waitForLoad();
    stack.stop();
    LiveRun run;
    run.load_config = stack.loadConfig();
    run.load = stack.loadResult();
    run.notes = stack.notes();
    run.scaling = *stack.scaling();
    run.result = gateway::gatewayResult(stack.snapshot(), scenario.params, scenario.seed);
    run.result.lab = scenario.lab;
    run.result.scenario = scenario.name;
    run.result.seed = scenario.seed;
    run.result.parameters = scenario.params.toJson();
    return run;
}

}  // namespace taillab::live
