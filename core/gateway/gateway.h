// Gateway: seed 000's search path as one sans-I/O state machine (see contract.h for the inputs,
// outputs and rules). It orchestrates the stages, each in its own file:
//   edge.h         region from the X-Region pin, else the key's home; spill order
//   rate_limits.h  API keys (401) and token buckets per key and endpoint (429)
//   admission.h    the adaptive concurrency limit per region (adaptive_limit.h), spill or shed
//                  (503), the batch lane
//   compiler.h     normalization, freshness class, cache key (compiler_memo.h remembers recent
//                  queries' analyses)
//   cache.h        L1 per instance, regional L2, stale-while-revalidate; coalescing.h one flight
//                  per key with waiters that detach near their deadline
//   router.h       power of two choices on the latency EWMA score, breakers per (region, engine)
//   hedging.h      hedge after a fixed or rolling delay under a budget; last-chance hedge
//   deadline.h     the absolute deadline and what each stage may still spend
//   validation.h   whether an answer may win; egress.h rests IPs that draw block pages
//   merge.h        dedupe, rank, slice
//   metrics.h      counters, windows, histograms for snapshots
// A request's life: onRequest runs edge, gateway, compiler and cache stages; a hit is merged and
// answered; a miss joins or leads a flight, the router picks the primary, the call goes out with
// a hedge timer and a deadline timer; the first valid answer wins (losers cancelled), is cached,
// answers the waiters, and is merged and answered. Every request ends exactly once, with one
// respond(). Stage time comes from the driver (Port::stageEnd): the gateway never invents it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/admission.h"
#include "gateway/cache.h"
#include "gateway/coalescing.h"
#include "gateway/compiler.h"
#include "gateway/compiler_memo.h"
#include "gateway/config.h"
#include "gateway/contract.h"
#include "gateway/deadline.h"
#include "gateway/egress.h"
#include "gateway/hedging.h"
#include "gateway/metrics.h"
#include "gateway/rate_limits.h"
#include "gateway/router.h"
#include "gateway/timer_queue.h"

namespace taillab::gateway {

class Gateway {
public:
    // Throws std::invalid_argument when the config is invalid (GatewayConfig::validate).
    Gateway(const GatewayConfig& config, std::uint64_t seed, Port& port);
    ~Gateway();
    Gateway(const Gateway&) = delete;
    Gateway& operator=(const Gateway&) = delete;

    // New settings from `now` on (an input like the others: `now` never goes backwards).
    // Structural sizes (engines, keys, instances, L1 capacity, egress IPs) stay as built; changing
    // one throws std::invalid_argument and changes nothing.
    void reconfigure(Time now, const GatewayConfig& config);
    const GatewayConfig& config() const { return cfg_; }

    // Inputs. `now` never goes backwards from one call to the next.
    RequestId onRequest(Time now, const Request& request);
    void onAnswer(Time now, CallId call, const UpstreamAnswer& answer);
    void onTimeout(Time now);
    // Ends every request still in flight at `now`, for a driver that stops serving before their
    // deadlines (live mode's stop, once its drain time is up): each is answered 503 with
    // Retry-After and `message`, counted as failed (deadline_missed: its deadline was cut short),
    // never disguised as an empty 200; background refreshes are dropped. Afterwards nothing is in
    // flight and no call is out.
    void endInFlight(Time now, std::string_view message);
    // When onTimeout next has work; nullopt when no timer is armed.
    std::optional<Time> pollTimeout();
    // The same as a plain Time, `none` when no timer is armed: for a driver that asks after
    // every input (an optional is built on the stack and read back whole, a stall each time).
    Time nextTimeoutOr(Time none);
    // A hint that `request` arrives soon: analyses its query and starts loading the cache slots
    // its lookup will probe. The promise that comes with it: the onRequest with the same trace id
    // carries the same bytes at the same addresses (its query and API key views), so what the
    // hint learned is used without looking again. Changes nothing a run can observe.
    void prefetch(const Request& request);
    // A hint for a request further ahead (same promise): hashes its query and starts loading the
    // memo slot its analysis sits in, so that prefetch() of it, a few requests later, does not
    // wait on memory. `hash`: CompilerMemo::hashOf(query) when the driver has it, else 0.
    void prefetchQuery(std::string_view query, std::uint64_t hash = 0);

    // A region's breaker (the driver's health model: its probes fail on much of its capacity):
    // while open, no unpinned request is rerouted or spilled into it; pinned ones still go.
    void setRegionOpen(Region region, bool open) { admission_.setOpen(region, open); }
    // The share of `region`'s requests its cold standby's own instances serve (config
    // standby_instances; 0: none, as before it came up). Its instances start with empty L1s and
    // no open connections; going back to 0 forgets which connections they had opened.
    void setStandbyShare(Region region, double share);
    bool regionOpen(Region region) const { return admission_.isOpen(region); }

    // Measurement: the driver closes chart windows at its cadence and takes snapshots.
    void closeWindow(Time now);
    void fillSnapshot(GatewaySnapshot& s, Time now);
    GatewayMetrics& metrics() { return metrics_; }

    // State, for drivers, views and tests.
    int inflight(Region r) const { return admission_.inflight(r); }
    int admissionLimit(Region r) const { return admission_.limit(r); }
    double hedgeBudgetLevel() const { return hedging_.budgetLevel(); }
    std::size_t requestsInFlight() const { return live_; }
    std::size_t callsInFlight() const { return liveCalls_; }

private:
    struct Req;
    struct Call;
    struct Busy;  // the re-entry guard

    std::uint32_t newRequest();
    Time stage(Stage s, Time start, const Req& q, StageWork work = {});
    void admitted(Time now, std::uint32_t r, Time t, std::string_view raw);
    void lookup(Time now, std::uint32_t r, Time t, std::string_view normalized);
    void serve(Time now, std::uint32_t r, Time t, const RankedResults* results, bool cached,
               bool stale);
    void startEngines(Time now, std::uint32_t r, Time t);
    bool startCall(Time at, std::uint32_t r, int engine, CallRole role);
    void onTimer(Time now, std::uint32_t r, TimerKind kind);
    void cancelOutstanding(Time now, std::uint32_t r);
    void completeFlight(Time now, std::uint32_t r, const std::shared_ptr<const RankedResults>& answer);
    void spawnRefresh(Time now, std::uint32_t r, Time t, std::string_view normalized);
    void finish(Time now, std::uint32_t r, Outcome o, Time at, const RankedResults* results = nullptr,
                std::optional<Duration> retryAfter = {}, std::string_view message = {});
    void release(Time now, std::uint32_t r);
    void retire(std::uint32_t r);
    void arm(std::uint32_t r, TimerKind kind, Time at);
    void disarm(std::uint32_t r, TimerKind kind);
    void noteBreakers();
    CacheKeyPrefix keyPrefix(Endpoint endpoint, Region region, std::string_view lang);
    int instanceFor(std::uint64_t trace, Region region) const;

    GatewayConfig cfg_;
    std::uint64_t seed_;
    Port& port_;
    bool busy_ = false;
    bool endingAll_ = false;  // inside endInFlight
    Deadline deadline_;
    ApiKeys keys_;
    RateLimits rateLimits_;
    Admission admission_;
    CompilerMemo memo_;
    Cache cache_;
    Flights flights_;
    Router router_;
    Hedging hedging_;
    Egress egress_;
    GatewayMetrics metrics_;
    // Cold standby: the share of each region's requests on its own instances, and which
    // (region, standby instance, engine, IP) have opened a connection.
    std::array<double, kRegions> standbyShare_{};
    std::vector<bool> standbyWarm_;
    TimerQueue timers_;
    std::uint64_t liveTop_ = 0;  // the heap top's sequence number, when known to be armed
    FlatMap<CacheKeyPrefix> prefixes_{16};
    std::deque<Req> reqs_;  // deques: references stay valid as they grow
    std::vector<std::uint32_t> freeReqs_;
    std::deque<Call> calls_;
    std::vector<std::uint32_t> freeCalls_;
    std::size_t live_ = 0, liveCalls_ = 0;
    std::vector<std::uint32_t> landing_;  // waiters of the flight being completed
    // What prefetch() learned of the requests about to arrive, by trace id: onRequest finds its
    // query's analysis there instead of hashing the text again.
    struct Prefetched {
        std::uint64_t trace = 0;
        std::string_view query, apiKey;  // compared by address: see prefetch()
        CompilerMemo::Ref ref;
        std::uint32_t key = 0;
    };
    std::array<Prefetched, 8> prefetched_{};
    struct Hashed {
        std::string_view query;
        std::uint64_t hash = 0;
    };
    std::array<Hashed, 16> hashed_{};  // prefetchQuery()'s hashes, by address
    // Cache-key prefixes of recent (endpoint, region, lang) triples, by the lang's address.
    struct PrefixEntry {
        std::string_view lang;
        Endpoint endpoint{};
        Region region{};
        CacheKeyPrefix prefix;
    };
    std::array<PrefixEntry, 32> recentPrefixes_{};
    std::array<std::string, 32> langCopies_;  // the bytes recentPrefixes_' views point at
};

}  // namespace taillab::gateway
