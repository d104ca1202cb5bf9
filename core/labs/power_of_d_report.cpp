#include "labs/power_of_d_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "labs/lab_common.h"
#include "labs/load_sweep.h"
#include "labs/queueing.h"

namespace taillab::power_of_d {
namespace {

constexpr double kHdrRelativeError = 1e-3;

// Sampling noise and finite-n bias for d >= 2, measured at n = 100 over 40 seeds x 200,000
// arrivals at λ = 0.1..0.95 (d = 2 and 3):
//  - the sample mean of N times in system has variance C/N with C <= T_d(λ)/(1-λ)² · 1.1, so we
//    use 1.5 · T_d(λ)/(1-λ)²;
//  - the simulated mean exceeds the fixed point by 0.1% (λ = 0.1) to 1.9% (d = 2) and 2.5% (d = 3)
//    at λ = 0.9, at most 0.31% / (1-λ); the allowance is 0.35% / (1-λ), scaled by 100/n.
constexpr double kJsqVarianceFactor = 1.5;
constexpr double kFiniteNBias = 0.0035;
// Below this many servers the fixed point (the n → ∞ limit) is no reference for d ≥ 2: the
// simulated mean sits above it by more than sampling can explain and the allowance above, measured
// at n = 100 only, is extrapolated far from where it was measured. Over 2,000,000 arrivals at
// λ = 0.9 (d = 2 / d = 3) the excess is +1.0% / +1.7% at n = 100, +3.0% / +4.4% at n = 50,
// +8.6% / +11.9% at n = 20, +18.5% / +25.9% at n = 10 and +122% / +174% at n = 2, growing
// faster than 1/n below 50.
constexpr int kMinServersForFixedPoint = 50;

bool fixedPointApplies(int servers) { return servers >= kMinServersForFixedPoint; }

// prefix followed by the number d (built by appending, which keeps GCC 12's -Wrestrict quiet).
std::string withNumber(const char* prefix, int d) {
    std::string s = prefix;
    s += std::to_string(d);
    return s;
}

std::string seriesName(int d) { return d == 1 ? "Random (d = 1)" : withNumber("Best of ", d); }

Series formulaCurve(int d, int servers) {
    std::string name = d == 1 ? "1/(1-λ) (d = 1)" : withNumber("Fixed point, d = ", d);
    if (d > 1 && !fixedPointApplies(servers))
        name += withNumber(" (n → ∞ limit, not applicable at n = ", servers) + ")";
    Series s{std::move(name), SeriesRole::ClosedForm, {}, {}};
    for (int i = 1; i <= 95; ++i) {
        const double lambda = i / 100.0;
        s.x.push_back(lambda);
        s.y.push_back(queueing::supermarketMeanTime(lambda, d));
    }
    return s;
}

Chart versusLoad(const std::vector<LoadPoint>& points, const ReportSetup& setup, std::string id,
                 std::string title, std::string yLabel, double DPoint::*field) {
    Chart c;
    c.id = std::move(id);
    c.title = std::move(title);
    c.kind = ChartKind::XY;
    c.x_label = "Load λ (arrivals per server per mean service time)";
    c.y_label = std::move(yLabel);
    c.log_y = true;
    for (int d = 1; d <= setup.maxD; ++d) {
        Series s{seriesName(d), SeriesRole::Simulated, {}, {}};
        for (const auto& p : points) {
            s.x.push_back(p.load);
            s.y.push_back(p.byD[d - 1].*field);
        }
        c.series.push_back(std::move(s));
    }
    return c;
}

// A best-of-d check decides only when its tolerance is within kMaxToleranceShare of the fixed
// point. Its queues settle faster than random routing's, so a run too short for those still
// measures half its arrivals: the advice is the shortest run that measures enough. When the
// finite-n allowance alone is that wide (λ near 1, few servers), no run length decides: the
// advice is the servers at which it is half the share, and the run that decides there.
void requireBestOfDResolution(Check& c, const LoadPoint& p, int servers, std::int64_t measured,
                              const MeanTolerance& tol) {
    if (const auto samples = samplesToDecide(c, measured, tol.sampling)) {
        requireResolution(c, runAtLeast(requestsToMeasure(p.warmup, *samples, false)));
        return;
    }
    const double allowance = tol.fixed / c.closed_form;
    const int enough = static_cast<int>(std::ceil(servers * allowance / (kMaxToleranceShare / 2)));
    const double ratio = tol.sampling / (kMaxToleranceShare / 2 * c.closed_form);
    const auto samples =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(measured) * ratio * ratio));
    const std::int64_t requests = requestsToMeasure(warmupFor(p.load, enough, 0), samples, false);
    char why[200];
    std::snprintf(why, sizeof why,
                  "the finite-n allowance alone is %.0f%% of the value at n = %d servers, so no "
                  "run length decides it: run with at least %d servers and %s requests",
                  100 * allowance, servers, enough, groupedCount(requests).c_str());
    requireResolution(
        c, why,
        {{"servers", static_cast<double>(enough)}, {"requests", static_cast<double>(requests)}});
}

}  // namespace

DPoint summarizeRun(const SupermarketStats& s, const HdrHistogram& response) {
    DPoint p;
    p.meanTime = s.meanResponse();
    p.medianTime = percentileMs(response, 50);
    p.p99Time = percentileMs(response, 99);
    p.measured = s.measured;
    p.conserved = s.departed == s.arrived && response.totalCount() == s.measured;
    return p;
}

std::string distributionName(int d) { return withNumber("d", d); }

MeanTolerance meanTolerance(double load, int d, int servers, std::int64_t measured) {
    if (d <= 1) {
        const double expected = queueing::mm1MeanResponse(load, 1.0);
        return {kSigmas * queueing::mm1MeanStandardError(load, 1.0, measured),
                kHdrRelativeError * expected};
    }
    const double fixedPoint = queueing::supermarketMeanTime(load, d);
    const double variance = kJsqVarianceFactor * fixedPoint / ((1 - load) * (1 - load));
    const double se =
        std::sqrt(variance / static_cast<double>(std::max<std::int64_t>(measured, 1)));
    const double bias = kFiniteNBias / (1 - load) * 100.0 / servers * fixedPoint;
    return {kSigmas * se, bias};
}

void addLoadFigures(LabResult& r, const LoadPoint& p) {
    const std::string at = "_at_" + loadKey(p.load);
    for (std::size_t i = 0; i < p.byD.size(); ++i) {
        const int d = static_cast<int>(i) + 1;
        const std::string key = withNumber("_d", d) + at;
        r.figures.emplace_back("mean_time" + key, p.byD[i].meanTime);
        r.figures.emplace_back("predicted_mean_time" + key,
                               queueing::supermarketMeanTime(p.load, d));
        r.figures.emplace_back("median_time" + key, p.byD[i].medianTime);
        r.figures.emplace_back("p99_time" + key, p.byD[i].p99Time);
    }
    r.figures.emplace_back("warmup_time" + at, p.warmup.time);
    r.figures.emplace_back("warmup_arrivals" + at, static_cast<double>(p.warmup.arrivals));
}

void addCharts(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup) {
    Chart mean = versusLoad(points, setup, "mean_time_vs_load", "Mean time in system vs load",
                            "Mean time in system (mean service times)", &DPoint::meanTime);
    for (int d = 1; d <= setup.maxD; ++d) mean.series.push_back(formulaCurve(d, setup.servers));
    r.charts.push_back(std::move(mean));
    Chart p99 = versusLoad(points, setup, "p99_vs_load", "p99 time in system vs load",
                           "p99 time in system (mean service times)", &DPoint::p99Time);
    Series mm1{"M/M/1: ln(100)/(1-λ) (d = 1)", SeriesRole::ClosedForm, {}, {}};
    for (int i = 1; i <= 95; ++i) {
        mm1.x.push_back(i / 100.0);
        mm1.y.push_back(queueing::mm1ResponseQuantile(0.99, i / 100.0, 1.0));
    }
    p99.series.push_back(std::move(mm1));
    r.charts.push_back(std::move(p99));
    if (r.distributions.empty()) return;
    Chart dist;
    dist.id = "distribution";
    char title[96];
    std::snprintf(title, sizeof title, "Time in system at load %s", loadLabel(setup.chosenLoad).c_str());
    dist.title = title;
    dist.kind = ChartKind::Percentile;
    dist.x_label = "Percentile";
    dist.y_label = "Time in system (mean service times)";
    dist.log_y = true;
    for (int d = 1; d <= setup.maxD; ++d)
        if (const HdrHistogram* h = r.distribution(distributionName(d)))
            dist.series.push_back(percentileSeries(seriesName(d), *h));
    const double lambda = setup.chosenLoad;
    dist.series.push_back(closedFormPercentileSeries("M/M/1: Exp(1-λ) (d = 1)", [&](double p) {
        return queueing::mm1ResponseQuantile(p, lambda, 1.0);
    }));
    r.charts.push_back(std::move(dist));
}

void addChecks(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup) {
    bool conserved = true;
    for (const auto& p : points)
        for (const auto& q : p.byD) conserved = conserved && q.conserved;
    r.checks.push_back(makeClaim("every arrival departs exactly once", conserved ? 1 : 0, Bound::Equal, 1,
                                 conserved, "conservation"));
    for (const auto& p : points) {
        // The d = 1 queues settle slowest: a run too short for them cannot decide their checks.
        for (int d = 1; d <= setup.maxD; ++d) {
            const DPoint& q = p.byD[d - 1];
            const double expected = queueing::supermarketMeanTime(p.load, d);
            const std::string name =
                withNumber("mean time in system, d = ", d) + ", load " + loadLabel(p.load);
            const char* source = d == 1 ? "closed form: M/M/1 1/(1-λ), ±4 SE"
                                        : "closed form: fixed point Σ λ^((d^i-d)/(d-1)), ±4 SE "
                                          "+ finite-n allowance";
            const MeanTolerance tol = meanTolerance(p.load, d, setup.servers, q.measured);
            r.checks.push_back(makeCheck(name, q.meanTime, expected, tol.total(), false, source));
            Check& c = r.checks.back();
            if (d == 1) {
                requireSettledResolution(c, p.warmup, p.load, q.measured, tol.sampling);
            } else if (!fixedPointApplies(setup.servers)) {
                c.inconclusive =
                    withNumber("the fixed point is the n → ∞ limit, not applicable at n = ",
                               setup.servers) +
                    withNumber(" servers (a finite system sits above it, by +9% to +26% at load "
                               "0.9 for n = 10 to 20): run with at least ",
                               kMinServersForFixedPoint) +
                    " servers to compare";
            } else {
                requireBestOfDResolution(c, p, setup.servers, q.measured, tol);
            }
        }
        const DPoint& random = p.byD[0];
        const double p99 = queueing::mm1ResponseQuantile(0.99, p.load, 1.0);
        const double p99Se =
            kSigmas * queueing::mm1QuantileStandardError(0.99, p.load, 1.0, random.measured);
        r.checks.push_back(makeCheck("p99 time in system, d = 1, load " + loadLabel(p.load),
                                     random.p99Time, p99, p99Se + kHdrRelativeError * p99, false,
                                     "closed form: M/M/1 p99 = ln(100)/(1-λ), ±4 SE"));
        requireSettledResolution(r.checks.back(), p.warmup, p.load, random.measured, p99Se);
    }
}

}  // namespace taillab::power_of_d
