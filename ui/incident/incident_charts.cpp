#include "incident/incident_charts.h"

#include <algorithm>
#include <cmath>

#include "gateway/gateway_charts.h"

namespace taillab::ui::incident_charts {
namespace {

using gateway::GatewaySnapshot;
using gateway::kRegionNames;
using gateway::kRegions;
using gateway::WindowPoint;
using gateway_charts::timeChart;
using gateway_charts::windowSeries;

std::string region(int r) { return std::string(kRegionNames[static_cast<std::size_t>(r)]); }

double percent(double part, double whole) { return whole > 0 ? 100 * part / whole : NAN; }

// A window's failures and requests, overall or a region's, as the truth or as clients saw them.
struct Tally {
    double failed = 0;
    std::uint32_t requests = 0;
};
Tally truth(const WindowPoint& w) { return {double(w.failed), w.requests}; }
Tally seen(const WindowPoint& w) { return {double(w.failed) - w.invisible, w.requests}; }
Tally regionTruth(const WindowPoint& w, int r) {
    const auto& g = w.regions[static_cast<std::size_t>(r)];
    return {double(g.failed), g.requests};
}
Tally regionSeen(const WindowPoint& w, int r) {
    const auto& g = w.regions[static_cast<std::size_t>(r)];
    return {double(g.failed) - g.invisible, g.requests};
}

// The error rate in % of each window, pooled as the header says (kMinRateRequests): NaN where
// the window is not rated. `stats` counts the windows that had requests by how they were rated.
template <typename F>
std::vector<double> pooledRates(const GatewaySnapshot& s, F tally, RateGaps* stats = nullptr) {
    const std::size_t n = s.windows.size();
    std::vector<double> rates(n, NAN);
    std::vector<Tally> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = tally(s.windows[i]);
    const auto thin = [&](std::size_t i) { return t[i].requests > 0 && t[i].requests < kMinRateRequests; };
    const auto rateOf = [](double failed, double requests) { return 100 * failed / requests; };
    // Rates windows [begin, end) as one: NaN when they hold too few requests together.
    const auto rateGroup = [&](std::size_t begin, std::size_t end) {
        double failed = 0, requests = 0;
        for (std::size_t i = begin; i < end; ++i) failed += t[i].failed, requests += t[i].requests;
        const bool rated = requests >= kMinRateRequests;
        for (std::size_t i = begin; i < end; ++i) rates[i] = rated ? rateOf(failed, requests) : NAN;
        if (stats) (rated ? stats->pooled : stats->sparse) += end - begin;
    };
    for (std::size_t i = 0; i < n;) {
        if (t[i].requests == 0) {
            ++i;
            continue;
        }
        if (!thin(i)) {
            rates[i] = rateOf(t[i].failed, t[i].requests);
            if (stats) ++stats->rated;
            ++i;
            continue;
        }
        // A run of quiet windows, cut into groups of at least kMinRateRequests requests, each
        // at most kMaxPooledWindows long; a remainder too small joins the group before it when
        // that stays within the limit.
        std::size_t end = i;
        while (end < n && thin(end)) ++end;
        std::size_t begin = i, lastBegin = n;
        while (begin < end) {
            std::size_t j = begin;
            std::uint32_t requests = 0;
            while (j < end && j - begin < kMaxPooledWindows && requests < kMinRateRequests)
                requests += t[j++].requests;
            if (requests < kMinRateRequests && j == end && lastBegin != n && end - lastBegin <= kMaxPooledWindows) {
                if (stats) stats->pooled -= begin - lastBegin;  // counted again with the remainder
                rateGroup(lastBegin, end);
            } else {
                rateGroup(begin, j);
            }
            lastBegin = begin;
            begin = j;
        }
        i = end;
    }
    return rates;
}

// A per-window rate with its gaps kept: every window is a point, NaN where it is not rated, so
// the line breaks there instead of joining its neighbours across it.
template <typename F>
Series rateSeries(std::string name, const GatewaySnapshot& s, double offset_s, F tally) {
    Series out;
    out.name = std::move(name);
    out.y = pooledRates(s, tally);
    out.x.reserve(s.windows.size());
    for (const WindowPoint& w : s.windows) out.x.push_back(offset_s + w.t_s);
    return out;
}

// 9651 -> "9,651", as the rest of the app writes counts.
std::string groupedCount(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string gapNote(const RateGaps& g) {
    std::string note;
    if (g.pooled > 0) note += " · quiet windows pooled";
    if (g.sparse > 0) note += " · " + groupedCount(g.sparse) + " unrated";
    return note;
}
double positive(double v) { return v > 0 ? v : NAN; }

bool anyInvisible(const GatewaySnapshot* s) { return s && s->invisible_failures > 0; }

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2) return *mid;
    return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

// B - A of a per-window value (of a window, its index and whether it is B's), windows matched by their end. `gaps`: a difference that is not a
// number (a window not rated) is kept as a gap, not left out.
template <typename F>
Series difference(std::string name, const GatewaySnapshot& a, const GatewaySnapshot* b,
                  double offset_s, F value, bool gaps = false) {
    Series out;
    out.name = std::move(name);
    if (!b) return out;
    std::size_t j = 0;
    for (std::size_t i = 0; i < a.windows.size(); ++i) {
        const WindowPoint& wa = a.windows[i];
        while (j < b->windows.size() && b->windows[j].t_s < wa.t_s - 1e-6) ++j;
        if (j >= b->windows.size()) break;
        if (std::abs(b->windows[j].t_s - wa.t_s) > 1e-6) continue;
        const double d = value(b->windows[j], j, true) - value(wa, i, false);
        if (!std::isfinite(d) && !gaps) continue;
        out.x.push_back(offset_s + wa.t_s);
        out.y.push_back(d);
    }
    return out;
}

}  // namespace

std::vector<std::string> chartIds() {
    return {kLane,        kErrors,      kTails,   kQueue,  kProviderShare,
            kRegionShare, kBreakers,    kHealth,  kDiffErrors, kDiffTails};
}

Chart lane() {
    return timeChart(kLane, "Timeline: faults, knob changes and phases", "");
}

std::vector<LaneMark> laneMarks(const GatewaySnapshot& s, double offset_s) {
    std::vector<LaneMark> out;
    for (const gateway::TimelineMark& m : s.timeline) {
        int row = kKnobRow;
        switch (m.kind) {
            case gateway::MarkKind::Breaker: continue;
            case gateway::MarkKind::Fault: row = kFaultRow; break;
            case gateway::MarkKind::Phase: row = kPhaseRow; break;
            case gateway::MarkKind::Knob: row = kKnobRow; break;
        }
        LaneMark l;
        l.x0 = offset_s + m.t_s;
        if (m.end_s) l.x1 = offset_s + *m.end_s;
        l.row = row;
        l.label = gateway_charts::markLabel(m);
        out.push_back(std::move(l));
    }
    return out;
}

std::vector<Annotation> annotations(const GatewaySnapshot& s, double offset_s) {
    return gateway_charts::annotations(s, offset_s);
}

RateGaps rateGaps(const GatewaySnapshot& s) {
    RateGaps g;
    pooledRates(s, truth, &g);
    for (int r = 0; r < kRegions; ++r)
        pooledRates(s, [r](const WindowPoint& w) { return regionTruth(w, r); }, &g);
    return g;
}

Chart errorRate(const GatewaySnapshot& s, double offset_s, const GatewaySnapshot* other) {
    RateGaps gaps = rateGaps(s);
    if (other) gaps += rateGaps(*other);
    Chart c = timeChart(kErrors, "Error rate: truth and what clients saw" + gapNote(gaps), "Failed (%)");
    c.series.push_back(rateSeries("all, truth", s, offset_s, truth));
    c.series.push_back(rateSeries("all, clients saw", s, offset_s, seen));
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(rateSeries(region(r) + " truth", s, offset_s,
                                      [r](const WindowPoint& w) { return regionTruth(w, r); }));
    if (anyInvisible(&s) || anyInvisible(other))
        for (int r = 0; r < kRegions; ++r)
            c.series.push_back(rateSeries(region(r) + " clients saw", s, offset_s,
                                          [r](const WindowPoint& w) { return regionSeen(w, r); }));
    return c;
}

Chart tails(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kTails, "Tail latency per region", "ms (log)", true);
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(windowSeries(region(r) + " p99", s, offset_s, [r](const WindowPoint& w) {
            return positive(w.regions[static_cast<std::size_t>(r)].p99_ms);
        }));
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(windowSeries(region(r) + " p99.9", s, offset_s, [r](const WindowPoint& w) {
            return positive(w.regions[static_cast<std::size_t>(r)].p999_ms);
        }));
    return c;
}

NormalDepth normalDepth(const GatewaySnapshot& s) {
    std::optional<double> firstFault;
    for (const gateway::TimelineMark& m : s.timeline)
        if (m.kind == gateway::MarkKind::Fault) {
            firstFault = m.t_s;
            break;
        }
    std::size_t before = 0;
    if (firstFault)
        while (before < s.windows.size() && s.windows[before].t_s <= *firstFault) ++before;
    NormalDepth n;
    n.beforeFirstFault = firstFault && before >= static_cast<std::size_t>(kMinNormalWindows);
    const std::size_t count = n.beforeFirstFault ? before : s.windows.size();
    n.windows = static_cast<int>(count);
    for (int r = 0; r < kRegions; ++r) {
        std::vector<double> v;
        v.reserve(count);
        for (std::size_t i = 0; i < count; ++i) {
            const double d = s.windows[i].regions[static_cast<std::size_t>(r)].queue_mean;
            if (std::isfinite(d)) v.push_back(d);
        }
        n.depth[static_cast<std::size_t>(r)] = median(std::move(v));
    }
    return n;
}

Chart queueDepth(const GatewaySnapshot& s, double offset_s) {
    const NormalDepth normal = normalDepth(s);
    Chart c = timeChart(kQueue,
                        normal.beforeFirstFault
                            ? "Queue depth vs normal (median before the first fault)"
                            : "Queue depth vs normal (median of the run so far)",
                        "Mean requests in flight (log)", true);
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(windowSeries(region(r), s, offset_s, [r](const WindowPoint& w) {
            return positive(w.regions[static_cast<std::size_t>(r)].queue_mean);
        }));
    for (int r = 0; r < kRegions; ++r) {
        Series line{region(r) + " normal", SeriesRole::Reference, {}, {}};
        const double d = normal.depth[static_cast<std::size_t>(r)];
        if (!s.windows.empty() && d > 0) {
            line.x = {offset_s + s.windows.front().t_s, offset_s + s.windows.back().t_s};
            line.y = {d, d};
        }
        c.series.push_back(std::move(line));
    }
    return c;
}

Chart providerShare(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kProviderShare, "Traffic share by provider", "Share (%)");
    for (int p = 0; p < gateway::kProviders; ++p)
        c.series.push_back(windowSeries(
            "provider " + std::string(gateway::kProviderNames[static_cast<std::size_t>(p)]), s,
            offset_s, [p](const WindowPoint& w) {
                double sum = 0;
                for (auto n : w.provider_requests) sum += n;
                return percent(w.provider_requests[static_cast<std::size_t>(p)], sum);
            }));
    return c;
}

Chart regionShare(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kRegionShare, "Traffic share by region served", "Share (%)");
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(windowSeries(region(r), s, offset_s, [r](const WindowPoint& w) {
            return percent(w.regions[static_cast<std::size_t>(r)].requests, w.requests);
        }));
    return c;
}

std::vector<std::string> breakerLanes(const GatewaySnapshot& s) {
    std::vector<std::string> out;
    for (int r = 0; r < kRegions; ++r) {
        out.push_back(region(r) + " / region breaker");
        for (const std::string& e : s.engines) out.push_back(region(r) + " / " + e);
    }
    return out;
}

Chart breakers(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kBreakers, "Breakers: region (spill stopped) and engine",
                        "Region / breaker");
    const int engines = static_cast<int>(s.engines.size());
    const int perRegion = engines + 1;
    std::vector<gateway_charts::StripSpan> spans;
    for (const auto& b : s.breaker_spans)
        spans.push_back({b.region * perRegion + 1 + b.engine,
                         b.state == gateway::BreakerState::HalfOpen ? 2 : 1, b.t0_s, b.t1_s, b.ongoing});
    for (const auto& h : s.health_spans) {
        if (h.kind != gateway::HealthKind::RegionBreaker) continue;
        spans.push_back({h.region * perRegion, h.state == gateway::HealthState::HalfOpen ? 2 : 1,
                         h.t0_s, h.t1_s, h.ongoing});
    }
    c.series = gateway_charts::stripSeries({std::begin(kBreakerStates), std::end(kBreakerStates)},
                                           kRegions * perRegion, std::move(spans), s.now_s, offset_s);
    return c;
}

std::vector<std::string> healthLanes() {
    std::vector<std::string> out;
    for (int r = 0; r < kRegions; ++r) {
        for (int p = 0; p < gateway::kProviders; ++p)
            out.push_back(region(r) + " / probes on " +
                          std::string(gateway::kProviderNames[static_cast<std::size_t>(p)]));
        out.push_back(region(r) + " / standby");
    }
    return out;
}

Chart health(const GatewaySnapshot& s, double offset_s) {
    Chart c = timeChart(kHealth, "Health probes and standby", "Region / what");
    constexpr int perRegion = gateway::kProviders + 1;
    std::vector<gateway_charts::StripSpan> spans;
    for (const auto& h : s.health_spans) {
        int lane = -1, state = 1;
        if (h.kind == gateway::HealthKind::Probe) {
            // A region-wide probe failure shows on every provider's lane of the region.
            lane = h.region * perRegion + std::max(0, h.provider);
        } else if (h.kind == gateway::HealthKind::Standby) {
            lane = h.region * perRegion + gateway::kProviders;
            state = h.state == gateway::HealthState::Serving ? 3 : 2;
        } else {
            continue;
        }
        spans.push_back({lane, state, h.t0_s, h.t1_s, h.ongoing});
        if (h.kind == gateway::HealthKind::Probe && h.provider < 0)
            for (int p = 1; p < gateway::kProviders; ++p)
                spans.push_back({h.region * perRegion + p, state, h.t0_s, h.t1_s, h.ongoing});
    }
    c.series = gateway_charts::stripSeries({std::begin(kHealthStates), std::end(kHealthStates)},
                                           kRegions * perRegion, std::move(spans), s.now_s, offset_s);
    return c;
}

Chart diffErrors(const GatewaySnapshot& a, const GatewaySnapshot* b, double offset_s) {
    RateGaps gaps;
    if (b) gaps = rateGaps(a) += rateGaps(*b);
    Chart c = timeChart(kDiffErrors, "Difference B − A: error rate" + gapNote(gaps), "B − A (pp)");
    if (!b) return c;
    for (const auto& [name, tally] : {std::pair{"truth, B − A", &truth}, std::pair{"clients saw, B − A", &seen}}) {
        const std::vector<double> ra = pooledRates(a, tally), rb = pooledRates(*b, tally);
        c.series.push_back(difference(name, a, b, offset_s,
                                      [&](const WindowPoint&, std::size_t i, bool fromB) { return (fromB ? rb : ra)[i]; },
                                      true));
    }
    return c;
}

Chart diffTails(const GatewaySnapshot& a, const GatewaySnapshot* b, double offset_s) {
    Chart c = timeChart(kDiffTails, "Difference B − A: p99", "B − A (ms)");
    c.series.push_back(difference("all p99, B − A", a, b, offset_s,
                                  [](const WindowPoint& w, std::size_t, bool) { return positive(w.p99_ms); }));
    for (int r = 0; r < kRegions; ++r)
        c.series.push_back(difference(region(r) + " p99, B − A", a, b, offset_s, [r](const WindowPoint& w, std::size_t, bool) {
            return positive(w.regions[static_cast<std::size_t>(r)].p99_ms);
        }));
    return c;
}

void decimate(std::vector<Series>& series, std::size_t maxPoints) {
    const std::size_t buckets = std::max<std::size_t>(1, maxPoints / 3);
    for (Series& s : series) {
        const std::size_t n = std::min(s.x.size(), s.y.size());
        if (n <= maxPoints || n < 2) continue;
        const double x0 = s.x.front(), span = s.x[n - 1] - x0;
        if (!(span > 0)) continue;
        Series out{s.name, s.role, {}, {}};
        out.x.reserve(3 * buckets);
        out.y.reserve(3 * buckets);
        std::size_t i = 0;
        while (i < n) {
            if (std::isnan(s.y[i])) {  // a gap: kept, and it ends the bucket's run
                if (out.y.empty() || !std::isnan(out.y.back())) {
                    out.x.push_back(s.x[i]);
                    out.y.push_back(s.y[i]);
                }
                ++i;
                continue;
            }
            const auto b = std::min(buckets - 1, static_cast<std::size_t>((s.x[i] - x0) / span * static_cast<double>(buckets)));
            std::size_t lo = i, hi = i, j = i;
            for (; j < n; ++j) {
                const auto bj = std::min(buckets - 1, static_cast<std::size_t>((s.x[j] - x0) / span * static_cast<double>(buckets)));
                if (bj != b || std::isnan(s.y[j])) break;
                if (s.y[j] < s.y[lo]) lo = j;
                if (s.y[j] > s.y[hi]) hi = j;
            }
            std::size_t keep[3] = {i, std::min(lo, hi), std::max(lo, hi)};
            for (int k = 0; k < 3; ++k) {
                if (k > 0 && keep[k] == keep[k - 1]) continue;
                out.x.push_back(s.x[keep[k]]);
                out.y.push_back(s.y[keep[k]]);
            }
            i = j;
        }
        s = std::move(out);
    }
}

}  // namespace taillab::ui::incident_charts
