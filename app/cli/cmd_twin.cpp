// taillab-cli twin: one gateway scenario run simulated and live on the same arrivals (live/twin.h),
// and the two side by side: each figure with the difference and its tolerance, and in words what
// diverged and what was measured that could explain it. The JSON (--out) holds the table, both
// results and the live clients' view.
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "live/twin.h"
#include "live_options.h"
#include "load_report.h"
#include "scenario_options.h"
#include "text_table.h"

namespace taillab::cli {
int cmdTwin(const std::vector<std::string>& args) {
    std::string scenarioArg, outPath;
    std::vector<std::string> overrides;
    live::TwinOptions options;
    bool haveDuration = false, haveRate = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, overrides)) continue;
        if (args[i] == "--duration") {
            options.duration = parseDurationOption("--duration", optionValue(args, i));
            haveDuration = true;
        } else if (args[i] == "--rate") {
            options.rate_per_s = parseRateOption(optionValue(args, i));
            haveRate = true;
        } else if (args[i] == "--start-at") {
            options.start_at = parseStartAtOption(optionValue(args, i));
        } else if (args[i] == "--out") {
            outPath = outputPathValue(args, i);
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    if (!haveDuration) throw UsageError{"twin needs --duration (e.g. --duration 30s)"};
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);
    if (setsKnob(overrides, "window_s")) options.window = fromSeconds(scenario.params.real("window_s"));
    checkOutputPath(outPath, "--out", {resolveScenarioPath(scenarioArg)});
    if (scenario.lab == "gateway") checkStartAtOption(scenario, options.start_at);
    live::TwinRun run;
    try {
        live::checkTwinOptions(scenario, options);  // before the run is announced
        const double defaultRate = options.rate_per_s;
        const live::LoadScaling scaling =
            reachableScaling(scenario, options.rate_per_s, options.start_at, options.duration, haveRate);
        std::cerr << "twin: " << scenario.name << " (seed " << scenario.seed << "), live then simulated: "
                  << offeredRateLine(scenario, scaling, options.duration)
                  << (options.rate_per_s != defaultRate ? defaultRateNote(defaultRate) : "") << "\n";
        run = live::runTwin(scenario, options);
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    } catch (const std::runtime_error& e) {
        throw UsageError{e.what()};
    }

    std::cout << "twin of " << scenario.name << ": " << run.plan.requests.size() << " requests over "
              << toSeconds(options.duration) << " s (" << rateText(run.plan.mean_rate_per_s)
              << " mean, load_multiplier " << std::fixed << std::setprecision(3)
              << run.plan.scenario.params.real("load_multiplier") << std::defaultfloat
              << "), seed " << scenario.seed << "\n";
    for (const std::string& n : run.plan.notes) std::cout << "note: " << n << "\n";
    std::cout << markdownLine({"figure", "simulated", "live", "difference", "tolerance", ""})
              << markdownRule(6, 1);
    for (const live::TwinRow& r : run.rows)
        std::cout << markdownLine({r.label, live::twinValueText(r, r.simulated), live::twinValueText(r, r.live),
                                   live::twinDifferenceText(r), live::twinToleranceText(r),
                                   r.within ? "ok" : "DIVERGES"});
    for (const live::TwinRow& r : run.rows)
        if (!r.within) std::cout << "- " << r.verdict << "\n";
    std::cout << "\nmean time a request spent per stage: simulated (charged what the live gateway measured), "
                 "live (measured), and the simulation's cost model (not compared)\n"
              << markdownLine({"stage", "simulated (ms)", "live (ms)", "modelled (ms)"}) << markdownRule(4, 1);
    for (const live::TwinStage& st : run.stages)
        std::cout << markdownLine({st.stage, live::twinStageMsText(st.simulated_ms), live::twinStageMsText(st.live_ms),
                                   live::twinStageMsText(st.modelled_ms)});
    std::cout << "\n";
    std::cout << (run.agrees() ? "the live run agrees with the simulation within every tolerance\n"
                               : "the live run diverges from the simulation (above)\n");

    nlohmann::ordered_json doc;
    doc["mode"] = "twin";
    doc["scenario"] = scenario.name;
    doc["seed"] = scenario.seed;
    doc["start_at_s"] = toSeconds(options.start_at);
    doc["duration_s"] = toSeconds(options.duration);
    doc["rate_asked_per_s"] = options.rate_per_s;
    doc["rate_offered_per_s"] = run.plan.scaling.offered_rate_per_s;
    doc["load_multiplier"] = run.plan.scaling.multiplier;
    doc["rate_per_s"] = run.plan.mean_rate_per_s;
    doc["requests"] = run.plan.requests.size();
    doc["notes"] = run.plan.notes;
    doc["agrees"] = run.agrees();
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const live::TwinRow& r : run.rows)
        rows.push_back({{"figure", r.figure}, {"unit", r.unit}, {"simulated", r.simulated}, {"live", r.live},
                        {"difference", r.live - r.simulated}, {"tolerance", r.tolerance},
                        {"tolerance_is_relative", r.relative}, {"within", r.within}, {"verdict", r.verdict}});
    doc["rows"] = std::move(rows);
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    for (const live::TwinStage& st : run.stages)
        stages.push_back({{"stage", st.stage},
                          {"simulated_ms", st.simulated_ms},
                          {"live_ms", st.live_ms},
                          {"modelled_ms", st.modelled_ms}});
    doc["stage_means"] = std::move(stages);
    doc["stage_costs"] = "the simulated half charges each stage the mean the live gateway measured";
    doc["modelled_p50_ms"] = run.modelled_p50_ms;
    doc["modelled_p99_ms"] = run.modelled_p99_ms;
    doc["windows"] = liveWindowsJson(run.windows);
    doc["simulated"] = toJson(run.simulated);
    doc["live"] = toJson(run.live);
    doc["live"]["load"] = loadSummaryJson(run.load_config, run.load);
    if (!outPath.empty()) writeOutput(doc.dump(2) + "\n", outPath);
    return run.agrees() ? kExitOk : kExitChecksFailed;
}

}  // namespace taillab::cli
