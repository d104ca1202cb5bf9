#include "gateway/gateway_charts.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "gateway_sim/gateway_sim.h"
#include "knob_editor.h"

namespace taillab::ui::gateway_charts {
namespace {

using gateway::GatewaySnapshot;
using gateway::WindowPoint;

std::string str(std::string_view v) { return std::string(v); }

// Short names of seed 000's classes, in kClassNames' order, so a legend fits two columns.
constexpr const char* kShortClassNames[gateway::kClasses] = {
    "navigational", "evergreen", "product pricing", "long-tail agent", "news live"};

}  // namespace

Chart timeChart(std::string id, std::string title, std::string yLabel, bool logY) {
    Chart c;
    c.id = std::move(id);
    c.title = std::move(title);
    c.kind = ChartKind::Time;
    c.x_label = kTimeLabel;
    c.y_label = std::move(yLabel);
    c.log_y = logY;
    return c;
}

std::vector<std::string> chartIds() {
    return {kPercentiles, kLatencyNines, kQueue, kHedging, kBreakers, kCache, kSweep};
}

std::string laneName(const GatewaySnapshot& s, int lane) {
    const int engines = std::max<int>(1, static_cast<int>(s.engines.size()));
    const int region = lane / engines;
    const int engine = lane % engines;
    std::string r = region < gateway::kRegions ? str(gateway::kRegionNames[region]) : "?";
    std::string e = engine < static_cast<int>(s.engines.size()) ? s.engines[engine] : "?";
    return r + " / " + e;
}

Chart percentiles(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kPercentiles, "Latency percentiles per window", "Latency (ms)", true);
    auto positive = [](double v) { return v > 0 ? v : std::nan(""); };
    c.series.push_back(
        windowSeries("p50", s, offset_s, [&](const WindowPoint& w) { return positive(w.p50_ms); }));
    c.series.push_back(
        windowSeries("p90", s, offset_s, [&](const WindowPoint& w) { return positive(w.p90_ms); }));
    c.series.push_back(
        windowSeries("p99", s, offset_s, [&](const WindowPoint& w) { return positive(w.p99_ms); }));
    c.series.push_back(windowSeries("p99.9", s, offset_s,
                                    [&](const WindowPoint& w) { return positive(w.p999_ms); }));
    return c;
}

Chart queue(const GatewaySnapshot& s, double offset_s) {
    // On a log axis: a peak of 5 under a limit of 200 is a flat line at zero on a linear one.
    Chart c = timeChart(kQueue, "Queue depth and admission limit", "In flight (log)");
    c.log_y = true;
    for (int r = 0; r < gateway::kRegions; ++r) {
        const std::string region = str(gateway::kRegionNames[r]);
        c.series.push_back(windowSeries(region + " peak", s, offset_s,
                                        [r](const WindowPoint& w) { return w.inflight_peak[r]; }));
    }
    for (int r = 0; r < gateway::kRegions; ++r) {
        const std::string region = str(gateway::kRegionNames[r]);
        c.series.push_back(windowSeries(region + " limit", s, offset_s, [r](const WindowPoint& w) {
            return w.admission_limit[r];
        }));
    }
    return c;
}

Chart hedging(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kHedging, "Hedging", "Percent (%)");
    c.series.push_back(windowSeries("hedges (% of primary calls)", s, offset_s,
                                    [](const WindowPoint& w) { return 100 * w.hedge_rate; }));
    c.series.push_back(windowSeries("extra load (% of primary calls)", s, offset_s,
                                    [](const WindowPoint& w) { return 100 * w.extra_load; }));
    c.series.push_back(windowSeries("budget (% of bucket)", s, offset_s,
                                    [](const WindowPoint& w) {
                                        return 100 * w.hedge_budget_level;
                                    }));
    return c;
}

std::vector<Series> stripSeries(const std::vector<std::string>& states, int lanes,
                                std::vector<StripSpan> spans, double now_s, double offset_s) {
    std::vector<Series> out(states.size());
    for (std::size_t i = 0; i < states.size(); ++i) out[i].name = states[i];
    auto add = [&](int state, int lane, double t0, double t1) {
        Series& s = out[static_cast<std::size_t>(state)];
        s.x.insert(s.x.end(), {offset_s + t0, offset_s + t1});
        s.y.insert(s.y.end(), {double(lane), double(lane)});
    };
    std::stable_sort(spans.begin(), spans.end(),
                     [](const StripSpan& a, const StripSpan& b) { return a.t0_s < b.t0_s; });
    for (int lane = 0; lane < lanes; ++lane) {
        double normalFrom = 0;
        for (const StripSpan& span : spans) {
            if (span.lane != lane || span.state <= 0 ||
                span.state >= static_cast<int>(states.size()))
                continue;
            const double t1 = span.ongoing ? now_s : std::max(span.t1_s, span.t0_s);
            if (span.t0_s > normalFrom) add(0, lane, normalFrom, span.t0_s);
            add(span.state, lane, span.t0_s, t1);
            normalFrom = std::max(normalFrom, t1);
        }
        if (now_s > normalFrom) add(0, lane, normalFrom, now_s);
    }
    return out;
}

Chart breakers(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kBreakers, "Circuit breakers per region / engine", "Region / engine");
    const int engines = static_cast<int>(s.engines.size());
    std::vector<StripSpan> spans;
    for (const auto& span : s.breaker_spans)
        spans.push_back({span.region * engines + span.engine,
                         span.state == gateway::BreakerState::HalfOpen ? 2 : 1, span.t0_s,
                         span.t1_s, span.ongoing});
    c.series = stripSeries({std::begin(kBreakerStates), std::end(kBreakerStates)},
                           gateway::kRegions * engines, std::move(spans), s.now_s, offset_s);
    return c;
}

double decimalPercent(double fraction) {
    if (!std::isfinite(fraction)) return 100 * fraction;
    // The shortest decimal that reads back as `fraction` ("5.8e-01"), its exponent raised by two.
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof(buffer), fraction, std::chars_format::scientific);
    std::string text(buffer, written.ptr);
    const std::size_t e = text.find('e');
    const int exponent = std::stoi(text.substr(e + 1)) + 2;
    text = text.substr(0, e) + "e" + std::to_string(exponent);
    double out = 100 * fraction;
    std::from_chars(text.data(), text.data() + text.size(), out, std::chars_format::scientific);
    return out;
}

PointColumn laneColumn(const Chart& strips, const GatewaySnapshot& s) {
    PointColumn lanes{"lane", {}};
    for (const Series& series : strips.series) {
        std::vector<nlohmann::ordered_json> names;
        for (const double y : series.y) names.emplace_back(laneName(s, static_cast<int>(std::lround(y))));
        lanes.values.push_back(std::move(names));
    }
    return lanes;
}

Chart cache(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kCache, "Cache hit rate by query class", "Hit rate (%)");
    for (int k = 0; k < gateway::kClasses; ++k)
        c.series.push_back(windowSeries(kShortClassNames[k], s, offset_s,
                                        [k](const WindowPoint& w) {
                                            return 100 * w.cache_hit_rate[k];
                                        }));
    c.series.push_back(windowSeries(kAllClasses, s, offset_s, [](const WindowPoint& w) {
        return 100 * w.cache_hit_rate_all;
    }));
    return c;
}

Chart latencyNines(const GatewaySnapshot& s, std::optional<double> deadline_ms) {
    Chart c;
    c.id = kLatencyNines;
    c.title = "Latency by percentile, whole run";
    c.kind = ChartKind::Percentile;
    c.x_label = "Percentile";
    c.y_label = "Latency (ms)";
    c.log_y = true;
    // The classes first and "all requests" last, as "all classes" is on the cache chart, so each
    // class keeps its colour across the two charts and the merged curve is drawn on top.
    for (int k = 0; k < gateway::kClasses; ++k)
        c.series.push_back(percentileSeries(kShortClassNames[k], s.latency_by_class_us[k]));
    c.series.push_back(percentileSeries(kAllRequests, s.latency_us));
    Series deadline{kDeadline, SeriesRole::Reference, {}, {}};
    // Across the percentiles drawn, so the line never stretches the x axis past the data.
    double deepest = -1;
    for (const Series& series : c.series)
        if (!series.x.empty()) deepest = std::max(deepest, series.x.back());
    if (deadline_ms && *deadline_ms > 0 && deepest >= 0) {
        deadline.x = {0.0, deepest};
        deadline.y = {*deadline_ms, *deadline_ms};
    }
    c.series.push_back(std::move(deadline));
    return c;
}

std::string markLabel(const gateway::TimelineMark& m) {
    if (m.kind != gateway::MarkKind::Knob || m.knobs.empty()) return m.what;
    static const std::vector<KnobSpec> specs = gateway::GatewaySim::knobs();
    QStringList steps;
    for (const gateway::KnobStep& k : m.knobs) {
        const auto spec = std::find_if(specs.begin(), specs.end(),
                                       [&](const KnobSpec& s) { return s.key == k.key; });
        if (spec == specs.end()) return m.what;  // not a knob this view knows: as the run wrote it
        QString from = knobValueText(*spec, k.from);
        const QString to = knobValueText(*spec, k.to);
        // A number's unit once, after the new value, when both have it: "420 → 300 ms".
        const qsizetype unitAt = from.indexOf(' ');
        if (spec->kind != KnobKind::Choice && spec->kind != KnobKind::Boolean && unitAt > 0 &&
            to.endsWith(from.mid(unitAt)))
            from.truncate(unitAt);
        steps << QString("%1 %2 → %3").arg(QString::fromStdString(spec->label), from, to);
    }
    return steps.join(", ").toStdString();
}

std::vector<Annotation> annotations(const GatewaySnapshot& s, double offset_s) {
    std::vector<Annotation> out;
    for (const gateway::TimelineMark& m : s.timeline) {
        if (m.kind == gateway::MarkKind::Breaker) continue;
        Annotation a;
        a.x0 = offset_s + m.t_s;
        if (m.end_s) a.x1 = offset_s + *m.end_s;
        a.kind = m.kind == gateway::MarkKind::Knob    ? "knob"
                 : m.kind == gateway::MarkKind::Phase ? "phase"
                                                      : "fault";
        a.label = markLabel(m);
        out.push_back(std::move(a));
    }
    return out;
}

Chart sweep(const std::vector<SweepPoint>& simulated, const std::vector<SweepPoint>& published) {
    Chart c;
    c.id = kSweep;
    c.title = "Hedge delay: p99 against extra upstream load";
    c.kind = ChartKind::XY;
    c.x_label = "Extra upstream load (% of primary calls)";
    c.y_label = "p99 latency (ms)";
    auto series = [](std::string name, SeriesRole role, std::vector<SweepPoint> points) {
        std::sort(points.begin(), points.end(),
                  [](const auto& a, const auto& b) { return a.delay_ms < b.delay_ms; });
        Series out;
        out.name = std::move(name);
        out.role = role;
        for (const auto& p : points) {
            // A published share in percent as the table's digits say it (0.58 is 58), not as
            // 100 × 0.58 comes out in binary (57.99999999999999).
            out.x.push_back(role == SeriesRole::Published ? decimalPercent(p.extra_load) : 100 * p.extra_load);
            out.y.push_back(p.p99_ms);
        }
        return out;
    };
    c.series.push_back(series("simulated, fixed delay", SeriesRole::Simulated, simulated));
    if (!published.empty())
        c.series.push_back(series("published (seed 000)", SeriesRole::Published, published));
    return c;
}

}  // namespace taillab::ui::gateway_charts
