// How a live or twin run turns the rate asked for into the scenario's load_multiplier: the one
// place that decides, so that `live`, `twin` and the GUI's live tab scale the same arrivals alike.
//
// The calibration window is the run's first hour, or the whole run when it is shorter (a 10 s run
// is scaled so that those 10 s average the rate, not an hour it never reaches). Its expected count
// of arrivals at multiplier m is m/m0 times the scenario's own (the workload's hourly counts at
// its multiplier m0, each hour weighted by how much of it the window covers), so
//
//   m = m0 · R · window / expected(window at m0)
//
// and the rate offered is R (m rounded to 4 digits) while m lies in the knob's range [0.1, 50].
// Outside it, m is clamped
// and the rate offered is R · clamped/m: the scenario's quiet hours (Mon 00:00) cannot reach a
// rate its busy hours (Tue 14:00) reach easily. reachable() says whether the rate asked is the one
// offered; unreachableRateText() says, in words, what is offered instead and how to get the rate.
#pragma once

#include <optional>
#include <string>

#include "base/time.h"
#include "scenario/scenario.h"

namespace taillab::live {

struct LoadScaling {
    double asked_rate_per_s = 0;
    double wanted_multiplier = 1;  // what the asked rate needs
    double multiplier = 1;         // what the run uses: wanted_multiplier to 4 digits, within the knob's range
    double offered_rate_per_s = 0;  // the window's mean rate at `multiplier`
    double max_rate_per_s = 0, min_rate_per_s = 0;  // what the knob's range reaches over the window
    Duration start_at{}, window{};
    // A start (on the scenario's clock, a whole hour) from which the asked rate is reachable, when
    // it is not from start_at and some later hour of the run reaches it.
    std::optional<Duration> reachable_from;
    bool in_range = true;  // wanted_multiplier lies within the knob's range
    bool reachable() const { return in_range; }
};

// The knob's range.
inline constexpr double kMinLoadMultiplier = 0.1, kMaxLoadMultiplier = 50;

// The calibration window of a run that lasts `run_length`: its first hour, or all of it.
Duration calibrationWindow(Duration run_length);

// Throws std::invalid_argument for a scenario of another lab, a rate <= 0, a start outside the
// scenario's run, or a window with no arrivals.
LoadScaling scaleLoad(const Scenario& scenario, double rate_per_s, Duration start_at, Duration run_length);

// When !reachable(): one sentence, e.g. "the scenario's arrivals from Mon 00:00 reach at most 36.8
// requests a second over the first 10 s (load_multiplier at its maximum, 50; 100 would need 136)".
std::string unreachableRateText(const Scenario& scenario, const LoadScaling& s);
// How to get the rate asked for, in the CLI's options: "--rate 36.8 or less, or a later
// --start-at (from 38h, Tue 14:00, the scenario reaches 100 requests a second)".
std::string reachableRateAdvice(const Scenario& scenario, const LoadScaling& s);

}  // namespace taillab::live
