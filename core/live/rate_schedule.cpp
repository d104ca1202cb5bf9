#include "live/rate_schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace taillab::live {
namespace {

using std::chrono::nanoseconds;

nanoseconds fromSeconds(double s) { return nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9))); }

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A line's fields: up to three (a third is one too many), each with its column from 1.
struct Field {
    std::string_view text;
    std::size_t column = 0;
};

}  // namespace

double RateSchedule::maxRate() const {
    double m = 0;
    for (const RateStep& s : steps) m = std::max(m, s.rate);
    return m;
}

RateSchedule parseRateSchedule(std::string_view text, std::string_view name, double duration_s) {
    RateSchedule schedule;
    int lineNo = 0;
    Field firstRate;
    int firstLine = 0;
    auto fail = [&](int line, std::size_t column, const std::string& why) -> ScheduleError {
        return ScheduleError(std::string(name) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                             ": " + why);
    };
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++lineNo;
        Field fields[3];
        std::size_t n = 0;
        for (std::size_t i = 0; i < line.size() && n < 3;) {
            if (isBlank(line[i])) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < line.size() && !isBlank(line[j])) ++j;
            fields[n++] = Field{line.substr(i, j - i), i + 1};
            i = j;
        }
        if (n == 0 || fields[0].text.front() == '#') continue;
        if (n != 2) {
            std::string_view shown = line;
            while (!shown.empty() && isBlank(shown.back())) shown.remove_suffix(1);
            shown.remove_prefix(fields[0].column - 1);
            throw fail(lineNo, n == 1 ? shown.size() + fields[0].column + 1 : fields[2].column,
                       "expected two numbers, 'SECONDS RATE', found '" + std::string(shown) + "'");
        }
        double values[2] = {0, 0};
        for (int i = 0; i < 2; ++i) {
            const std::string_view f = fields[i].text;
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), values[i]);
            const bool number = ec == std::errc{} && end == f.data() + f.size() && std::isfinite(values[i]);
            if (i == 0 && (!number || values[i] < 0))
                throw fail(lineNo, fields[i].column, "the time must be a number >= 0, found '" + std::string(f) + "'");
            if (i == 1 && (!number || values[i] < 0 || values[i] > kMaxRate))
                throw fail(lineNo, fields[i].column,
                           "the rate must be a number from 0 to 10000000 (requests per second), found '" +
                               std::string(f) + "'");
        }
        const RateStep step{values[0], values[1]};
        const std::string time(fields[0].text);
        if (schedule.steps.empty()) {
            firstLine = lineNo;
            firstRate = fields[1];
            if (step.at_s != 0)
                throw fail(lineNo, fields[0].column, "the first step must start at 0 seconds, not " + time);
        } else if (step.at_s <= schedule.steps.back().at_s) {
            throw fail(lineNo, fields[0].column,
                       "steps must start at increasing times: " + time + " s does not come after the step before");
        }
        if (step.at_s >= duration_s)
            throw fail(lineNo, fields[0].column,
                       "the step at " + time + " s starts at or after the end of the run (" +
                           std::to_string(duration_s) + " s): lengthen --duration or remove it");
        schedule.steps.push_back(step);
    }
    if (schedule.steps.empty()) throw ScheduleError(std::string(name) + ": no steps (expected lines 'SECONDS RATE')");
    if (schedule.maxRate() <= 0)
        throw fail(firstLine, firstRate.column, "every step has rate 0: the run would send nothing");
    return schedule;
}

SendTimes::SendTimes(const RateSchedule& schedule, nanoseconds duration) {
    const auto& in = schedule.steps;
    if (in.empty() || in.front().at_s != 0)
        throw std::invalid_argument("SendTimes: a schedule's first step starts at 0 seconds");
    if (duration < nanoseconds::zero()) throw std::invalid_argument("SendTimes: a negative duration");
    double due = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (!std::isfinite(in[i].rate) || in[i].rate < 0 || in[i].rate > kMaxRate)
            throw std::invalid_argument("SendTimes: step " + std::to_string(i) + "'s rate is outside 0.." +
                                        std::to_string(kMaxRate));
        if (!std::isfinite(in[i].at_s) || (i > 0 && in[i].at_s <= in[i - 1].at_s))
            throw std::invalid_argument("SendTimes: step " + std::to_string(i) +
                                        " does not start after the step before");
        // Steps at or after the duration are never reached (and their start may not fit in
        // nanoseconds).
        if (in[i].at_s * 1e9 >= static_cast<double>(duration.count())) break;
        const nanoseconds start = fromSeconds(in[i].at_s);
        const nanoseconds end =
            i + 1 < in.size() && in[i + 1].at_s * 1e9 < static_cast<double>(duration.count())
                ? fromSeconds(in[i + 1].at_s)
                : duration;
        steps_.push_back(Step{start, end, in[i].rate, due});
        due += in[i].rate * std::chrono::duration<double>(end - start).count();
    }
}

nanoseconds SendTimes::timeOf(const Step& s, std::uint64_t m) const {
    if (s.rate <= 0) return nanoseconds::max();
    // Negative when rounding in the step before left request m to this one: it goes at the start.
    const double offset_s = std::max(0.0, (static_cast<double>(m) - s.due) / s.rate);
    // Compared in seconds first: an offset far past the end need not fit in nanoseconds.
    if (offset_s >= std::chrono::duration<double>(s.end - s.start).count() + 1) return nanoseconds::max();
    const nanoseconds at = s.start + fromSeconds(offset_s);
    return at < s.end ? at : nanoseconds::max();
}

std::uint64_t SendTimes::firstAtOrAfter(const Step& s, std::uint64_t m, nanoseconds limit) const {
    if (s.rate <= 0 || limit <= s.start) return m;
    // N(limit) is where the answer lies, give or take the rounding of times to nanoseconds.
    const double due = s.due + s.rate * std::chrono::duration<double>(limit - s.start).count();
    std::uint64_t k = std::max<std::uint64_t>(m, static_cast<std::uint64_t>(std::max(0.0, std::ceil(due))));
    while (k > m && timeOf(s, k - 1) >= limit) --k;
    while (timeOf(s, k) < limit) ++k;
    return k;
}

std::optional<nanoseconds> SendTimes::next() {
    for (; step_ < steps_.size(); ++step_) {
        const nanoseconds at = timeOf(steps_[step_], m_);
        if (at != nanoseconds::max()) {
            ++m_;
            return at;
        }
    }
    return std::nullopt;
}

std::uint64_t SendTimes::intendedBefore(nanoseconds offset) const {
    std::uint64_t m = 0;
    for (const Step& s : steps_) {
        if (offset <= s.start) break;
        m = firstAtOrAfter(s, m, std::min(offset, s.end));
    }
    return m;
}

}  // namespace taillab::live
