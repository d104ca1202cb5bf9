#include "labs/fanout_lab_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/format.h"
#include "labs/fanout_stats.h"
#include "labs/lab.h"

namespace taillab {
namespace {

// A sweep point simulates up to kSweepRequests requests and about kSweepCalls calls (at least
// kSweepMinRequests): the sweeps run on every knob move in the GUI, and together they cost about
// half a default run (10M calls). At 10,000 requests a point's SE is at most 0.5 points of %.
constexpr std::int64_t kSweepRequests = 10000;
constexpr std::int64_t kSweepCalls = 500'000;
constexpr std::int64_t kSweepMinRequests = 1000;
constexpr double kSweepMaxZ = 4.5;  // max |z| over ~35 sweep points: a false alarm ~2e-4

// 1 µs to twice the slowest request the model can give in practice: N calls of the slower
// mode's 1 - 1e-12 quantile end to end (a chain) or one of them (a fan-out), plus the hedge
// delay; at least one hour, 3 significant digits.
HdrConfig latencyRange(const FanoutConfig& c) {
    const double call = std::max(lognormalQuantile(c.body, 1 - 1e-12),
                                 lognormalQuantile(c.slow, 1 - 1e-12));
    const double calls = c.sequential ? static_cast<double>(c.backends) : 1.0;
    const double delay = c.hedge == FanoutHedge::Delayed ? c.hedge_delay_ms : 0.0;
    const double slowestMs = calls * (call + delay);
    HdrConfig h{1, 3'600'000'000LL, 3};
    h.highest_trackable = static_cast<std::int64_t>(std::clamp(2000.0 * slowestMs, 3.6e9, 1e15));
    return h;
}

void recordMs(HdrHistogram& h, double ms) { h.record(std::llround(ms * 1000.0)); }

double share(std::int64_t k, std::int64_t n) {
    return n > 0 ? static_cast<double>(k) / static_cast<double>(n) : 0.0;
}

std::vector<int> sweepBackends(int n) {
    std::vector<int> grid{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    grid.push_back(n);
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    return grid;
}

FanoutModel withShared(const FanoutConfig& c, double f) {
    FanoutConfig copy = c;
    copy.slowness.shared_fraction = f;
    return FanoutModel(copy);
}

std::string hedgeName(const FanoutConfig& c) {
    if (c.hedge != FanoutHedge::Delayed) return "immediate hedge";
    char buf[64];
    std::snprintf(buf, sizeof buf, "hedge after %g ms", c.hedge_delay_ms);
    return buf;
}

// Closed forms of the hedged request under that hedge (the immediate ones kept as they were).
double hedgedSlow(const FanoutModel& m, int n) {
    const FanoutConfig& c = m.config();
    return c.hedge == FanoutHedge::Delayed ? m.someCallSlowProbabilityAfter(n, c.hedge_delay_ms)
                                         : m.someCallSlowProbability(n, true);
}

double hedgedQuantile(const FanoutModel& m, double p, int n) {
    const FanoutConfig& c = m.config();
    return c.hedge == FanoutHedge::Delayed ? m.requestQuantileAfter(p, n, c.hedge_delay_ms)
                                         : m.requestQuantile(p, n, true);
}

// P(some call reaches the threshold) if the n calls were independent, each reaching it with
// p_t = 1 - F(t): 1 - (1 - p_t)^n, the ceiling that shared stalls pull the request tail below.
double independentCeiling(const FanoutModel& m, int n) {
    return 1.0 - std::pow(1.0 - m.backendSlowProbability(), n);
}

double budgetRun(int n, double perBackend, std::int64_t requests, Rng& rng) {
    BernoulliStream calls(perBackend, rng);
    std::int64_t slow = 0;
    for (std::int64_t r = 0; r < requests; ++r)
        if (calls.advance(n, rng) > 0) ++slow;
    return share(slow, requests);
}

}  // namespace

FanoutTally::FanoutTally(const FanoutConfig& c)
    : config(c),
      hedged(c.hedge != FanoutHedge::None),
      request(latencyRange(c)),
      backend(latencyRange(c)),
      hedgedRequest(latencyRange(c)) {}

FanoutStreams::FanoutStreams(std::uint64_t seed)
    : requests(seed, "fanout/requests"), hedged(seed, "fanout/hedged") {}

void FanoutTally::add(const HedgedDraw& h) {
    const FanoutDraw& d = h.before;
    recordMs(request, d.latency_ms);
    recordMs(backend, d.backend_ms);
    if (d.latency_ms >= config.threshold_ms) ++slow;
    if (d.some_call_slow) ++someCallSlow;
    if (d.backend_ms >= config.threshold_ms) ++backendSlow;
    if (!hedged) return;
    recordMs(hedgedRequest, h.after.latency_ms);
    if (h.after.some_call_slow) ++hedgedSomeCallSlow;
    if (!delayed()) return;
    calls += config.backends;
    backups += h.backups;
}

std::int64_t sweepRequests(int n, std::int64_t requests) {
    const std::int64_t byCalls = kSweepCalls / std::max(n, 1);
    return std::min(requests, std::clamp(byCalls, kSweepMinRequests, kSweepRequests));
}

namespace {

// Shares of requests with a call at or over the threshold, before and after the hedge.
struct SweepPoint {
    double slow = 0, hedgedSlow = 0;
};

// The lab's run at config c (the same sampler and streams as the main run), `requests` long.
SweepPoint simulatePoint(const FanoutConfig& c, std::int64_t requests, std::uint64_t seed) {
    const FanoutRequestSampler sampler(c);
    FanoutStreams streams(seed);
    std::int64_t slow = 0, hedgedSlow = 0;
    for (std::int64_t i = 0; i < requests; ++i) {
        const HedgedDraw h = sampler.draw(streams.requests, streams.hedged);
        slow += h.before.some_call_slow ? 1 : 0;
        hedgedSlow += h.after.some_call_slow ? 1 : 0;
    }
    return {share(slow, requests), share(hedgedSlow, requests)};
}

}  // namespace

bool runFanoutSweeps(const FanoutConfig& c, double requestBudget, std::int64_t requests,
                     std::uint64_t seed, RunControl& control, FanoutSweeps& out) {
    const bool hedge = c.hedge != FanoutHedge::None;
    out.n = sweepBackends(c.backends);
    const double steps = static_cast<double>(out.n.size() + 5 + 1);
    double done = 0;
    auto step = [&] {
        control.reportProgress(0.8 + 0.2 * (++done) / steps);
        return control.checkpoint();
    };
    for (int n : out.n) {
        FanoutConfig atN = c;
        atN.backends = n;
        out.requestsVsN.push_back(sweepRequests(n, requests));
        const SweepPoint p = simulatePoint(atN, out.requestsVsN.back(), seed);
        out.slowVsN.push_back(p.slow);
        if (hedge) out.hedgedVsN.push_back(p.hedgedSlow);
        if (!step()) return false;
    }
    // The f sweep always draws a hedge: the configured one, else the immediate one.
    FanoutConfig hedged = c;
    if (!hedge) hedged.hedge = FanoutHedge::Immediate;
    for (int i = 0; i <= 4; ++i) {
        FanoutConfig atF = hedged;
        atF.slowness.shared_fraction = i / 4.0;
        out.f.push_back(atF.slowness.shared_fraction);
        out.requestsVsF.push_back(sweepRequests(c.backends, requests));
        const SweepPoint p = simulatePoint(atF, out.requestsVsF.back(), seed);
        out.slowVsF.push_back(p.slow);
        out.hedgedVsF.push_back(p.hedgedSlow);
        if (!step()) return false;
    }
    Rng budgetRng(seed, "fanout/budget");
    out.requestBudget = requestBudget;
    out.perBackendBudget = perBackendBudget(requestBudget, c.backends);
    out.budgetRequests = requests;
    out.budgetSlow = budgetRun(c.backends, out.perBackendBudget, requests, budgetRng);
    return step();
}

void fillDistributions(LabResult& r, const FanoutTally& t) {
    r.distributions.clear();
    r.distributions.push_back({"request", t.request});
    r.distributions.push_back({"backend", t.backend});
    if (t.hedged) r.distributions.push_back({"request_hedged", t.hedgedRequest});

    const FanoutModel model(t.config);
    const int n = t.config.backends;
    Chart c{"distribution",
            "One backend vs the whole request",
            ChartKind::Percentile,
            "Percentile",
            "Latency (ms)",
            false,
            true,
            {}};
    auto cf = [](std::string name, auto quantile) {
        return closedFormPercentileSeries(std::move(name),
                                          [&](double p) { return p > 0 ? quantile(p) : NAN; });
    };
    c.series.push_back(percentileSeries("backend (simulated)", t.backend));
    c.series.push_back(
        cf("backend (closed form)", [&](double p) { return model.backendQuantile(p); }));
    c.series.push_back(percentileSeries("request (simulated)", t.request));
    if (!t.config.sequential)
        // The maximum of N calls; named as the series it pairs with, so it takes its colour.
        c.series.push_back(cf("request (closed form)",
                              [&](double p) { return model.requestQuantile(p, n, false); }));
    if (t.hedged) {
        c.series.push_back(percentileSeries("hedged request (simulated)", t.hedgedRequest));
        if (!t.config.sequential)
            c.series.push_back(cf("hedged request (closed form)",
                                  [&](double p) { return hedgedQuantile(model, p, n); }));
    }
    r.charts.clear();
    r.charts.push_back(std::move(c));
}

namespace {

// Delayed hedge: request p99.9 before and after on the same first replies, and backups per call.
void addDelayedFigures(LabResult& r, const FanoutTally& t) {
    const FanoutModel model(t.config);
    const int n = t.config.backends;
    auto& f = r.figures;
    f.emplace_back("p999_before_ms", percentileMs(t.request, 99.9));
    f.emplace_back("p999_after_ms", percentileMs(t.hedgedRequest, 99.9));
    if (!t.config.sequential) {
        f.emplace_back("p999_before_closed_form_ms", model.requestQuantile(0.999, n, false));
        f.emplace_back("p999_after_closed_form_ms", hedgedQuantile(model, 0.999, n));
    }
    f.emplace_back("extra_requests", share(t.backups, t.calls));
    f.emplace_back("extra_requests_closed_form", model.extraRequests(t.config.hedge_delay_ms));
}

void addFigures(LabResult& r, const FanoutTally& t, const FanoutSweeps& s) {
    const FanoutModel model(t.config);
    const int n = t.config.backends;
    auto& f = r.figures;
    f.emplace_back("slow_fraction", share(t.slow, t.requests));
    f.emplace_back("hit_fraction", share(t.someCallSlow, t.requests));
    f.emplace_back("slow_fraction_closed_form", model.someCallSlowProbability(n, false));
    // The formulas at the threshold t, not "drawn from the slow mode": a call reaches t with
    // p_t = 1 - F(t), and the shared-stall formula 1-(1-pf)(1-q)^N becomes 1 - R(t). They equal
    // the textbook values (p_t = p) only when t separates the body from the slow mode.
    f.emplace_back("slow_fraction_formula", model.someCallSlowProbability(n, false));
    f.emplace_back("slow_fraction_independent_formula", independentCeiling(model, n));
    f.emplace_back("backend_slow_rate", share(t.backendSlow, t.requests));
    f.emplace_back("backend_p50_ms", percentileMs(t.backend, 50));
    f.emplace_back("backend_p99_ms", percentileMs(t.backend, 99));
    f.emplace_back("backend_p999_ms", percentileMs(t.backend, 99.9));
    f.emplace_back("request_p50_ms", percentileMs(t.request, 50));
    f.emplace_back("request_p99_ms", percentileMs(t.request, 99));
    f.emplace_back("request_p999_ms", percentileMs(t.request, 99.9));
    if (t.hedged) {
        f.emplace_back("hedged_slow_fraction", share(t.hedgedSomeCallSlow, t.requests));
        f.emplace_back("hedged_slow_fraction_formula", hedgedSlow(model, n));
        f.emplace_back("hedged_request_p999_ms", percentileMs(t.hedgedRequest, 99.9));
    }
    if (t.delayed()) addDelayedFigures(r, t);
    f.emplace_back("per_backend_budget", s.perBackendBudget);
    f.emplace_back("budget_request_slow_fraction", s.budgetSlow);
}

Series points(std::string name, SeriesRole role, const std::vector<double>& x,
              const std::vector<double>& y) {
    Series s{std::move(name), role, x, {}};
    for (double v : y) s.y.push_back(100.0 * v);
    return s;
}

void addSweepCharts(LabResult& r, const FanoutTally& t, const FanoutSweeps& s) {
    const FanoutModel model(t.config);
    const std::string what = t.config.sequential ? "Requests with a call over " : "Requests over ";
    const std::string yLabel =
        what + std::to_string(std::lround(t.config.threshold_ms)) + " ms (%)";
    Chart byN{"slow_vs_n",   "Slow requests vs fan-out",
              ChartKind::XY, "Backends per request (N)",
              yLabel,        true,
              false,         {}};
    const std::vector<double> nx(s.n.begin(), s.n.end());
    std::vector<double> dense, closed, hedged, ceiling;
    for (int i = 0; i <= 60; ++i) dense.push_back(std::round(std::pow(1000.0, i / 60.0)));
    dense.erase(std::unique(dense.begin(), dense.end()), dense.end());
    for (double n : dense) {
        closed.push_back(model.someCallSlowProbability(static_cast<int>(n), false));
        hedged.push_back(hedgedSlow(model, static_cast<int>(n)));
        ceiling.push_back(independentCeiling(model, static_cast<int>(n)));
    }
    // Named as the distribution chart beside it names the same requests, so that each keeps
    // its colour from one chart to the other.
    byN.series.push_back(points("request (simulated)", SeriesRole::Simulated, nx, s.slowVsN));
    byN.series.push_back(points("request (closed form)", SeriesRole::ClosedForm, dense, closed));
    if (t.config.slowness.shared_fraction > 0)
        byN.series.push_back(
            points("1-(1-p_t)^N, independent ceiling", SeriesRole::ClosedForm, dense, ceiling));
    if (t.hedged) {
        byN.series.push_back(points("hedged request (simulated)", SeriesRole::Simulated, nx, s.hedgedVsN));
        byN.series.push_back(points("hedged request (closed form)", SeriesRole::ClosedForm, dense, hedged));
    }
    r.charts.push_back(std::move(byN));

    Chart byF{"slow_vs_shared",
              "Shared stalls and hedging at N = " + std::to_string(t.config.backends),
              ChartKind::XY,
              "Shared fraction of slow events (f)",
              yLabel,
              false,
              false,
              {}};
    std::vector<double> fx, fc, fh;
    for (int i = 0; i <= 50; ++i) {
        const FanoutModel m = withShared(t.config, i / 50.0);
        fx.push_back(i / 50.0);
        fc.push_back(m.someCallSlowProbability(t.config.backends, false));
        fh.push_back(hedgedSlow(m, t.config.backends));
    }
    byF.series.push_back(points("no hedge (simulated)", SeriesRole::Simulated, s.f, s.slowVsF));
    byF.series.push_back(points("no hedge (closed form)", SeriesRole::ClosedForm, fx, fc));
    const std::string hedge = hedgeName(t.config);
    byF.series.push_back(points(hedge + " (simulated)", SeriesRole::Simulated, s.f, s.hedgedVsF));
    byF.series.push_back(points(hedge + " (closed form)", SeriesRole::ClosedForm, fx, fh));
    r.charts.push_back(std::move(byF));
}

// Listed whatever the run: too wide to decide, it is inconclusive and says which run decides it.
void checkQuantile(LabResult& r, const std::string& name, const HdrHistogram& h, double pct,
                   const std::function<double(double)>& cdf,
                   const std::function<double(double)>& q) {
    const double p = pct / 100.0;
    const double expected = q(p);
    const std::string source = "closed form: quantile of the model CDF; 4 SE (delta method) + HDR";
    if (std::isnan(expected)) {
        // Shown as "—" (null in the result file), with the reason, not as a made-up number.
        r.checks.push_back(
            makeCheck(name, percentileMs(h, pct), expected, INFINITY, false, source));
        r.checks.back().inconclusive =
            formatNumbers("the model has no single value here: its CDF equals %g", p) +
            " all across the gap between its two modes (neither mode reaches into it at double "
            "precision), so every value in the gap is this quantile and no run length decides it";
        return;
    }
    addQuantileCheck(r, name, percentileMs(h, pct), expected, p, cdf, h.totalCount(), source);
}

// The largest |simulated - expected| over the points, in standard errors of each point's own
// request count.
double maxZ(const std::vector<double>& sim, const std::vector<double>& expected,
            const std::vector<std::int64_t>& requests) {
    double z = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) {
        const double se = proportionTolerance(expected[i], static_cast<double>(requests[i]), 1.0);
        z = std::max(z, std::abs(sim[i] - expected[i]) / se);
    }
    return z;
}

// Every sweep point is simulated with the lab's sampler, so a wrong formula shows as dots off
// the line: each is allowed 4.5 standard errors of its own request count, sqrt(P(1-P)/n).
void addSweepClaims(LabResult& r, const FanoutTally& t, const FanoutSweeps& s) {
    const FanoutModel model(t.config);
    std::vector<double> e, eh, ef, efh;
    for (int k : s.n) {
        e.push_back(model.someCallSlowProbability(k, false));
        eh.push_back(hedgedSlow(model, k));
    }
    for (double f : s.f) {
        ef.push_back(withShared(t.config, f).someCallSlowProbability(t.config.backends, false));
        efh.push_back(hedgedSlow(withShared(t.config, f), t.config.backends));
    }
    double z = std::max(maxZ(s.slowVsN, e, s.requestsVsN), maxZ(s.slowVsF, ef, s.requestsVsF));
    z = std::max(z, maxZ(s.hedgedVsF, efh, s.requestsVsF));
    if (t.hedged) z = std::max(z, maxZ(s.hedgedVsN, eh, s.requestsVsN));
    const std::string source =
        "closed form over the N and f sweeps; each point the lab's sampler "
        "over its own n requests (up to " +
        groupedCount(kSweepRequests) + ", about " + groupedCount(kSweepCalls) +
        " calls), allowed 4.5 sqrt(P(1-P)/n)";
    r.checks.push_back(
        makeClaim("sweep points within 4.5 SE of 1-R(t)", z, Bound::AtMost, kSweepMaxZ, z <= kSweepMaxZ, source));
}

// Backups per call against 1 - F(d). A request's share of backups B/N mixes the two states, so
// its variance is (1-s)·a(1-a)/N + s·b(1-b)/N + s(1-s)(a-b)^2, with a, b = P(X1 > d) in the
// independent and shared state (floored at one backup in all calls, as in proportionTolerance);
// the check allows 4 standard errors of its mean over the requests. The hedged request's
// percentiles are checked against the quantiles of the closed form (4 SE, delta method).
void addDelayedChecks(LabResult& r, const FanoutTally& t) {
    const FanoutModel model(t.config);
    const int n = t.config.backends;
    const double d = t.config.hedge_delay_ms, s = t.config.slowness.sharedProbability();
    const double inf = std::numeric_limits<double>::infinity();
    const double a = model.hedgedCallSurvival(d, inf, false);
    const double b = model.hedgedCallSurvival(d, inf, true);
    const double calls = static_cast<double>(t.calls), reqs = static_cast<double>(t.requests);
    const double var = ((1 - s) * a * (1 - a) + s * b * (1 - b) + 1.0 / calls) / n +
                       s * (1 - s) * (a - b) * (a - b);
    r.checks.push_back(makeCheck("extra requests (backups per call)", share(t.backups, t.calls),
                                 model.extraRequests(d), kSigmas * std::sqrt(var / reqs), false,
                                 "closed form: S(d) = 1-F(d); 4 SE over requests"));
    if (t.config.sequential) return;
    auto cdf = [&](double x) { return model.requestCdfAfter(x, n, d); };
    auto q = [&](double p) { return model.requestQuantileAfter(p, n, d); };
    for (double pct : {50.0, 99.0, 99.9}) {
        const std::string label = pct == 50 ? "p50" : pct == 99 ? "p99" : "p99.9";
        checkQuantile(r, "hedged request " + label, t.hedgedRequest, pct, cdf, q);
    }
}

void addChecks(LabResult& r, const FanoutTally& t, const FanoutSweeps& s) {
    const FanoutModel model(t.config);
    const int n = t.config.backends;
    const double reqs = static_cast<double>(t.requests);
    const double hit = model.someCallSlowProbability(n, false);
    r.checks.push_back(makeCheck("requests with a slow call", share(t.someCallSlow, t.requests),
                                 hit, proportionTolerance(hit, reqs), false,
                                 "closed form: 1-(1-pf)(1-q)^N at the threshold; 4 SE"));
    requireProportionResolution(r.checks.back());
    if (t.config.sequential)
        r.checks.push_back(makeClaim("chain slow at least as often as a call",
                                     share(t.slow, t.requests), Bound::AtLeast,
                                     share(t.someCallSlow, t.requests),
                                     t.slow >= t.someCallSlow,
                                     "a sum is at least its largest term"));
    const double pb = model.backendSlowProbability();
    r.checks.push_back(makeCheck("backend slow rate", share(t.backendSlow, t.requests), pb,
                                 proportionTolerance(pb, reqs), false, "closed form: p; 4 SE"));
    requireProportionResolution(r.checks.back());
    auto bcdf = [&](double x) { return model.backendCdf(x); };
    auto bq = [&](double p) { return model.backendQuantile(p); };
    auto rcdf = [&](double x) { return model.requestCdf(x, n, false); };
    auto rq = [&](double p) { return model.requestQuantile(p, n, false); };
    for (double pct : {50.0, 99.0, 99.9}) {
        const std::string label = pct == 50 ? "p50" : pct == 99 ? "p99" : "p99.9";
        checkQuantile(r, "backend " + label, t.backend, pct, bcdf, bq);
        if (!t.config.sequential) checkQuantile(r, "request " + label, t.request, pct, rcdf, rq);
    }
    if (t.hedged) {
        const double h = hedgedSlow(model, n);
        r.checks.push_back(
            makeCheck("hedged requests with a slow call", share(t.hedgedSomeCallSlow, t.requests),
                      h, proportionTolerance(h, reqs), false,
                      t.delayed() ? "closed form: 1-R_d(t), call tail S(t)S(t-d); 4 SE"
                                  : "closed form: 1-(1-pf)(1-q^2)^N; 4 SE"));
        requireProportionResolution(r.checks.back());
    }
    if (t.delayed()) addDelayedChecks(r, t);
    r.checks.push_back(makeCheck("request slow share at the per-backend budget", s.budgetSlow,
                                 s.requestBudget,
                                 proportionTolerance(s.requestBudget, s.budgetRequests), false,
                                 "closed form: 1-(1-b_backend)^N = b; 4 SE"));
    requireProportionResolution(r.checks.back());
    addSweepClaims(r, t, s);
    checkRecordedInRange(r,
                         t.request.outOfRangeCount() + t.backend.outOfRangeCount() +
                             t.hedgedRequest.outOfRangeCount(),
                         "request, backend and hedged latencies");
}

}  // namespace

std::vector<std::string> fanoutFigureNames(const FanoutConfig& c) {
    LabResult r;
    addFigures(r, FanoutTally(c), FanoutSweeps{});
    return figureNamesOf(r);
}

void fillFanoutReport(LabResult& r, const FanoutTally& t, const FanoutSweeps& s) {
    addFigures(r, t, s);
    addSweepCharts(r, t, s);
    addChecks(r, t, s);
}

std::string fanoutExplanation() {
    return R"(<p>A page that asks <i>N</i> backends for a piece each is finished when the last piece
arrives, so its latency is the <b>maximum</b> of <i>N</i> calls, not a typical one. If each call is
slow with probability <i>p</i> and calls are independent, the request escapes only when every call is
fast: P(slow request) = 1 &minus; (1 &minus; <i>p</i>)<sup><i>N</i></sup>. At <i>p</i> = 1% and
<i>N</i> = 100 that is 63%: one backend's p99 becomes the request's median.</p>
<p>Each simulated call is a lognormal body (about 10 ms) or, with probability <i>p</i>, a slow mode
(about a second). The <b>shared fraction</b> <i>f</i> turns part of the slow events into one cause
that stalls every call of a request at once, while each backend's own slow rate stays <i>p</i>.
Shared stalls overlap instead of adding up, so the request tail falls from the formula's ceiling
towards <i>p</i> itself: 1 &minus; (1 &minus; <i>pf</i>)(1 &minus; <i>q</i>)<sup><i>N</i></sup>.
The immediate <b>hedge</b> sends each call to two replicas and keeps the faster; it removes the
independent slowness (<i>q</i> becomes <i>q</i>&sup2;) and none of the shared part.</p>
<p>The <b>delayed hedge</b> is the affordable version: a call gets a backup only if it has not
answered after <i>d</i> ms, and then finishes at whichever comes first, its own reply or
<i>d</i> plus the backup's. A call is still slower than <i>t</i> only when both are:
S(<i>t</i>)&middot;S(<i>t</i> &minus; <i>d</i>), where S is the chance one call takes longer than
that. The price is the share of calls still running at <i>d</i>, S(<i>d</i>) extra requests. With
<i>d</i> near the body's upper percentiles that is a few percent more load, while the far tail
that ruled the request (the maximum over <i>N</i> calls) shrinks to where both replicas are slow at
once. A shared stall still hits both.</p>
<p>How to read it: on <i>slow_vs_n</i> the dots are simulated requests and the line is the closed
form; on <i>distribution</i> compare one backend's percentile curve with the request's (the request
curve is the backend's CDF raised to the power <i>N</i>); <i>slow_vs_shared</i> shows hedging's gain
vanish as <i>f</i> reaches 1. The per-backend budget 1 &minus; (1 &minus; <i>b</i>)<sup>1/<i>N</i></sup>
is the slow rate each backend may have so that only a share <i>b</i> of requests is slow; at
<i>b</i> = 1% and <i>N</i> = 100 it is about one call in 10,000. The sequential chain adds the
calls instead (an agent loop of 30 steps): the chance that a task meets a slow call is the same
formula. The <i>tail-at-scale</i> scenario fits a call model to Dean and Barroso's benchmark
(1,000 keys per request, a backup after 10 ms): p99.9 from 1,800 ms to 74 ms for 2% more
requests.</p>
<p>Each check allows four standard errors of its sample size. One whose allowance is wider than a
quarter of its value cannot fail: it reads <i>inconclusive</i> and names the number of requests
that would decide it. A backend's p99 when exactly 1% of calls are slow is one that no run
decides: it falls between the body and the slow mode, where hardly any call lands, so the
measured p99 jumps from one mode to the other.</p>)";
}

}  // namespace taillab
