// Options and process plumbing shared by the live-mode commands (fleet, serve, load, live, twin).
#pragma once

#include <signal.h>

#include <cstddef>
#include <optional>
#include <string>

#include "base/time.h"

namespace taillab::cli {

// "90", "90s", "1500ms", "5m", "2h": a duration above zero; UsageError naming `option` otherwise.
Duration parseDurationOption(const std::string& option, const std::string& text);

// The same, 0 allowed: a moment on the scenario's clock (--start-at).
Duration parseClockOption(const std::string& option, const std::string& text);

// Requests per second above 0, up to 10,000,000; UsageError naming --rate otherwise.
double parseRateOption(const std::string& text);

// A whole number of connections from 1 to 1,000,000; UsageError naming --connections otherwise.
std::size_t parseConnectionsOption(const std::string& text);

// Each connection is `perConnection` file descriptors of this process (2 when the server's end is
// in it too), and 64 more are kept for the rest: raises the soft limit if the hard one allows, or
// throws UsageError saying to lower --connections.
void ensureDescriptors(std::size_t connections, std::size_t perConnection = 1);

// SIGINT and SIGTERM blocked in this thread and every thread it starts afterwards, so that only
// waitForStop receives them. Call before starting any loop.
sigset_t blockStopSignals();

// Blocks until SIGINT or SIGTERM, or until `limit` passes.
void waitForStop(const sigset_t& signals, std::optional<Duration> limit);

}  // namespace taillab::cli
