// The incident board's charts as plain Chart values, built from a run's snapshot and, for A/B,
// the companion run's (drawn by the board as dashed ghosts in the same colours). Time charts keep
// x in seconds since Mon 00:00 as the gateway view's do (gateway_charts), so the axis reads
// "Tue 07:30"; rates and shares are in %, latency in ms, queue depth in requests in flight.
// Plain functions, so tests, the benchmark and the data export see exactly what is drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gateway_sim/gateway_sim.h"
#include "labs/lab_result.h"

namespace taillab::ui::incident_charts {

// Chart ids, in the order the board shows them (the lane first).
inline constexpr const char* kLane = "incident_timeline";
inline constexpr const char* kErrors = "incident_error_rate";
inline constexpr const char* kTails = "incident_tail_latency";
inline constexpr const char* kQueue = "incident_queue_depth";
inline constexpr const char* kProviderShare = "incident_provider_share";
inline constexpr const char* kRegionShare = "incident_region_share";
inline constexpr const char* kBreakers = "incident_breakers";
inline constexpr const char* kHealth = "incident_probes_standby";
inline constexpr const char* kDiffErrors = "incident_diff_error_rate";
inline constexpr const char* kDiffTails = "incident_diff_p99";
std::vector<std::string> chartIds();

// The lane's rows and their events: faults (spans), knob changes and phases (spans or
// instants), labelled as the timeline names them; breaker marks stay on the breaker strips.
inline constexpr int kFaultRow = 0, kKnobRow = 1, kPhaseRow = 2;
struct LaneMark {
    double x0 = 0;
    std::optional<double> x1;
    int row = 0;
    std::string label;
};
// The lane's chart: its title and axes; the events are drawn from laneMarks.
Chart lane();
std::vector<LaneMark> laneMarks(const gateway::GatewaySnapshot& s, double offset_s);
// The knob changes and faults as annotations for the other charts (lines and spans, no labels
// needed: the lane names them).
std::vector<Annotation> annotations(const gateway::GatewaySnapshot& s, double offset_s);

// An error rate is drawn only over at least kMinRateRequests requests: below that one failure
// moves it by more than 5 points (2 of 3 is 67%), and a quiet night's windows would swamp the
// axis. A window that holds that many (overall, or the region's) is rated on its own. A run of
// quieter ones is cut into groups of consecutive windows that hold that many together, each at
// most kMaxPooledWindows long, and each window of a group shows the group's rate (a flat step
// over the group); a remainder too small joins the group before it when that stays within the
// limit. A window left unrated, or without requests, is a gap in the line (a NaN point, which
// the chart draws as a break and the CSV leaves empty). The title says when windows were pooled
// and how many are gaps. A busy window is never pooled, so a fault's onset is not moved.
inline constexpr std::uint32_t kMinRateRequests = 20;
inline constexpr std::size_t kMaxPooledWindows = 10;
struct RateGaps {
    std::size_t sparse = 0;  // windows (overall or a region's) with requests but too few to rate
    std::size_t pooled = 0;  // windows rated in a group of quiet ones
    std::size_t rated = 0;   // windows rated on their own
    RateGaps& operator+=(const RateGaps& o) {
        sparse += o.sparse;
        pooled += o.pooled;
        rated += o.rated;
        return *this;
    }
};
RateGaps rateGaps(const gateway::GatewaySnapshot& s);

// Error rate per window in %: the truth (failed / requests) and what clients saw ((failed -
// invisible) / requests), overall and per region, quiet windows pooled or left as gaps as
// above. Per-region "clients saw" series appear once the run (or `other`, so A and B
// keep the same series) has invisible failures. The title counts the pooling and gaps of both
// runs.
Chart errorRate(const gateway::GatewaySnapshot& s, double offset_s,
                const gateway::GatewaySnapshot* other = nullptr);
// p99 and p99.9 per region, ms, log y.
Chart tails(const gateway::GatewaySnapshot& s, double offset_s);

// A region's normal queue depth: the median of its windows' mean depth before the first fault,
// when at least kMinNormalWindows of them have closed; else the median of every window so far.
inline constexpr int kMinNormalWindows = 6;
struct NormalDepth {
    std::array<double, gateway::kRegions> depth{};  // NaN: no window yet
    bool beforeFirstFault = false;
    int windows = 0;  // how many windows the medians are of
};
NormalDepth normalDepth(const gateway::GatewaySnapshot& s);
// Mean depth per region per window, and each region's normal depth as a dashed line.
Chart queueDepth(const gateway::GatewaySnapshot& s, double offset_s);

// Shares of the window's requests in %: by provider (A, B, C; needs gateway_compute) and by
// region served.
Chart providerShare(const gateway::GatewaySnapshot& s, double offset_s);
Chart regionShare(const gateway::GatewaySnapshot& s, double offset_s);

// Strips (see BreakerStripChart): series are states, state 0 the normal one; each span is two
// points (t0, lane), (t1, lane). Breakers: each region's breaker (spill into it stopped) and
// each (region, engine) breaker; states closed, open, half-open.
inline constexpr const char* kBreakerStates[] = {"closed", "open", "half-open"};
std::vector<std::string> breakerLanes(const gateway::GatewaySnapshot& s);
Chart breakers(const gateway::GatewaySnapshot& s, double offset_s);
// Health probes per (region, provider) and each region's standby: normal, failing, starting
// (its CPUs coming online over the ramp; those online already serve), serving (all online).
inline constexpr const char* kHealthStates[] = {"normal", "failing", "starting", "serving"};
std::vector<std::string> healthLanes();
Chart health(const gateway::GatewaySnapshot& s, double offset_s);

// B - A per window, matched by window end: error rate (truth and clients saw, percentage
// points, of the rates as errorRate pools them; a gap where either window is not rated) and p99 (ms, overall and per
// region). Empty series without B.
Chart diffErrors(const gateway::GatewaySnapshot& a, const gateway::GatewaySnapshot* b, double offset_s);
Chart diffTails(const gateway::GatewaySnapshot& a, const gateway::GatewaySnapshot* b, double offset_s);

// For drawing: a series longer than `maxPoints` becomes, per bucket of x, its first point and
// its lowest and highest (in x order), so spikes survive; shorter series are left as they are.
// Three days at 60 s windows are 4,320 points a series, far more than a chart has pixels. A gap
// (a NaN y) is kept, one for a run of them, and no bucket reaches across it.
void decimate(std::vector<Series>& series, std::size_t maxPoints);

}  // namespace taillab::ui::incident_charts
