// When an open-loop load sends: a rate in requests per second that changes in steps, and the
// intended send times it implies. No clock and no I/O here; the load generator turns offsets into
// wall-clock times.
//
// The schedule's rate integrates to N(t), the requests due by t. Request m (m = 0, 1, ...) is
// intended at the first moment N passes m: at t0 + (m - N(t0)) / r within a step that starts at
// t0 with rate r. So the rate across a step boundary is the steps' rates, whatever their lengths
// (a step shorter than 1/r sends at most one request), and each time is computed from m rather
// than accumulated, so a long run does not drift. A step with rate 0 sends nothing. The schedule
// ends at the run's duration.
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

// The highest rate a schedule may ask for, as --rate: requests per second.
inline constexpr double kMaxRate = 1e7;

// A schedule file that does not read: "FILE:LINE:COLUMN: what is wrong".
class ScheduleError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Reads a schedule file: one step a line, "SECONDS RATE" (spaces or tabs between), blank lines
// and lines starting with '#' skipped. The first step must start at 0, times must increase, rates
// must be from 0 to kMaxRate with at least one above 0, and no step may start at or after
// `duration_s` (a step the run would never reach is a mistake worth hearing about). `name` is the
// file name the errors quote.
RateSchedule parseRateSchedule(std::string_view text, std::string_view name, double duration_s);

// Walks a schedule's intended send offsets in order, up to (not including) the duration.
class SendTimes {
  public:
    // Throws std::invalid_argument for a schedule parseRateSchedule would refuse (no steps, the
    // first not at 0, times not increasing or not finite, a rate outside 0..kMaxRate) or a
    // negative duration.
    SendTimes(const RateSchedule& schedule, std::chrono::nanoseconds duration);
    // The next intended offset from the start, or nothing once the run's sends are over.
    std::optional<std::chrono::nanoseconds> next();
    // How many sends the schedule intends before `offset` (for "behind schedule" reports): exactly
    // the number next() returns below `offset`.
    std::uint64_t intendedBefore(std::chrono::nanoseconds offset) const;

  private:
    struct Step {
        std::chrono::nanoseconds start, end;
        double rate;
        double due;  // N(start): requests due before the step
    };
    // Request m's time within step s, or nanoseconds::max() when it falls at or after the
    // step's end.
    std::chrono::nanoseconds timeOf(const Step& s, std::uint64_t m) const;
    // The first request from `m` on whose time in `s` is not before `limit` (<= the step's end).
    std::uint64_t firstAtOrAfter(const Step& s, std::uint64_t m, std::chrono::nanoseconds limit) const;

    std::vector<Step> steps_;
    std::size_t step_ = 0;
    std::uint64_t m_ = 0;  // the next request to send
};

}  // namespace taillab::live
