// When an open-loop load sends: a rate in requests per second that changes in steps, and the
// intended send times it implies. No clock and no I/O here; the load generator turns offsets into
// wall-clock times.
//
// Within a step that starts at t0 with rate r, the k-th request is intended at t0 + k / r
// (k = 0, 1, ...), computed from k rather than accumulated, so a long run does not drift. A step
// with rate 0 sends nothing. The schedule ends at the run's duration.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace taillab::live {

struct RateStep {
    double at_s = 0;  // from this many seconds after the start
    double rate = 0;  // requests per second
    bool operator==(const RateStep&) const = default;
};

struct RateSchedule {
    std::vector<RateStep> steps;  // at_s strictly increasing, the first at 0

    static RateSchedule constant(double rate) { return RateSchedule{{RateStep{0, rate}}}; }
    double maxRate() const;
};

// A schedule file that does not read: "FILE:LINE: what is wrong".
class ScheduleError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Reads a schedule file: one step a line, "SECONDS RATE" (spaces or tabs between), blank lines
// and lines starting with '#' skipped. The first step must start at 0, times must increase, rates
// must be finite and >= 0 with at least one above 0, and no step may start at or after
// `duration_s` (a step the run would never reach is a mistake worth hearing about). `name` is the
// file name the errors quote.
RateSchedule parseRateSchedule(std::string_view text, std::string_view name, double duration_s);

// Walks a schedule's intended send offsets in order, up to (not including) the duration.
class SendTimes {
  public:
    SendTimes(const RateSchedule& schedule, std::chrono::nanoseconds duration);
    // The next intended offset from the start, or nothing once the run's sends are over.
    std::optional<std::chrono::nanoseconds> next();
    // How many sends the schedule intends before `offset` (for "behind schedule" reports).
    std::uint64_t intendedBefore(std::chrono::nanoseconds offset) const;

  private:
    std::chrono::nanoseconds stepStart(std::size_t step) const;
    std::chrono::nanoseconds stepEnd(std::size_t step) const;

    const RateSchedule schedule_;
    std::chrono::nanoseconds duration_;
    std::size_t step_ = 0;
    std::uint64_t k_ = 0;  // sends so far within the current step
};

}  // namespace taillab::live
