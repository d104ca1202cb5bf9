#include "labs/region_router_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "labs/lab_common.h"
#include "labs/queueing.h"

namespace taillab::region_router {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSettleAfterLastLossS = 30;  // the fra share is read this long after the last loss
constexpr double kFallMarginShare = 0.07;     // "fallen" once within 7 points of the settled share
constexpr double kIncidentS = 120;  // the incident's retries are counted this long
constexpr const char* kTrackedNames[kTracked] = {"fra", "ams", "lhr"};

double p99Of(const HdrHistogram& h) { return h.empty() ? kNaN : usToMs(h.valueAtPercentile(99)); }

double lastLossS(const FleetConfig& c) { return faultTimeS(c, std::max(0, c.faultNodes - 1)); }

bool closedFormApplies(const FleetConfig& c) {
    return c.regions == 1 && c.faultNodes == 0 && c.serviceShape == 1;
}

std::string routerLabel(Router r) {
    return r == Router::Score ? "Score router (ramp)" : "Nearest + switch";
}

// Mean of v[from, to), NaN when empty.
double meanOf(const std::vector<std::int64_t>& v, std::size_t from, std::size_t to) {
    to = std::min(to, v.size());
    if (from >= to) return kNaN;
    double s = 0;
    for (std::size_t i = from; i < to; ++i) s += static_cast<double>(v[i]);
    return s / static_cast<double>(to - from);
}

std::size_t secondIndex(double s) {
    return static_cast<std::size_t>(std::max(0.0, std::ceil(s - 1e-9)));
}

void incidentFigures(const ReportSetup& setup, const FleetRun& run, RouterSummary& out) {
    const FleetConfig& c = setup.fleet;
    const double w = c.windowS;
    HdrHistogram before(latencyHdrConfig());
    double peak = kNaN, neighbourShare = kNaN;
    for (std::size_t i = 0; i < run.windows.size(); ++i) {
        const double start = static_cast<double>(i) * w, end = start + w;
        if (start + 1e-9 < c.warmupS) continue;
        if (end <= c.faultAtS + 1e-9) before.merge(run.windows[i].latency);
    }
    out.p99BeforeFaultMs = p99Of(before);
    const double threshold = out.p99BeforeFaultMs * (1 + setup.recoveryMargin);
    double lastHigh = kNaN;
    for (std::size_t i = 0; i < out.windowStartS.size(); ++i) {
        const double start = out.windowStartS[i], end = start + w;
        const double p99 = out.windowP99Ms[i];
        if (end <= c.faultAtS + 1e-9) continue;
        if (std::isfinite(p99) && !(p99 <= peak)) peak = p99;
        for (int t = kAms; t <= kLhr; ++t) {
            const double s = out.share[static_cast<std::size_t>(t)][i];
            if (std::isfinite(s) && !(s <= neighbourShare)) neighbourShare = s;
        }
        if (std::isfinite(p99) && p99 > threshold) lastHigh = end;
    }
    out.peakWindowP99Ms = peak;
    out.neighbourPeakShare = neighbourShare;
    std::int64_t retries = 0;
    double spanS = 0;
    for (std::size_t i = 0; i < run.windows.size(); ++i) {
        const double start = static_cast<double>(i) * w;
        if (start + 1e-9 < c.faultAtS || start >= c.faultAtS + kIncidentS - 1e-9) continue;
        retries += run.windows[i].retries;
        spanS += std::min(w, c.durationS - start);
    }
    out.incidentRetriesPerMin = spanS > 0 ? static_cast<double>(retries) * 60 / spanS : kNaN;
    out.recoveryS = !std::isfinite(threshold) ? kNaN
                    : std::isfinite(lastHigh) ? lastHigh - c.faultAtS
                                              : 0.0;

    // fra's traffic per second over its pre-fault mean; the fall is read on a 5 s average.
    const auto& perS = run.fraSentPerSecond;
    const std::size_t end = secondIndex(c.durationS);
    const double baseline = meanOf(perS, secondIndex(c.warmupS), secondIndex(c.faultAtS));
    const double settled =
        meanOf(perS, secondIndex(lastLossS(c) + kSettleAfterLastLossS), end) / baseline;
    out.fraShareSettled = settled;
    // The fall ends when the share is down for good: the last second, before the settled span,
    // at which it still stood above the settled share plus the margin (a dip after the first loss
    // that comes back up does not count as the end).
    out.fraFallS = kNaN;
    if (std::isfinite(settled) && baseline > 0) {
        const std::size_t from = secondIndex(c.faultAtS);
        const std::size_t to = std::min(end, secondIndex(lastLossS(c) + kSettleAfterLastLossS));
        double fallen = c.faultAtS;
        for (std::size_t s = from; s + 3 <= to; ++s) {
            const double avg = meanOf(perS, s >= 2 ? s - 2 : 0, s + 3) / baseline;
            if (avg > settled + kFallMarginShare) fallen = static_cast<double>(s) + 1;
        }
        out.fraFallS = fallen - c.faultAtS;
    }
    out.neighbourPeakQueue = std::max(run.peakDepthAfter[kAms], run.peakDepthAfter[kLhr]);
    out.neighbourIncidentP99Ms = p99Of(run.neighbourLatency);
}

double ratio(double a, double b) { return b > 0 ? a / b : kNaN; }

const RouterSummary* find(const std::vector<RouterSummary>& runs, Router r) {
    for (const auto& s : runs)
        if (s.router == r) return &s;
    return nullptr;
}

Series timeSeries(std::string name, const std::vector<double>& x, const std::vector<double>& y,
                  double scale = 1) {
    Series s{std::move(name), SeriesRole::Simulated, {}, {}};
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (!std::isfinite(y[i])) continue;
        s.x.push_back(x[i]);
        s.y.push_back(y[i] * scale);
    }
    return s;
}

Chart chartOf(std::string id, std::string title, ChartKind kind, std::string x, std::string y) {
    Chart c;
    c.id = std::move(id);
    c.title = std::move(title);
    c.kind = kind;
    c.x_label = std::move(x);
    c.y_label = std::move(y);
    return c;
}

}  // namespace

const char* routerKey(Router r) { return r == Router::Score ? "score" : "switch"; }

double mmcMeanWaitMs(int nodes, double load, double serviceMs) {
    const double mu = 1.0 / serviceMs;
    const double lambda = load * nodes * mu;
    return queueing::erlangC(nodes, lambda / mu) / (nodes * mu - lambda);
}

MmcSettling mmcSettling(const FleetConfig& c) {
    MmcSettling m;
    const double a = c.load * c.nodes;  // offered load λ/μ
    const double gap = std::sqrt(static_cast<double>(c.nodes)) - std::sqrt(a);
    m.relaxationS = std::max(1.0, 1.0 / (gap * gap)) * c.serviceMs / 1000.0;
    const double w = c.windowS;
    const double warmup = std::max(c.warmupS, MmcSettling::kWarmupRelaxations * m.relaxationS);
    m.fromS = std::ceil(warmup / w - 1e-9) * w;
    m.windowsPerBatch = std::max(
        1, static_cast<int>(std::ceil(MmcSettling::kBatchRelaxations * m.relaxationS / w - 1e-9)));
    m.batchS = m.windowsPerBatch * w;
    m.neededDurationS = m.fromS + MmcSettling::kMinBatches * m.batchS;
    return m;
}

namespace {

// The single-region queue wait and its standard error, from whole batches of windows after the
// queue has settled (mmcSettling), each batch's mean wait one sample.
void queueWaitOf(const FleetConfig& c, const FleetRun& run, RouterSummary& out) {
    const double w = c.windowS;
    const MmcSettling settle = mmcSettling(c);
    const auto first = static_cast<std::size_t>(std::llround(settle.fromS / w));
    const auto per = static_cast<std::size_t>(settle.windowsPerBatch);
    // Windows that end by the end of the run.
    const auto whole = std::min(static_cast<std::size_t>(std::floor(c.durationS / w + 1e-9)),
                                run.windows.size());
    std::vector<double> batch;
    double waitSum = 0;
    std::int64_t waitCount = 0;
    for (std::size_t b = first; b + per <= whole; b += per) {
        double sum = 0;
        std::int64_t count = 0;
        for (std::size_t i = b; i < b + per; ++i) {
            sum += run.waitSumPerWindow[i];
            count += run.waitCountPerWindow[i];
        }
        if (count == 0) continue;
        batch.push_back(sum / static_cast<double>(count));
        waitSum += sum;
        waitCount += count;
    }
    out.waitSamples = waitCount;
    out.meanWaitMs = waitCount > 0 ? waitSum / static_cast<double>(waitCount) : kNaN;
    out.meanWaitSeMs = kNaN;
    out.batches = static_cast<int>(batch.size());
    if (batch.size() < 2) return;
    double m = 0, v = 0;
    for (double b : batch) m += b;
    m /= static_cast<double>(batch.size());
    for (double b : batch) v += (b - m) * (b - m);
    v /= static_cast<double>(batch.size() - 1);
    out.meanWaitSeMs = std::sqrt(v / static_cast<double>(batch.size()));
}

}  // namespace

RouterSummary summarize(const ReportSetup& setup, Router router, const FleetRun& run) {
    const FleetConfig& c = setup.fleet;
    RouterSummary out;
    out.router = router;
    out.share.assign(kTracked, {});
    const double w = c.windowS;
    std::int64_t retries = 0, failed = 0;
    double measuredS = 0;
    std::array<double, kTracked> base{};
    int baseWindows = 0;
    const double baseEnd = c.faultNodes > 0 ? c.faultAtS : c.durationS;
    for (std::size_t i = 0; i < run.windows.size(); ++i) {
        const Window& win = run.windows[i];
        const double start = static_cast<double>(i) * w;
        if (start + 1e-9 < c.warmupS) continue;
        const double span = std::min(w, c.durationS - start);
        out.global.merge(win.latency);
        retries += win.retries;
        failed += win.failed;
        measuredS += span;
        out.windowStartS.push_back(start);
        out.windowP99Ms.push_back(p99Of(win.latency));
        out.retriesPerMinSeries.push_back(span > 0 ? static_cast<double>(win.retries) * 60 / span
                                                   : kNaN);
        if (start + w <= baseEnd + 1e-9) {
            for (int t = 0; t < kTracked; ++t)
                base[static_cast<std::size_t>(t)] +=
                    static_cast<double>(win.sent[static_cast<std::size_t>(t)]);
            ++baseWindows;
        }
    }
    for (std::size_t i = 0; i < out.windowStartS.size(); ++i) {
        const std::size_t k = static_cast<std::size_t>(std::llround(out.windowStartS[i] / w));
        for (int t = 0; t < kTracked; ++t) {
            const double mean =
                baseWindows > 0 ? base[static_cast<std::size_t>(t)] / baseWindows : 0;
            out.share[static_cast<std::size_t>(t)].push_back(
                mean > 0
                    ? static_cast<double>(run.windows[k].sent[static_cast<std::size_t>(t)]) / mean
                    : kNaN);
        }
    }
    out.p50Ms = out.global.empty() ? kNaN : usToMs(out.global.valueAtPercentile(50));
    out.p99Ms = p99Of(out.global);
    out.retriesPerMin = measuredS > 0 ? static_cast<double>(retries) * 60 / measuredS : kNaN;
    out.failedShare = out.global.empty() ? kNaN
                                         : static_cast<double>(failed) /
                                               static_cast<double>(out.global.totalCount());
    out.conserved = run.arrived == run.completed + run.failed && run.inFlightAtEnd == 0;
    out.retries = retries;
    queueWaitOf(c, run, out);
    if (c.faultNodes > 0) incidentFigures(setup, run, out);
    return out;
}

void addFigures(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs) {
    const bool fault = setup.fleet.faultNodes > 0;
    for (const RouterSummary& s : runs) {
        const std::string p = std::string(routerKey(s.router)) + "_";
        r.figures.emplace_back(p + "global_p50_ms", s.p50Ms);
        r.figures.emplace_back(p + "global_p99_ms", s.p99Ms);
        r.figures.emplace_back(p + "retries_per_min", s.retriesPerMin);
        r.figures.emplace_back(p + "failed_share", s.failedShare);
        if (!fault) continue;
        r.figures.emplace_back(p + "p99_before_fault_ms", s.p99BeforeFaultMs);
        r.figures.emplace_back(p + "peak_window_p99_ms", s.peakWindowP99Ms);
        r.figures.emplace_back(p + "fra_share_settled", s.fraShareSettled);
        r.figures.emplace_back(p + "fra_fall_s", s.fraFallS);
        r.figures.emplace_back(p + "recovery_s", s.recoveryS);
        r.figures.emplace_back(p + "neighbour_peak_queue", s.neighbourPeakQueue);
        r.figures.emplace_back(p + "neighbour_incident_p99_ms", s.neighbourIncidentP99Ms);
        r.figures.emplace_back(p + "neighbour_peak_share", s.neighbourPeakShare);
        r.figures.emplace_back(p + "incident_retries_per_min", s.incidentRetriesPerMin);
    }
    const RouterSummary* score = find(runs, Router::Score);
    const RouterSummary* sw = find(runs, Router::Switch);
    if (score && sw) {
        if (fault) {
            r.figures.emplace_back("switch_over_score_peak_window_p99",
                                   ratio(sw->peakWindowP99Ms, score->peakWindowP99Ms));
            r.figures.emplace_back("switch_over_score_neighbour_peak_queue",
                                   ratio(sw->neighbourPeakQueue, score->neighbourPeakQueue));
            r.figures.emplace_back(
                "switch_over_score_neighbour_incident_p99",
                ratio(sw->neighbourIncidentP99Ms, score->neighbourIncidentP99Ms));
        } else {
            r.figures.emplace_back("switch_over_score_global_p99", ratio(sw->p99Ms, score->p99Ms));
            r.figures.emplace_back("switch_over_score_retries",
                                   ratio(sw->retriesPerMin, score->retriesPerMin));
        }
    }
    if (!runs.empty()) r.figures.emplace_back("mean_queue_wait_ms", runs.front().meanWaitMs);
    if (closedFormApplies(setup.fleet))
        r.figures.emplace_back(
            "mmc_mean_queue_wait_ms",
            mmcMeanWaitMs(setup.fleet.nodes, setup.fleet.load, setup.fleet.serviceMs));
}

void addCharts(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs) {
    Chart share = chartOf("share_over_time", "Traffic to fra, ams and lhr over their normal",
                          ChartKind::Time, "Time (s)", "Traffic over its pre-fault mean (%)");
    Chart p99 = chartOf("p99_over_time", "Global p99 per window", ChartKind::Time, "Time (s)",
                        "Global p99 (ms)");
    Chart retries = chartOf("retries_over_time", "Cross-region retries", ChartKind::Time,
                            "Time (s)", "Retries per minute");
    Chart dist = chartOf("distribution", "Global latency, every region merged",
                         ChartKind::Percentile, "Percentile", "Latency from arrival (ms)");
    dist.log_y = true;
    for (const RouterSummary& s : runs) {
        const std::string who = runs.size() > 1 ? std::string(routerKey(s.router)) + ": " : "";
        for (int t = 0; t < kTracked; ++t)
            share.series.push_back(timeSeries(who + kTrackedNames[t], s.windowStartS,
                                              s.share[static_cast<std::size_t>(t)], 100));
        p99.series.push_back(timeSeries(routerLabel(s.router), s.windowStartS, s.windowP99Ms));
        retries.series.push_back(
            timeSeries(routerLabel(s.router), s.windowStartS, s.retriesPerMinSeries));
        dist.series.push_back(percentileSeries(routerLabel(s.router), s.global));
    }
    if (setup.fleet.faultNodes > 0) r.charts.push_back(std::move(share));
    r.charts.push_back(std::move(p99));
    r.charts.push_back(std::move(retries));
    r.charts.push_back(std::move(dist));
    if (setup.fleet.faultNodes > 0) {
        const double first = setup.fleet.faultAtS, last = lastLossS(setup.fleet);
        Annotation a;
        a.x0 = first;
        if (last > first) a.x1 = last;
        a.kind = "fault";
        a.label = "fra loses " + std::to_string(setup.fleet.faultNodes) +
                  (setup.fleet.faultNodes == 1 ? " node" : " nodes");
        r.annotations.push_back(std::move(a));
    }
}

void addChecks(LabResult& r, const ReportSetup& setup, const std::vector<RouterSummary>& runs) {
    bool conserved = true;
    for (const auto& s : runs) conserved = conserved && s.conserved;
    r.checks.push_back(makeClaim("every request answered or failed exactly once", conserved ? 1 : 0,
                                 Bound::Equal, 1, conserved, "conservation"));
    if (runs.empty() || !closedFormApplies(setup.fleet)) return;
    const RouterSummary& s = runs.front();
    const double expected =
        mmcMeanWaitMs(setup.fleet.nodes, setup.fleet.load, setup.fleet.serviceMs);
    const double tol =
        std::isfinite(s.meanWaitSeMs) ? kSigmas * s.meanWaitSeMs + 0.01 * expected : expected;
    r.checks.push_back(makeCheck("mean wait in queue, one region (ms)", s.meanWaitMs, expected, tol,
                                 false,
                                 "closed form: M/M/c, C(c, a)/(cμ - λ), ±4 SE (batch means of 2τ or more)"));
    const MmcSettling settle = mmcSettling(setup.fleet);
    Check& c = r.checks.back();
    if (s.retries > 0) {
        c.inconclusive = "timeouts or overflows cut some waits short (" +
                         std::to_string(s.retries) +
                         " retries): raise queue_timeout_ms and queue_limit to compare with M/M/c";
        return;
    }
    // The standard error shrinks like 1/√(measured time): the run that decides settles, has
    // kMinBatches batches, and measures long enough for the tolerance to be within the share.
    std::optional<double> decidingS;
    if (std::isfinite(s.meanWaitSeMs)) {
        const double measuredS = s.batches * settle.batchS;
        if (const auto n = samplesToDecide(c, std::llround(measuredS), kSigmas * s.meanWaitSeMs)) {
            const double batches = std::ceil(static_cast<double>(*n) / settle.batchS);
            decidingS = std::max(settle.neededDurationS, settle.fromS + batches * settle.batchS);
        }
    }
    char what[200];
    if (decidingS) {
        std::snprintf(what, sizeof what, "run at least %.0f s (duration_s)", *decidingS);
    } else {
        std::snprintf(what, sizeof what, "%s", kNoSampleSizeDecides);
    }
    // The duration the reason names (as it rounds it): the deciding one, or, unsettled, the one
    // that settles.
    const KnobAdvice duration{"duration_s", std::round(decidingS.value_or(settle.neededDurationS))};
    if (s.batches >= MmcSettling::kMinBatches && s.waitSamples >= 1000 &&
        std::isfinite(s.meanWaitSeMs)) {
        requireResolution(c, what, decidingS ? std::vector{duration} : std::vector<KnobAdvice>{});
        return;
    }
    char why[200];
    std::snprintf(why, sizeof why,
                  "too short to decide: the queue settles in about %.3g s (relaxation time %.3g "
                  "s); measured from %.0f s in batches of %.0f s, it needs %d batches: ",
                  settle.fromS, settle.relaxationS, settle.fromS, settle.batchS,
                  MmcSettling::kMinBatches);
    c.inconclusive = why;
    if (decidingS) {
        std::snprintf(what, sizeof what,
                      "run at least %.0f s (duration_s), as far as the spread of its %d batches "
                      "tells, to bring the tolerance within %.0f%%",
                      *decidingS, s.batches, 100 * kMaxToleranceShare);
    } else {
        std::snprintf(what, sizeof what,
                      "run at least %.0f s (duration_s); their spread then says whether that "
                      "is long enough",
                      settle.neededDurationS);
    }
    c.inconclusive += what;
    c.advice = {duration};
}

}  // namespace taillab::region_router
