// taillab-cli fleet: the emulated upstream engines of a gateway scenario over HTTP, until
// SIGINT/SIGTERM or --duration; --start-at begins on the scenario's clock later than 0.
#include <iostream>
#include <optional>
#include <stdexcept>

#include "commands.h"
#include "live_options.h"
#include "live/fleet_server.h"
#include "live/loop.h"
#include "scenario_options.h"

namespace taillab::cli {

int cmdFleet(const std::vector<std::string>& args) {
    std::string scenarioArg;
    std::vector<std::string> overrides;
    live::FleetServerOptions options;
    std::optional<Duration> duration;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, overrides)) continue;
        if (args[i] == "--listen") {
            try {
                options.listen = live::parseListen(optionValue(args, i));
            } catch (const std::invalid_argument& e) {
                throw UsageError{std::string("--listen: ") + e.what()};
            }
        } else if (args[i] == "--duration") {
            duration = parseDurationOption("--duration", optionValue(args, i));
        } else if (args[i] == "--start-at") {
            options.start_at = parseStartAtOption(optionValue(args, i));
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);
    if (scenario.lab == "gateway") checkStartAtOption(scenario, options.start_at);

    const sigset_t signals = blockStopSignals();

    live::Loop loop;
    std::optional<live::FleetServer> fleet;
    try {
        fleet.emplace(loop, scenario, options);
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    } catch (const std::runtime_error& e) {
        throw UsageError{e.what()};
    }
    loop.start();
    fleet->start();
    for (const auto& note : fleet->notes()) std::cerr << "fleet: " << note << "\n";
    std::cerr << reachableAdminWarning("fleet", fleet->bound(),
                                       "POST /admin/knobs, POST and DELETE /admin/faults, GET /admin/state");
    std::cerr << "fleet: " << scenario.name << " (seed " << scenario.seed << ") on "
              << live::toString(fleet->bound()) << "; Ctrl-C stops it\n";
    for (const auto& [name, url] : fleet->engineUrls()) std::cout << name << " " << url << "\n";
    std::cout << std::flush;

    waitForStop(signals, duration);
    fleet->stop();
    const live::FleetCounters c = fleet->counters();
    fleet.reset();
    loop.stop();
    std::cerr << "fleet: stopped after " << c.requests << " calls (" << c.results << " results, "
              << c.empty << " empty, " << c.block + c.captcha + c.consent << " block/captcha/consent, "
              << c.resets << " resets, " << c.hangs << " hangs, " << c.bad_requests << " bad requests; "
              << c.queued << " waited for a free slot, " << c.abandoned << " abandoned by their caller)\n";
    return kExitOk;
}

}  // namespace taillab::cli
