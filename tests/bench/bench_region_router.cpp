// The region_router lab's incident scenarios (scenarios/incidents/), each run as its file says:
// wall time per run (goal: under 1 s each on one core) and simulated requests per second.
#include <benchmark/benchmark.h>

#include <string>

#include "labs/lab.h"
#include "labs/region_router_sim.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace {

void runIncident(benchmark::State& state, const std::string& name) {
    const std::string path =
        std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/" + name + ".json";
    taillab::Scenario s;
    try {
        s = taillab::loadScenarioFile(path);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    bool pass = true;
    for (auto _ : state) {
        const taillab::LabResult r = taillab::runScenario(s);
        pass = r.allChecksPass();
        benchmark::DoNotOptimize(r.figures.data());
    }
    // Requests simulated per run: the fleet's arrival rate over the run, once per router.
    taillab::region_router::FleetConfig c;
    c.regions = s.params.integer("regions");
    c.nodes = s.params.integer("nodes");
    c.serviceMs = s.params.real("service_ms");
    const double routers = s.params.flag("compare") ? 2 : 1;
    const double requests = s.params.real("load") * taillab::region_router::fleetCapacityPerS(c) *
                            s.params.real("duration_s") * routers;
    state.counters["requests_per_s"] = benchmark::Counter(
        requests * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["checks_pass"] = pass ? 1 : 0;
}

const bool kRegionRouterRegistered = [] {
    for (const char* name : {"fra-incident", "fra-incident-switch", "fra-before-after"}) {
        const std::string n = name;
        benchmark::RegisterBenchmark(("incident/" + n).c_str(),
                                     [n](benchmark::State& st) { runIncident(st, n); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    return true;
}();

}  // namespace
