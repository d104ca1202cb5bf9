// The gateway view's charts as plain Chart values, built from a snapshot (time series) or from
// sweep points. Time charts keep x in seconds since Mon 00:00 UTC of seed 000's week, so the
// axis reads "Tue 04:00" whatever day the run starts on; percentages are in %, latency in ms.
// The one chart that is not a time series, the whole run's latency on the nines axis, reads the
// snapshot's HDR histograms. Plain functions, so tests and exports see exactly what is drawn.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "chart_data_export.h"
#include "gateway_sim/gateway_sim.h"
#include "labs/lab_result.h"

namespace taillab::ui::gateway_charts {

// Chart ids, in the order the view shows them.
inline constexpr const char* kPercentiles = "gateway_percentiles";
inline constexpr const char* kLatencyNines = "gateway_latency_nines";
inline constexpr const char* kQueue = "gateway_queue";
inline constexpr const char* kHedging = "gateway_hedging";
inline constexpr const char* kBreakers = "gateway_breakers";
inline constexpr const char* kCache = "gateway_cache";
inline constexpr const char* kSweep = "gateway_hedge_sweep";
std::vector<std::string> chartIds();

// A time chart (x in seconds since Mon 00:00 UTC, labelled so) with no series yet.
inline constexpr const char* kTimeLabel = "Simulated time (s since Mon 00:00 UTC)";
Chart timeChart(std::string id, std::string title, std::string yLabel, bool logY = false);
// One series of a per-window value, x = offset_s + window end; non-finite values (empty
// windows) are left out.
template <typename F>
Series windowSeries(std::string name, const gateway::GatewaySnapshot& s, double offset_s, F value) {
    Series out;
    out.name = std::move(name);
    out.x.reserve(s.windows.size());
    out.y.reserve(s.windows.size());
    for (const gateway::WindowPoint& w : s.windows) {
        const double v = value(w);
        if (!std::isfinite(v)) continue;
        out.x.push_back(offset_s + w.t_s);
        out.y.push_back(v);
    }
    return out;
}

// The breaker chart's lanes: one per (region, engine), lane = region * engines + engine.
inline constexpr const char* kBreakerStates[] = {"closed", "open", "half-open"};
std::string laneName(const gateway::GatewaySnapshot& s, int lane);

Chart percentiles(const gateway::GatewaySnapshot& s, double offset_s);
Chart queue(const gateway::GatewaySnapshot& s, double offset_s);
Chart hedging(const gateway::GatewaySnapshot& s, double offset_s);
// State strips (BreakerStripChart): one series per state, state 0 the normal one; each span is
// two points (t0, lane), (t1, lane), and a lane's time outside every span is in state 0, up to
// now_s. A span still open at now_s (`ongoing`) runs to it.
struct StripSpan {
    int lane = 0;
    int state = 1;
    double t0_s = 0, t1_s = 0;
    bool ongoing = false;
};
std::vector<Series> stripSeries(const std::vector<std::string>& states, int lanes,
                                std::vector<StripSpan> spans, double now_s, double offset_s);
// Series "closed", "open", "half-open"; each span is two points (t0, lane), (t1, lane).
Chart breakers(const gateway::GatewaySnapshot& s, double offset_s);
// The lane of every point of `strips` (breakers) by name ("EU / atlas"), for its export: y is
// only the lane's index.
PointColumn laneColumn(const Chart& strips, const gateway::GatewaySnapshot& s);
Chart cache(const gateway::GatewaySnapshot& s, double offset_s);

// The whole run so far on the nines axis (ChartKind::Percentile): one series per query class,
// then "all requests" (kAllRequests), each read from its HDR histogram (percentileSeries), and
// the deadline as a dashed reference line across the percentiles drawn. The series are always all there (empty
// before the first request ends), so a redraw only replaces their data.
inline constexpr const char* kAllClasses = "all classes";
// The latency chart's merged curve: every request, those refused before their query was
// classified (which are in no class) included.
inline constexpr const char* kAllRequests = "all requests";
inline constexpr const char* kDeadline = "deadline";
Chart latencyNines(const gateway::GatewaySnapshot& s, std::optional<double> deadline_ms);

// A timeline mark as the GUI writes it: a knob change by the knobs' labels and values as their
// panel shows them ("Hedge budget 15 % → 7.5 %"), other marks (and a change with a label of its
// own) by their text.
std::string markLabel(const gateway::TimelineMark& m);

// The run's knob changes (instants) and faults (spans to their end) as annotations for every
// time chart, x in the charts' seconds since Mon 00:00; breaker marks stay on the breaker strips.
std::vector<Annotation> annotations(const gateway::GatewaySnapshot& s, double offset_s);

// One point of a hedge-delay sweep.
struct SweepPoint {
    double delay_ms = 0;
    double p99_ms = 0;
    double extra_load = 0;  // extra engine calls / primary calls (0.1 = 10%)
};
// 100 × `fraction` as its shortest decimal says it: 0.58 -> 58 (the product in binary is
// 57.99999999999999), 0.14 -> 14. For published figures, which are decimals.
double decimalPercent(double fraction);
// x: extra load in %, y: p99 in ms; points in delay order. The published points' x are the
// table's decimals in percent (decimalPercent).
Chart sweep(const std::vector<SweepPoint>& simulated, const std::vector<SweepPoint>& published);

}  // namespace taillab::ui::gateway_charts
