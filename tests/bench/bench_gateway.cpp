// The full v4 gateway path (scenarios/gateway/week-v4-september.json's settings, which are the
// knob defaults): simulated requests per second on one core and events per request over one
// day, and the wall time and peak memory of the whole week (1,084,001 requests).
// Targets (issue 3): the week in under 1 s on one core, under 300 MB. And the July replay
// (scenarios/incidents/, three days with gateway compute, its faults and phases): under 5 s on
// one core (issue 10).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>

#include "gateway_sim/gateway_sim.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "workload/workload.h"

namespace {

using taillab::gateway::GatewaySim;

void runDays(benchmark::State& state, int days) {
    taillab::Params params(GatewaySim::knobs());
    params.set("days", days);
    params.set("start_day", 2);  // Wednesday: a typical weekday
    std::uint64_t requests = 0, events = 0;
    for (auto _ : state) {
        GatewaySim sim(params, 1);
        sim.drain();
        const auto snap = sim.snapshot();
        requests += snap.accepted;
        events += snap.events;
        benchmark::DoNotOptimize(snap.answered);
    }
    state.counters["requests_per_s"] =
        benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
    state.counters["events_per_request"] = static_cast<double>(events) / static_cast<double>(requests);
    state.counters["requests"] = static_cast<double>(requests) / static_cast<double>(state.iterations());
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The week's arrivals alone (drawn hour by hour, as the simulator streams them): the part of the
// week's time that is workload generation rather than the request path.
void BM_GatewayWorkloadWeek(benchmark::State& state) {
    taillab::Params params(GatewaySim::knobs());
    params.set("days", 7);
    params.set("start_day", 2);
    std::uint64_t requests = 0;
    std::vector<taillab::gateway::RequestSpec> hour;
    for (auto _ : state) {
        taillab::gateway::Workload workload(params, 1);
        for (int h = 0; h < workload.hours(); ++h) {
            hour.clear();
            workload.generateHour(h, hour);
            requests += hour.size();
            benchmark::DoNotOptimize(hour.data());
        }
    }
    state.counters["requests_per_s"] =
        benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}

void BM_GatewayV4Day(benchmark::State& state) { runDays(state, 1); }
void BM_GatewayV4Week(benchmark::State& state) { runDays(state, 7); }

// One July scenario run as `taillab-cli run` runs it (the simulation and the result's figures).
void runIncident(benchmark::State& state, const char* name) {
    const taillab::Scenario s = taillab::loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) +
                                                          "/scenarios/incidents/" + name + ".json");
    double requests = 0;
    for (auto _ : state) {
        const taillab::LabResult r = taillab::runScenario(s);
        requests += r.figure("requests").value_or(0);
        benchmark::DoNotOptimize(r.figures.data());
    }
    state.counters["requests_per_s"] = benchmark::Counter(requests, benchmark::Counter::kIsRate);
}
void BM_JulyV3(benchmark::State& state) { runIncident(state, "july-v3"); }
void BM_JulyV4(benchmark::State& state) { runIncident(state, "july-v4"); }

BENCHMARK(BM_GatewayWorkloadWeek)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_GatewayV4Day)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
// Runs after the day (registration order), so peak_rss_mb is the week's peak.
BENCHMARK(BM_GatewayV4Week)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_JulyV3)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_JulyV4)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
