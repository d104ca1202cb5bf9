#include "load_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace taillab::cli {
namespace {

using live::HttpFailure;

constexpr std::array<double, 4> kPercentiles{50, 90, 99, 99.9};
constexpr std::array<const char*, 4> kPercentileKeys{"p50_ms", "p90_ms", "p99_ms", "p99_9_ms"};
// Thresholds for the share of requests slower than each (ms): a stall's reach reads better as
// "4% of requests took over 100 ms" than as percentiles, and compares with a closed form.
constexpr std::array<int, 4> kShareAboveMs{1, 10, 100, 1000};

std::string ms(std::int64_t micros) {
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3f", static_cast<double>(micros) / 1000.0);
    return buf.data();
}

// 2000, 1.5, 0.25: as a person would write a rate or a duration.
std::string plain(double x) {
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%g", x);
    return buf.data();
}

double msValue(std::int64_t micros) { return std::round(static_cast<double>(micros)) / 1000.0; }

std::string row(const char* name, const HdrHistogram& h) {
    std::array<char, 160> buf{};
    if (h.empty()) {
        std::snprintf(buf.data(), buf.size(), "  %-16s %10s\n", name, "(none)");
        return buf.data();
    }
    std::snprintf(buf.data(), buf.size(), "  %-16s %10s %10s %10s %10s %10s\n", name,
                  ms(h.valueAtPercentile(50)).c_str(), ms(h.valueAtPercentile(90)).c_str(),
                  ms(h.valueAtPercentile(99)).c_str(), ms(h.valueAtPercentile(99.9)).c_str(),
                  ms(h.max()).c_str());
    return buf.data();
}

nlohmann::ordered_json percentiles(const HdrHistogram& h) {
    nlohmann::ordered_json j;
    j["count"] = h.totalCount();
    for (std::size_t k = 0; k < kPercentiles.size(); ++k)
        j[kPercentileKeys[k]] = msValue(h.valueAtPercentile(kPercentiles[k]));
    j["max_ms"] = msValue(h.max());
    j["mean_ms"] = std::round(h.mean()) / 1000.0;
    nlohmann::ordered_json above;
    for (const int t : kShareAboveMs) {
        const std::int64_t total = h.totalCount();
        above[std::to_string(t)] =
            total == 0 ? 0.0 : static_cast<double>(total - h.countAtOrBelow(std::int64_t{t} * 1000)) / total;
    }
    j["share_above_ms"] = above;
    return j;
}

// What the corrected latencies hold of a run stopped with requests unanswered; "" for none.
std::string abandonedNote(const live::LoadResult& r) {
    if (r.counts.abandoned == 0) return "";
    return "the corrected percentiles include the " + std::to_string(r.counts.abandoned) +
           " requests abandoned at the stop, each at its age then (a lower bound on its latency); "
           "uncorrected and connection wait hold only the requests that finished";
}

std::string scheduleText(const live::RateSchedule& s) {
    if (s.steps.size() == 1) return rateText(s.steps[0].rate);
    return "a schedule of " + std::to_string(s.steps.size()) + " steps (peak " + rateText(s.maxRate()) + ")";
}

}  // namespace

std::string rateText(double perSecond) {
    double shown = perSecond;
    if (std::isfinite(perSecond) && perSecond > 0) {
        // Three significant figures, or the whole number when it has more digits.
        const double scale = std::pow(10.0, std::max(0.0, 2 - std::floor(std::log10(perSecond))));
        shown = std::round(perSecond * scale) / scale;
    }
    std::array<char, 48> buf{};
    std::snprintf(buf.data(), buf.size(), "%.10g req/s", shown);
    return buf.data();
}

std::string uncorrectedHgrmPath(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1)
        return path + ".uncorrected";
    return path.substr(0, dot) + ".uncorrected" + path.substr(dot);
}

std::string loadProgressLine(const live::LoadInterval& i) {
    // The interval's completions a second; over an interval shorter than a second (the run's
    // last, or a run that short) their count and how long it was instead: one request in 5 ms is
    // not a rate of 200 a second.
    std::array<char, 64> pace{};
    if (i.length_s >= 0.999)
        std::snprintf(pace.data(), pace.size(), "rate %.0f/s",
                      static_cast<double>(i.completed_in_interval) / i.length_s);
    else
        std::snprintf(pace.data(), pace.size(), "%llu in the last %.3f s",
                      static_cast<unsigned long long>(i.completed_in_interval), i.length_s);
    std::array<char, 256> buf{};
    std::snprintf(buf.data(), buf.size(), "[%6.1fs] sent %llu  completed %llu  %s  p99 %s ms  lag p99 %s ms",
                  i.start_s + i.length_s, static_cast<unsigned long long>(i.counts.sent),
                  static_cast<unsigned long long>(i.counts.answered + i.counts.failed), pace.data(),
                  ms(i.corrected_total->valueAtPercentile(99)).c_str(),
                  ms(i.lag_total->valueAtPercentile(99)).c_str());
    std::string line = buf.data();
    if (i.behind_schedule > 0) line += "  behind schedule by " + std::to_string(i.behind_schedule);
    if (i.counts.too_late > 0) line += "  too late to send " + std::to_string(i.counts.too_late);
    if (i.counts.abandoned > 0) line += "  abandoned at the stop " + std::to_string(i.counts.abandoned);
    if (i.wait_total && i.corrected_total && live::connectionWaitSignificant(*i.wait_total, *i.corrected_total))
        line += "  connection wait p99 " + ms(i.wait_total->valueAtPercentile(99)) + " ms (raise --connections)";
    return line;
}

std::string loadSummaryText(const live::LoadConfig& config, const live::LoadResult& r) {
    std::string out = "load: " + live::toString(config.url) + ", " + scheduleText(config.schedule) +
                      " for " + plain(r.schedule_s) + " s over up to " +
                      std::to_string(r.connections) + " connections (" +
                      std::to_string(r.peak_connections) + " opened at most)\n";
    out += "sent " + std::to_string(r.counts.sent) + " of " + std::to_string(r.intended) + " intended, " +
           (r.counts.too_late > 0 ? std::to_string(r.counts.too_late) + " too late to send, " : "") +
           std::to_string(r.counts.answered) + " answered, " +
           std::to_string(r.counts.failed) + " failed, in " + ms(std::llround(r.elapsed_s * 1e3)) +
           " s" +
           (!r.stopped_early ? ""
                             : " (stopped early at " + ms(std::llround(r.stopped_at_s * 1e3)) + " s" +
                                   (r.counts.abandoned > 0
                                        ? "; " + std::to_string(r.counts.abandoned) + " still unanswered, abandoned)"
                                        : ")")) +
           "\n\n";
    std::array<char, 160> head{};
    std::snprintf(head.data(), head.size(), "  %-16s %10s %10s %10s %10s %10s\n", "latency (ms)", "p50",
                  "p90", "p99", "p99.9", "max");
    out += head.data();
    out += row("corrected", r.corrected);
    out += row("uncorrected", r.uncorrected);
    out += row("scheduling lag", r.lag);
    out += row("connection wait", r.wait);
    out += "\n  corrected: from each request's intended send time (what users at this rate see);\n"
           "  uncorrected: from when it got a connection (what a closed-loop tool reports)\n";
    if (std::string note = abandonedNote(r); !note.empty())
        out += "  " + note.replace(note.find(" (a lower"), 1, "\n  ") + "\n";
    out += "\n";
    for (const auto& [status, n] : r.counts.statuses)
        out += "  status " + std::to_string(status) + ": " + std::to_string(n) + "\n";
    for (int k = 1; k < live::kHttpFailureKinds; ++k) {
        const std::uint64_t n = r.counts.failures[static_cast<std::size_t>(k)];
        if (n > 0) out += "  failed (" + std::string(toString(static_cast<HttpFailure>(k))) + "): " + std::to_string(n) + "\n";
    }
    out += "  scheduling lag p99 " + ms(r.lag.valueAtPercentile(99)) + " ms, max " + ms(r.lag.max()) + " ms\n";
    if (const auto warning = live::generatorBottleneckWarning(r)) out += "\nwarning: " + *warning + "\n";
    if (const auto warning = live::connectionPoolWarning(r)) out += "\nwarning: " + *warning + "\n";
    return out;
}

nlohmann::ordered_json loadSummaryJson(const live::LoadConfig& config, const live::LoadResult& r) {
    nlohmann::ordered_json j;
    j["url"] = live::toString(config.url);
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    if (config.plan.empty()) {
        for (const auto& s : config.schedule.steps) steps.push_back({{"at_s", s.at_s}, {"rate_per_s", s.rate}});
        j["schedule"] = steps;
    } else {
        j["schedule"] = "planned";  // a twin run's arrivals, each at its own time
        j["planned_requests"] = config.plan.size();
    }
    j["duration_s"] = r.schedule_s;
    j["connections"] = r.connections;
    j["peak_connections"] = r.peak_connections;
    j["elapsed_s"] = r.elapsed_s;
    j["stopped_early"] = r.stopped_early;
    j["intended"] = r.intended;
    j["sent"] = r.counts.sent;
    j["too_late"] = r.counts.too_late;
    j["stopped_at_s"] = r.stopped_early ? nlohmann::ordered_json(r.stopped_at_s) : nlohmann::ordered_json(nullptr);
    j["abandoned"] = r.counts.abandoned;
    // In "corrected" too, at their ages when abandoned (a lower bound on their latencies).
    j["abandoned_age"] = percentiles(r.abandoned);
    const std::string note = abandonedNote(r);
    j["abandoned_note"] = note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(note);
    j["answered"] = r.counts.answered;
    j["failed"] = r.counts.failed;
    nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
    for (const auto& [status, n] : r.counts.statuses) statuses[std::to_string(status)] = n;
    j["statuses"] = statuses;
    nlohmann::ordered_json failures = nlohmann::ordered_json::object();
    for (int k = 1; k < live::kHttpFailureKinds; ++k)
        failures[std::string(toString(static_cast<HttpFailure>(k)))] = r.counts.failures[static_cast<std::size_t>(k)];
    j["failures"] = failures;
    j["corrected"] = percentiles(r.corrected);
    j["uncorrected"] = percentiles(r.uncorrected);
    j["scheduling_lag"] = percentiles(r.lag);
    j["connection_wait"] = percentiles(r.wait);
    const auto warning = live::generatorBottleneckWarning(r);
    j["generator_bottleneck"] = warning ? nlohmann::ordered_json(*warning) : nlohmann::ordered_json(nullptr);
    const auto pool = live::connectionPoolWarning(r);
    j["connection_pool_bottleneck"] = pool ? nlohmann::ordered_json(*pool) : nlohmann::ordered_json(nullptr);
    return j;
}

nlohmann::ordered_json liveWindowsJson(const live::LiveWindows& w) {
    nlohmann::ordered_json j;
    j["x_unit"] = "seconds since the run's start, at each window's end";
    j["window_s"] = w.window_s;
    j["window_chosen_for_the_run"] = w.chosen;
    j["scenario_window_s"] = w.scenario_window_s;
    j["count"] = w.count;
    j["last_window_s"] = w.last_window_s;
    j["last_window_partial"] = w.last_partial;
    return j;
}

}  // namespace taillab::cli
