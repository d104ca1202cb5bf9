// taillab-cli serve: a gateway scenario's gateway over HTTP (live mode), in front of upstream
// engines given by URL, until SIGINT/SIGTERM or --duration. --keys lists the scenario's API keys;
// --admin serves POST /admin/knobs and GET /admin/state. The scenario's timeline runs from
// --start-at on its clock (0: the first day's 00:00), as fleet's does: knob changes apply at their
// times (those before it at once), faults are marked (the fleet applies them). A stop is graceful:
// the searches in flight are answered (503 once --drain, default 5 s, is up) and counted.
#include <iomanip>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "commands.h"
#include "live/gateway_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"
#include "scenario/timeline.h"
#include "live_options.h"
#include "scenario_options.h"

namespace taillab::cli {

int cmdServe(const std::vector<std::string>& args) {
    std::string scenarioArg;
    std::vector<std::string> overrides, upstreamArgs;
    live::HostPort listen{"127.0.0.1", 8080};
    std::optional<Duration> duration;
    Duration drain = live::GatewayServer::kDefaultDrain;
    Duration startAt{};
    bool listKeys = false, admin = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, overrides)) continue;
        if (args[i] == "--listen") {
            try {
                listen = live::parseListen(optionValue(args, i));
            } catch (const std::invalid_argument& e) {
                throw UsageError{std::string("--listen: ") + e.what()};
            }
        } else if (args[i] == "--upstream") {
            upstreamArgs.push_back(optionValue(args, i));
        } else if (args[i] == "--start-at") {
            startAt = parseStartAtOption(optionValue(args, i));
        } else if (args[i] == "--duration") {
            duration = parseDurationOption("--duration", optionValue(args, i));
        } else if (args[i] == "--drain") {
            drain = parseDurationOption("--drain", optionValue(args, i));
        } else if (args[i] == "--keys") {
            listKeys = true;
        } else if (args[i] == "--admin") {
            admin = true;
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);
    if (scenario.lab != "gateway")
        throw UsageError{"serve needs a gateway scenario; " + scenarioArg + " is a '" + scenario.lab + "' lab"};
    checkStartAtOption(scenario, startAt);
    live::GatewaySetup setup;
    std::vector<live::Url> upstreams;
    try {
        setup = live::gatewaySetup(scenario);
        setup.start_at = startAt;
        if (listKeys) {
            for (const gateway::ApiKey& k : setup.config.keys)
                std::cout << k.key << "\t" << k.name << "\t" << gateway::kRegionNames[static_cast<std::size_t>(k.home)]
                          << (k.lane == gateway::Lane::Batch ? "\tbatch" : "") << "\n";
            return kExitOk;
        }
        upstreams = live::upstreamUrls(setup.config, upstreamArgs);
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    }

    const sigset_t signals = blockStopSignals();
    live::Loop loop;
    std::optional<live::GatewayServer> server;
    try {
        server.emplace(loop, listen, setup, upstreams, scenario.seed);
        if (admin) server->enableAdmin();
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    } catch (const std::runtime_error& e) {
        throw UsageError{e.what()};
    }
    loop.start();
    server->start();
    std::cerr << "serve: " << scenario.name << " (seed " << scenario.seed << "), from "
              << formatRunTime(toSeconds(startAt), static_cast<int>(scenario.params.choiceIndex("start_day")))
              << " on the scenario's clock, " << setup.config.keys.size()
              << " API keys (list them with --keys); POST /search/lite and /search/fast, GET /metrics and "
                 "/healthz; Ctrl-C stops it\n";
    if (admin) std::cerr << reachableAdminWarning("serve", server->bound(), "POST /admin/knobs, GET /admin/state");
    std::cout << "gateway http://" << live::toString(server->bound()) << "/search/lite\n" << std::flush;

    waitForStop(signals, duration);
    server->stop(drain);
    const gateway::GatewaySnapshot s = server->snapshot();
    const live::GatewayServerStats st = server->stats();
    server.reset();
    loop.stop();
    std::cerr << "serve: stopped after " << s.accepted << " searches (" << s.answered << " answered, "
              << s.rejected << " rejected, " << s.failed << " failed, " << s.in_flight << " in flight), "
              << st.upstream_calls << " upstream calls ("
              << st.upstream_failures << " failed)";
    if (!s.latency_us.empty())
        std::cerr << std::fixed << std::setprecision(2) << "; latency from accept p50 "
                  << s.latency_us.valueAtPercentile(50) / 1000.0 << " ms, p99 "
                  << s.latency_us.valueAtPercentile(99) / 1000.0 << " ms";
    std::cerr << "\n";
    return kExitOk;
}

}  // namespace taillab::cli
