#include "live/twin.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "base/format.h"
#include "gateway_sim/gateway_lab.h"
#include "gateway_sim/gateway_sim.h"
#include "live/live_run.h"
#include "live/live_stack.h"
#include "live/workload_plan.h"
#include "run/runner.h"

namespace taillab::live {
namespace {

using gateway::GatewaySnapshot;

double ratio(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

double pct(const GatewaySnapshot& s, double p) {
    return s.latency_us.empty() ? 0.0 : static_cast<double>(s.latency_us.valueAtPercentile(p)) / 1000.0;
}

std::uint64_t cacheHits(const GatewaySnapshot& s) {
    std::uint64_t n = 0;
    for (const auto h : s.cache_hits) n += h;
    return n;
}
std::uint64_t cacheLookups(const GatewaySnapshot& s) {
    std::uint64_t n = 0;
    for (const auto l : s.cache_lookups) n += l;
    return n;
}

double stageMean(const GatewaySnapshot& s, int stage) {
    const gateway::StageStats& st = s.stages[static_cast<std::size_t>(stage)];
    return st.entered == 0 ? 0.0 : st.time_ms_total / static_cast<double>(st.entered);
}

std::vector<TwinRow> rowsOf(const GatewaySnapshot& sim, const GatewaySnapshot& live, const LoadResult& load) {
    std::vector<TwinRow> rows;
    const auto add = [&](std::string figure, std::string label, std::string unit, double s, double l,
                         double tolerance, bool relative) {
        TwinRow r{std::move(figure), std::move(label), std::move(unit), s, l, tolerance, relative, true, ""};
        if (relative) {
            const double allowed = std::max(tolerance * std::abs(s), r.figure == "breaker_events" ? 1.0 : 0.0);
            r.within = std::abs(l - s) <= allowed + 1e-12;
        } else {
            r.within = std::abs(l - s) <= tolerance + 1e-12;
        }
        rows.push_back(std::move(r));
    };
    add("requests", "requests", "", static_cast<double>(sim.accepted), static_cast<double>(live.accepted), 0, false);
    add("p50_ms", "p50", "ms", pct(sim, 50), pct(live, 50), 0.10, true);
    add("p90_ms", "p90", "ms", pct(sim, 90), pct(live, 90), 0.10, true);
    add("p99_ms", "p99", "ms", pct(sim, 99), pct(live, 99), 0.10, true);
    add("hedge_rate", "hedge rate", "%", 100 * ratio(sim.hedge_calls, sim.primary_calls),
        100 * ratio(live.hedge_calls, live.primary_calls), 2, false);
    add("extra_upstream_load", "extra upstream load", "%",
        100 * ratio(sim.hedge_calls + sim.last_chance_calls + sim.retry_calls, sim.primary_calls),
        100 * ratio(live.hedge_calls + live.last_chance_calls + live.retry_calls, live.primary_calls), 2, false);
    add("cache_hit_rate", "cache hit rate", "%", 100 * ratio(cacheHits(sim), cacheLookups(sim)),
        100 * ratio(cacheHits(live), cacheLookups(live)), 2, false);
    add("breaker_events", "breaker openings", "", static_cast<double>(sim.breaker_spans.size()),
        static_cast<double>(live.breaker_spans.size()), 0.20, true);

    // Words for what is outside its tolerance, with the causes measured.
    const double lagP99 = load.lag.empty() ? 0 : static_cast<double>(load.lag.valueAtPercentile(99)) / 1000.0;
    const double waitP99 = load.wait.empty() ? 0 : static_cast<double>(load.wait.valueAtPercentile(99)) / 1000.0;
    std::uint64_t clientFailures = load.counts.failed;
    for (TwinRow& r : rows) {
        if (r.within) continue;
        if (r.figure == "requests") {
            r.verdict = formatNumbers("the live gateway accepted %.0f of the %.0f planned requests",
                                      r.live, r.simulated);
            if (clientFailures > 0) r.verdict += ": " + std::to_string(clientFailures) + " failed at the clients";
            continue;
        }
        const double diff = r.live - r.simulated;
        if (r.relative && r.simulated != 0) {
            r.verdict = "live " + r.label + " " +
                        formatNumbers("%.0f%%", 100 * std::abs(diff) / r.simulated) +
                        (diff > 0 ? " above" : " below") + " simulated";
        } else {
            r.verdict = "live " + r.label + " " + formatNumbers("%.1f", std::abs(diff)) +
                        (r.unit == "%" ? " points" : "") + (diff > 0 ? " above" : " below") +
                        " simulated";
        }
        if (r.unit == "ms") {
            r.verdict += formatNumbers(
                ": the generator's scheduling lag was %.2f ms at p99, its wait for a connection "
                "%.2f ms at p99",
                lagP99, waitP99);
            double simOwn = 0, liveOwn = 0;  // the gateway's own stages, the engines apart
            for (int st = 0; st < gateway::kStages; ++st) {
                if (st == static_cast<int>(gateway::Stage::Engines)) continue;
                simOwn += stageMean(sim, st);
                liveOwn += stageMean(live, st);
            }
            const int engines = static_cast<int>(gateway::Stage::Engines);
            const double modelled = simOwn - liveOwn;  // what the model charges beyond what loopback paid
            if (diff < 0 && modelled > 0) {
                r.verdict += formatNumbers(
                    "; the simulation charges %.2f ms a request for the gateway's own stages "
                    "(modelled: edge, compiler, cache, merge) where loopback paid %.2f ms",
                    simOwn, liveOwn);
                r.verdict += formatNumbers(", which accounts for %.0f%% of the gap",
                                           std::min(100.0, 100 * modelled / -diff));
            } else {
                r.verdict += formatNumbers(
                    "; the gateway's own stages took %.2f ms a request simulated (modelled) and "
                    "%.2f ms live (measured)",
                    simOwn, liveOwn);
            }
            r.verdict += formatNumbers("; the engine stage %.2f ms simulated, %.2f ms live",
                                       stageMean(sim, engines), stageMean(live, engines));
        }
    }
    return rows;
}

}  // namespace

void checkTwinOptions(const Scenario& scenario, const TwinOptions& options) {
    if (scenario.lab != "gateway")
        throw std::invalid_argument("a twin run needs a gateway scenario, not a '" + scenario.lab + "' lab");
    if (!(options.rate_per_s > 0)) throw std::invalid_argument("the rate must be above 0 requests per second");
    const double runLength = scenario.params.integer("days") * 86400.0;
    const double from = toSeconds(options.start_at), to = from + toSeconds(options.duration);
    if (options.start_at < kZero || options.duration <= kZero || to > runLength)
        throw std::invalid_argument("the start and duration must lie within the scenario's run (" +
                                    std::to_string(scenario.params.integer("days")) + " days)");
}

TwinPlan planTwin(const Scenario& scenario, const TwinOptions& options) {
    checkTwinOptions(scenario, options);
    TwinPlan plan;
    Scenario s = scenario;
    if (s.params.flag("probes")) {
        s.params.set("probes", 0);
        plan.notes.push_back("synthetic probes are off in both runs: the live gateway sends none");
    }
    // Both halves' charts cut as a live run's are (live_run.h): the scenario's windows would
    // close none in a short twin.
    plan.windows = chooseLiveWindows(s, options.window, options.duration);
    // Scaled as a live run of the same length is (live/load_scaling.h).
    WorkloadPlan arrivals(s, options.rate_per_s, options.start_at, options.duration);
    plan.scenario = arrivals.scenario();
    plan.scaling = arrivals.scaling();
    for (const std::string& n : arrivals.notes()) plan.notes.push_back(n);
    arrivals.fill(kZero, options.duration, plan.requests);
    plan.mean_rate_per_s = static_cast<double>(plan.requests.size()) / toSeconds(options.duration);
    return plan;
}

std::vector<TwinStage> compareStages(const GatewaySnapshot& simulated, const GatewaySnapshot& live) {
    std::vector<TwinStage> out;
    for (int st = 0; st < gateway::kStages; ++st)
        out.push_back(TwinStage{std::string(gateway::kStageNames[static_cast<std::size_t>(st)]),
                                stageMean(simulated, st), stageMean(live, st)});
    return out;
}

namespace {

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace

std::string twinValueText(const TwinRow& r, double v) {
    std::string t = fixed(v, r.unit == "ms" ? 2 : r.unit == "%" ? 1 : 0);
    if (r.unit == "%") {
        t += "%";
    } else if (!r.unit.empty()) {
        t += " ";
        t += r.unit;
    }
    return t;
}

std::string twinDifferenceText(const TwinRow& r) {
    const double diff = r.live - r.simulated;
    std::string t = diff >= 0 ? "+" : "";
    if (r.unit == "%") return t + fixed(diff, 1) + " points";  // of a share: percentage points
    t += twinValueText(r, diff);
    if (r.relative && r.simulated != 0) {
        t += diff >= 0 ? " (+" : " (";
        t += fixed(100 * diff / r.simulated, 1);
        t += "%)";
    }
    return t;
}

std::string twinToleranceText(const TwinRow& r) {
    std::string t = "±";
    if (r.relative) {
        t += fixed(100 * r.tolerance, 0);
        t += "%";
        if (r.figure == "breaker_events") t += " or 1";
        return t;
    }
    if (r.tolerance == 0) return "equal";
    t += fixed(r.tolerance, 0);
    t += r.unit == "%" ? " points" : " ";
    if (r.unit != "%") t += r.unit;
    return t;
}

std::string twinStageMsText(double ms) { return fixed(ms, 2); }

bool TwinRun::agrees() const {
    return std::all_of(rows.begin(), rows.end(), [](const TwinRow& r) { return r.within; });
}

std::vector<TwinRow> compareTwin(const GatewaySnapshot& simulated, const GatewaySnapshot& live,
                                 const LoadResult& load) {
    return rowsOf(simulated, live, load);
}

TwinRun runTwin(const Scenario& scenario, const TwinOptions& options) {
    TwinRun run;
    run.plan = planTwin(scenario, options);
    const Scenario& s = run.plan.scenario;

    // The live half first: the simulated half charges the stage costs it measures.
    LiveStackOptions o;
    o.start_at = options.start_at;
    LoadConfig load;
    load.duration = options.duration;
    load.plan = run.plan.requests;
    o.load = std::move(load);
    const auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    if (cancelled()) throw TwinCancelled();
    LiveStack stack(s, std::move(o));
    stack.start();
    while (!stack.waitForLoad(std::chrono::milliseconds(50)))
        if (cancelled()) break;
    stack.stop();
    if (cancelled()) throw TwinCancelled();
    const GatewaySnapshot liveSnap = stack.snapshot();
    const double liveStarted = stack.startedAt();
    run.load = stack.loadResult();
    run.load_config = stack.loadConfig();

    // The simulated half on the same arrivals, charging each stage the mean time the live gateway
    // measured for it: the live gateway pays its stages in real CPU time (tens of µs), where the
    // simulation's cost model charges what a production gateway's TLS, compiler and merge cost
    // (about 17 ms a request). Comparing against the model would report that known offset as a
    // divergence; it is run too, for the stage table and the notes.
    std::array<double, gateway::kStages> measured{};
    for (int st = 0; st < gateway::kStages; ++st) measured[static_cast<std::size_t>(st)] = stageMean(liveSnap, st);
    const auto simulate = [&](const std::array<double, gateway::kStages>* costs) {
        gateway::GatewaySim sim(s.params, s.seed, s.timeline, toSeconds(options.start_at));
        if (costs) sim.chargeStageCosts(*costs);
        sim.finishAt(toSeconds(options.start_at + options.duration));
        return sim.snapshot();
    };
    const GatewaySnapshot simSnap = simulate(&measured);
    const GatewaySnapshot modelledSnap = simulate(nullptr);

    const auto result = [&](const GatewaySnapshot& snap, const gateway::TimeAxis& axis) {
        LabResult r = gateway::gatewayResult(snap, s.params, s.seed, axis);
        r.lab = s.lab;
        r.scenario = s.name;
        r.seed = s.seed;
        r.parameters = s.params.toJson();
        r.timeline = recordedTimeline(s);
        return r;
    };
    // Both halves' time charts in seconds since their start, as a live run's are.
    run.simulated = result(simSnap, gateway::liveTimeAxis(toSeconds(options.start_at)));
    run.live = result(liveSnap, gateway::liveTimeAxis(liveStarted));
    run.windows = run.plan.windows;
    countLiveWindows(run.windows, liveSnap, liveStarted);
    run.rows = rowsOf(simSnap, liveSnap, run.load);
    run.stages = compareStages(simSnap, liveSnap);
    for (std::size_t i = 0; i < run.stages.size(); ++i)
        run.stages[i].modelled_ms = stageMean(modelledSnap, static_cast<int>(i));
    run.modelled_p50_ms = pct(modelledSnap, 50);
    run.modelled_p99_ms = pct(modelledSnap, 99);
    double liveOwn = 0, modelledOwn = 0;
    for (int st = 0; st < gateway::kStages; ++st) {
        if (st == static_cast<int>(gateway::Stage::Engines)) continue;
        liveOwn += stageMean(liveSnap, st);
        modelledOwn += stageMean(modelledSnap, st);
    }
    run.plan.notes.push_back(formatNumbers(
        "the simulated half charges each stage the mean time the live gateway measured for it (%.2f ms a request "
        "in all, the engines apart) instead of the cost model's",
        liveOwn) +
                             formatNumbers(" (%.2f ms a request, modelled for a production gateway: TLS, compiler, "
                                           "merge); with the model its p50 would be %.2f ms",
                                           modelledOwn, run.modelled_p50_ms) +
                             formatNumbers(" and its p99 %.2f ms, an offset of the model, not a divergence",
                                           run.modelled_p99_ms));
    run.plan.notes.push_back(liveWindowsNote(run.windows));
    return run;
}

}  // namespace taillab::live
