// An open-loop HTTP load generator in the manner of wrk2: requests leave at intended times set by
// a rate schedule, never in response to earlier answers, and each is timed from its intended send
// time, so a server that stalls shows in the percentiles instead of silencing the client
// (coordinated omission).
//
// Three clocks per request, all on the steady clock:
//   intended  when the schedule says it should leave (start + offset, see rate_schedule.h)
//   dispatch  when the generator got to it: dispatch - intended is the generator's own
//             scheduling lag (timer lateness, a busy thread), recorded in `lag`; when it grows,
//             the generator, not the server, is the bottleneck
//   started   when it got a connection: while all `connections` are busy a request waits in
//             the generator's backlog, and that wait is the server's doing (it holds the
//             connections)
// and one outcome time, finished. Recorded, in microseconds:
//   corrected    finished - intended  (what a user with that schedule would have seen)
//   uncorrected  finished - started   (what a closed-loop tool that waits for connections reports)
//   lag          dispatch - intended
//   wait         started - dispatch
// Failures (refused, reset, timeout, protocol, other) are recorded at their latency like any
// answer and counted by kind; answers are counted by status. A request that never got a
// connection has no uncorrected or wait sample.
//
// A stop() leaves no request out of the corrected latencies: one sent (or waiting for a
// connection) and still unanswered when the run gives up on it is counted as abandoned and
// recorded at its age then (stop time - intended), a lower bound on the latency it would have
// had, in `corrected` and in `abandoned`. Dropping it would hide exactly the requests a stall
// held, so that a run stopped during a stall read as a healthy one. It has no uncorrected or wait
// sample (its end is unknown).
//
// The timeout runs from the intended time too: a request fails as a timeout once its intended time
// is `timeout` ago, in flight or still waiting for a connection, so the run ends by duration +
// timeout however far the server (or the generator) falls behind. One the generator reaches only
// after that is counted `too_late`: never sent, a timeout at its latency, and the plainest sign
// that the generator, not the server, was the bottleneck.
//
// Requests are POST with a JSON body {"query", "language", "max_results"} (core/live/PROTOCOL.md),
// `Authorization: Bearer KEY` rotating through the keys, and `X-Request-Id: N` (the request's
// sequence number, so a gateway's per-request randomness is reproducible). The built-in queries
// are the simulated workload's own one-off query texts, 20 per query class in class rotation, so
// the gateway's compiler sorts them into every class.
//
// Threading: run() owns a Loop (live/loop.h) and runs it on the calling thread until the schedule is
// over and every request has answered or timed out, or stop() has ended it; stop() may be called
// from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "live/address.h"
#include "live/http_client.h"
#include "live/rate_schedule.h"
#include "metrics/hdr_histogram.h"

namespace taillab::live {

// One request of a planned load: sent `at` after the start exactly as given. A twin run plans
// the simulated workload's own arrivals this way (twin.h), with their keys, pins and ids.
struct PlannedRequest {
    std::chrono::nanoseconds at{};
    std::string target;      // "/search/lite"
    std::string key;         // "": no Authorization header
    std::string region;      // X-Region; "": none
    std::string request_id;  // X-Request-Id
    std::string body;
};

// Planned requests produced on demand: appends those with `at` in [from, to), in time order.
// Called a window at a time, in time order, each call after the one before has returned: the
// first before the run's clock starts, each later one on a thread of its own while the window
// before it is being sent (a source shares nothing unlocked with other threads).
using PlanSource = std::function<void(std::chrono::nanoseconds from, std::chrono::nanoseconds to,
                                      std::vector<PlannedRequest>& out)>;

struct LoadConfig {
    Url url;  // where to send; its target is the path every request uses
    RateSchedule schedule = RateSchedule::constant(100);
    std::chrono::nanoseconds duration = std::chrono::seconds(10);
    std::size_t connections = 0;  // 0: defaultConnections(schedule)
    std::vector<std::string> keys;     // empty: no Authorization header
    std::vector<std::string> queries;  // empty: builtinQueries()
    std::string language = "en";
    int max_results = 10;
    std::chrono::nanoseconds timeout = std::chrono::seconds(10);
    std::chrono::nanoseconds interval = std::chrono::seconds(1);  // progress and interval logs
    // When not empty: these requests at their times (sorted, each before `duration`) instead of
    // the schedule, keys and queries above; url gives the host and port only.
    std::vector<PlannedRequest> plan;
    // When set (and `plan` empty): the requests it produces, a few seconds at a time, instead of
    // the schedule, keys and queries; each window is checked as a plan is. The schedule's peak
    // rate sizes the pool as for a plan (four times it at 250 ms an answer, at least 64), and the
    // result's `intended` counts the requests planned up to where the run stopped.
    PlanSource plan_source;
};

// The longest duration, and the longest timeout, a load may have.
inline constexpr std::chrono::nanoseconds kLongestLoad = std::chrono::hours(24 * 7);
// Enough connections for the schedule's peak rate at 250 ms per answer (Little's law), at least 8
// and at most 1,000,000.
std::size_t defaultConnections(const RateSchedule& schedule);
// The built-in query texts (see the header comment).
std::vector<std::string> builtinQueries();
// HdrHistogram configuration for every latency the generator records: 1 µs to a little over
// twice kLongestLoad, so that any latency a load can measure (a request intended at the end of
// the longest run that waits out the longest timeout) is recorded, never dropped as out of range.
HdrConfig loadHistogramConfig();

struct LoadCounts {
    std::uint64_t sent = 0;      // dispatched: reached by the generator within their timeout
    std::uint64_t too_late = 0;  // reached only after their timeout: never sent, failed as timeouts
    std::uint64_t answered = 0;  // with an HTTP status (any status)
    std::uint64_t failed = 0;    // with a failure kind instead (too_late ones included)
    std::uint64_t abandoned = 0;  // sent, still unanswered when stop() ended the run: in the
                                  // corrected latencies at their age then (see the header comment)
    std::map<int, std::uint64_t> statuses;
    std::array<std::uint64_t, kHttpFailureKinds> failures{};  // indexed by HttpFailure
    std::uint64_t in_flight() const { return sent + too_late - answered - failed - abandoned; }
};

// What one interval saw; the histograms hold that interval's samples only.
struct LoadInterval {
    std::int64_t start_epoch_ms = 0;  // the run's start on the wall clock (LoadResult's)
    double start_s = 0;   // since the run's start
    double length_s = 0;
    LoadCounts counts;    // totals since the start, not per interval
    std::uint64_t completed_in_interval = 0;
    std::uint64_t behind_schedule = 0;  // sends over 1 ms overdue and not yet dispatched
    const HdrHistogram* corrected = nullptr;
    const HdrHistogram* uncorrected = nullptr;
    const HdrHistogram* lag = nullptr;
    // Whole-run corrected, lag and connection-wait histograms so far (for "p99 so far").
    const HdrHistogram* corrected_total = nullptr;
    const HdrHistogram* lag_total = nullptr;
    const HdrHistogram* wait_total = nullptr;
};

struct LoadResult {
    HdrHistogram corrected{loadHistogramConfig()};
    HdrHistogram uncorrected{loadHistogramConfig()};
    HdrHistogram lag{loadHistogramConfig()};
    HdrHistogram wait{loadHistogramConfig()};
    // The abandoned requests' ages when abandoned (each is in `corrected` too).
    HdrHistogram abandoned{loadHistogramConfig()};
    LoadCounts counts;
    std::size_t connections = 0;       // the pool's limit
    std::size_t peak_connections = 0;  // the most it held open at once
    // From the start to the run's end: the last answer, or for a run stopped early the moment
    // it ended (when stop() took effect, or up to 0.3 s later while answers were awaited).
    double elapsed_s = 0;
    double stopped_at_s = 0;           // a run stopped early: from the start to when stop() took effect
    double schedule_s = 0;             // the run's duration
    std::uint64_t intended = 0;        // sends the schedule intended
    std::int64_t start_epoch_ms = 0;   // wall-clock start, for interval logs
    bool stopped_early = false;
};

// A sentence when the generator could not keep its schedule, so the latencies measure it as much as
// the server; nothing otherwise. Its lag is part of every corrected latency, so it warns when lag
// p99 is above 1 ms and at least a tenth of the corrected p99 (at 20,000 req/s on a 2-core machine
// a generator sharing the cores with its server reached 121 ms of 658), when sends were still
// behind schedule at the end, or (then saying that it was, not that it may be, the bottleneck)
// when it reached requests only after their timeout (`too_late`).
std::optional<std::string> generatorBottleneckWarning(const LoadResult& result);

// Whether requests waited for a free connection of the generator's own pool for a large part of
// their latency: connection-wait p99 above 1 ms and at least a tenth of the corrected p99 (the rule
// the scheduling lag has). A pool too small for the rate (--rate 100 --connections 8 against a
// gateway answering in 100 ms waited 1.4 s at p50) then queues requests in the generator, and the
// corrected latencies measure that queue as much as the server.
bool connectionWaitSignificant(const HdrHistogram& wait, const HdrHistogram& corrected);

// A sentence when connectionWaitSignificant holds for the run, with the figures and the
// --connections that would hold the rate at the latency the server gave (rate × uncorrected p99,
// by Little's law); nothing otherwise.
std::optional<std::string> connectionPoolWarning(const LoadResult& result);

class LoadGenerator {
  public:
    // Throws std::invalid_argument for a schedule with no positive rate or one SendTimes refuses,
    // a duration or timeout <= 0 or above kLongestLoad, max_results out of range (gateway::maxResultsInRange), or an interval <= 0; for a plan out of order, outside the
    // duration, or with a target, key or header value that cannot be sent.
    explicit LoadGenerator(LoadConfig config);

    using IntervalCallback = std::function<void(const LoadInterval&)>;
    // Runs the load (see the header comment). `on_interval` is called once every interval and once
    // for the last partial one, on the calling thread.
    LoadResult run(const IntervalCallback& on_interval = {});
    // Ends the run early, within a few tenths of a second whatever the timeout: no more sends,
    // and the requests still waiting for a connection, or in flight 300 ms later, are counted as
    // abandoned and recorded at their age then (see the header comment). Safe from any thread or
    // a signal handler.
    void stop() { stop_.store(true); }

    const LoadConfig& config() const { return config_; }

  private:
    LoadConfig config_;
    std::vector<std::string> bodies_;
    std::atomic<bool> stop_{false};
};

}  // namespace taillab::live
