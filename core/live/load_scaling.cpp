#include "live/load_scaling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "scenario/timeline.h"
#include "workload/workload.h"

namespace taillab::live {
namespace {

// The workload's arrivals per hour of the run (interactive and batch) at the scenario's multiplier.
std::vector<double> hourlyArrivals(const Scenario& scenario) {
    const gateway::Workload w(scenario.params, scenario.seed);
    std::vector<double> out;
    for (std::size_t h = 0; h < w.hourCounts().size(); ++h)
        out.push_back(static_cast<double>(w.hourCounts()[h] + w.batchCounts()[h]));
    return out;
}

// Expected arrivals in [from, to) seconds since the run's start: uniform within each hour.
double expectedArrivals(const std::vector<double>& hours, double from, double to) {
    double n = 0;
    for (auto h = static_cast<std::size_t>(from / 3600); h < hours.size() && 3600.0 * h < to; ++h) {
        const double overlap = std::min(to, 3600.0 * (h + 1)) - std::max(from, 3600.0 * h);
        if (overlap > 0) n += hours[h] * overlap / 3600;
    }
    return n;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    if (v >= 1000) std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

// A rate the run can be sure to offer: the bound rounded toward the inside of the range.
std::string rateBound(double v, bool upper) {
    const double scale = v >= 100 ? 1 : v >= 10 ? 10 : 100;
    return number((upper ? std::floor(v * scale) : std::ceil(v * scale)) / scale);
}

std::string windowText(Duration window) {
    const double s = toSeconds(window);
    if (s >= 3600) return "the first hour";
    return "the run's " + number(s) + " s";
}

int startDay(const Scenario& s) { return static_cast<int>(s.params.choiceIndex("start_day")); }

}  // namespace

Duration calibrationWindow(Duration run_length) {
    return std::min<Duration>(run_length, std::chrono::hours(1));
}

LoadScaling scaleLoad(const Scenario& scenario, double rate_per_s, Duration start_at, Duration run_length) {
    if (scenario.lab != "gateway")
        throw std::invalid_argument("the workload's arrivals need a gateway scenario, not a '" + scenario.lab + "' lab");
    if (!(rate_per_s > 0)) throw std::invalid_argument("the rate must be above 0 requests per second");
    const double days = scenario.params.integer("days");
    const Duration runEnd = fromSeconds(days * 86400.0);
    if (start_at < kZero || start_at >= runEnd || run_length <= kZero)
        throw std::invalid_argument("the start must lie within the scenario's run (" +
                                    std::to_string(scenario.params.integer("days")) + " days)");
    LoadScaling s;
    s.asked_rate_per_s = rate_per_s;
    s.start_at = start_at;
    s.window = std::min(calibrationWindow(run_length), runEnd - start_at);
    const std::vector<double> hours = hourlyArrivals(scenario);
    const double base = scenario.params.real("load_multiplier");
    const double from = toSeconds(start_at), length = toSeconds(s.window);
    // Requests a second per unit of load_multiplier over a window of `length` from `at`.
    const auto ratePerMultiplier = [&](double at) {
        return expectedArrivals(hours, at, at + length) / length / base;
    };
    const double unit = ratePerMultiplier(from);
    if (!(unit > 0)) throw std::invalid_argument("the scenario's workload has no arrivals in that window");
    s.wanted_multiplier = rate_per_s / unit;
    s.in_range = s.wanted_multiplier >= kMinLoadMultiplier && s.wanted_multiplier <= kMaxLoadMultiplier;
    // Four significant digits: a knob value that reads as one (40.82, not 40.81632653) in the
    // knob panel and a saved run, at most 0.05% off the rate asked.
    const double digits = std::pow(10.0, 3 - std::floor(std::log10(s.wanted_multiplier)));
    s.multiplier = std::clamp(std::round(s.wanted_multiplier * digits) / digits, kMinLoadMultiplier,
                              kMaxLoadMultiplier);
    s.offered_rate_per_s = unit * s.multiplier;
    s.max_rate_per_s = unit * kMaxLoadMultiplier;
    s.min_rate_per_s = unit * kMinLoadMultiplier;
    if (!s.reachable()) {
        // The first later whole hour from which the rate lies in the range, with a tenth to spare
        // for a window's arrivals scattering about their expectation.
        for (auto h = static_cast<int>(std::ceil(from / 3600)); 3600.0 * h < days * 86400; ++h) {
            const double u = ratePerMultiplier(3600.0 * h);
            if (u * kMaxLoadMultiplier >= 1.1 * rate_per_s && u * kMinLoadMultiplier <= rate_per_s / 1.1) {
                s.reachable_from = std::chrono::hours(h);
                break;
            }
        }
    }
    return s;
}

std::string unreachableRateText(const Scenario& scenario, const LoadScaling& s) {
    const bool tooFast = s.wanted_multiplier > s.multiplier;
    return "the scenario's arrivals from " + formatRunTime(toSeconds(s.start_at), startDay(scenario)) + " reach " +
           (tooFast ? "at most " : "no less than ") + number(s.offered_rate_per_s) +
           " requests a second over " + windowText(s.window) + " (load_multiplier at its " +
           (tooFast ? "maximum, " : "minimum, ") + number(s.multiplier) + "; " + number(s.asked_rate_per_s) +
           " would need " + number(s.wanted_multiplier) + ")";
}

std::string reachableRateAdvice(const Scenario& scenario, const LoadScaling& s) {
    const bool tooFast = s.wanted_multiplier > s.multiplier;
    std::string advice = "--rate " + rateBound(tooFast ? s.max_rate_per_s : s.min_rate_per_s, tooFast) +
                         (tooFast ? " or less" : " or more");
    if (s.reachable_from) {
        const double at = toSeconds(*s.reachable_from);
        advice += ", or --start-at " + number(at / 3600) + "h (" + formatRunTime(at, startDay(scenario)) +
                  ", from where the scenario reaches " + number(s.asked_rate_per_s) + " requests a second)";
    }
    return advice;
}

}  // namespace taillab::live
