// taillab-cli live: a gateway scenario's fleet, gateway and load generator in one process over
// loopback HTTP for a while; writes the same result JSON as `run` (what the gateway saw), with the
// load generator's summary (what the clients saw) under "load".
#include <iostream>

#include "commands.h"
#include "live/live_run.h"
#include "live_options.h"
#include "load_report.h"
#include "scenario_options.h"

namespace taillab::cli {

int cmdLive(const std::vector<std::string>& args) {
    std::string scenarioArg, outPath;
    std::vector<std::string> overrides;
    live::LiveRunOptions options;
    bool haveDuration = false, haveRate = false, quiet = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, overrides)) continue;
        if (args[i] == "--duration") {
            options.duration = parseDurationOption("--duration", optionValue(args, i));
            haveDuration = true;
        } else if (args[i] == "--rate") {
            options.rate_per_s = parseRateOption(optionValue(args, i));
            haveRate = true;
        } else if (args[i] == "--connections") {
            options.connections = parseConnectionsOption(optionValue(args, i));
        } else if (args[i] == "--start-at") {
            options.start_at = parseStartAtOption(optionValue(args, i));
        } else if (args[i] == "--out") {
            outPath = outputPathValue(args, i);
        } else if (args[i] == "--quiet") {
            quiet = true;
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    if (!haveDuration) throw UsageError{"live needs --duration (e.g. --duration 30s)"};
    // The generator's connections and the gateway's ends of them are all this process's.
    if (options.connections > 0) ensureDescriptors(options.connections, 2);
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);
    if (setsKnob(overrides, "window_s")) options.window = fromSeconds(scenario.params.real("window_s"));
    checkOutputPath(outPath, "--out", {resolveScenarioPath(scenarioArg)});
    if (scenario.lab != "gateway")
        throw UsageError{"a live run needs a gateway scenario, not a '" + scenario.lab + "' lab"};
    checkStartAtOption(scenario, options.start_at);
    const double defaultRate = options.rate_per_s;
    const live::LoadScaling scaling =
        reachableScaling(scenario, options.rate_per_s, options.start_at, options.duration, haveRate);
    if (!quiet)
        std::cerr << "live: " << scenario.name << ", " << offeredRateLine(scenario, scaling, options.duration)
                  << (options.rate_per_s != defaultRate ? defaultRateNote(defaultRate) : "") << "\n";
    live::LiveRun run;
    try {
        run = live::runLive(scenario, options, [&](const live::LoadInterval& interval) {
            if (!quiet) std::cerr << loadProgressLine(interval) << "\n";
        });
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    } catch (const std::runtime_error& e) {
        throw UsageError{e.what()};
    }
    if (!quiet) std::cerr << loadSummaryText(run.load_config, run.load);
    for (const std::string& n : run.notes) std::cerr << "note: " << n << "\n";
    nlohmann::ordered_json doc = toJson(run.result);
    doc["mode"] = "live";
    doc["load"] = loadSummaryJson(run.load_config, run.load);
    doc["load"]["rate_asked_per_s"] = run.scaling.asked_rate_per_s;
    doc["load"]["rate_offered_per_s"] = run.scaling.offered_rate_per_s;
    doc["load"]["load_multiplier"] = run.scaling.multiplier;
    doc["load"]["rate_averaged_over_s"] = toSeconds(run.scaling.window);
    doc["live_notes"] = run.notes;
    doc["windows"] = liveWindowsJson(run.windows);
    writeOutput(doc.dump(2) + "\n", outPath);
    for (const Check& c : run.result.checks)
        if (c.failed()) {
            std::cerr << failedCheckMessage(c) << "\n";
            return kExitChecksFailed;
        }
    return kExitOk;
}

}  // namespace taillab::cli
