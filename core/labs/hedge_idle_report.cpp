#include "labs/hedge_idle_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "labs/fanout_stats.h"
#include "labs/lab.h"

namespace taillab {
namespace {

constexpr double kSweepMaxZ = 4.5;  // max |z| over ~13 sweep points: a false alarm ~1e-4

double share(double a, double b) { return b > 0 ? a / b : 0.0; }

HedgeIdleModel modelAt(const HedgeIdleConfig& c, double f) {
    HedgeIdleConfig copy = c;
    copy.shared_fraction = f;
    return HedgeIdleModel(copy);
}

}  // namespace

HedgeIdleTally::HedgeIdleTally(double delay, double f, const HdrConfig& range)
    : delay_ms(delay), shared_fraction(f), after(range) {}

void HedgeIdleTally::add(const HedgeIdleOutcome& o) {
    ++requests;
    if (o.backup_sent) ++backups;
    primaryBusy += o.response_ms;
    backupBusy += o.backup_busy_ms;
    unhedgedBusy += o.primary_ms;
    after.record(std::llround(o.response_ms * 1000.0));
}

void fillHedgeIdleTail(LabResult& r, const HedgeIdleRun& run) {
    const HedgeIdleTally& main = run.policies.front();
    r.distributions.clear();
    r.distributions.push_back({"before", run.before});
    r.distributions.push_back({"after", main.after});
    const HedgeIdleModel model(run.config);
    const double d = main.delay_ms;
    Chart c{"tail",
            "Tail before and after the hedge",
            ChartKind::Percentile,
            "Percentile",
            "Latency (ms)",
            false,
            true,
            {}};
    auto cf = [](std::string name, const std::function<double(double)>& q) {
        return closedFormPercentileSeries(std::move(name),
                                          [&](double p) { return p > 0 ? q(p) : NAN; });
    };
    c.series.push_back(percentileSeries("no hedge (simulated)", run.before));
    c.series.push_back(
        cf("no hedge: S(t) (closed form)", [&](double p) { return model.quantile(p); }));
    c.series.push_back(percentileSeries("hedged (simulated)", main.after));
    c.series.push_back(cf("hedged: S(t)·S(t-d) (closed form)",
                          [&](double p) { return model.hedgedQuantile(p, d); }));
    r.charts.clear();
    r.charts.push_back(std::move(c));
}

namespace {

void addFigures(LabResult& r, const HedgeIdleRun& run) {
    const HedgeIdleTally& t = run.policies.front();
    const HedgeIdleModel model(run.config);
    const double d = t.delay_ms;
    const double reqs = static_cast<double>(t.requests);
    const double extra = share(static_cast<double>(t.backups), reqs);
    auto& f = r.figures;
    f.emplace_back("hedge_delay_ms", d);
    const std::pair<double, std::string> points[] = {
        {50.0, "p50"}, {90.0, "p90"}, {99.0, "p99"}, {99.9, "p999"}};
    for (const auto& [pct, name] : points) {
        f.emplace_back(name + "_before_ms", percentileMs(run.before, pct));
        f.emplace_back(name + "_after_ms", percentileMs(t.after, pct));
    }
    f.emplace_back("p999_before_closed_form_ms", model.quantile(0.999));
    f.emplace_back("p999_after_closed_form_ms", model.hedgedQuantile(0.999, d));
    f.emplace_back("extra_requests", extra);
    f.emplace_back("backup_share_of_calls", extra / (1 + extra));
    f.emplace_back("extra_requests_closed_form", model.extraRequests(d));
    f.emplace_back("backup_work_share", share(t.backupBusy, t.primaryBusy));
    f.emplace_back("backup_work_share_closed_form", model.backupWorkShare(d));
    f.emplace_back("net_extra_work",
                   share(t.primaryBusy + t.backupBusy - t.unhedgedBusy, t.unhedgedBusy));
    f.emplace_back("net_extra_work_closed_form", model.netExtraWork(d));
}

void addSweepCharts(LabResult& r, const HedgeIdleRun& run) {
    const std::size_t np = run.sweepPercentiles.size();
    Chart byPct{"p999_vs_hedge_percentile",
                "p99.9 after hedging vs hedge percentile",
                ChartKind::XY,
                "Hedge at percentile of one replica (%)",
                "p99.9 latency (ms)",
                false,
                true,
                {}};
    Series sim{"hedged p99.9 (simulated)", SeriesRole::Simulated, {}, {}};
    for (std::size_t i = 0; i < np; ++i) {
        sim.x.push_back(100 * run.sweepPercentiles[i]);
        sim.y.push_back(percentileMs(run.policies[1 + i].after, 99.9));
    }
    const HedgeIdleModel model(run.config);
    Series curve{"S(t)·S(t-d) (closed form)", SeriesRole::ClosedForm, {}, {}};
    Series none{"no hedge (closed form)", SeriesRole::ClosedForm, {}, {}};
    const double before = model.quantile(0.999);
    for (int i = 0; i <= 40; ++i) {
        const double p = 0.5 + (0.999 - 0.5) * (1 - std::pow(1 - i / 40.0, 2));
        curve.x.push_back(100 * p);
        curve.y.push_back(model.hedgedQuantile(0.999, model.quantile(p)));
        none.x.push_back(100 * p);
        none.y.push_back(before);
    }
    byPct.series = {sim, curve, none};
    r.charts.push_back(std::move(byPct));
    if (run.sweepShared.empty()) return;

    Chart byF{"p999_vs_shared",
              "p99.9 after hedging vs shared fraction",
              ChartKind::XY,
              "Shared fraction of slow events (f)",
              "p99.9 latency (ms)",
              false,
              true,
              {}};
    Series fs{"hedged p99.9 (simulated)", SeriesRole::Simulated, {}, {}};
    for (std::size_t i = 0; i < run.sweepShared.size(); ++i) {
        fs.x.push_back(run.sweepShared[i]);
        fs.y.push_back(percentileMs(run.policies[1 + np + i].after, 99.9));
    }
    Series fc{"survival product with shared part (closed form)", SeriesRole::ClosedForm, {}, {}};
    const double d = run.policies.front().delay_ms;
    for (int i = 0; i <= 50; ++i) {
        fc.x.push_back(i / 50.0);
        fc.y.push_back(modelAt(run.config, i / 50.0).hedgedQuantile(0.999, d));
    }
    byF.series = {fs, fc};
    r.charts.push_back(std::move(byF));
}

// What the checks compare with, as each result states it: the exponential's forms are exact;
// the others are inverted and integrated numerically.
struct ClosedFormText {
    const char* quantiles;
    const char* backupWork;
    const char* netWork;
    const char* sweep;
};

ClosedFormText closedFormText(HedgeIdleService s) {
    if (s == HedgeIdleService::Exponential)
        return {"closed form: e^(-t/m) / e^(-(2t-d)/m); 4 SE (delta method) + HDR",
                "closed form: backup busy / hedged primary busy = S(d) / (2 - S(d)), exact for "
                "exponential; 4 SE from the model (delta method)",
                "closed form: (all server time with the hedge) / (without) - 1 = 0, exact for "
                "exponential (past d two copies run m/2 each, the m the primary had left); 4 SE "
                "from the model (delta method)",
                "closed form over the hedge-percentile sweep"};
    return {"closed form: S(t) / S(t)·S(t-d); 4 SE (delta method) + HDR",
            "closed form: backup busy / hedged primary busy = ∫_d P(T>t) dt / ∫_0 P(T>t) dt; "
            "4 SE from the model (delta method) + quadrature",
            "closed form: (all server time with the hedge) / (without) - 1 = (∫_0 P(T>t) dt + "
            "∫_d P(T>t) dt) / E[X] - 1; 4 SE from the model (delta method) + quadrature",
            s == HedgeIdleService::Mixture
                ? "closed form over the hedge-percentile and shared-fraction sweeps"
                : "closed form over the hedge-percentile sweep"};
}

// Each sweep point's p99.9 against the survival product, at 4.5 SE of its own requests. A point
// whose 4.5 SE exceeds kMaxToleranceShare of its value cannot fail: it is drawn, not checked,
// and the claim says which run would check it; with no point left the claim is inconclusive.
void addSweepClaim(LabResult& r, const HedgeIdleRun& run) {
    double z = 0;
    int checked = 0, wide = 0;
    std::int64_t needed = 0;  // the requests that would check every point
    for (std::size_t i = 1; i < run.policies.size(); ++i) {
        // A hedge at the p99.9 puts the delay at the very percentile being read: the tail has a
        // kink there and the delta method does not apply, so that point is drawn, not checked.
        const std::size_t k = i - 1;
        if (k < run.sweepPercentiles.size() && run.sweepPercentiles[k] >= 0.999) continue;
        const HedgeIdleTally& t = run.policies[i];
        const HedgeIdleModel m = modelAt(run.config, t.shared_fraction);
        const double expected = m.hedgedQuantile(0.999, t.delay_ms);
        const double se = quantileTolerance([&](double x) { return m.hedgedCdf(x, t.delay_ms); },
                                            expected, 0.999, t.requests, 1.0);
        const double simulated = percentileMs(t.after, 99.9);
        const Check point = makeCheck("", simulated, expected, kSweepMaxZ * se, false, "");
        if (toleranceShare(point) > kMaxToleranceShare) {
            ++wide;
            const double sePart = kSweepMaxZ * (se - kQuantileHdrShare * expected);
            const auto n = samplesToDecide(point, t.requests, sePart);
            needed = std::max(needed, n.value_or(std::numeric_limits<std::int64_t>::max()));
            continue;
        }
        ++checked;
        z = std::max(z, std::abs(simulated - expected) / se);
    }
    std::string source = closedFormText(run.config.service).sweep;
    const RunAdvice decide = runAtLeast(needed);
    if (wide > 0)
        source += "; " + std::to_string(wide) + " points wider than 25% of their value left out (" +
                  decide.text + ")";
    r.checks.push_back(makeClaim("sweep p99.9 points within 4.5 SE of the survival product", z,
                                 Bound::AtMost, kSweepMaxZ, z <= kSweepMaxZ, source));
    Check& claim = r.checks.back();
    if (wide > 0) claim.advice = decide.knobs;
    if (checked == 0 && wide > 0)
        claim.inconclusive =
            "too few samples to decide: every sweep point is wider than 25% of its value; " +
            decide.text;
}

void addChecks(LabResult& r, const HedgeIdleRun& run) {
    const HedgeIdleTally& t = run.policies.front();
    const HedgeIdleModel model(run.config);
    const double d = t.delay_ms;
    auto cdf = [&](double x) { return model.cdf(x); };
    auto hcdf = [&](double x) { return model.hedgedCdf(x, d); };
    const ClosedFormText text = closedFormText(run.config.service);
    if (!run.fixedDelay) {
        const double p = run.hedgePercentile;
        addQuantileCheck(r, "calibrated delay", d, model.quantile(p), p, cdf,
                         run.calibrationSamples, "closed form: quantile of S; 4 SE + HDR",
                         {"calibration_samples", "calibration samples (calibration_samples)"});
    }
    for (double pct : {50.0, 99.0, 99.9}) {
        const std::string label = pct == 50 ? "p50" : pct == 99 ? "p99" : "p99.9";
        const double p = pct / 100;
        addQuantileCheck(r, label + " before", percentileMs(run.before, pct), model.quantile(p), p,
                         cdf, run.before.totalCount(), text.quantiles);
        addQuantileCheck(r, label + " after", percentileMs(t.after, pct),
                         model.hedgedQuantile(p, d), p, hcdf, t.after.totalCount(),
                         text.quantiles);
    }
    const double reqs = static_cast<double>(t.requests);
    const double e = model.extraRequests(d);
    r.checks.push_back(makeCheck("extra requests", share(static_cast<double>(t.backups), reqs), e,
                                 proportionTolerance(e, reqs), false,
                                 "closed form: S(d), backups per primary; 4 SE"));
    requireProportionResolution(r.checks.back());
    // The quadrature's own error is allowed for where there is one.
    const double quadrature = run.config.service == HedgeIdleService::Exponential ? 0 : 1e-4;
    const double workSe = kSigmas * model.backupWorkShareStandardError(d, t.requests);
    r.checks.push_back(makeCheck("backup work share", share(t.backupBusy, t.primaryBusy),
                                 model.backupWorkShare(d), workSe + quadrature, false,
                                 text.backupWork));
    requireSampleResolution(r.checks.back(), t.requests, workSe);
    // All server time with the hedge over without, the cancelled losers' time left out: a
    // backup that beats a slow-mode primary saves more than it costs. Exactly 0 for the
    // exponential (a check that always decides: its tolerance is absolute).
    const double netSe = kSigmas * model.netExtraWorkStandardError(d, t.requests);
    r.checks.push_back(makeCheck("net extra work",
                                 share(t.primaryBusy + t.backupBusy - t.unhedgedBusy, t.unhedgedBusy),
                                 model.netExtraWork(d), netSe + quadrature, false, text.netWork));
    requireSampleResolution(r.checks.back(), t.requests, netSe);
    addSweepClaim(r, run);
    std::int64_t outOfRange = run.before.outOfRangeCount();
    for (const auto& policy : run.policies) outOfRange += policy.after.outOfRangeCount();
    checkRecordedInRange(r, outOfRange, "service and response times");
}

}  // namespace

std::vector<std::string> hedgeIdleFigureNames(const HedgeIdleConfig& c) {
    HedgeIdleRun run;
    run.config = c;
    run.policies.emplace_back(0.0, c.shared_fraction, hedgeIdleLatencyRange(c));
    LabResult r;
    addFigures(r, run);
    return figureNamesOf(r);
}

void fillHedgeIdleReport(LabResult& r, const HedgeIdleRun& run) {
    addFigures(r, run);
    addSweepCharts(r, run);
    addChecks(r, run);
}

std::string hedgeIdleExplanation() {
    return R"(<p>A <b>hedged request</b> gives a slow call a second chance: send the request to one
replica, and if it has not answered by the hedge delay <i>d</i>, send the same request to a second
replica and take whichever answers first, cancelling the other. Here both replicas are idle, so a
backup never waits in a queue and never slows anyone else down.</p>
<p>The delay is usually a high percentile of the service time, such as the p95, read from recent
latencies; the lab measures it on a separate calibration sample. Only requests still running at
<i>d</i> get a backup, so a p95 hedge sends about 5% more requests. A request is still slow only if
the primary is slow <i>and</i> the backup, started <i>d</i> later, is slow too:
P(T &gt; t) = S(t)&middot;S(t &minus; d). Two rare events rarely coincide, so the p99.9 falls from
the slow mode (about 1.5 s) to just past the delay plus a normal answer (tens of ms). A backup
runs only until one of the two copies answers, so the backups are busy for about 1.5% of the time
the primaries are (<i>backup_work_share</i>, the published "1.5% extra work"). That is not what
hedging costs the servers: a backup mostly wins against a primary stuck in the slow mode, which is
then cancelled, so all the server time together falls by about a quarter against no hedge
(<i>net_extra_work</i>, about &minus;27%).</p>
<p>What a hedge can do depends on the <b>service time</b>. The <i>mixture</i> (the default, fitted
to the published figure) is a 12 ms lognormal body with a rare slow mode near 1.4 s: the tail is a
separate, rare event that a backup almost always escapes, hence the 45-fold cut. The
<i>lognormal</i> body alone has no far tail: a backup sent at the p95 (about 20 ms) still needs a
normal answer's 12 ms or so, later than almost every primary it was meant to beat, and the p99.9
barely moves (30.3 to 29.5 ms). The <i>exponential</i> keeps the body's 12 ms median (mean
12/ln 2 = 17.3 ms) and is memoryless: a primary still running at <i>d</i> has as long to go as a
fresh one, and racing it against a backup halves what is left. So past <i>d</i> every percentile
moves halfway towards the delay, hedged pXX = (<i>d</i> + pXX)/2: a p95 hedge takes the p99.9
from 120 ms to 86 ms, 28% off rather than 45-fold. Each backup runs for half a mean, so the
backups' busy time, S(d)/(2 &minus; S(d)) = 2.6% of the primaries', is above the mixture's 1.5%
for the same 5% of backups; yet the servers' total work does not change at all (net extra work
0): past <i>d</i> the two racing copies run half a mean each, exactly the mean the primary had
left.</p>
<p>How to read it: on <i>tail</i> the hedged curve leaves the unhedged one at the hedge percentile
and stays low through the nines. <i>p999_vs_hedge_percentile</i> shows the trade: hedging earlier
cuts the tail a little more but sends many more backups; hedging at the p99.9 or later is too
late to help the p99.9. <i>p999_vs_shared</i> (mixture only) shows the limit: when a shared
cause (a common dependency, a deploy) slows both replicas at once, the product no longer applies
and the tail comes back as <i>f</i> approaches 1.</p>)";
}

}  // namespace taillab
