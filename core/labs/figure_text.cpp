#include "labs/figure_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <regex>
#include <utility>

namespace taillab {
namespace {

constexpr const char* kMs = "ms";
constexpr const char* kPercent = "%";

FigureText ms(std::string label) { return {std::move(label), kMs, 1}; }
FigureText share(std::string label) { return {std::move(label), kPercent, 100}; }
FigureText count(std::string label, const char* unit) { return {std::move(label), unit, 1}; }

// "p999" -> "p99.9", "p50" -> "p50"; "max", "mean" and "median" as words.
std::string statistic(const std::string& s) {
    if (s == "p999") return "p99.9";
    if (s == "max") return "Max";
    if (s == "mean") return "Mean";
    if (s == "median") return "Median";
    return s;
}

std::string capitalised(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

// The loaded-replica lab's hedging policies.
std::string policy(const std::string& key) {
    if (key == "none") return "without a hedge";
    if (key == "fixed") return "with a hedge after a fixed delay";
    if (key == "pxx") return "with a hedge at the percentile delay";
    if (key == "dup") return "with every request duplicated";
    return key;
}

std::string words(std::string s) {
    std::replace(s.begin(), s.end(), '_', ' ');
    return s;
}

// Names that are not part of a family.
const std::vector<std::pair<std::string_view, FigureText>>& fixedNames() {
    static const std::vector<std::pair<std::string_view, FigureText>> names = {
        // Averaging percentiles ("pxx": the percentile the scenario picks).
        {"odd_host_pxx_ms", ms("The odd host's percentile")},
        {"healthy_host_pxx_ms", ms("A healthy host's percentile")},
        {"mean_of_host_pxx_ms", ms("Mean of the hosts' percentiles (what a dashboard shows)")},
        {"pooled_pxx_ms", ms("Percentile of all requests pooled (the true value)")},
        {"error_ms", ms("Error of the mean of percentiles")},
        {"error_ratio", {"Mean of percentiles over the true value", "×", 1}},
        {"closed_form_mean_of_host_pxx_ms", ms("Mean of the hosts' percentiles, closed form")},
        {"closed_form_pooled_pxx_ms", ms("Pooled percentile, closed form")},
        {"closed_form_error_ms", ms("Error of the mean of percentiles, closed form")},
        {"closed_form_zero_error_share",
         share("Odd host's traffic share at which the error is zero, closed form")},
        {"threshold_ms", ms("Threshold (the mean of the hosts' percentiles)")},
        {"over_threshold_sum_of_hosts", count("Requests over the threshold, summed per host", "requests")},
        {"over_threshold_pooled", count("Requests over the threshold, pooled", "requests")},
        {"fraction_over_threshold", share("Share of requests over the threshold")},
        {"mean_of_host_fractions_over_threshold", share("Mean of the hosts' shares over the threshold")},
        // Coordinated omission.
        {"closed_loop_skipped_slots", count("Closed loop: send slots skipped while it waited", "slots")},
        {"raw_fraction_at_or_below_1ms", share("Closed loop, as recorded: share at or below 1 ms")},
        {"corrected_samples", count("Corrected: samples, the back-filled ones included", "samples")},
        {"corrected_fraction_at_or_below_1ms", share("Corrected: share at or below 1 ms")},
        // Fan-out.
        {"slow_fraction", share("Slow requests")},
        {"hit_fraction", share("Requests with at least one slow call")},
        {"slow_fraction_closed_form", share("Slow requests, closed form")},
        {"slow_fraction_formula", share("Slow requests, formula with shared slow events")},
        {"slow_fraction_independent_formula", share("Slow requests, 1 − (1 − pₜ)ⁿ (independent calls)")},
        {"backend_slow_rate", share("Slow calls of one backend")},
        {"hedged_slow_fraction", share("Slow requests with the hedge")},
        {"hedged_slow_fraction_formula", share("Slow requests with the hedge, formula")},
        {"per_backend_budget", share("Slow budget per backend that meets the request budget")},
        {"budget_request_slow_fraction", share("Slow requests at that per-backend budget")},
        // Hedging (idle replicas; fan-out with a delayed hedge).
        {"hedge_delay_ms", ms("Hedge delay")},
        {"extra_requests", share("Extra requests (backups per primary)")},
        {"extra_requests_closed_form", share("Extra requests, closed form")},
        {"backup_share_of_calls", share("Backups' share of all calls")},
        {"backup_work_share", share("Backup busy time over hedged primary busy time")},
        {"backup_work_share_closed_form", share("Backup busy time over primary busy time, closed form")},
        {"net_extra_work", share("Net extra work (all server time with the hedge over without, minus 1)")},
        {"net_extra_work_closed_form", share("Net extra work, closed form")},
        // Hedging on loaded replicas.
        {"pxx_delay_ms", ms("Percentile hedge delay")},
        {"pxx_capacity_cost_min", share("Capacity cost of the percentile hedge, lowest over the loads")},
        {"pxx_capacity_cost_max", share("Capacity cost of the percentile hedge, highest over the loads")},
        {"dup_wins_median_up_to_load", share("Duplication lowers the median up to load")},
        {"dup_median_ratio", {"Median with every request duplicated over the median without", "×", 1}},
        // Power of d choices.
        {"warmup_time", count("Warm-up", "mean service times")},
        {"warmup_arrivals", count("Warm-up arrivals", "arrivals")},
        // The gateway.
        {"requests", count("Requests", "requests")},
        {"answered", count("Answered", "requests")},
        {"rejected", count("Rejected before any upstream work", "requests")},
        {"failed", count("Failed after being accepted", "requests")},
        {"cache_hit_rate", share("Cache hit rate")},
        {"coalesced", count("Coalesced onto a call already in flight", "requests")},
        {"primary_calls", count("Primary engine calls", "calls")},
        {"hedge_calls", count("Hedge calls", "calls")},
        {"hedged_fraction", share("Hedge calls per primary call")},
        {"extra_upstream_load", share("Extra upstream load (hedges, last chances, retries per primary)")},
        {"hedged_share_of_requests", share("Hedge calls per accepted request")},
        {"last_chance_calls", count("Last-chance calls", "calls")},
        {"retry_calls", count("Retries", "calls")},
        {"refresh_calls", count("Cache refresh calls", "calls")},
        {"cancelled_calls", count("Calls cancelled when another answered", "calls")},
        {"invalid_answers", count("Answers that failed validation", "answers")},
        {"duplicate_answers", count("Duplicate answers", "answers")},
        {"egress_rests", count("Egress rests", "rests")},
        {"hedges_denied", count("Hedges denied by the hedge budget", "hedges")},
        {"spilled", count("Spilled to another region", "requests")},
        {"rerouted", count("Rerouted from their home region", "requests")},
        {"probes", count("Breaker probes", "probes")},
        {"probe_failures", count("Breaker probes that failed", "probes")},
        {"deadline_missed_rate", share("Deadline missed")},
        {"invisible_failures", count("Failures answered as an empty 200 (invisible to clients)", "requests")},
        {"error_rate", share("Failed requests (the truth)")},
        {"error_rate_seen", share("Failed requests, as clients saw them")},
        {"peak_error_rate", share("Worst window's failed requests (the truth)")},
        {"peak_error_rate_seen", share("Worst window's failed requests, as clients saw them")},
        {"minutes_above_5pct_errors", count("Time with more than 5% of requests failing", "min")},
        {"max_provider_share", share("Busiest provider's share of an hour's requests, at most")},
        {"spill_refused", count("Reroutes and spills refused by a region breaker", "requests")},
        {"standby_takeover_s", count("Standby all online after a zone failed its probes, at most", "s")},
        {"standby_takeovers", count("Standby takeovers", "takeovers")},
        {"region_breaker_minutes", count("Region breakers open", "min")},
        {"probe_failing_minutes", count("Providers failing their probes (per region)", "min")},
    };
    return names;
}

std::string gatewayWords(const std::string& key) {
    if (key == "ok") return "ok";
    if (key == "bad_request") return "bad request";
    if (key == "long_tail_agent") return "long-tail agent";
    if (key == "news_live") return "news (live)";
    return words(key);
}

FigureText describeBase(const std::string& name) {
    for (const auto& [key, text] : fixedNames())
        if (key == name) return text;
    std::smatch m;
    // Power of d: "mean_time_d2", "predicted_mean_time_d1", "p99_time_d3".
    static const std::regex powerOfD("(predicted_mean|mean|median|p99)_time_d([0-9]+)");
    if (std::regex_match(name, m, powerOfD)) {
        const std::string d = ", d = " + m[2].str();
        std::string label;
        if (m[1] == "predicted_mean")
            label = "Mean time in system" + d + (m[2] == "1" ? ", closed form" : ", fixed point");
        else
            label = statistic(m[1]) + " time in system" + d;
        return count(label, "mean service times");
    }
    // Hedging on loaded replicas: "p99_ms_fixed", "extra_requests_dup", "capacity_cost_pxx".
    static const std::regex loaded("(mean|median|p99|p999)_ms_(none|fixed|pxx|dup)");
    if (std::regex_match(name, m, loaded))
        return ms(statistic(m[1]) + " " + policy(m[2]));
    static const std::regex loadedShare("(extra_requests|capacity_cost)_(none|fixed|pxx|dup)");
    if (std::regex_match(name, m, loadedShare))
        return share((m[1] == "extra_requests" ? "Extra requests " : "Capacity cost ") + policy(m[2]));
    // Before and after a hedge, simulated or closed form: "p999_after_closed_form_ms".
    static const std::regex hedge("(p50|p90|p99|p999)_(before|after)(_closed_form)?_ms");
    if (std::regex_match(name, m, hedge))
        return ms(statistic(m[1]) + (m[2] == "before" ? " without the hedge" : " with the hedge") +
                  (m[3].matched ? ", closed form" : ""));
    // Whose latency: "open_loop_p99_ms", "request_p50_ms", "hedged_request_p999_ms", "p50_ms".
    static const std::regex latency(
        "(?:(open_loop|closed_loop|corrected|backend|request|hedged_request)_)?"
        "(p50|p90|p99|p999|max)_ms");
    if (std::regex_match(name, m, latency)) {
        static const std::array<std::pair<const char*, const char*>, 6> whose{{
            {"open_loop", "Open loop: "},
            {"closed_loop", "Closed loop: "},
            {"corrected", "Corrected: "},
            {"backend", "One backend call: "},
            {"request", "Request: "},
            {"hedged_request", "Request with the hedge: "},
        }};
        std::string prefix;
        for (const auto& [key, text] : whose)
            if (m[1] == key) prefix = text;
        return ms(prefix + statistic(m[2]));
    }
    static const std::regex loopRequests("(open_loop|closed_loop)_requests");
    if (std::regex_match(name, m, loopRequests))
        return count(m[1] == "open_loop" ? "Open loop: requests" : "Closed loop: requests",
                     "requests");
    static const std::regex outcome("outcome_([a-z_]+)");
    if (std::regex_match(name, m, outcome)) return count("Outcome: " + gatewayWords(m[1]), "requests");
    // An incident's figures per region: "peak_error_rate_seen_EU", "worst_window_p99_ms_US".
    static const std::regex byRegion(
        "(peak_error_rate|peak_error_rate_seen|inflight_peak_vs_normal|worst_window_p99_ms|"
        "queue_depth_vs_normal|minutes_at_peak)_(EU|US|APAC)");
    if (std::regex_match(name, m, byRegion)) {
        const std::string where = ", " + m[2].str();
        if (m[1] == "queue_depth_vs_normal")
            return {"Deepest window's mean requests in flight over the median window's" + where, "×", 2};
        if (m[1] == "minutes_at_peak")
            return count("Longest run of windows at half the peak failed share or more (5-window rates)" + where, "min");
        if (m[1] == "peak_error_rate") return share("Worst window's failed requests (the truth)" + where);
        if (m[1] == "peak_error_rate_seen")
            return share("Worst window's failed requests, as clients saw them" + where);
        if (m[1] == "worst_window_p99_ms") return ms("Worst window's p99" + where);
        return {"Peak requests in flight over their normal (median window)" + where, "×", 2};
    }
    // A timeline phase's figures: "sev1_error_rate_EU", "standby_worst_window_p99_ms_EU".
    static const std::regex phase("([a-z0-9_]+?)_(error_rate|error_rate_seen|worst_window_p99_ms)(?:_(EU|US|APAC))?");
    if (std::regex_match(name, m, phase)) {
        const std::string where = "Phase " + m[1].str() + (m[3].matched ? ", " + m[3].str() : "") + ": ";
        if (m[2] == "worst_window_p99_ms") return ms(where + "worst window's p99");
        return share(where + (m[2] == "error_rate" ? "failed requests (the truth)"
                                                   : "failed requests, as clients saw them"));
    }
    // Region routing: "score_global_p99_ms", "switch_fra_share_settled", "switch_over_score_...".
    static const std::regex routed("(score|switch)_(.+)");
    if (std::regex_match(name, m, routed)) {
        static const std::vector<std::pair<std::string_view, FigureText>> kRouted = {
            {"global_p50_ms", ms("global p50")},
            {"global_p99_ms", ms("global p99")},
            {"retries_per_min", count("cross-region retries", "per min")},
            {"failed_share", share("requests failed after their retry")},
            {"p99_before_fault_ms", ms("global p99 before the fault")},
            {"peak_window_p99_ms", ms("peak window's global p99 from the fault on")},
            {"fra_share_settled", share("fra's traffic once settled, over its normal")},
            {"fra_fall_s", count("time for fra's traffic to fall to its settled share", "s")},
            {"recovery_s", count("time until the window p99 is back near its pre-fault value", "s")},
            {"neighbour_peak_queue", count("deepest queue in ams or lhr during the incident", "requests")},
            {"neighbour_incident_p99_ms", ms("p99 of requests served in ams and lhr during the incident")},
            {"neighbour_peak_share", share("ams's or lhr's peak window traffic, over its normal")},
            {"incident_retries_per_min", count("cross-region retries in the incident's two minutes", "per min")},
            {"over_score_global_p99", {"global p99 over the score router's", "×", 1}},
            {"over_score_retries", {"cross-region retries over the score router's", "×", 1}},
            {"over_score_peak_window_p99", {"peak window p99 over the score router's", "×", 1}},
            {"over_score_neighbour_peak_queue", {"deepest ams/lhr queue over the score router's", "×", 1}},
            {"over_score_neighbour_incident_p99", {"ams/lhr incident p99 over the score router's", "×", 1}},
        };
        for (const auto& [key, text] : kRouted)
            if (key == m[2].str()) {
                FigureText t = text;
                t.label = (m[1] == "score" ? "Score router: " : "Nearest + switch: ") + t.label;
                return t;
            }
    }
    if (name == "mean_queue_wait_ms") return ms("Mean wait in queue");
    if (name == "mmc_mean_queue_wait_ms") return ms("Mean wait in queue, M/M/c closed form");
    static const std::regex hitRate("cache_hit_rate_([a-z_]+)");
    if (std::regex_match(name, m, hitRate)) return share("Cache hit rate, " + gatewayWords(m[1]));

    // Anything else still reads in words.
    std::string base = name;
    FigureText text;
    if (base.size() > 3 && base.compare(base.size() - 3, 3, "_ms") == 0) {
        base.resize(base.size() - 3);
        text.unit = kMs;
    }
    for (std::size_t at = base.find("p999"); at != std::string::npos; at = base.find("p999", at))
        base.replace(at, 4, "p99.9");
    text.label = capitalised(words(base));
    text.described = false;
    return text;
}

}  // namespace

FigureText describeFigure(std::string_view name) {
    std::string base(name);
    // A sweep point: "..._at_0_5" is the figure at load 0.5.
    static const std::regex atLoad("(.+)_at_([0-9]+)_([0-9]+)");
    std::smatch m;
    std::string where;
    if (std::regex_match(base, m, atLoad)) {
        const double load = std::stod(m[2].str() + "." + m[3].str());
        char percent[32];
        std::snprintf(percent, sizeof percent, "%g", load * 100);
        where = std::string(", at load ") + percent + " %";
        base = m[1].str();
    }
    FigureText text = describeBase(base);
    text.label += where;
    return text;
}

std::string formatFigure(const FigureText& text, double value) {
    if (!std::isfinite(value)) return std::isnan(value) ? "—" : (value > 0 ? "∞" : "−∞");
    const double v = value * text.scale;
    const bool whole = text.unit != kMs && text.unit != kPercent && text.unit != "×" &&
                       text.unit != "mean service times" && !text.unit.empty();
    char buf[64];
    if (whole || std::abs(v) >= 1000) {
        // Whole numbers with thousands separators: "98,238".
        const long long n = std::llround(v);
        std::string digits = std::to_string(n < 0 ? -n : n);
        for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
            digits.insert(static_cast<std::size_t>(i), ",");
        std::snprintf(buf, sizeof buf, "%s%s", n < 0 ? "−" : "", digits.c_str());
    } else if (v == 0) {
        std::snprintf(buf, sizeof buf, "0");
    } else {
        // Four significant digits without an exponent: 1.116, 12.03, 144.9, 0.0003350.
        const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(v))));
        const int decimals = std::clamp(3 - magnitude, 0, 9);
        std::snprintf(buf, sizeof buf, "%.*f", decimals, std::abs(v));
        std::string s = buf;
        if (v < 0) s = "−" + s;
        std::snprintf(buf, sizeof buf, "%s", s.c_str());
    }
    std::string out = buf;
    if (!text.unit.empty()) out += (text.unit == kPercent ? " %" : " " + text.unit);
    return out;
}

}  // namespace taillab
