// Lab "averaging_percentiles": the mean of per-host percentiles against the percentile of all
// requests pooled (from a merged HDR histogram), as the odd host's traffic share moves.
//
// Model and closed forms: see labs/averaging_percentiles_model.h. The mean of host pXX ignores
// traffic; the pooled pXX is the mixture's quantile, sum_j w_j F_j(Q) = p, solved by bisection.
// A quiet odd host with a bad tail makes the mean overstate the pooled pXX
// (scenarios/labs/averaging-percentiles.json); a busy host with a moderate tail beside idle fast
// ones makes it understate (averaging-percentiles-understates.json). Counts over a threshold add
// across hosts exactly. Illustrates essay 003's "Averaging percentiles across hosts"; the essay
// gives no figures, so the checks are against the closed forms, with tolerances from the sample
// quantile's standard error sqrt(p(1-p)/n)/f(q).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "labs/averaging_percentiles_model.h"
#include "labs/lab_common.h"
#include "labs/labs.h"

namespace taillab {
namespace {

using avg::Fleet;

constexpr double kSweepShares[] = {0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.6, 0.9};
constexpr double kMinShare = 0.001, kMaxShare = 0.99;

std::string percentileName(double percent) {
    std::ostringstream out;
    out << "p" << percent;
    return out.str();
}

// One fleet's simulated view: what a dashboard averages, and what the pool says.
struct Measured {
    double share = 0;
    std::vector<double> hostMs;  // each host's pXX
    double meanOfHostsMs = 0;
    double pooledMs = 0;
    double errorMs() const { return meanOfHostsMs - pooledMs; }
};

Measured measure(double share, const std::vector<HdrHistogram>& hosts, const HdrHistogram& pooled,
                 double percent) {
    Measured m{share, {}, 0, usToMs(pooled.valueAtPercentile(percent))};
    for (const auto& h : hosts) m.hostMs.push_back(usToMs(h.valueAtPercentile(percent)));
    for (double v : m.hostMs) m.meanOfHostsMs += v / static_cast<double>(hosts.size());
    return m;
}

HdrHistogram mergeAll(const std::vector<HdrHistogram>& hosts) {
    HdrHistogram pooled(hosts.front().config());
    for (const auto& h : hosts) pooled.merge(h);
    return pooled;
}

// The figures of the main run. figureNames() passes an empty Measured through the same code.
void addMainFigures(LabResult& r, const Fleet& f, double p, const Measured& m) {
    const auto host = [&](std::size_t h) { return h < m.hostMs.size() ? m.hostMs[h] : 0.0; };
    r.figures = {
        {"odd_host_pxx_ms", host(0)},
        {"healthy_host_pxx_ms", host(1)},
        {"mean_of_host_pxx_ms", m.meanOfHostsMs},
        {"pooled_pxx_ms", m.pooledMs},
        {"error_ms", m.errorMs()},
        {"error_ratio", m.meanOfHostsMs / m.pooledMs},
        {"closed_form_mean_of_host_pxx_ms", f.meanOfHostQuantiles(p)},
        {"closed_form_pooled_pxx_ms", f.pooledQuantile(p)},
        {"closed_form_error_ms", f.error(p)},
    };
    if (auto w = avg::zeroCrossingShare(f, p, kMinShare, kMaxShare))
        r.figures.emplace_back("closed_form_zero_error_share", *w);
}

void addCountFigures(LabResult& r, double thresholdMs, std::int64_t overSum,
                     std::int64_t overPooled, double fraction, double meanFraction) {
    r.figures.emplace_back("threshold_ms", thresholdMs);
    r.figures.emplace_back("over_threshold_sum_of_hosts", static_cast<double>(overSum));
    r.figures.emplace_back("over_threshold_pooled", static_cast<double>(overPooled));
    r.figures.emplace_back("fraction_over_threshold", fraction);
    r.figures.emplace_back("mean_of_host_fractions_over_threshold", meanFraction);
}

std::vector<Rng> streams(std::uint64_t seed, const std::string& prefix, int hosts) {
    std::vector<Rng> s;
    for (int h = 0; h < hosts; ++h)
        s.emplace_back(seed, "averaging_percentiles/" + prefix + "host_" + std::to_string(h));
    return s;
}

class AveragingPercentilesLab final : public Lab {
  public:
    std::string id() const override { return "averaging_percentiles"; }
    std::string title() const override { return "Averaging percentiles"; }
    std::string summary() const override {
        return "The mean of per-host p99s is not the p99 of the requests, and errs both ways";
    }
    std::string explanation() const override;
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "odd_share"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;
    std::vector<std::string> figureNames(const Params& params) const override;

  private:
    struct Run;
    static Fleet fleetFrom(const Params& params);
    void fillMain(Run& run, const std::vector<HdrHistogram>& hosts,
                  const HdrHistogram& pooled) const;
    static void fillQuantileChecks(Run& run, const Measured& m);
    void fillCountChecks(Run& run, const std::vector<HdrHistogram>& hosts,
                         const HdrHistogram& pooled, double thresholdMs) const;
    static Chart errorChart(const Run& run);
};

struct AveragingPercentilesLab::Run {
    Fleet fleet;
    double percent = 99;
    std::int64_t requests = 0;
    std::vector<std::int64_t> split;
    LabResult result;
    Series sweep{"simulated, N/8 requests each", SeriesRole::Simulated, {}, {}};
    std::optional<Measured> main;
    double p() const { return percent / 100.0; }
};

std::vector<KnobSpec> AveragingPercentilesLab::knobs() const {
    return {
        KnobSpec::integer("hosts", "Hosts", "hosts", 2, 100, 4,
                          "Hosts in the fleet, the odd one included"),
        KnobSpec::real("odd_share", "Odd host's traffic", "fraction", kMinShare, kMaxShare, 0.01,
                       "Share of all requests the odd host serves; the others split the rest")
            .log(),
        KnobSpec::real("odd_slowness", "Odd host's slowness", "x", 1, 100, 10,
                       "Every quantile of the odd host is this many times the healthy hosts'")
            .log(),
        KnobSpec::real("percentile", "Percentile", "%", 50, 99.99, 99,
                       "Which percentile the dashboard averages (99 = p99)"),
        KnobSpec::integer(
            "requests", "Requests", "requests", 1000, 10000000, 1000000,
            "Requests across the fleet for this run (each sweep point uses an eighth)")
            .log(),
        KnobSpec::real("sigma", "Latency spread", "sigma", 0.1, 2, 0.5,
                       "Lognormal shape of every host (healthy median 10 ms)")
            .hidden(),
    };
}

Fleet AveragingPercentilesLab::fleetFrom(const Params& params) {
    Fleet f;
    f.hosts = params.integer("hosts");
    f.odd_share = params.real("odd_share");
    f.odd_slowness = params.real("odd_slowness");
    f.healthy.sigma = params.real("sigma");
    return f;
}

std::vector<std::string> AveragingPercentilesLab::figureNames(const Params& params) const {
    LabResult r;
    addMainFigures(r, fleetFrom(params), params.real("percentile") / 100.0, Measured{});
    addCountFigures(r, 0, 0, 0, 0, 0);
    return figureNamesOf(r);
}

LabResult AveragingPercentilesLab::run(const Params& params, std::uint64_t seed,
                                       RunControl& control, const PartialSink& partial) const {
    Run run;
    run.fleet = fleetFrom(params);
    run.percent = params.real("percentile");
    run.requests = params.integer64("requests");
    // The closed forms weigh each host by its share; a host whose share is under one request
    // still gets one, so the shares drawn would not be the shares computed.
    const double fewest = std::min(run.fleet.share(0), run.fleet.share(1)) * static_cast<double>(run.requests);
    if (run.fleet.hosts > 1 && fewest < 1) {
        char text[240];
        std::snprintf(text, sizeof text,
                      "requests (%lld) over hosts (%d) at odd_share %g gives a host %.3g requests: "
                      "every host needs at least one for the shares to hold (raise requests, or lower hosts)",
                      static_cast<long long>(run.requests), run.fleet.hosts, run.fleet.odd_share, fewest);
        throw std::invalid_argument(text);
    }
    run.split = run.fleet.split(run.requests);
    LabResult& r = run.result;
    r.lab = id();
    r.seed = seed;
    r.parameters = params.toJson();

    const std::int64_t sweepRequests = std::clamp<std::int64_t>(run.requests / 8, 1000, 125000);
    const double total = static_cast<double>(run.requests) +
                         static_cast<double>(sweepRequests) * std::size(kSweepShares);
    std::vector<HdrHistogram> hosts(static_cast<std::size_t>(run.fleet.hosts),
                                    HdrHistogram(run.fleet.histogramConfig()));
    auto main = streams(seed, "", run.fleet.hosts);
    if (!avg::sampleFleet(run.fleet, run.split, main, hosts, control, 0.0,
                          static_cast<double>(run.requests) / total)) {
        r.cancelled = true;
        r.progress = control.progress();
        return r;
    }
    const HdrHistogram pooled = mergeAll(hosts);
    fillMain(run, hosts, pooled);
    double done = static_cast<double>(run.requests);
    for (std::size_t i = 0; i < std::size(kSweepShares); ++i) {
        if (partial) {
            LabResult p = r;
            p.progress = done / total;
            p.charts.push_back(errorChart(run));
            partial(p);
        }
        Fleet f = run.fleet;
        f.odd_share = kSweepShares[i];
        for (auto& h : hosts) h.reset();
        auto s = streams(seed, "sweep_" + std::to_string(i) + "/", f.hosts);
        const double next = done + static_cast<double>(sweepRequests);
        if (!avg::sampleFleet(f, f.split(sweepRequests), s, hosts, control, done / total,
                              next / total)) {
            r.cancelled = true;
            r.progress = done / total;
            r.charts.insert(r.charts.begin(), errorChart(run));
            return r;
        }
        const Measured m = measure(f.odd_share, hosts, mergeAll(hosts), run.percent);
        run.sweep.x.push_back(m.share * 100);
        run.sweep.y.push_back(m.errorMs());
        done = next;
    }
    control.reportProgress(1.0);
    r.charts.insert(r.charts.begin(), errorChart(run));
    return r;
}

void AveragingPercentilesLab::fillMain(Run& run, const std::vector<HdrHistogram>& hosts,
                                       const HdrHistogram& pooled) const {
    const Fleet& f = run.fleet;
    const double p = run.p();
    const Measured m = measure(f.odd_share, hosts, pooled, run.percent);
    run.main = m;
    LabResult& r = run.result;
    r.distributions.push_back({"pooled", pooled});
    r.distributions.push_back({"odd_host", hosts[0]});
    r.distributions.push_back({"healthy_host", hosts[1]});

    const double nines = std::clamp(std::log10(static_cast<double>(run.requests)), 2.0, 5.0);
    Chart pc{"distributions",
             "Per-host and pooled latency",
             ChartKind::Percentile,
             "Percentile",
             "Latency (ms)",
             false,
             true,
             {}};
    pc.series.push_back(percentileSeries("odd host", hosts[0], nines));
    pc.series.push_back(percentileSeries("healthy host", hosts[1], nines));
    pc.series.push_back(percentileSeries("all requests pooled", pooled, nines));
    pc.series.push_back(closedFormPercentileSeries(
        "odd host, closed form", [&](double q) { return f.hostQuantile(0, q); }, nines));
    pc.series.push_back(closedFormPercentileSeries(
        "healthy host, closed form", [&](double q) { return f.hostQuantile(1, q); }, nines));
    pc.series.push_back(closedFormPercentileSeries(
        "pooled, closed form (mixture)", [&](double q) { return f.pooledQuantile(q); }, nines));
    r.charts.push_back(std::move(pc));

    addMainFigures(r, f, p, m);
    fillQuantileChecks(run, m);
    fillCountChecks(run, hosts, pooled, m.meanOfHostsMs);
}

// The delta method's standard error of a sample quantile holds once a host has drawn at least
// this many requests beyond its percentile (n·min(p, 1 - p)); below it a host's quantile has no
// tolerance to speak of.
constexpr double kMinBeyondPercentile = 10;

// The fewest requests across the fleet at which host `h` draws enough for the delta method.
std::int64_t requestsForDeltaMethod(const Fleet& f, int h, double p) {
    const double k = std::ceil(kMinBeyondPercentile / std::min(p, 1 - p) - 1e-9);
    // split() rounds share·total to the nearest request: llround(x) >= k once x >= k - 1/2.
    return static_cast<std::int64_t>(std::ceil((k - 0.5) / f.share(h)));
}

// Decides `c` as every lab does: only when its tolerance is within kMaxToleranceShare of its
// value (`sePart` of it, from `requests`, shrinks like 1/sqrt(n)). `fewest` is the run below which
// some host it reads has too few requests for its standard error to hold (`host` says which):
// such a run cannot decide it whatever its tolerance, and the run named is the longer of the two.
void decideQuantileCheck(Check& c, std::int64_t requests, double sePart, std::int64_t fewest,
                         const std::string& host) {
    if (requests >= fewest) return requireSampleResolution(c, requests, sePart);
    const std::optional<std::int64_t> n = samplesToDecide(c, requests, sePart);
    const RunAdvice advice = runAtLeast(std::max(fewest, n.value_or(fewest)));
    c.inconclusive = "too few samples to decide: " + host +
                     " drew too few requests beyond the percentile (fewer than " +
                     std::to_string(static_cast<int>(kMinBeyondPercentile)) +
                     ") for its standard error to hold; " + advice.text;
    c.advice = advice.knobs;
}

void AveragingPercentilesLab::fillQuantileChecks(Run& run, const Measured& m) {
    const Fleet& f = run.fleet;
    const double p = run.p();
    const std::string px = percentileName(run.percent);
    LabResult& r = run.result;
    // Each sample quantile within kSigmas standard errors (plus HDR's bucket) of its closed form.
    auto seOfHost = [&](int h) {
        const double n = static_cast<double>(run.split[static_cast<std::size_t>(h)]);
        return avg::quantileStandardError(p, n, f.hostDensity(h, f.hostQuantile(h, p)));
    };
    // The run below which a host has too few requests for its standard error, and which host.
    std::int64_t fewest = 0;
    std::string fewestHost;
    for (int h : {0, 1}) {
        const std::int64_t n = requestsForDeltaMethod(f, h, p);
        if (n <= fewest) continue;
        fewest = n;
        fewestHost = h == 0 ? "the odd host" : "each healthy host";
    }
    const std::string how = "; tolerance " + std::to_string(static_cast<int>(kSigmas)) +
                            " x sqrt(p(1-p)/n)/f(q) + value/1024";
    double seMean = 0;
    for (int h = 0; h < f.hosts; ++h) seMean += seOfHost(h) / f.hosts;
    for (int h : {0, 1}) {
        const double q = f.hostQuantile(h, p);
        r.checks.push_back(makeCheck((h == 0 ? "odd host " : "healthy host ") + px + " (ms)",
                                     m.hostMs[static_cast<std::size_t>(h)], q,
                                     kSigmas * seOfHost(h) + q * kHdrResolution, false,
                                     "closed form: lognormal quantile" + how));
        decideQuantileCheck(r.checks.back(), run.requests, kSigmas * seOfHost(h),
                            requestsForDeltaMethod(f, h, p),
                            h == 0 ? "the odd host" : "each healthy host");
    }
    const double q = f.pooledQuantile(p);
    const double sePool =
        avg::quantileStandardError(p, static_cast<double>(run.requests), f.pooledDensity(q));
    const double tolPool = kSigmas * sePool + q * kHdrResolution;
    r.checks.push_back(makeCheck("pooled " + px + " from merged HDR (ms)", m.pooledMs, q, tolPool,
                                 false, "closed form: sum_j w_j F_j(Q) = p by bisection" + how));
    requireSampleResolution(r.checks.back(), run.requests, kSigmas * sePool);
    const double mean = f.meanOfHostQuantiles(p);
    const double tolMean = kSigmas * seMean + mean * kHdrResolution;
    r.checks.push_back(makeCheck("mean of host " + px + " (ms)", m.meanOfHostsMs, mean, tolMean,
                                 false, "closed form: mean_j q_j(p)" + how));
    decideQuantileCheck(r.checks.back(), run.requests, kSigmas * seMean, fewest, fewestHost);
    const double e = f.error(p);
    r.checks.push_back(makeCheck("mean minus pooled (ms)", m.errorMs(), e, tolMean + tolPool, false,
                                 "closed form: mean_j q_j(p) - Q(p)" + how));
    decideQuantileCheck(r.checks.back(), run.requests, kSigmas * (seMean + sePool), fewest,
                        fewestHost);
    if (e == 0) return;  // identical hosts: no sign to claim
    // The sign is decided when the difference is: a run that cannot tell the difference from
    // its closed form within a quarter cannot vouch for its sign either.
    const Check difference = r.checks.back();
    r.checks.push_back(makeClaim(e > 0 ? "mean of host " + px + " overstates the pooled " + px
                                       : "mean of host " + px + " understates the pooled " + px,
                                 m.errorMs(), e > 0 ? Bound::Above : Bound::Below, 0,
                                 (m.errorMs() > 0) == (e > 0),
                                 "closed form: the sign of mean_j q_j(p) - Q(p)"));
    r.checks.back().inconclusive = difference.inconclusive;
    r.checks.back().advice = difference.advice;
}

void AveragingPercentilesLab::fillCountChecks(Run& run, const std::vector<HdrHistogram>& hosts,
                                              const HdrHistogram& pooled,
                                              double thresholdMs) const {
    LabResult& r = run.result;
    const std::int64_t thresholdUs = std::llround(thresholdMs * 1000.0);
    std::int64_t overSum = 0, countSum = 0;
    double meanFraction = 0;
    for (const auto& h : hosts) {
        const std::int64_t over = h.totalCount() - h.countAtOrBelow(thresholdUs);
        overSum += over;
        countSum += h.totalCount();
        meanFraction += static_cast<double>(over) / static_cast<double>(h.totalCount()) /
                        static_cast<double>(hosts.size());
    }
    const std::int64_t overPooled = pooled.totalCount() - pooled.countAtOrBelow(thresholdUs);
    const double n = static_cast<double>(pooled.totalCount());
    const double fraction = static_cast<double>(overPooled) / n;
    addCountFigures(r, thresholdMs, overSum, overPooled, fraction, meanFraction);

    r.checks.push_back(makeCheck("every request counted once", static_cast<double>(countSum),
                                 static_cast<double>(run.requests), 0, false,
                                 "conservation: sum of host counts = requests"));
    r.checks.push_back(makeCheck("pooled histogram holds every request", n,
                                 static_cast<double>(run.requests), 0, false,
                                 "conservation: merged HDR count = requests"));
    r.checks.push_back(makeCheck("counts over the threshold add across hosts",
                                 static_cast<double>(overSum), static_cast<double>(overPooled), 0,
                                 false, "exact: a count is additive, a percentile is not"));
    const double expected = 1.0 - run.fleet.pooledCdf(thresholdMs);
    const double se = kSigmas * std::sqrt(expected * (1 - expected) / n);
    const double tol =
        se + run.fleet.pooledDensity(thresholdMs) * thresholdMs * kHdrResolution + 1.0 / n;
    r.checks.push_back(makeCheck("fraction of requests over the mean of host percentiles", fraction,
                                 expected, tol, false,
                                 "closed form: 1 - sum_j w_j F_j(threshold); tolerance 4 binomial "
                                 "standard errors + HDR bucket"));
    requireSampleResolution(r.checks.back(), run.requests, se);
}

Chart AveragingPercentilesLab::errorChart(const Run& run) {
    const std::string px = percentileName(run.percent);
    Chart c{"error_vs_share",
            "Mean of host " + px + " minus pooled " + px,
            ChartKind::XY,
            "Odd host's share of traffic (%)",
            "Mean of host " + px + " - pooled " + px + " (ms)",
            true,
            false,
            {}};
    Series form{"closed form", SeriesRole::ClosedForm, {}, {}};
    Fleet f = run.fleet;
    constexpr int kPoints = 60;
    for (int i = 0; i <= kPoints; ++i) {
        f.odd_share = kMinShare * std::pow(kMaxShare / kMinShare, static_cast<double>(i) / kPoints);
        form.x.push_back(f.odd_share * 100);  // shares read in percent, as the knob does
        form.y.push_back(f.error(run.p()));
    }
    c.series.push_back(std::move(form));
    c.series.push_back(run.sweep);
    if (run.main)
        c.series.push_back(
            Series{"this run", SeriesRole::Simulated, {run.main->share * 100}, {run.main->errorMs()}});
    return c;
}

std::string AveragingPercentilesLab::explanation() const {
    return R"(<p>Four hosts each report a p99, and a dashboard shows their average as "the p99".
It is not the p99 of anything: no request population has that value as its 99th percentile.
The p99 of the requests is a quantile of the pooled distribution, in which each host counts
by its traffic, and it can land far from the average on either side.</p>
<p><b>Overstating.</b> Put a quiet host with a bad tail beside busy healthy ones: 1% of the traffic,
ten times slower. Its p99 gets one vote in four and drags the average up to about twice the
pooled p99, yet its requests are only 1% of the pool: the pooled p99 rises by half over the
healthy hosts' own (32 to 49 ms) while the average triples it (104 ms). Alerts fire on a tail
far worse than the one users see.</p>
<p><b>Understating.</b> Now let the odd host be busy with a moderate tail, 90% of the traffic
at three times slower, beside idle fast hosts. The pooled p99 is essentially the busy host's own,
while the idle hosts pull the average down with equal votes. The dashboard looks fine while most
users wait.</p>
<p>The average of host percentiles does not depend on traffic at all; the pooled percentile
solves &Sigma; w<sub>j</sub> F<sub>j</sub>(Q) = p and slides from the healthy hosts' value to the
odd host's as its share grows. The chart shows the difference against the odd host's share: it
crosses zero once, at a share nothing on the dashboard tells you.</p>
<p>What adds correctly is a count. Requests over a threshold, summed over hosts, are exactly the
pooled requests over it; so are totals. Keep counts (or mergeable histograms) per host and compute
percentiles from the merged data.</p>)";
}

}  // namespace

std::unique_ptr<Lab> makeAveragingPercentilesLab() {
    return std::make_unique<AveragingPercentilesLab>();
}

}  // namespace taillab
