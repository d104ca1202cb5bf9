// Every lab with every number knob at its maximum (choices and switches at their defaults): how
// long one run takes, and the process's peak memory after it. The rule (README, "Limits") is
// that a run at the knobs' maxima ends within about a minute on a 2-core machine; a knob whose
// maximum breaks it has its maximum lowered.
//
// A run is cancelled after 30 s (TAILLAB_MAXIMA_CAP_S to change); its full duration is then
// extrapolated from the progress it reported (labs report the fraction of their work done), and
// `finished` is 0. Peak memory is the process's, so run one lab per process to read it alone
// (--benchmark_filter=BM_LabAtKnobMaxima/gateway).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "labs/lab.h"

namespace {

double capSeconds() {
    const char* v = std::getenv("TAILLAB_MAXIMA_CAP_S");
    return v ? std::atof(v) : 30.0;
}

// The process's peak resident set (VmHWM), in MB.
double peakRssMb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

void atMaxima(benchmark::State& state, const std::string& id) {
    const taillab::Lab* lab = taillab::findLab(id);
    taillab::Params params = lab->defaultParams();
    for (const auto& k : params.specs())
        if (k.kind == taillab::KnobKind::Real || k.kind == taillab::KnobKind::Integer)
            params.set(k.key, k.max);
    for (auto _ : state) {
        taillab::RunControl control;
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        std::thread watchdog([&] {
            std::unique_lock lock(m);
            if (!cv.wait_for(lock, std::chrono::duration<double>(capSeconds()), [&] { return done; }))
                control.requestCancel();
        });
        const auto start = std::chrono::steady_clock::now();
        std::string error;
        try {
            benchmark::DoNotOptimize(lab->run(params, 1, control, {}));
        } catch (const std::exception& e) {
            error = e.what();
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        {
            std::lock_guard lock(m);
            done = true;
        }
        cv.notify_one();
        watchdog.join();
        if (!error.empty() && !control.cancelRequested()) {
            state.SkipWithError((id + ": " + error).c_str());
            return;
        }
        const bool finished = !control.cancelRequested();
        const double progress = control.progress();
        state.counters["seconds"] = seconds;
        state.counters["finished"] = finished ? 1 : 0;
        state.counters["progress"] = progress;
        state.counters["estimated_seconds"] =
            finished ? seconds : (progress > 0 ? seconds / progress : -1);
        state.counters["peak_rss_mb"] = peakRssMb();
    }
}

void registerAll() {
    for (const auto& lab : taillab::allLabs())
        benchmark::RegisterBenchmark(("BM_LabAtKnobMaxima/" + lab->id()).c_str(), atMaxima,
                                     lab->id())
            ->Unit(benchmark::kSecond)
            ->UseRealTime()
            ->Iterations(1);
}

const int kKnobMaximaRegistered = (registerAll(), 0);

}  // namespace
