#include "live_options.h"

#include <sys/resource.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <ctime>

#include "base/format.h"
#include "commands.h"
#include "live/serve_setup.h"
#include "load_report.h"
#include "scenario/timeline.h"

namespace taillab::cli {

namespace {

Duration parseTime(const std::string& option, const std::string& text, bool zeroAllowed) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const std::string unit(end, text.data() + text.size());
    double scale = 0;
    if (unit.empty() || unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "m") scale = 60;
    else if (unit == "h") scale = 3600;
    if (ec != std::errc{} || end == text.data() || scale == 0 || !std::isfinite(v) || v < 0 ||
        (v == 0 && !zeroAllowed) || v * scale > 1e7)
        throw UsageError{option + (zeroAllowed ? " expects a time of 0 or more" : " expects a time above 0") +
                         " such as 90, 90s, 1500ms, 5m or 2h, found '" + text + "'"};
    return fromSeconds(v * scale);
}

}  // namespace

Duration parseDurationOption(const std::string& option, const std::string& text) {
    return parseTime(option, text, false);
}

Duration parseClockOption(const std::string& option, const std::string& text) {
    return parseTime(option, text, true);
}

Duration parseStartAtOption(const std::string& text) { return parseClockOption("--start-at", text); }

void checkStartAtOption(const Scenario& scenario, Duration start_at) {
    try {
        live::checkStartAt(scenario.params, start_at, "the run");
    } catch (const std::invalid_argument& e) {
        throw UsageError{"--start-at " + formatNumbers("%g", toSeconds(start_at) / 3600) + "h: " + e.what()};
    }
}

bool setsKnob(const std::vector<std::string>& overrides, const std::string& key) {
    const std::string prefix = "params." + key;
    for (const std::string& o : overrides) {
        const std::size_t eq = o.find('=');
        std::string path = o.substr(0, eq);
        std::erase_if(path, [](char c) { return c == ' ' || c == '\t'; });
        if (path == prefix) return true;
    }
    return false;
}

double parseRateOption(const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v) || v <= 0 ||
        v > 1e7)
        throw UsageError{"--rate expects requests per second above 0 (up to 10000000), found '" + text + "'"};
    return v;
}

std::size_t parseConnectionsOption(const std::string& text) {
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v < 1 || v > 1'000'000)
        throw UsageError{"--connections expects a whole number from 1 to 1000000, found '" + text + "'"};
    return v;
}

void ensureDescriptors(std::size_t connections, std::size_t perConnection) {
    const rlim_t needed = static_cast<rlim_t>(connections * perConnection) + 64;
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
    if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= needed) {
        limit.rlim_cur = needed;
        if (::setrlimit(RLIMIT_NOFILE, &limit) == 0) return;
    }
    throw UsageError{std::to_string(connections) + " connections need " + std::to_string(needed) +
                     " file descriptors" + (perConnection > 1 ? " (both ends are in this process)" : "") +
                     ", and this process may open " + std::to_string(limit.rlim_max) +
                     " (ulimit -n): lower --connections"};
}

live::LoadScaling reachableScaling(const Scenario& scenario, double& rate_per_s, Duration start_at, Duration duration,
                                   bool rateGiven) {
    live::LoadScaling s;
    try {
        s = live::scaleLoad(scenario, rate_per_s, start_at, duration);
        if (!s.reachable() && !rateGiven) {
            // A hair inside the bound, so that the multiplier lies within the knob's range.
            const double bound = s.wanted_multiplier > s.multiplier ? s.max_rate_per_s * (1 - 1e-9)
                                                                    : s.min_rate_per_s * (1 + 1e-9);
            live::LoadScaling nearest = live::scaleLoad(scenario, bound, start_at, duration);
            if (nearest.reachable()) {
                rate_per_s = bound;
                return nearest;
            }
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    }
    if (s.reachable()) return s;
    char asked[64];
    std::snprintf(asked, sizeof asked, "%g", rate_per_s);
    throw UsageError{"--rate " + std::string(asked) + " cannot be offered: " + live::unreachableRateText(scenario, s) +
                     ". Ask " + live::reachableRateAdvice(scenario, s)};
}

std::string offeredRateLine(const Scenario& scenario, const live::LoadScaling& s, Duration duration) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "the scenario's arrivals from %s at about %s (load_multiplier %.3g, averaged over %s) "
                  "for %g s",
                  formatRunTime(toSeconds(s.start_at), static_cast<int>(scenario.params.choiceIndex("start_day")))
                      .c_str(),
                  rateText(s.offered_rate_per_s).c_str(), s.multiplier,
                  toSeconds(s.window) >= 3600 ? "the first hour" : "the whole run", toSeconds(duration));
    return line;
}

std::string defaultRateNote(double defaultRate) {
    char note[128];
    std::snprintf(note, sizeof note, " (no --rate: the most the scenario reaches from there, not the default %s)",
                  rateText(defaultRate).c_str());
    return note;
}

std::string reachableAdminWarning(const std::string& command, const live::HostPort& listen, const std::string& admin) {
    if (live::isLoopback(listen)) return {};
    return command + ": warning: listening on " + live::toString(listen) +
           ", not loopback: the admin endpoints (" + admin +
           ") take no authentication and are reachable from the network; use --listen 127.0.0.1:PORT unless that "
           "is what you want\n";
}

sigset_t blockStopSignals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    return signals;
}

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

}  // namespace taillab::cli
