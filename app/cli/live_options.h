// Options and process plumbing shared by the live-mode commands (fleet, serve, load, live, twin).
#pragma once

#include <signal.h>

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

// SIGINT and SIGTERM blocked in this thread and every thread it starts afterwards, so that only
// waitForStop receives them. Call before starting any loop.
sigset_t blockStopSignals();

// Blocks until SIGINT or SIGTERM, or until `limit` passes.
void waitForStop(const sigset_t& signals, std::optional<Duration> limit);

}  // namespace taillab::cli
