// Options and process plumbing shared by the live-mode commands (fleet, serve, load, live, twin).
#pragma once

#include <signal.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "live/address.h"
#include "live/load_scaling.h"
#include "scenario/scenario.h"

namespace taillab::cli {

// "90", "90s", "1500ms", "5m", "2h": a duration above zero; UsageError naming `option` otherwise.
Duration parseDurationOption(const std::string& option, const std::string& text);

// The same, 0 allowed: a moment on the scenario's clock (--start-at).
Duration parseClockOption(const std::string& option, const std::string& text);

// --start-at T, as fleet, serve, live and twin all read it: a moment on the scenario's clock (as
// parseClockOption reads it, e.g. 38h for Tue 14:00 of a run from Monday), where the command's
// servers start, the scenario's timeline applied up to it.
Duration parseStartAtOption(const std::string& text);
// A UsageError when `start_at` lies beyond the scenario's run (live::checkStartAt), before anything
// starts.
void checkStartAtOption(const Scenario& scenario, Duration start_at);

// Whether an override (--set) sets the knob `key` (params.KEY=...).
bool setsKnob(const std::vector<std::string>& overrides, const std::string& key);

// Requests per second above 0, up to 10,000,000; UsageError naming --rate otherwise.
double parseRateOption(const std::string& text);

// A whole number of connections from 1 to 1,000,000; UsageError naming --connections otherwise.
std::size_t parseConnectionsOption(const std::string& text);

// Each connection is `perConnection` file descriptors of this process (2 when the server's end is
// in it too), and 64 more are kept for the rest: raises the soft limit if the hard one allows, or
// throws UsageError saying to lower --connections.
void ensureDescriptors(std::size_t connections, std::size_t perConnection = 1);

// How `live` and `twin` will scale the scenario's arrivals to `rate_per_s` (live/load_scaling.h).
// A rate typed with --rate that the scenario cannot reach from `start_at` is refused with a
// UsageError that says what it reaches and which --rate or --start-at gets the rate: a run that
// offered another rate than the one asked for would measure another experiment. The command's
// default rate (`rateGiven` false), which nobody asked for, becomes the nearest rate the scenario
// reaches instead (`rate_per_s` is updated; the line before the run says so). Bad options are
// UsageErrors too.
live::LoadScaling reachableScaling(const Scenario& scenario, double& rate_per_s, Duration start_at, Duration duration,
                                   bool rateGiven);
// One line for stderr before the run: "the scenario's arrivals from Mon 14:00 at about 100 req/s
// (load_multiplier 1.23) for 10 s".
std::string offeredRateLine(const Scenario& scenario, const live::LoadScaling& scaling, Duration duration);

// " (no --rate: the most the scenario reaches from there, not the default 100 req/s)".
std::string defaultRateNote(double defaultRate);

// The warning for stderr when `command` listens beyond loopback (--listen 0.0.0.0:PORT, a LAN
// address) with unauthenticated admin endpoints `admin`; empty on loopback. Allowed (the operator
// asked for it), never silent.
std::string reachableAdminWarning(const std::string& command, const live::HostPort& listen, const std::string& admin);

// SIGINT and SIGTERM blocked in this thread and every thread it starts afterwards, so that only
// waitForStop receives them. Call before starting any loop.
sigset_t blockStopSignals();

// Blocks until SIGINT or SIGTERM, or until `limit` passes.
void waitForStop(const sigset_t& signals, std::optional<Duration> limit);

}  // namespace taillab::cli
