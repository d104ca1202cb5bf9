#include "gateway/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace taillab::gateway {

GatewayMetrics::GatewayMetrics(std::vector<std::string> engines, std::vector<std::string> keyNames,
                               std::vector<bool> probeKeys)
    : keyNames_(std::move(keyNames)), probeKeys_(std::move(probeKeys)) {
    const std::size_t n = engines.size();
    totals.engines = std::move(engines);
    totals.breaker_state.assign(static_cast<std::size_t>(kRegions) * n, BreakerState::Closed);
    keyLatency_.assign(keyNames_.size(), HdrHistogram(HdrConfig{1, 60'000'000, 2}));
    keyFailed_.assign(keyNames_.size(), 0);
    shown_.assign(static_cast<std::size_t>(kRegions) * n, BreakerState::Closed);
    since_.assign(shown_.size(), 0.0);
}

void GatewayMetrics::onLookup(QueryClass cls, bool hit) {
    const auto c = static_cast<std::size_t>(cls);
    ++totals.cache_lookups[c];
    ++windowLookups_[c];
    if (hit) ++totals.cache_hits[c], ++windowHits_[c];
}

void GatewayMetrics::onCall(bool primary, bool hedge, bool counted) {
    if (!counted) return;
    ++windowCalls_;
    if (primary) ++windowPrimaries_;
    if (hedge) ++windowHedges_;
}

// Ended requests held before recordPending: a batch large enough for the overlap, small enough
// that a long window at a high rate (live mode: 600 s at thousands of requests a second) does not
// hold every request of the window until it closes.
constexpr std::size_t kPendingBatch = 4096;

void GatewayMetrics::onOutcome(Outcome o, Duration latency, std::uint32_t key,
                               std::optional<QueryClass> cls, Region region, bool disguised) {
    RegionWindow& rw = window_.regions[static_cast<std::size_t>(region)];
    ++rw.requests;
    windowLatencySumS_[static_cast<std::size_t>(region)] += toSeconds(latency);
    if (isFailed(o)) ++rw.failed;
    if (disguised) ++rw.invisible;
    ++totals.outcomes[static_cast<std::size_t>(o)];
    --totals.in_flight;
    if (o == Outcome::Ok) {
        ++totals.answered;
        ++window_.ok;
    } else if (isRejected(o)) {
        ++totals.rejected;
        ++window_.rejected;
    } else {
        ++totals.failed;
        ++window_.failed;
        if (disguised) {
            ++totals.invisible_failures;
            ++window_.invisible;
        }
    }
    ++window_.requests;
    pending_.push_back(Pending{std::max<std::int64_t>(1, toUs(latency)), key,
                               cls ? static_cast<std::uint8_t>(*cls) : std::uint8_t{kClasses},
                               region});
    if (pending_.size() >= kPendingBatch) recordPending();
    if (key < keyFailed_.size() && isFailed(o)) ++keyFailed_[key];
}

// Records the latencies of the requests ended since the last call into the class, window and
// key histograms. Done in a batch rather than as each request ends: the records are independent,
// so their cache misses (the key histograms alone are megabytes) overlap instead of stalling the
// request path one at a time. Every reader of the histograms calls this first.
// A batch runs once per chart window, after the request path has pushed the histograms out of
// cache, and the out-of-order core sees too few records ahead to overlap their misses by itself:
// the counts of the record kRecordAhead places on are loaded while this one is added.
constexpr std::size_t kRecordAhead = 8;

void GatewayMetrics::recordPending() {
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (i + kRecordAhead < pending_.size()) {
            const Pending& next = pending_[i + kRecordAhead];
            classLatency(next.cls).prefetch(next.us);
            windowLatency_.prefetch(next.us);
            if (next.key < keyLatency_.size()) keyLatency_[next.key].prefetch(next.us);
        }
        const Pending& p = pending_[i];
        classLatency(p.cls).record(p.us);
        windowLatency_.record(p.us);
        windowRegionLatency_[static_cast<std::size_t>(p.region)].record(p.us);
        if (p.key < keyLatency_.size()) keyLatency_[p.key].record(p.us);
    }
    pending_.clear();
}

void GatewayMetrics::onBreaker(Time at, Region region, int engine, BreakerState state,
                               bool switchedOff) {
    const std::size_t i =
        static_cast<std::size_t>(region) * totals.engines.size() + static_cast<std::size_t>(engine);
    const double t = toSeconds(at);
    if (shown_[i] != BreakerState::Closed)
        totals.breaker_spans.push_back(BreakerSpan{static_cast<int>(region), engine, shown_[i],
                                                   since_[i], t, false});
    shown_[i] = state;
    since_[i] = t;
    totals.breaker_state[i] = state;
    addMark(TimelineMark{t, std::nullopt, MarkKind::Breaker,
                         std::string(kRegionNames[static_cast<std::size_t>(region)]) + "/" +
                             totals.engines[static_cast<std::size_t>(engine)] + " breaker " +
                             std::string(kBreakerStateNames[static_cast<std::size_t>(state)]) +
                             (switchedOff ? " (breakers off)" : ""),
                         {}, {}});
}

void GatewayMetrics::onHealth(Time at, HealthKind kind, Region region, int provider,
                              std::optional<HealthState> state) {
    const double t = toSeconds(at);
    const int g = static_cast<int>(region);
    const auto open = std::find_if(health_.begin(), health_.end(), [&](const HealthSpan& h) {
        return h.kind == kind && h.region == g && h.provider == provider;
    });
    if (open != health_.end()) {
        if (state && open->state == *state) return;  // no change
        HealthSpan ended = *open;
        ended.t1_s = t;
        totals.health_spans.push_back(ended);
        health_.erase(open);
    }
    if (state) health_.push_back(HealthSpan{kind, g, provider, *state, t, t, false});
}

void GatewayMetrics::addMark(TimelineMark mark) {
    auto& marks = totals.timeline;
    // Keep time order: marks arrive nearly sorted (a breaker change may be stamped a little
    // before the moment it is noticed).
    auto it = marks.end();
    while (it != marks.begin() && std::prev(it)->t_s > mark.t_s) --it;
    marks.insert(it, std::move(mark));
}

void GatewayMetrics::closeWindow(Time now, const WindowState& state) {
    recordPending();
    WindowPoint w = window_;
    w.t_s = toSeconds(now);
    if (windowLatency_.empty()) {
        w.p50_ms = w.p90_ms = w.p99_ms = w.p999_ms = std::nan("");
    } else {
        static constexpr std::array<double, 4> kNines{50, 90, 99, 99.9};
        std::array<std::int64_t, 4> us{};
        windowLatency_.valuesAtPercentiles(kNines, us);
        w.p50_ms = us[0] / 1000.0;
        w.p90_ms = us[1] / 1000.0;
        w.p99_ms = us[2] / 1000.0;
        w.p999_ms = us[3] / 1000.0;
    }
    const double length_s = toSeconds(now - windowStart_);
    for (std::size_t g = 0; g < kRegions; ++g) {
        HdrHistogram& h = windowRegionLatency_[g];
        if (h.empty()) {
            w.regions[g].p99_ms = w.regions[g].p999_ms = std::nan("");
        } else {
            static constexpr std::array<double, 2> kTail{99, 99.9};
            std::array<std::int64_t, 2> us{};
            h.valuesAtPercentiles(kTail, us);  // one walk for both
            w.regions[g].p99_ms = us[0] / 1000.0;
            w.regions[g].p999_ms = us[1] / 1000.0;
        }
        w.regions[g].queue_mean = length_s > 0 ? windowLatencySumS_[g] / length_s : 0;
        h.reset();
    }
    windowLatencySumS_.fill(0);
    windowStart_ = now;
    w.hedge_rate = windowPrimaries_ ? static_cast<double>(windowHedges_) / windowPrimaries_ : 0;
    w.extra_load = windowPrimaries_
                       ? static_cast<double>(windowCalls_ - windowPrimaries_) / windowPrimaries_
                       : 0;
    w.hedge_budget_level = state.hedgeBudgetLevel;
    std::uint64_t hits = 0, lookups = 0;
    for (std::size_t c = 0; c < kClasses; ++c) {
        w.cache_hit_rate[c] = windowLookups_[c]
                                  ? static_cast<double>(windowHits_[c]) / windowLookups_[c]
                                  : std::nan("");
        hits += windowHits_[c];
        lookups += windowLookups_[c];
    }
    w.cache_hit_rate_all = lookups ? static_cast<double>(hits) / lookups : std::nan("");
    for (std::size_t g = 0; g < kRegions; ++g) {
        w.inflight_peak[g] = state.inflightPeak[g];
        w.admission_limit[g] = state.limit[g];
    }
    windows_.push_back(w);
    addToHour(now, w);
    window_ = WindowPoint{};
    windowLatency_.reset();
    windowLookups_.fill(0);
    windowHits_.fill(0);
    windowPrimaries_ = windowHedges_ = windowCalls_ = 0;
}

// A closed window joins the hour its end falls in (an end on the hour belongs to the hour before).
void GatewayMetrics::addToHour(Time end, const WindowPoint& w) {
    constexpr std::int64_t kHourNs = 3600LL * 1'000'000'000;
    const std::int64_t hour = std::max<std::int64_t>(0, end.count() - 1) / kHourNs;
    if (hour != hour_) {
        if (hour_ >= 0) hours_.push_back(hourPoint());
        hour_ = hour;
        hourPoint_ = HourPoint{static_cast<double>(hour) * 3600.0, 0, 0, 0, 0};
        hourLatency_.reset();
    }
    hourPoint_.requests += w.requests;
    hourPoint_.failed += w.failed;
    hourLatency_.merge(windowLatency_);
}

HourPoint GatewayMetrics::hourPoint() const {
    HourPoint h = hourPoint_;
    const bool any = !hourLatency_.empty();
    h.p99_ms = any ? hourLatency_.valueAtPercentile(99) / 1000.0 : std::nan("");
    h.p999_ms = any ? hourLatency_.valueAtPercentile(99.9) / 1000.0 : std::nan("");
    return h;
}

void GatewayMetrics::fill(GatewaySnapshot& s, Time now) {
    recordPending();
    s = totals;
    // All requests: the classes' histograms and the unclassified one merged (each request is
    // recorded in one of them only).
    for (const HdrHistogram& c : totals.latency_by_class_us) s.latency_us.merge(c);
    s.latency_us.merge(totals.latency_unclassified_us);
    s.now_s = toSeconds(now);
    s.windows = windows_;
    s.hours = hours_;
    if (hour_ >= 0) s.hours.push_back(hourPoint());  // the hour so far
    const std::size_t engines = totals.engines.size();
    for (std::size_t i = 0; i < shown_.size(); ++i) {
        if (shown_[i] == BreakerState::Closed) continue;
        s.breaker_spans.push_back(BreakerSpan{static_cast<int>(i / engines),
                                              static_cast<int>(i % engines), shown_[i], since_[i],
                                              s.now_s, true});
    }
    for (HealthSpan h : health_) {
        h.t1_s = s.now_s;
        h.ongoing = true;
        s.health_spans.push_back(h);
    }
    // Keys whose p99 sits furthest above the global one (those with enough requests for one).
    std::vector<CustomerTail> tails;
    for (std::size_t k = 0; k < keyLatency_.size(); ++k) {
        const HdrHistogram& h = keyLatency_[k];
        if (probeKeys_[k] || static_cast<std::uint64_t>(h.totalCount()) < kCustomerTailMinRequests)
            continue;
        tails.push_back(CustomerTail{keyNames_[k], static_cast<std::uint64_t>(h.totalCount()),
                                     h.valueAtPercentile(99) / 1000.0,
                                     h.valueAtPercentile(99.9) / 1000.0, keyFailed_[k]});
    }
    auto failedShare = [](const CustomerTail& t) {
        return static_cast<double>(t.failed) / static_cast<double>(t.requests);
    };
    std::stable_sort(tails.begin(), tails.end(), [&](const CustomerTail& a, const CustomerTail& b) {
        if (a.p99_ms != b.p99_ms) return a.p99_ms > b.p99_ms;
        if (failedShare(a) != failedShare(b)) return failedShare(a) > failedShare(b);
        return a.p999_ms > b.p999_ms;
    });
    if (tails.size() > 10) tails.resize(10);
    s.worst_customers = std::move(tails);
    // Any customer's histogram has the customers' layout: its bucket for the global p99.
    s.customers_global_p99_ms =
        s.latency_us.empty() || keyLatency_.empty()
            ? std::nan("")
            : static_cast<double>(keyLatency_.front().highestEquivalent(s.latency_us.valueAtPercentile(99))) / 1000.0;
}

}  // namespace taillab::gateway
