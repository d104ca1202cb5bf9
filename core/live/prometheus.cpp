#include "live/prometheus.h"

#include <array>
#include <cstdio>
#include <string_view>

namespace taillab::live {
namespace {

using gateway::GatewaySnapshot;

// Upper bounds in seconds: from a cache hit (about a millisecond) to past any deadline.
constexpr std::array<double, 14> kBucketsS{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                           0.25,  0.5,    1,     2.5,  5,    10,   30};

class Writer {
public:
    void family(std::string_view name, std::string_view type, std::string_view help) {
        out_ += "# HELP ";
        out_ += name;
        out_ += ' ';
        out_ += help;
        out_ += "\n# TYPE ";
        out_ += name;
        out_ += ' ';
        out_ += type;
        out_ += '\n';
    }
    // name{labels} value; labels already formatted ("a=\"x\",b=\"y\"") or empty.
    void sample(std::string_view name, std::string_view labels, double value) {
        out_ += name;
        if (!labels.empty()) {
            out_ += '{';
            out_ += labels;
            out_ += '}';
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, " %.17g\n", value);
        out_ += buf;
    }
    void sample(std::string_view name, std::string_view labels, std::uint64_t value) {
        out_ += name;
        if (!labels.empty()) {
            out_ += '{';
            out_ += labels;
            out_ += '}';
        }
        out_ += ' ';
        out_ += std::to_string(value);
        out_ += '\n';
    }
    void counter(std::string_view name, std::string_view help, std::uint64_t value) {
        family(name, "counter", help);
        sample(name, "", value);
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

// A label value with Prometheus' three escapes.
std::string quoted(std::string_view v) {
    std::string out = "\"";
    for (const char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    out += '"';
    return out;
}

std::string label(std::string_view name, std::string_view value) {
    return std::string(name) + "=" + quoted(value);
}

// gateway::MarkKind's names, for the timeline's counter.
constexpr std::array<std::string_view, 4> kMarkKindNames{"knob", "fault", "breaker", "phase"};
static_assert(static_cast<std::size_t>(gateway::MarkKind::Phase) + 1 == kMarkKindNames.size());

// The class label of requests refused before their query was classified.
constexpr std::string_view kUnclassified = "unclassified";

std::string bound(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

}  // namespace

std::string prometheusText(const GatewaySnapshot& s, const std::map<int, std::uint64_t>& refused,
                           const Params* knobs) {
    Writer w;
    w.family("taillab_requests_total", "counter",
             "Requests the gateway answered, by outcome (probes not included).");
    for (int o = 0; o < gateway::kOutcomes; ++o)
        w.sample("taillab_requests_total", label("outcome", gateway::kOutcomeNames[static_cast<std::size_t>(o)]),
                 s.outcomes[static_cast<std::size_t>(o)]);
    w.family("taillab_requests_in_flight", "gauge", "Accepted requests not yet answered.");
    w.sample("taillab_requests_in_flight", "", s.in_flight);

    w.family("taillab_request_duration_seconds", "histogram",
             "Latency from accept to response by query class (unclassified: refused before the query was "
             "classified); failures count at their latency.");
    const auto latency = [&](std::string_view className, const HdrHistogram& h) {
        const std::string cls = label("class", className);
        const auto count = static_cast<std::uint64_t>(h.totalCount());
        for (const double le : kBucketsS) {
            const auto us = static_cast<std::int64_t>(le * 1e6 + 0.5);
            const auto n = h.empty() ? 0 : static_cast<std::uint64_t>(h.countAtOrBelow(us));
            w.sample("taillab_request_duration_seconds_bucket", cls + "," + label("le", bound(le)), n);
        }
        w.sample("taillab_request_duration_seconds_bucket", cls + ",le=\"+Inf\"", count);
        w.sample("taillab_request_duration_seconds_sum", cls,
                 h.empty() ? 0.0 : h.mean() * static_cast<double>(count) / 1e6);
        w.sample("taillab_request_duration_seconds_count", cls, count);
    };
    for (int c = 0; c < gateway::kClasses; ++c)
        latency(gateway::kClassNames[static_cast<std::size_t>(c)], s.latency_by_class_us[static_cast<std::size_t>(c)]);
    latency(kUnclassified, s.latency_unclassified_us);

    w.family("taillab_cache_lookups_total", "counter", "Cache lookups by query class.");
    for (int c = 0; c < gateway::kClasses; ++c)
        w.sample("taillab_cache_lookups_total", label("class", gateway::kClassNames[static_cast<std::size_t>(c)]),
                 s.cache_lookups[static_cast<std::size_t>(c)]);
    w.family("taillab_cache_hits_total", "counter", "Cache hits (fresh or stale) by query class.");
    for (int c = 0; c < gateway::kClasses; ++c)
        w.sample("taillab_cache_hits_total", label("class", gateway::kClassNames[static_cast<std::size_t>(c)]),
                 s.cache_hits[static_cast<std::size_t>(c)]);
    w.counter("taillab_coalesced_requests_total", "Requests answered by joining another request's upstream call.",
              s.coalesced);

    w.family("taillab_upstream_calls_total", "counter", "Upstream engine calls started, by role.");
    w.sample("taillab_upstream_calls_total", label("role", "primary"), s.primary_calls);
    w.sample("taillab_upstream_calls_total", label("role", "hedge"), s.hedge_calls);
    w.sample("taillab_upstream_calls_total", label("role", "last_chance"), s.last_chance_calls);
    w.sample("taillab_upstream_calls_total", label("role", "retry"), s.retry_calls);
    w.sample("taillab_upstream_calls_total", label("role", "refresh"), s.refresh_calls);
    w.counter("taillab_upstream_calls_cancelled_total", "Upstream calls cancelled (a hedge's loser, a passed deadline).",
              s.cancelled_calls);
    w.counter("taillab_upstream_invalid_answers_total",
              "Upstream answers that failed validation (empty, block page, CAPTCHA, malformed, repeated).",
              s.invalid_answers);
    w.counter("taillab_upstream_stale_answers_total", "Answers for calls already cancelled or finished: ignored.",
              s.stale_answers);
    w.counter("taillab_hedges_denied_total", "Hedges the hedge budget refused.", s.hedges_denied);
    w.family("taillab_hedge_budget_level", "gauge", "Hedge tokens left, as a share of the bucket (0 to 1).");
    w.sample("taillab_hedge_budget_level", "", s.hedge_budget_level);
    w.counter("taillab_spilled_requests_total", "Unpinned requests admitted in another region.", s.spilled);

    w.family("taillab_admission_limit", "gauge", "The adaptive concurrency limit, by region.");
    for (int g = 0; g < gateway::kRegions; ++g)
        w.sample("taillab_admission_limit", label("region", gateway::kRegionNames[static_cast<std::size_t>(g)]),
                 static_cast<double>(s.admission_limit[static_cast<std::size_t>(g)]));
    w.family("taillab_region_in_flight_requests", "gauge", "Requests holding an admission slot, by region.");
    for (int g = 0; g < gateway::kRegions; ++g)
        w.sample("taillab_region_in_flight_requests",
                 label("region", gateway::kRegionNames[static_cast<std::size_t>(g)]),
                 static_cast<double>(s.inflight[static_cast<std::size_t>(g)]));
    w.family("taillab_batch_queue_depth", "gauge", "Batch-lane requests waiting for admission, by region.");
    for (int g = 0; g < gateway::kRegions; ++g)
        w.sample("taillab_batch_queue_depth", label("region", gateway::kRegionNames[static_cast<std::size_t>(g)]),
                 static_cast<double>(s.batch_queue[static_cast<std::size_t>(g)]));

    // A state set: one series per state, 1 for the current one.
    w.family("taillab_breaker_state", "gauge", "Circuit breaker state by region and engine (1: the current state).");
    const std::size_t engines = s.engines.size();
    for (std::size_t i = 0; i < s.breaker_state.size() && engines > 0; ++i) {
        const std::string where = label("region", gateway::kRegionNames[i / engines]) + "," +
                                  label("engine", s.engines[i % engines]);
        for (int st = 0; st < 3; ++st)
            w.sample("taillab_breaker_state",
                     where + "," + label("state", gateway::kBreakerStateNames[static_cast<std::size_t>(st)]),
                     static_cast<std::uint64_t>(static_cast<int>(s.breaker_state[i]) == st));
    }
    w.family("taillab_http_refused_total", "counter",
             "Requests answered before the gateway saw them (malformed, unknown path, oversized, timed out, "
             "server full), by HTTP status.");
    for (const auto& [status, n] : refused) w.sample("taillab_http_refused_total", label("status", std::to_string(status)), n);

    // The timeline's marks so far (a fault the scenario schedules later is marked ahead).
    std::array<std::uint64_t, kMarkKindNames.size()> marks{};
    for (const gateway::TimelineMark& m : s.timeline)
        if (m.t_s <= s.now_s) ++marks[static_cast<std::size_t>(m.kind)];
    w.family("taillab_timeline_events_total", "counter",
             "Marks on the gateway's timeline so far, by kind: knob changes (POST /admin/knobs, the scenario's "
             "timeline), faults, breaker changes, incident phases.");
    for (std::size_t k = 0; k < marks.size(); ++k)
        w.sample("taillab_timeline_events_total", label("kind", kMarkKindNames[k]), marks[k]);
    if (knobs) {
        w.family("taillab_knob_value", "gauge",
                 "The gateway's knobs in force, by knob: numbers in the knob's unit, switches as 1 (on) or 0 (off).");
        for (const KnobSpec& k : knobs->specs()) {
            if (k.kind == KnobKind::Choice) continue;
            w.sample("taillab_knob_value", label("knob", k.key),
                     k.kind == KnobKind::Boolean ? (knobs->flag(k.key) ? 1.0 : 0.0) : knobs->real(k.key));
        }
        w.family("taillab_knob_choice", "gauge", "The gateway's knobs that take a choice, by knob (1: the choice in force).");
        for (const KnobSpec& k : knobs->specs()) {
            if (k.kind != KnobKind::Choice) continue;
            const int current = knobs->choiceIndex(k.key);
            for (std::size_t c = 0; c < k.choices.size(); ++c)
                w.sample("taillab_knob_choice", label("knob", k.key) + "," + label("choice", k.choices[c]),
                         static_cast<std::uint64_t>(static_cast<int>(c) == current));
        }
    }
    return w.take();
}

}  // namespace taillab::live
