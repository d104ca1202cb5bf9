// Every lab at 1,000,000 requests: wall time and requests per second. Labs are looked up by id
// through the registry, so a lab without a `requests` knob (or one that rejects 1M) is skipped
// with a message instead of failing the whole benchmark binary.
//
// Note: "requests" is the lab's own knob. Sweeping labs (hedge_loaded, power_of_d) simulate that
// many requests per point of their sweep, so `simulated_per_s` counts every simulated request.
#include <benchmark/benchmark.h>

#include <string>

#include "labs/lab.h"

namespace {

constexpr double kRequests = 1'000'000;

// How many times a lab simulates `requests`: one per (load, policy or d) point for the sweeps.
double pointsPerRun(const std::string& id, const taillab::Params& p) {
    if (id == "hedge_loaded") return 9 * 5;  // 9 loads × (calibration + 4 policies)
    if (id == "power_of_d") return 9 * p.integer("max_d");
    return 1;
}

void runLab(benchmark::State& state, const std::string& id) {
    const taillab::Lab* lab = taillab::findLab(id);
    if (!lab) {
        state.SkipWithError(("no lab '" + id + "'").c_str());
        return;
    }
    taillab::Params params = lab->defaultParams();
    try {
        if (params.spec("requests")) {
            params.set("requests", kRequests);
        } else {
            // Open-loop labs size the run by rate x duration.
            params.set("duration_s", kRequests / params.real("rate_per_s"));
        }
    } catch (const std::exception& e) {
        state.SkipWithError((id + ": " + e.what()).c_str());
        return;
    }
    bool pass = true;
    for (auto _ : state) {
        taillab::RunControl control;
        const taillab::LabResult r = lab->run(params, 1, control, {});
        pass = r.allChecksPass();
        benchmark::DoNotOptimize(r.figures.data());
    }
    const double iterations = static_cast<double>(state.iterations());
    state.counters["requests_per_s"] =
        benchmark::Counter(kRequests * iterations, benchmark::Counter::kIsRate);
    state.counters["simulated_per_s"] = benchmark::Counter(
        kRequests * pointsPerRun(id, params) * iterations, benchmark::Counter::kIsRate);
    state.counters["checks_pass"] = pass ? 1 : 0;
}

// The default scenario of each lab: what a slider move in the GUI re-runs (target: redrawn
// within 100 ms, of which this is the simulation's share).
void runDefault(benchmark::State& state, const std::string& id) {
    const taillab::Lab* lab = taillab::findLab(id);
    const taillab::Params params = lab->defaultParams();
    for (auto _ : state) {
        taillab::RunControl control;
        const taillab::LabResult r = lab->run(params, 1, control, {});
        benchmark::DoNotOptimize(r.figures.data());
    }
}

const bool kLabsRegistered = [] {
    for (const auto& lab : taillab::allLabs()) {
        const std::string id = lab->id();
        if (id == "gateway") continue;  // bench_gateway.cpp: a day and the whole week
        benchmark::RegisterBenchmark(("lab_default/" + id).c_str(),
                                     [id](benchmark::State& s) { runDefault(s, id); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("lab/" + id).c_str(),
                                     [id](benchmark::State& s) { runLab(s, id); })
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1)
            ->UseRealTime();
    }
    return true;
}();

}  // namespace
