// Coordinated omission: the model behind the "coordinated_omission" lab.
//
// One FIFO server takes `service` per request and does no work during one stall [T, T+S): a
// request that would start inside the stall starts at T+S, and a request in service when the stall
// begins finishes S later. A load generator has a schedule of intended send times (every 1/R, or
// Poisson at rate R) for D seconds, and drives the server in one of two ways:
//
//  - Open loop: every request is sent at its intended time, whatever the server is doing, and
//    is timed from that intended time. The stall's backlog is charged to every request it delays.
//  - Closed loop: one request in flight. The next is sent at its slot or when the previous one
//    returns, whichever is later, and is timed from the actual send. After a stall the generator
//    either skips the slots it missed (HdrHistogram's model of a sampler) or sends them late, back
//    to back. Either way the stall is timed once, and the requests it held back never see it.
//  - Corrected: the closed-loop samples recorded with HdrHistogram's recordCorrected(value,
//    1/R), which adds the samples a stall hid (value - 1/R, value - 2/R, ... down to 1/R).
//
// Closed form, for constant service s < 1/R = a on the fixed schedule with one stall: every request
// sees s except those the stall reaches. Let t0 be the first slot at or after T, and F the time
// the server is next free (T+S, or the interrupted request's finish plus S). The k-th request from
// t0 still queued finishes at F + (k+1)s, so its latency is a linear ramp
//      L_k = (F - t0 + s) - k (a - s),     k = 0 .. m-1,   m = ceil((F - t0) / (a - s)),
// from about S + s down to s: m ~ S R / (1 - R s) requests, the backlog draining at 1/s - R per
// second. An interrupted request adds one value s + S. The closed loop sees one slow sample
// (L_0 or s + S); the corrected histogram turns it into a ramp of step a instead of a - s.
//
// Reproduces essay_003.coordinated_omission (R = 1000/s for 100 s, s = 0.5 ms, S = 2 s at 30 s:
// open-loop p99 1,500.5 ms, p99.9 1,950.5 ms; closed-loop p99 0.5 ms, max 2,000.5 ms) and
// essay_003.hdrhistogram_doc_example (10 ms sampling, 1 ms for 100 s, then a 100 s pause:
// about 99.99% of raw samples at or below 1 ms, about 50% once corrected).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/hdr_histogram.h"
#include "sim/distributions.h"
#include "base/rng.h"
#include "base/time.h"

namespace taillab::co {

enum class Loop { Open, Closed };

struct Config {
    double rate_per_s = 1000;
    Duration duration = fromSeconds(100);
    bool poisson = false;
    ServiceModel service = ConstantModel{0.5};
    Time stall_at = fromSeconds(30);
    Duration stall = fromSeconds(2);
    bool send_late = false;  // closed loop: send missed slots late instead of skipping them
    Duration window = fromSeconds(1);

    Duration interval() const { return fromSeconds(1.0 / rate_per_s); }
    // R times the mean service: at 1 or more the server cannot keep up with the schedule, the
    // open loop's queue never drains and nothing it measures has a steady state.
    double utilisation() const { return rate_per_s * service.mean() / 1000.0; }
    // Latency histograms must hold the longest stall plus the longest backlog.
    HdrConfig histogramConfig() const;
};

// The fixed schedule: slot j at round(j * 1e9 / R) ns, for slots before the duration.
class FixedSchedule {
  public:
    FixedSchedule(double rate_per_s, Duration duration);
    Time slot(std::int64_t j) const;
    std::int64_t slotCount() const { return count_; }
    // The first slot at or after t (may be slotCount() when none is left).
    std::int64_t firstSlotAtOrAfter(Time t) const;

  private:
    double nsPerSlot_;
    std::int64_t count_;
};

// A FIFO server that pauses during one stall.
class StallingServer {
  public:
    StallingServer(Time stall_at, Duration stall) : stallAt_(stall_at), stall_(stall) {}
    // Serves a request that arrives at `arrival` behind everything already queued; returns when
    // it completes.
    Time serve(Time arrival, Duration work);

  private:
    Time stallAt_;
    Duration stall_;
    Time freeAt_ = kZero;
};

// A window's p99 is a value 1% of its latencies exceed; of fewer than 100 it is their max.
constexpr std::int64_t kWindowP99Samples = 100;

struct WindowPoint {
    double start_s = 0;
    double p99_ms = 0;  // the max when the window holds fewer than kWindowP99Samples
    double max_ms = 0;
    std::int64_t count = 0;  // latencies recorded in the window

    bool hasP99() const { return count >= kWindowP99Samples; }
};

// One load generator driving one server, advanced a chunk of requests at a time so a caller can
// poll for cancellation and draw partial results.
class LoopSimulation {
  public:
    LoopSimulation(const Config& config, Loop loop, std::uint64_t seed, bool corrected);

    // Simulates up to `max_requests` more requests; returns false once the schedule is done.
    bool advance(std::int64_t max_requests);
    // Fraction of the duration the intended send times have covered.
    double progress() const;

    const HdrHistogram& latencies() const { return latencies_; }
    const HdrHistogram& corrected() const { return corrected_; }
    const std::vector<WindowPoint>& windows() const { return windows_; }
    std::int64_t sent() const { return sent_; }
    std::int64_t skippedSlots() const { return skipped_; }

  private:
    std::optional<Time> nextSlot();
    void recordLatency(Time sentAt, Duration latency);
    void flushWindow();

    Config config_;
    Loop loop_;
    bool wantCorrected_;
    Rng arrivals_;
    Rng service_;
    FixedSchedule fixed_;
    StallingServer server_;
    std::int64_t nextFixed_ = 0;
    double poissonNs_ = 0;
    Time lastIntended_ = kZero;
    Time lastDone_ = kZero;
    bool done_ = false;
    std::int64_t intervalUs_;
    HdrHistogram latencies_;
    HdrHistogram corrected_;
    std::int64_t sent_ = 0;
    std::int64_t skipped_ = 0;
    std::int64_t windowIndex_ = -1;
    HdrHistogram window_;  // latencies of the current window
    std::vector<WindowPoint> windows_;
};

// A sorted latency distribution of the deterministic case: `baseCount` values at `baseMs`, then a
// ramp of `rampCount` values (rampTopMs - k * rampStepMs), then `extrasMs` (ascending, above the
// ramp).
struct RampDistribution {
    std::int64_t baseCount = 0;
    double baseMs = 0;
    std::int64_t rampCount = 0;
    double rampTopMs = 0;
    double rampStepMs = 0;
    std::vector<double> extrasMs;

    std::int64_t total() const;
    // The value of 1-based ascending rank r.
    double valueAtRank(std::int64_t r) const;
    // HdrHistogram's semantics: the value at rank max(1, round(p * total)).
    double quantile(double p) const;
    double max() const { return valueAtRank(total()); }
    std::int64_t countAtOrBelow(double ms) const;
};

// The exact distributions of the deterministic case, or nullopt when the config is not one
// (random service or schedule, or a server loaded at R s >= 1).
std::optional<RampDistribution> openLoopClosedForm(const Config& config);
std::optional<RampDistribution> closedLoopClosedForm(const Config& config);
std::optional<RampDistribution> correctedClosedForm(const Config& config);

}  // namespace taillab::co
