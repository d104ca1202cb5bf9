#include "labs/hedge_loaded_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "labs/lab_common.h"
#include "labs/load_sweep.h"
#include "labs/queueing.h"

namespace taillab::hedge_loaded {
namespace {

constexpr double kHdrRelativeError = 1e-3;  // 3 significant digits

const LoadPoint* pointAt(const std::vector<LoadPoint>& points, double load) {
    for (const auto& p : points)
        if (std::abs(p.load - load) < 1e-9) return &p;
    return nullptr;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

Chart versusLoadChart(const std::vector<LoadPoint>& points, const ReportSetup& setup,
                      std::string id, std::string title, std::string yLabel,
                      double PolicyPoint::*field, int firstPolicy) {
    Chart c;
    c.id = std::move(id);
    c.title = std::move(title);
    c.kind = ChartKind::XY;
    c.x_label = "Load ρ (per-server utilisation without hedging)";
    c.y_label = std::move(yLabel);
    for (int k = firstPolicy; k < kPolicyCount; ++k) {
        Series s{policyLabel(k, setup), SeriesRole::Simulated, {}, {}};
        for (const auto& p : points) {
            s.x.push_back(p.load);
            s.y.push_back(p.policy[k].*field);
        }
        c.series.push_back(std::move(s));
    }
    return c;
}

Series mm1Curve(const ReportSetup& setup, double quantile) {
    const double meanMs = setup.service.mean();
    Series s{"M/M/1 closed form (no hedging)", SeriesRole::ClosedForm, {}, {}};
    for (int i = 5; i <= 95; ++i) {
        const double rho = i / 100.0;
        s.x.push_back(rho);
        s.y.push_back(queueing::mm1ResponseQuantile(quantile, rho / meanMs, 1.0 / meanMs));
    }
    return s;
}

Chart distributionChart(const LabResult& r, const ReportSetup& setup) {
    Chart c;
    c.id = "distribution";
    char title[96];
    std::snprintf(title, sizeof title, "Response time at load %s", loadLabel(setup.chosenLoad).c_str());
    c.title = title;
    c.kind = ChartKind::Percentile;
    c.x_label = "Percentile";
    c.y_label = "Response time (ms)";
    c.log_y = true;
    for (int k = 0; k < kPolicyCount; ++k) {
        if (const HdrHistogram* h = r.distribution(policyKey(k)))
            c.series.push_back(percentileSeries(policyLabel(k, setup), *h));
    }
    if (setup.exponential) {
        const double mu = 1.0 / setup.service.mean();
        const double lambda = setup.chosenLoad * mu;
        c.series.push_back(closedFormPercentileSeries(
            "M/M/1: Exp(μ(1-ρ)) (no hedging)",
            [&](double p) { return queueing::mm1ResponseQuantile(p, lambda, mu); }));
    }
    return c;
}

}  // namespace

std::string policyKey(int policy) {
    static const char* const kKeys[kPolicyCount] = {"none", "fixed", "pxx", "dup"};
    return kKeys[policy];
}

std::string policyLabel(int policy, const ReportSetup& setup) {
    char buf[64];
    switch (policy) {
        case kNone:
            return "No hedging";
        case kFixed:
            std::snprintf(buf, sizeof buf, "Hedge after %g ms", setup.fixedDelayMs);
            return buf;
        case kPercentile:
            std::snprintf(buf, sizeof buf, "Hedge at p%g", setup.percentile);
            return buf;
        default:
            return "Duplicate all";
    }
}

void addLoadFigures(LabResult& r, const LoadPoint& p) {
    const std::string at = "_at_" + loadKey(p.load);
    for (int k = 0; k < kPolicyCount; ++k) {
        const PolicyPoint& q = p.policy[k];
        const std::string key = policyKey(k);
        r.figures.emplace_back("mean_ms_" + key + at, q.meanMs);
        r.figures.emplace_back("median_ms_" + key + at, q.medianMs);
        r.figures.emplace_back("p99_ms_" + key + at, q.p99Ms);
        r.figures.emplace_back("p999_ms_" + key + at, q.p999Ms);
        if (k == kNone) continue;
        r.figures.emplace_back("extra_requests_" + key + at, q.extraRequests);
        r.figures.emplace_back("capacity_cost_" + key + at, q.capacityCost);
    }
    r.figures.emplace_back("pxx_delay_ms" + at, p.percentileDelayMs);
}

void addSummaryFigures(LabResult& r, const std::vector<LoadPoint>& points) {
    double costMin = 1e300, costMax = 0, winsUpTo = 0;
    bool winning = true;
    for (const auto& p : points) {
        if (!p.onGrid) continue;
        costMin = std::min(costMin, p.policy[kPercentile].capacityCost);
        costMax = std::max(costMax, p.policy[kPercentile].capacityCost);
        winning = winning && p.policy[kDuplicate].medianMs < p.policy[kNone].medianMs;
        if (winning) winsUpTo = p.load;
    }
    if (costMin > costMax) costMin = costMax;
    r.figures.emplace_back("pxx_capacity_cost_min", costMin);
    r.figures.emplace_back("pxx_capacity_cost_max", costMax);
    r.figures.emplace_back("dup_wins_median_up_to_load", winsUpTo);
    for (double load : {0.2, 0.7}) {
        if (const LoadPoint* p = pointAt(points, load)) {
            r.figures.emplace_back(
                "dup_median_ratio_at_" + loadKey(load),
                ratio(p->policy[kDuplicate].medianMs, p->policy[kNone].medianMs));
        }
    }
}

void addCharts(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup) {
    Chart p99 = versusLoadChart(points, setup, "p99_vs_load", "p99 response time vs load",
                                "p99 response time (ms)", &PolicyPoint::p99Ms, kNone);
    Chart median = versusLoadChart(points, setup, "median_vs_load", "Median response time vs load",
                                   "Median response time (ms)", &PolicyPoint::medianMs, kNone);
    Chart p999 = versusLoadChart(points, setup, "p999_vs_load", "p99.9 response time vs load",
                                 "p99.9 response time (ms)", &PolicyPoint::p999Ms, kNone);
    if (setup.exponential) {
        p99.series.push_back(mm1Curve(setup, 0.99));
        median.series.push_back(mm1Curve(setup, 0.5));
        p999.series.push_back(mm1Curve(setup, 0.999));
    }
    for (Chart* c : {&p99, &median, &p999}) c->log_y = true;
    r.charts.push_back(std::move(p99));
    r.charts.push_back(std::move(median));
    r.charts.push_back(std::move(p999));

    std::vector<LoadPoint> percent = points;
    for (auto& p : percent)
        for (auto& q : p.policy) {
            q.capacityCost *= 100;
            q.extraRequests *= 100;
        }
    r.charts.push_back(versusLoadChart(
        percent, setup, "capacity_cost_vs_load", "Capacity cost of hedging vs load",
        "Extra server busy time / useful busy time (%)", &PolicyPoint::capacityCost, kFixed));
    r.charts.push_back(versusLoadChart(percent, setup, "extra_requests_vs_load",
                                       "Backup requests vs load", "Backups sent per request (%)",
                                       &PolicyPoint::extraRequests, kFixed));
    if (!r.distributions.empty()) r.charts.push_back(distributionChart(r, setup));
}

void addChecks(LabResult& r, const std::vector<LoadPoint>& points, const ReportSetup& setup) {
    bool conserved = true;
    for (const auto& p : points) conserved = conserved && p.conserved;
    r.checks.push_back(
        makeClaim("every request answered exactly once; every copy finished, "
                  "dropped or stopped",
                  conserved ? 1 : 0, Bound::Equal, 1, conserved, "conservation"));
    if (!setup.exponential) return;
    const double meanMs = setup.service.mean();
    const double mu = 1.0 / meanMs;
    for (const auto& p : points) {
        const std::string at = " at load " + loadLabel(p.load);
        const PolicyPoint& none = p.policy[kNone];
        const double mean = queueing::mm1MeanResponse(p.load * mu, mu);
        const double meanSe = kSigmas * queueing::mm1MeanStandardError(p.load, mu, p.measured);
        r.checks.push_back(makeCheck("no hedging: mean response (ms)" + at, none.meanMs, mean,
                                     meanSe + kHdrRelativeError * mean, false,
                                     "closed form: M/M/1 mean 1/(μ-λ), ±4 SE"));
        requireSettledResolution(r.checks.back(), p.warmup, p.load, p.measured, meanSe);
        const double p99 = queueing::mm1ResponseQuantile(0.99, p.load * mu, mu);
        const double p99Se =
            kSigmas * queueing::mm1QuantileStandardError(0.99, p.load, mu, p.measured);
        r.checks.push_back(makeCheck("no hedging: p99 response (ms)" + at, none.p99Ms, p99,
                                     p99Se + kHdrRelativeError * p99, false,
                                     "closed form: M/M/1 p99 = ln(100)/(μ-λ), ±4 SE"));
        requireSettledResolution(r.checks.back(), p.warmup, p.load, p.measured, p99Se);
    }
    if (const LoadPoint* p = pointAt(points, setup.chosenLoad)) {
        const double q = setup.percentile / 100.0;
        const double delay = queueing::mm1ResponseQuantile(q, p->load * mu, mu);
        const double se =
            kSigmas * queueing::mm1QuantileStandardError(q, p->load, mu, p->calibrationCount);
        r.checks.push_back(makeCheck("calibrated hedge delay (ms) at load " + loadLabel(p->load),
                                     p->percentileDelayMs, delay, se + kHdrRelativeError * delay,
                                     false, "closed form: M/M/1 quantile -ln(1-q)/(μ-λ), ±4 SE"));
        requireSettledResolution(r.checks.back(), p->warmup, p->load, p->calibrationCount, se);
    }
}

}  // namespace taillab::hedge_loaded
