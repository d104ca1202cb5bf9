// What `taillab-cli load` prints and writes after a run: the human summary (percentiles in
// milliseconds, counts, the bottleneck warning), the JSON summary, the .hgrm file names.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "live/live_run.h"
#include "live/load_generator.h"

namespace taillab::cli {

// The summary for a terminal (corrected and uncorrected p50/p90/p99/p99.9/max, the scheduling lag
// and connection wait, status and failure counts, and the warnings when the generator lagged or
// its requests waited for a connection of its own pool).
std::string loadSummaryText(const live::LoadConfig& config, const live::LoadResult& result);
// The same as JSON, with units in the keys.
nlohmann::ordered_json loadSummaryJson(const live::LoadConfig& config, const live::LoadResult& result);
// How a live or twin run's time charts are cut ("windows" in its JSON): the window, its unit,
// how many, and the last one's true length.
nlohmann::ordered_json liveWindowsJson(const live::LiveWindows& windows);
// One progress line for stderr, without the newline: the counts so far, the interval's completions a
// second (their count, for an interval shorter than a second), p99 and lag p99 so far.
std::string loadProgressLine(const live::LoadInterval& interval);
// A rate as every summary prints it: three significant figures, or the whole number when it has
// more digits, without an exponent ("100 req/s" for a scaled 99.9962, "33.3 req/s" for 33.2983,
// "1234 req/s", "0.5 req/s"). JSON keeps the full value.
std::string rateText(double perSecond);
// Where the uncorrected .hgrm goes beside the corrected one: "run.hgrm" -> "run.uncorrected.hgrm".
std::string uncorrectedHgrmPath(const std::string& hgrmPath);

}  // namespace taillab::cli
