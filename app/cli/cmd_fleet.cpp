// taillab-cli fleet: the emulated upstream engines of a gateway scenario over HTTP, until
// SIGINT/SIGTERM or --duration; --start-at begins on the scenario's clock later than 0.
#include <signal.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <ctime>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "commands.h"
#include "live/fleet_server.h"
#include "live/loop.h"
#include "scenario_options.h"

namespace taillab::cli {
namespace {

// "90", "90s", "1500ms", "5m", "2h": a duration above zero.
Duration parseDurationOption(const std::string& option, const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const std::string unit(end, text.data() + text.size());
    double scale = 0;
    if (unit.empty() || unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "m") scale = 60;
    else if (unit == "h") scale = 3600;
    if (ec != std::errc{} || end == text.data() || scale == 0 || !std::isfinite(v) || v <= 0 ||
        v * scale > 1e7)
        throw UsageError{option + " expects a time above 0 such as 90, 90s, 1500ms, 5m or 2h, found '" +
                         text + "'"};
    return fromSeconds(v * scale);
}

// Blocks until SIGINT or SIGTERM, or until `limit` passes. The signals are blocked in every
// thread (the loop's inherits the mask), so only this wait receives them.
void waitForStop(const sigset_t& signals, std::optional<Duration> limit) {
    while (true) {
        int got = 0;
        if (!limit) {
            got = sigwaitinfo(&signals, nullptr);
        } else {
            const std::int64_t ns = limit->count();
            const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
            got = sigtimedwait(&signals, nullptr, &ts);
            if (got < 0 && errno == EAGAIN) return;
        }
        if (got > 0) return;
        // EINTR from another signal: wait again (a --duration run restarts its wait, at worst late).
    }
}

}  // namespace

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
            const std::string& v = optionValue(args, i);
            options.start_at = v == "0" ? kZero : parseDurationOption("--start-at", v);
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

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
