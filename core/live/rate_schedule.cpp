#include "live/rate_schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace taillab::live {
namespace {

using std::chrono::nanoseconds;

nanoseconds fromSeconds(double s) { return nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9))); }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

}  // namespace

double RateSchedule::maxRate() const {
    double m = 0;
    for (const RateStep& s : steps) m = std::max(m, s.rate);
    return m;
}

RateSchedule parseRateSchedule(std::string_view text, std::string_view name, double duration_s) {
    RateSchedule schedule;
    int lineNo = 0;
    int firstLine = 0;
    auto fail = [&](int line, const std::string& why) -> ScheduleError {
        return ScheduleError(std::string(name) + ":" + std::to_string(line) + ": " + why);
    };
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++lineNo;
        if (line.empty() || line.front() == '#') continue;
        const std::size_t gap = line.find_first_of(" \t");
        const std::string_view first = line.substr(0, gap);
        const std::string_view second = gap == std::string_view::npos ? std::string_view{} : trim(line.substr(gap));
        if (second.empty() || second.find_first_of(" \t") != std::string_view::npos)
            throw fail(lineNo, "expected two numbers, 'SECONDS RATE', found '" + std::string(line) + "'");
        double values[2] = {0, 0};
        const std::string_view fields[2] = {first, second};
        for (int i = 0; i < 2; ++i) {
            const auto [end, ec] = std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), values[i]);
            if (ec != std::errc{} || end != fields[i].data() + fields[i].size() || !std::isfinite(values[i]) ||
                values[i] < 0)
                throw fail(lineNo, std::string(i == 0 ? "the time" : "the rate") +
                                       " must be a number >= 0, found '" + std::string(fields[i]) + "'");
        }
        const RateStep step{values[0], values[1]};
        if (schedule.steps.empty()) {
            firstLine = lineNo;
            if (step.at_s != 0)
                throw fail(lineNo, "the first step must start at 0 seconds, not " + std::string(first));
        } else if (step.at_s <= schedule.steps.back().at_s) {
            throw fail(lineNo, "steps must start at increasing times: " + std::string(first) +
                                   " s does not come after the step before");
        }
        if (step.at_s >= duration_s)
            throw fail(lineNo, "the step at " + std::string(first) + " s starts at or after the end of the run (" +
                                   std::to_string(duration_s) + " s): lengthen --duration or remove it");
        schedule.steps.push_back(step);
    }
    if (schedule.steps.empty()) throw ScheduleError(std::string(name) + ": no steps (expected lines 'SECONDS RATE')");
    if (schedule.maxRate() <= 0) throw fail(firstLine, "every step has rate 0: the run would send nothing");
    return schedule;
}

SendTimes::SendTimes(const RateSchedule& schedule, nanoseconds duration)
    : schedule_(schedule), duration_(duration) {}

nanoseconds SendTimes::stepStart(std::size_t step) const { return fromSeconds(schedule_.steps[step].at_s); }

nanoseconds SendTimes::stepEnd(std::size_t step) const {
    return step + 1 < schedule_.steps.size() ? std::min(stepStart(step + 1), duration_) : duration_;
}

std::optional<nanoseconds> SendTimes::next() {
    while (step_ < schedule_.steps.size()) {
        const double rate = schedule_.steps[step_].rate;
        if (rate > 0) {
            const nanoseconds at = stepStart(step_) + fromSeconds(static_cast<double>(k_) / rate);
            if (at < stepEnd(step_)) {
                ++k_;
                return at;
            }
        }
        ++step_;
        k_ = 0;
    }
    return std::nullopt;
}

std::uint64_t SendTimes::intendedBefore(nanoseconds offset) const {
    std::uint64_t total = 0;
    for (std::size_t s = 0; s < schedule_.steps.size(); ++s) {
        const double rate = schedule_.steps[s].rate;
        const nanoseconds from = stepStart(s);
        const nanoseconds to = std::min(stepEnd(s), offset);
        if (rate <= 0 || to <= from) continue;
        // Sends at from + k/rate for k = 0 .. while < to: ceil((to - from) * rate) of them.
        total += static_cast<std::uint64_t>(std::ceil(std::chrono::duration<double>(to - from).count() * rate - 1e-9));
    }
    return total;
}

}  // namespace taillab::live
