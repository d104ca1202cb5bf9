// The "gateway" lab: GatewaySim run to its end under the lab contract (effective parameters,
// summary percentiles, series per window, checks), so scenario files, --set, sweeps, the CLI and
// the GUI's lab view all reach the gateway path the way they reach the teaching labs.
#include <algorithm>
#include <cmath>
#include <optional>

#include "fleet/fleet.h"
#include "gateway_sim/gateway_lab.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway_sim/sim_config.h"
#include "labs/lab.h"

namespace taillab::gateway {
void addGatewayFigures(LabResult& r, const GatewaySnapshot& s);

namespace {

constexpr int kPartials = 20;

double axisX(const TimeAxis& axis, double t_s) { return (t_s - axis.origin_s) / axis.unit_s; }

Series timeSeries(std::string name, const std::vector<WindowPoint>& w, const TimeAxis& axis,
                  double (*value)(const WindowPoint&)) {
    Series s;
    s.name = std::move(name);
    for (const WindowPoint& p : w) {
        const double v = value(p);
        if (std::isnan(v)) continue;
        s.x.push_back(axisX(axis, p.t_s));
        s.y.push_back(v);
    }
    return s;
}

double ratio(std::uint64_t a, std::uint64_t b) { return b ? static_cast<double>(a) / b : 0.0; }

// A window's share of failed requests counts toward an incident's peak only with at least this
// many requests: one unlucky request in a quiet night window is not a 100% error rate.
constexpr std::uint32_t kPeakMinRequests = 20;
constexpr double kErrorThreshold = 0.05;  // "minutes above 5% errors"

double errorShare(const WindowPoint& p) { return ratio(p.failed, p.requests); }
double seenErrorShare(const WindowPoint& p) { return ratio(p.failed - p.invisible, p.requests); }

struct ErrorPeaks {
    double truth = 0, seen = 0, minutes_above = 0;
};
ErrorPeaks errorPeaks(const std::vector<WindowPoint>& windows) {
    ErrorPeaks e;
    double previous = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const WindowPoint& p = windows[i];
        // A window spans from the previous window's end; the first, as long as the second.
        const double length = i > 0 ? p.t_s - previous
                                    : windows.size() > 1 ? windows[1].t_s - p.t_s : 0;
        previous = p.t_s;
        if (p.requests < kPeakMinRequests) continue;
        e.truth = std::max(e.truth, errorShare(p));
        e.seen = std::max(e.seen, seenErrorShare(p));
        if (errorShare(p) > kErrorThreshold) e.minutes_above += length / 60.0;
    }
    return e;
}

template <std::size_t G>
double regionFailedPct(const WindowPoint& p) {
    const RegionWindow& w = p.regions[G];
    return w.requests ? 100 * ratio(w.failed, w.requests) : std::nan("");
}
double providerPct(const WindowPoint& p, std::size_t provider) {
    std::uint32_t all = 0;
    for (std::uint32_t n : p.provider_requests) all += n;
    return all ? 100 * ratio(p.provider_requests[provider], all) : std::nan("");
}
template <std::size_t G>
double regionP99(const WindowPoint& p) {
    return p.regions[G].p99_ms;
}

// One region's worst windows (those in which it served at least kPeakMinRequests), and its
// busiest moment against its normal one: the window peaks of requests in flight (waiting for a
// CPU included), the largest over the median of all windows (0 when the median is 0).
struct RegionPeaks {
    double error = 0, error_seen = 0, p99_ms = 0, inflight_vs_normal = 0;
    double queue_vs_normal = 0;  // the deepest window's mean depth over the median window's
    double minutes_at_peak = 0;  // the longest run of windows near the peak (minutesAtPeak)
};
double median(std::vector<double> v) {
    if (v.empty()) return 0;
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}
// How long a region's incident stayed at its peak (minutes_at_peak_<region>; the seed's "34%
// lasted about 75 minutes"): the longest run of consecutive windows at half the peak or more.
// A single window is too noisy to decide that: at July's ~40 EU-West requests a minute a 33%
// share spreads over +-7 points, so a run of single windows breaks every few minutes inside the
// peak, and measuring from the first to the last window at half the worst one (as this did)
// spans the whole run once noise alone reaches that half, as it does in a run with no real
// peak (july-v4: 3,488 of 4,320 minutes). So each window is rated over the centred span of
// kPeakSpanWindows windows around it (quiet windows pooled with their neighbours, as the
// incident board's error chart pools them; a span under kPeakMinRequests a window is not rated
// and ends a run); the peak is the highest span rate, the run the longest stretch of windows
// whose span rate is at half that or more, and its ends are then trimmed to the first and last
// window that reached the half on its own, so a peak shorter than the span is not stretched to
// it. A sharp peak over a flat background gets its exact length (the centred span crosses half
// height at the step); the result is the run's length in minutes, each window counted from the
// previous one's end.
constexpr std::size_t kPeakSpanWindows = 5;  // odd: centred; 5 minutes at the seed's 60 s windows
double minutesAtPeak(const std::vector<WindowPoint>& windows, std::size_t g) {
    const std::size_t n = windows.size(), half = kPeakSpanWindows / 2;
    std::vector<double> span(n, std::nan(""));
    double peak = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t from = i >= half ? i - half : 0, to = std::min(n, i + half + 1);
        std::uint64_t failed = 0, requests = 0;
        for (std::size_t j = from; j < to; ++j) {
            failed += windows[j].regions[g].failed;
            requests += windows[j].regions[g].requests;
        }
        if (requests < std::uint64_t{kPeakMinRequests} * (to - from)) continue;
        span[i] = ratio(failed, requests);
        peak = std::max(peak, span[i]);
    }
    if (peak <= 0) return 0;
    const auto own = [&](std::size_t i) {
        const RegionWindow& w = windows[i].regions[g];
        return w.requests > 0 && ratio(w.failed, w.requests) >= peak / 2;
    };
    double longest = 0;
    for (std::size_t i = 0; i < n;) {
        if (!(span[i] >= peak / 2)) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < n && span[end] >= peak / 2) ++end;
        std::size_t first = i, last = end;  // [first, last): the run, trimmed
        while (first < last && !own(first)) ++first;
        while (last > first && !own(last - 1)) --last;
        if (first < last) {
            // From the end of the window before the first to the end of the last; the run's
            // first window, when it is the first, as long as the second.
            const double start = first > 0 ? windows[first - 1].t_s
                                 : n > 1   ? 2 * windows[0].t_s - windows[1].t_s
                                           : windows[0].t_s;
            longest = std::max(longest, windows[last - 1].t_s - start);
        }
        i = end;
    }
    return longest / 60.0;
}
RegionPeaks regionPeaks(const std::vector<WindowPoint>& windows, int region) {
    const auto g = static_cast<std::size_t>(region);
    RegionPeaks out;
    std::vector<double> inflight;
    for (const WindowPoint& p : windows) {
        inflight.push_back(p.inflight_peak[g]);
        const RegionWindow& w = p.regions[g];
        if (w.requests < kPeakMinRequests) continue;
        out.error = std::max(out.error, ratio(w.failed, w.requests));
        out.error_seen = std::max(out.error_seen, ratio(w.failed - w.invisible, w.requests));
        if (!std::isnan(w.p99_ms)) out.p99_ms = std::max(out.p99_ms, w.p99_ms);
    }
    if (!inflight.empty()) {
        const double peak = *std::max_element(inflight.begin(), inflight.end());
        const double normal = median(inflight);
        out.inflight_vs_normal = normal > 0 ? peak / normal : 0;
    }
    std::vector<double> depth;
    for (const WindowPoint& p : windows) depth.push_back(p.regions[g].queue_mean);
    if (!depth.empty()) {
        const double deepest = *std::max_element(depth.begin(), depth.end());
        const double normal = median(depth);
        out.queue_vs_normal = normal > 0 ? deepest / normal : 0;
    }
    out.minutes_at_peak = minutesAtPeak(windows, g);
    return out;
}

class GatewayLab final : public Lab {
public:
    std::string id() const override { return "gateway"; }
    std::string title() const override { return "Search gateway: the full path"; }
    std::string summary() const override {
        return "Seed 000's search path (admission, cache, routing, breakers, hedging, deadlines) "
               "over a simulated week";
    }
    std::string explanation() const override {
        return "<p>Every request takes seed 000's path: edge, gateway (API key, token bucket, "
               "adaptive admission), compiler, two-tier cache with coalescing, a latency-aware "
               "router with circuit breakers, the engines with a hedge after the primary's "
               "rolling p90 under a 15% budget, and merge, all under a 600 ms deadline that only "
               "shrinks. Latency runs from accept to the last byte; failures count at their "
               "latency; every percentile comes from merged HDR histograms.</p>"
               "<p>The fleet is fitted to the published tables (see the scenario's notes). Try "
               "hedge delay, hedge budget, engine correlation and slow moments.</p>";
    }
    std::vector<KnobSpec> knobs() const override { return GatewaySim::knobs(); }
    std::string mainKnob() const override { return "hedge_budget"; }
    std::optional<TimelineVocabulary> timelineVocabulary(const Params& params) const override {
        TimelineVocabulary v;
        v.knobs = knobs();
        v.fixed_knobs = fixedRunKnobs();
        v.engines.assign(kEngineNames.begin(), kEngineNames.end());
        v.regions.assign(kRegionNames.begin(), kRegionNames.end());
        // Providers and zones are where the gateway's CPUs run: a run without them has none, and
        // a fault aimed at one would change nothing.
        if (params.flag("gateway_compute")) {
            v.providers = providerNames(params);
            v.zones.assign(kZoneNames.begin(), kZoneNames.end());
        } else {
            v.no_compute = "this run models no gateway CPUs (gateway_compute is off), so a provider or zone "
                           "fault would change nothing: set gateway_compute to true, or target an engine";
        }
        v.egress_ips = params.integer("egress_ips");
        v.start_weekday = params.choiceIndex("start_day");
        v.run_length_s = params.integer("days") * 86400.0;
        return v;
    }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override {
        return run(params, Timeline{}, seed, control, partial);
    }
    // The checks the simulation's set-up makes of its knobs, without the set-up.
    void checkParams(const Params& params) const override {
        const Workload workload(params, 0);
        gatewayConfigFromParams(params, workload);
        fleetConfigFromParams(params);
    }
    void checkTimeline(const Params& params, const Timeline& timeline) const override {
        if (std::none_of(timeline.events.begin(), timeline.events.end(),
                         [](const TimelineEvent& e) { return !e.set.empty(); }))
            return;
        checkKnobChanges(params, timeline, Workload(params, 0));
    }
    std::vector<std::string> figureNames(const Params& params) const override {
        return figureNamesWith(params, Timeline{});
    }
    // The phases of the timeline have figures of their own.
    std::vector<std::string> figureNamesWith(const Params&, const Timeline& timeline) const override {
        GatewaySnapshot s;
        for (const TimelineEvent& e : timeline.events)
            if (!e.phase.empty())
                s.timeline.push_back(TimelineMark{e.at_s, std::nullopt, MarkKind::Phase, e.label, e.phase, {}});
        LabResult r;
        addGatewayFigures(r, s);
        return figureNamesOf(r);
    }
    // An empty snapshot through the report a run makes: its charts follow the params alone.
    std::vector<std::string> timeChartIds(const Params& params) const override {
        return timeChartIdsOf(gatewayResult(GatewaySnapshot{}, params, 0));
    }
    LabResult run(const Params& params, const Timeline& timeline, std::uint64_t seed,
                  RunControl& control, const PartialSink& partial) const override {
        GatewaySim sim(params, seed, timeline);
        const double end = sim.end_s();
        for (int i = 1; i <= kPartials; ++i) {
            if (!sim.advanceTo(end * i / kPartials, &control)) {
                LabResult r = gatewayResult(sim.snapshot(), params, seed);
                r.cancelled = true;
                r.progress = static_cast<double>(i - 1) / kPartials;  // what is whole of it
                return r;
            }
            control.reportProgress(static_cast<double>(i) / kPartials);
            if (partial && i < kPartials) {
                LabResult r = gatewayResult(sim.snapshot(), params, seed);
                r.progress = static_cast<double>(i) / kPartials;
                partial(r);
            }
        }
        if (!sim.drain(&control)) {
            LabResult r = gatewayResult(sim.snapshot(), params, seed);
            r.cancelled = true;
            r.progress = std::nextafter(1.0, 0.0);  // every request arrived, some never finished
            return r;
        }
        return gatewayResult(sim.snapshot(), params, seed);
    }
};

}  // namespace

// The run's figures, from its snapshot; figureNames() passes an empty one.
void addGatewayFigures(LabResult& r, const GatewaySnapshot& s) {
    auto pct = [&](double p) {
        return s.latency_us.empty() ? 0.0 : s.latency_us.valueAtPercentile(p) / 1000.0;
    };
    std::uint64_t hits = 0, lookups = 0;
    for (int c = 0; c < kClasses; ++c) hits += s.cache_hits[c], lookups += s.cache_lookups[c];
    auto& f = r.figures;
    f.emplace_back("p50_ms", pct(50));
    f.emplace_back("p90_ms", pct(90));
    f.emplace_back("p99_ms", pct(99));
    f.emplace_back("p999_ms", pct(99.9));
    f.emplace_back("requests", static_cast<double>(s.accepted));
    f.emplace_back("answered", static_cast<double>(s.answered));
    f.emplace_back("rejected", static_cast<double>(s.rejected));
    f.emplace_back("failed", static_cast<double>(s.failed));
    for (int o = 0; o < kOutcomes; ++o)
        f.emplace_back("outcome_" + std::string(kOutcomeNames[o]), static_cast<double>(s.outcomes[o]));
    f.emplace_back("cache_hit_rate", ratio(hits, lookups));
    for (int c = 0; c < kClasses; ++c)
        f.emplace_back("cache_hit_rate_" + std::string(kClassNames[c]),
                       ratio(s.cache_hits[c], s.cache_lookups[c]));
    f.emplace_back("coalesced", static_cast<double>(s.coalesced));
    f.emplace_back("primary_calls", static_cast<double>(s.primary_calls));
    f.emplace_back("hedge_calls", static_cast<double>(s.hedge_calls));
    f.emplace_back("hedged_fraction", ratio(s.hedge_calls, s.primary_calls));
    f.emplace_back("extra_upstream_load",
                   ratio(s.hedge_calls + s.last_chance_calls + s.retry_calls, s.primary_calls));
    f.emplace_back("hedged_share_of_requests", ratio(s.hedge_calls, s.accepted));
    f.emplace_back("last_chance_calls", static_cast<double>(s.last_chance_calls));
    f.emplace_back("retry_calls", static_cast<double>(s.retry_calls));
    f.emplace_back("refresh_calls", static_cast<double>(s.refresh_calls));
    f.emplace_back("cancelled_calls", static_cast<double>(s.cancelled_calls));
    f.emplace_back("invalid_answers", static_cast<double>(s.invalid_answers));
    f.emplace_back("duplicate_answers", static_cast<double>(s.duplicate_answers));
    f.emplace_back("egress_rests", static_cast<double>(s.egress_rests));
    f.emplace_back("hedges_denied", static_cast<double>(s.hedges_denied));
    f.emplace_back("spilled", static_cast<double>(s.spilled));
    f.emplace_back("rerouted", static_cast<double>(s.rerouted));
    f.emplace_back("probes", static_cast<double>(s.probes));
    f.emplace_back("probe_failures", static_cast<double>(s.probe_failures));
    f.emplace_back("deadline_missed_rate",
                   ratio(s.outcomes[static_cast<int>(Outcome::DeadlineMissed)], s.accepted));
    // An incident's figures (issue: the July replay): the truth counts every failure, "seen" is
    // what clients were told (an empty 200 looks like success to a client that checks status).
    const ErrorPeaks e = errorPeaks(s.windows);
    f.emplace_back("invisible_failures", static_cast<double>(s.invisible_failures));
    f.emplace_back("error_rate", ratio(s.failed, s.accepted));
    f.emplace_back("error_rate_seen", ratio(s.failed - s.invisible_failures, s.accepted));
    f.emplace_back("peak_error_rate", e.truth);
    f.emplace_back("peak_error_rate_seen", e.seen);
    f.emplace_back("minutes_above_5pct_errors", e.minutes_above);
    for (int g = 0; g < kRegions; ++g) {
        const RegionPeaks rp = regionPeaks(s.windows, g);
        const std::string region(kRegionNames[static_cast<std::size_t>(g)]);
        f.emplace_back("peak_error_rate_" + region, rp.error);
        f.emplace_back("peak_error_rate_seen_" + region, rp.error_seen);
        f.emplace_back("worst_window_p99_ms_" + region, rp.p99_ms);
        f.emplace_back("inflight_peak_vs_normal_" + region, rp.inflight_vs_normal);
        f.emplace_back("queue_depth_vs_normal_" + region, rp.queue_vs_normal);
        f.emplace_back("minutes_at_peak_" + region, rp.minutes_at_peak);
    }
    // Gateway compute's mechanisms: the busiest provider's share of a window's requests (over
    // all regions), reroutes and spills a region breaker refused, and how long standby took to
    // serve with all its CPUs after a region's first zone failed its probes (the longest such
    // takeover; its first CPUs serve earlier, over the ramp).
    // Shares per hour of run time: a minute's few dozen requests are too few to tell a share
    // (the balancer's weights) from its sampling noise.
    double maxShare = 0;
    std::array<std::uint64_t, kProviders> hour{};
    auto closeHour = [&] {
        std::uint64_t all = 0, most = 0;
        for (std::uint64_t n : hour) all += n, most = std::max(most, n);
        if (all >= 100) maxShare = std::max(maxShare, ratio(most, all));
        hour.fill(0);
    };
    for (std::size_t i = 0; i < s.windows.size(); ++i) {
        const WindowPoint& p = s.windows[i];
        if (i > 0 && std::floor((p.t_s - 1e-6) / 3600) != std::floor((s.windows[i - 1].t_s - 1e-6) / 3600))
            closeHour();
        for (std::size_t pr = 0; pr < kProviders; ++pr) hour[pr] += p.provider_requests[pr];
    }
    closeHour();
    f.emplace_back("max_provider_share", maxShare);
    f.emplace_back("spill_refused", static_cast<double>(s.spill_refused));
    double takeover = 0, takeovers = 0, breakerMinutes = 0, probeFailMinutes = 0;
    for (const HealthSpan& h : s.health_spans) {
        if (h.kind == HealthKind::RegionBreaker) breakerMinutes += (h.t1_s - h.t0_s) / 60;
        if (h.kind == HealthKind::Probe) probeFailMinutes += (h.t1_s - h.t0_s) / 60;
        if (h.kind != HealthKind::Probe) continue;
        // The first standby span that serves in the region from this detection on.
        for (const HealthSpan& sb : s.health_spans)
            if (sb.kind == HealthKind::Standby && sb.state == HealthState::Serving &&
                sb.region == h.region && sb.t1_s >= h.t0_s) {
                if (sb.t0_s <= h.t0_s) break;  // already serving
                takeover = std::max(takeover, sb.t0_s - h.t0_s);
                ++takeovers;
                break;
            }
    }
    f.emplace_back("standby_takeover_s", takeover);
    f.emplace_back("standby_takeovers", takeovers);
    f.emplace_back("region_breaker_minutes", breakerMinutes);
    f.emplace_back("probe_failing_minutes", probeFailMinutes);
    // Each phase the timeline names: its share of failed requests (truth and as clients saw it)
    // overall and per region, and its worst window's p99 per region, over the windows that end
    // within it.
    for (const TimelineMark& m : s.timeline) {
        if (m.kind != MarkKind::Phase || m.phase.empty()) continue;
        const double until = m.end_s.value_or(s.end_s);
        WindowPoint sum{};
        std::array<double, kRegions> worst{};
        for (const WindowPoint& p : s.windows) {
            if (p.t_s <= m.t_s || p.t_s > until) continue;
            sum.requests += p.requests, sum.failed += p.failed, sum.invisible += p.invisible;
            for (std::size_t g = 0; g < kRegions; ++g) {
                sum.regions[g].requests += p.regions[g].requests;
                sum.regions[g].failed += p.regions[g].failed;
                sum.regions[g].invisible += p.regions[g].invisible;
                if (p.regions[g].requests >= kPeakMinRequests && !std::isnan(p.regions[g].p99_ms))
                    worst[g] = std::max(worst[g], p.regions[g].p99_ms);
            }
        }
        const std::string at = m.phase + "_";
        f.emplace_back(at + "error_rate", errorShare(sum));
        f.emplace_back(at + "error_rate_seen", seenErrorShare(sum));
        for (std::size_t g = 0; g < kRegions; ++g) {
            const std::string region(kRegionNames[g]);
            const RegionWindow& w = sum.regions[g];
            f.emplace_back(at + "error_rate_" + region, ratio(w.failed, w.requests));
            f.emplace_back(at + "error_rate_seen_" + region, ratio(w.failed - w.invisible, w.requests));
            f.emplace_back(at + "worst_window_p99_ms_" + region, worst[g]);
        }
    }
}

TimeAxis liveTimeAxis(double started_s) { return TimeAxis{started_s, 1, "Time since start (s)"}; }

LabResult gatewayResult(const GatewaySnapshot& s, const Params& params, std::uint64_t seed, const TimeAxis& axis) {
    LabResult r;
    r.lab = "gateway";
    r.seed = seed;
    r.parameters = params.toJson();
    r.distributions.push_back(NamedHistogram{"request", s.latency_us});
    for (int c = 0; c < kClasses; ++c)
        r.distributions.push_back(
            NamedHistogram{"request_" + std::string(kClassNames[c]), s.latency_by_class_us[c]});
    // Refused before the compiler read the query (401, 429, shed...): in "request", in no class.
    if (!s.latency_unclassified_us.empty())
        r.distributions.push_back(NamedHistogram{"request_unclassified", s.latency_unclassified_us});
    addGatewayFigures(r, s);

    Chart dist{"latency", "Request latency, accept to last byte", ChartKind::Percentile,
               "Percentile", "Latency (ms)", false, true, {}};
    if (!s.latency_us.empty()) dist.series.push_back(percentileSeries("all requests", s.latency_us));
    for (int c = 0; c < kClasses; ++c)
        if (!s.latency_by_class_us[c].empty())
            dist.series.push_back(
                percentileSeries(std::string(kClassLabels[c]), s.latency_by_class_us[c]));
    if (!s.latency_unclassified_us.empty())
        dist.series.push_back(percentileSeries("refused before classification", s.latency_unclassified_us));
    // Seed 000's before/after table, for comparison on the same axes.
    const std::vector<double> at{0.5, 0.9, 0.99, 0.999};
    dist.series.push_back(Series{"published v3 (August)", SeriesRole::Published, at,
                                 {248, 612, 1480, 2950}});
    dist.series.push_back(Series{"published v4 (September)", SeriesRole::Published, at,
                                 {148, 341, 587, 1020}});
    r.charts.push_back(std::move(dist));

    Chart pw{"percentiles_over_time", "Percentiles per window", ChartKind::Time,
             axis.label, "Latency (ms)", false, true, {}};
    pw.series.push_back(timeSeries("p50", s.windows, axis, [](const WindowPoint& p) { return p.p50_ms; }));
    pw.series.push_back(timeSeries("p90", s.windows, axis, [](const WindowPoint& p) { return p.p90_ms; }));
    pw.series.push_back(timeSeries("p99", s.windows, axis, [](const WindowPoint& p) { return p.p99_ms; }));
    pw.series.push_back(timeSeries("p99.9", s.windows, axis, [](const WindowPoint& p) { return p.p999_ms; }));
    r.charts.push_back(std::move(pw));

    Chart hedge{"hedging_over_time", "Hedging and upstream load per window", ChartKind::Time,
                axis.label, "Share of primary calls (%)", false, false, {}};
    hedge.series.push_back(timeSeries("hedge rate", s.windows, axis, [](const WindowPoint& p) {
        return 100 * p.hedge_rate;
    }));
    hedge.series.push_back(timeSeries("extra upstream load", s.windows, axis, [](const WindowPoint& p) {
        return 100 * p.extra_load;
    }));
    hedge.series.push_back(timeSeries("hedge budget level", s.windows, axis, [](const WindowPoint& p) {
        return 100 * p.hedge_budget_level;
    }));
    r.charts.push_back(std::move(hedge));

    Chart cache{"cache_over_time", "Cache hit rate per class", ChartKind::Time, axis.label,
                "Hit rate (%)", false, false, {}};
    cache.series.push_back(timeSeries("all classes", s.windows, axis, [](const WindowPoint& p) {
        return 100 * p.cache_hit_rate_all;
    }));
    static constexpr std::array<double (*)(const WindowPoint&), kClasses> kByClass{
        [](const WindowPoint& p) { return 100 * p.cache_hit_rate[0]; },
        [](const WindowPoint& p) { return 100 * p.cache_hit_rate[1]; },
        [](const WindowPoint& p) { return 100 * p.cache_hit_rate[2]; },
        [](const WindowPoint& p) { return 100 * p.cache_hit_rate[3]; },
        [](const WindowPoint& p) { return 100 * p.cache_hit_rate[4]; }};
    for (int c = 0; c < kClasses; ++c)
        cache.series.push_back(timeSeries(std::string(kClassLabels[c]), s.windows, axis, kByClass[c]));
    r.charts.push_back(std::move(cache));

    Chart errors{"errors_over_time", "Failed requests per window: the truth and what clients saw",
                 ChartKind::Time, axis.label,
                 "Share of requests (%)", false, false, {}};
    errors.series.push_back(timeSeries("failed (truth)", s.windows, axis, [](const WindowPoint& p) {
        return p.requests ? 100 * errorShare(p) : std::nan("");
    }));
    errors.series.push_back(timeSeries("failed, as clients saw it", s.windows, axis, [](const WindowPoint& p) {
        return p.requests ? 100 * seenErrorShare(p) : std::nan("");
    }));
    static constexpr std::array<double (*)(const WindowPoint&), kRegions> kRegionErrors{
        regionFailedPct<0>, regionFailedPct<1>, regionFailedPct<2>};
    for (int g = 0; g < kRegions; ++g)
        errors.series.push_back(timeSeries(std::string(kRegionNames[static_cast<std::size_t>(g)]) +
                                               " failed (truth)",
                                           s.windows, axis, kRegionErrors[static_cast<std::size_t>(g)]));
    r.charts.push_back(std::move(errors));

    Chart regionTail{"p99_by_region", "p99 per window, by the region that served", ChartKind::Time,
                     axis.label, "Latency (ms)", false, true, {}};
    static constexpr std::array<double (*)(const WindowPoint&), kRegions> kRegionP99{
        regionP99<0>, regionP99<1>, regionP99<2>};
    for (int g = 0; g < kRegions; ++g)
        regionTail.series.push_back(timeSeries(std::string(kRegionNames[static_cast<std::size_t>(g)]),
                                               s.windows, axis, kRegionP99[static_cast<std::size_t>(g)]));
    r.charts.push_back(std::move(regionTail));

    Chart hourly{"p99_by_hour", "Tail per hour", ChartKind::Time,
                 axis.label, "Latency (ms)", false, true, {}};
    for (const auto& [name, nines] :
         {std::pair{"p99", &HourPoint::p99_ms}, std::pair{"p99.9", &HourPoint::p999_ms}}) {
        Series hs;
        hs.name = name;
        for (const HourPoint& h : s.hours) {
            if (std::isnan(h.*nines)) continue;
            hs.x.push_back(axisX(axis, std::max(h.t_s, axis.origin_s)));  // a live run's first hour: from its start
            hs.y.push_back(h.*nines);
        }
        hourly.series.push_back(std::move(hs));
    }
    r.charts.push_back(std::move(hourly));

    Chart adm{"admission_over_time", "Requests in flight and concurrency limit per region",
              ChartKind::Time, axis.label, "Requests", false, false, {}};
    static constexpr std::array<double (*)(const WindowPoint&), kRegions> kPeak{
        [](const WindowPoint& p) { return p.inflight_peak[0]; },
        [](const WindowPoint& p) { return p.inflight_peak[1]; },
        [](const WindowPoint& p) { return p.inflight_peak[2]; }};
    static constexpr std::array<double (*)(const WindowPoint&), kRegions> kLimit{
        [](const WindowPoint& p) { return p.admission_limit[0]; },
        [](const WindowPoint& p) { return p.admission_limit[1]; },
        [](const WindowPoint& p) { return p.admission_limit[2]; }};
    for (int g = 0; g < kRegions; ++g) {
        adm.series.push_back(timeSeries(std::string(kRegionNames[g]) + " peak in flight", s.windows, axis, kPeak[g]));
        adm.series.push_back(timeSeries(std::string(kRegionNames[g]) + " limit", s.windows, axis, kLimit[g]));
    }
    r.charts.push_back(std::move(adm));

    Chart depth{"queue_depth_by_region", "Requests in flight per region, mean over each window",
                ChartKind::Time, axis.label, "Requests",
                false, false, {}};
    static constexpr std::array<double (*)(const WindowPoint&), kRegions> kDepth{
        [](const WindowPoint& p) { return p.regions[0].queue_mean; },
        [](const WindowPoint& p) { return p.regions[1].queue_mean; },
        [](const WindowPoint& p) { return p.regions[2].queue_mean; }};
    for (int g = 0; g < kRegions; ++g)
        depth.series.push_back(timeSeries(std::string(kRegionNames[g]), s.windows, axis, kDepth[g]));
    r.charts.push_back(std::move(depth));

    if (params.flag("gateway_compute")) {
        Chart shares{"provider_shares", "Share of requests per provider (gateway compute)",
                     ChartKind::Time, axis.label,
                     "Share of requests (%)", false, false, {}};
        static constexpr std::array<double (*)(const WindowPoint&), kProviders> kShare{
            [](const WindowPoint& p) { return providerPct(p, 0); },
            [](const WindowPoint& p) { return providerPct(p, 1); },
            [](const WindowPoint& p) { return providerPct(p, 2); }};
        for (int pr = 0; pr < kProviders; ++pr)
            shares.series.push_back(timeSeries("provider " + std::string(kProviderNames[pr]), s.windows, axis, kShare[pr]));
        r.charts.push_back(std::move(shares));
    }

    // The run's timeline, for every time chart (knob changes and faults, in the time charts' x;
    // breakers have their own strip).
    for (const TimelineMark& m : s.timeline) {
        if (m.kind == MarkKind::Breaker) continue;
        r.annotations.push_back(Annotation{
            axisX(axis, m.t_s), m.end_s ? std::optional<double>(axisX(axis, *m.end_s)) : std::nullopt,
            m.kind == MarkKind::Knob ? "knob" : m.kind == MarkKind::Phase ? "phase" : "fault", m.what});
    }

    // Invariants: they hold in every gateway run, whatever the knobs.
    auto& ch = r.checks;
    ch.push_back(makeCheck("conservation: accepted = answered + rejected + failed + in flight",
                           static_cast<double>(s.answered + s.rejected + s.failed + s.in_flight),
                           static_cast<double>(s.accepted), 0, false, "invariant"));
    // With v3's error-path bug switched on, its empty 200s are the point of the run: they are
    // reported (invisible_failures), not held against it.
    const bool emptyOkBug = params.choiceIndex("timeout_reply") == 1;
    ch.push_back(makeCheck(
        "no 200 with empty results",
        static_cast<double>(s.empty_ok + (emptyOkBug ? 0 : s.invisible_failures)), 0, 0, false,
        emptyOkBug ? "invariant (timeouts answered as empty 200s are counted apart: v3 bug on)"
                   : "invariant"));
    ch.push_back(makeCheck("no answer later than the deadline", static_cast<double>(s.over_deadline),
                           0, 0, false, "invariant"));
    ch.push_back(makeCheck("every request answered once", static_cast<double>(s.double_answers), 0,
                           0, false, "invariant"));
    ch.push_back(makeClaim("hedges within the budget", static_cast<double>(s.hedge_calls),
                           Bound::AtMost, s.hedge_allowance, s.hedge_calls <= s.hedge_allowance + 1e-9,
                           "invariant: hedges <= budget fraction x primaries + burst"));
    return r;
}

std::unique_ptr<Lab> makeGatewayLab() { return std::make_unique<GatewayLab>(); }

}  // namespace taillab::gateway
