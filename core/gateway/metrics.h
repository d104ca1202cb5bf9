// The gateway's accounting: counters and per-stage totals since the start, the current chart
// window (closed by the driver at a fixed cadence), per-key latency histograms for the customers
// with the worst tails, breaker spans and the timeline. Everything a snapshot shows is kept here;
// the stages only count into it. Latencies run from accept to the response; failures are
// recorded at their latency; every percentile comes from an HDR histogram.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "gateway/snapshot.h"

namespace taillab::gateway {

class GatewayMetrics {
public:
    GatewayMetrics(std::vector<std::string> engines, std::vector<std::string> keyNames,
                   std::vector<bool> probeKeys);

    // Totals since the start: the stages count into these directly.
    GatewaySnapshot totals;

    // `probe`: a synthetic probe; `refresh`: a stale-while-revalidate refresh (one a probe
    // started is a refresh, not a probe). Counted among the stage's requests and apart as well.
    void enter(Stage s, bool probe, bool refresh = false) {
        StageStats& st = stage(s);
        ++st.entered;
        st.probes_entered += probe && !refresh;
        st.refreshes_entered += refresh;
    }
    void pass(Stage s, bool probe, bool refresh = false) {
        StageStats& st = stage(s);
        ++st.passed;
        st.probes_passed += probe && !refresh;
        st.refreshes_passed += refresh;
    }
    void charge(Stage s, Duration d) {
        StageStats& st = stage(s);
        const double ms = toMs(d);
        st.time_ms_total += ms;
        st.time_ms_max = std::max(st.time_ms_max, ms);
    }
    void onLookup(QueryClass cls, bool hit);
    void onCall(bool primary, bool hedge, bool counted);
    // A request ended (never a probe): into the outcome counters, the window and, in a batch, the
    // histograms. `key` indexes the key table; kNoKey for an unknown key.
    static constexpr std::uint32_t kNoKey = 0xffffffffu;
    // `cls`: the query's class, nullopt for a request refused before its query was classified
    // (recorded in latency_unclassified_us, never in a class). `region`: where it was served.
    // `disguised`: a failure the client was told was a success (an empty 200).
    void onOutcome(Outcome o, Duration latency, std::uint32_t key, std::optional<QueryClass> cls,
                   Region region, bool disguised);
    // A breaker changed state; `switchedOff`: it closed because breakers were switched off.
    void onBreaker(Time at, Region region, int engine, BreakerState state,
                   bool switchedOff = false);
    // A health mechanism of the driver's compute model (probes, region breakers, standby) enters
    // `state` at `at`, or (nullopt) returns to normal: its span so far ends.
    void onHealth(Time at, HealthKind kind, Region region, int provider,
                  std::optional<HealthState> state);
    // A request's gateway work runs on `provider` (the driver's compute model, at the edge).
    void countProvider(int provider) { ++window_.provider_requests[static_cast<std::size_t>(provider)]; }
    void addMark(TimelineMark mark);

    struct WindowState {
        std::array<int, kRegions> inflightPeak{};
        std::array<int, kRegions> limit{};
        double hedgeBudgetLevel = 0;
    };
    void closeWindow(Time now, const WindowState& state);
    // When the first window opens (default: time zero): a run that starts later says so.
    void openFirstWindow(Time at) { windowStart_ = at; }
    bool windowEmpty() const { return window_.requests == 0; }  // nothing ended in the open window
    // The snapshot at `now`; the caller fills what the stages own (limits, in flight, budget).
    void fill(GatewaySnapshot& s, Time now);

private:
    StageStats& stage(Stage s) { return totals.stages[static_cast<std::size_t>(s)]; }
    void recordPending();
    void addToHour(Time end, const WindowPoint& w);
    HourPoint hourPoint() const;

    std::vector<std::string> keyNames_;
    std::vector<bool> probeKeys_;
    std::vector<HdrHistogram> keyLatency_;  // 2 significant digits: 1% is plenty per key
    std::vector<std::uint64_t> keyFailed_;
    HdrHistogram windowLatency_;
    std::array<HdrHistogram, kRegions> windowRegionLatency_;
    // The histogram a request's latency goes to: its class's, or the unclassified one.
    HdrHistogram& classLatency(std::uint8_t cls) {
        return cls < kClasses ? totals.latency_by_class_us[cls] : totals.latency_unclassified_us;
    }
    struct Pending {
        std::int64_t us;
        std::uint32_t key;
        std::uint8_t cls;  // a QueryClass, or kClasses: not classified
        Region region;
    };
    std::vector<Pending> pending_;  // ended, not yet in the histograms
    WindowPoint window_{};
    std::array<std::uint64_t, kClasses> windowLookups_{}, windowHits_{};
    std::uint64_t windowPrimaries_ = 0, windowHedges_ = 0, windowCalls_ = 0;
    std::vector<WindowPoint> windows_;
    // The hour the last closed window ended in, and its windows merged.
    std::int64_t hour_ = -1;
    HourPoint hourPoint_{};
    HdrHistogram hourLatency_;
    std::vector<HourPoint> hours_;
    std::vector<BreakerState> shown_;   // [region * engines + engine]
    std::vector<double> since_;
    std::array<double, kRegions> windowLatencySumS_{};  // seconds, of the requests ended
    Time windowStart_{};
    std::vector<HealthSpan> health_;  // open health spans (t1_s unset)
};

}  // namespace taillab::gateway
