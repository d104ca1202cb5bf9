// The engine benchmark: the hedged FIFO model of hedge_loaded (10 servers, load 0.5, exponential
// service with mean 10 ms, a hedge after a fixed 20 ms, backup_only cancellation) run twice on
// the same random draws:
//  - BareLoop: a self-contained event loop on std::priority_queue with a switch on the event
//    kind; cancellation is a flag (a hedge timer) or a generation number (a stopped service) that
//    makes the stale entry a no-op when it surfaces;
//  - TailLabEngine: runHedgeSim, i.e. taillab::EventQueue with cancellable timers.
// Both report events/s and ns per dispatched event (stale entries are not counted), and the
// bare loop's dispatched events must equal the engine's: same model, same draws, same events.
// Target: the engine within 1.5x of the bare loop per event.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <queue>
#include <vector>

#include "labs/hedge_loaded_sim.h"

namespace {

using taillab::Rng;

constexpr int kServers = 10;
constexpr double kLoad = 0.5;
constexpr double kMeanMs = 10.0;
constexpr double kDelayMs = 20.0;
constexpr std::int64_t kRequests = 1'000'000;

taillab::HedgeSimStreams streams() {
    const std::uint64_t seed = 2024;
    auto s = [&](const char* name) { return Rng(seed, name); };
    return {s("arrivals"), s("routing"), s("service"), s("backup_routing"), s("backup_service")};
}

std::int64_t ns(double ms) { return std::llround(ms * 1e6); }

// The bare model: the same state machine as hedge_loaded_sim.cpp, minus accounting.
class BareLoop {
  public:
    explicit BareLoop(taillab::HedgeSimStreams rng) : rng_(std::move(rng)), servers_(kServers) {}

    std::int64_t run() {
        scheduleArrival();
        while (!heap_.empty()) {
            const Ev ev = heap_.top();
            heap_.pop();
            now_ = ev.at;
            switch (ev.kind) {
                case kArrival:
                    onArrival();
                    break;
                case kHedge:
                    if (!timerLive(ev)) continue;  // cancelled
                    reqs_[ev.index].timerPending = false;
                    sendBackup(ev.index);
                    break;
                case kDone:
                    if (servers_[ev.index].generation != ev.generation) continue;  // stopped
                    onDone(ev.index);
                    break;
            }
            ++events_;
        }
        return events_;
    }
    std::int64_t answered() const { return answered_; }

  private:
    enum Kind : std::uint8_t { kArrival, kHedge, kDone };
    struct Ev {
        std::int64_t at;
        std::uint64_t seq;
        std::uint32_t index;
        std::uint32_t generation;
        Kind kind;
        bool operator<(const Ev& o) const {  // priority_queue is a max-heap
            return at > o.at || (at == o.at && seq > o.seq);
        }
    };
    enum State : std::uint8_t { kAbsent, kQueued, kRunning, kOver };
    struct Req {
        std::int64_t arrival = 0, service[2] = {0, 0};
        std::uint32_t server[2] = {0, 0};
        State copy[2] = {kAbsent, kAbsent};
        std::uint8_t live = 0;  // copies still queued or running, dropped ones included
        bool answered = false, timerPending = false;
        std::uint32_t timerGeneration = 0;  // tells a reused slot's timer from a stale one
    };
    struct Server {
        std::queue<std::uint32_t> queue;
        std::uint32_t current = ~0u;
        std::uint32_t generation = 0;
    };

    bool timerLive(const Ev& ev) const {
        const Req& r = reqs_[ev.index];
        return r.timerPending && r.timerGeneration == ev.generation;
    }
    void push(std::int64_t at, Kind kind, std::uint32_t index, std::uint32_t gen = 0) {
        heap_.push(Ev{at, seq_++, index, gen, kind});
    }
    void scheduleArrival() {
        push(now_ + ns(rng_.arrivals.exponential(kMeanMs / (kLoad * kServers))), kArrival, 0);
    }
    std::uint32_t allocSlot() {
        if (!free_.empty()) {
            const std::uint32_t slot = free_.back();
            free_.pop_back();
            const std::uint32_t generation = reqs_[slot].timerGeneration + 1;
            reqs_[slot] = Req{};
            reqs_[slot].timerGeneration = generation;
            return slot;
        }
        reqs_.emplace_back();
        return static_cast<std::uint32_t>(reqs_.size() - 1);
    }
    void release(std::uint32_t slot) {
        const Req& r = reqs_[slot];
        if (r.answered && r.live == 0 && !r.timerPending) free_.push_back(slot);
    }
    void onArrival() {
        const std::uint32_t slot = allocSlot();
        ++arrived_;
        Req& r = reqs_[slot];
        r.arrival = now_;
        r.server[0] = static_cast<std::uint32_t>(rng_.routing.below(kServers));
        r.service[0] = ns(rng_.service.exponential(kMeanMs));
        enqueue(slot, 0);
        reqs_[slot].timerPending = true;
        push(now_ + ns(kDelayMs), kHedge, slot, reqs_[slot].timerGeneration);
        if (arrived_ < kRequests) scheduleArrival();
    }
    void sendBackup(std::uint32_t slot) {
        Req& r = reqs_[slot];
        auto b = static_cast<std::uint32_t>(rng_.backupRouting.below(kServers - 1));
        if (b >= r.server[0]) ++b;
        r.server[1] = b;
        r.service[1] = ns(rng_.backupService.exponential(kMeanMs));
        enqueue(slot, 1);
    }
    void enqueue(std::uint32_t slot, int which) {
        Req& r = reqs_[slot];
        r.copy[which] = kQueued;
        ++r.live;
        Server& s = servers_[r.server[which]];
        const std::uint32_t handle = (slot << 1) | static_cast<std::uint32_t>(which);
        if (s.current == ~0u)
            start(r.server[which], handle);
        else
            s.queue.push(handle);
    }
    void start(std::uint32_t server, std::uint32_t handle) {
        Server& s = servers_[server];
        Req& r = reqs_[handle >> 1];
        s.current = handle;
        r.copy[handle & 1] = kRunning;
        push(now_ + r.service[handle & 1], kDone, server, s.generation);
    }
    void startNext(std::uint32_t server) {
        Server& s = servers_[server];
        while (!s.queue.empty()) {
            const std::uint32_t handle = s.queue.front();
            s.queue.pop();
            if (reqs_[handle >> 1].copy[handle & 1] == kOver) {  // dropped backup
                --reqs_[handle >> 1].live;
                release(handle >> 1);
                continue;
            }
            start(server, handle);
            return;
        }
    }
    void onDone(std::uint32_t server) {
        Server& s = servers_[server];
        const std::uint32_t handle = s.current;
        Req& r = reqs_[handle >> 1];
        s.current = ~0u;
        ++s.generation;
        r.copy[handle & 1] = kOver;
        --r.live;
        if (!r.answered) {
            r.answered = true;
            ++answered_;
            r.timerPending = false;  // the hedge timer, if still pending, becomes a no-op
            if ((handle & 1) == 0) stopBackup(r);
        }
        startNext(server);
        release(handle >> 1);
    }
    void stopBackup(Req& r) {  // backup_only: a losing backup is dropped or stopped
        if (r.copy[1] == kQueued) {
            r.copy[1] = kOver;
        } else if (r.copy[1] == kRunning) {
            r.copy[1] = kOver;
            --r.live;
            Server& s = servers_[r.server[1]];
            ++s.generation;
            s.current = ~0u;
            startNext(r.server[1]);
        }
    }

    taillab::HedgeSimStreams rng_;
    std::vector<Server> servers_;
    std::vector<Req> reqs_;
    std::vector<std::uint32_t> free_;
    std::priority_queue<Ev> heap_;
    std::int64_t now_ = 0;
    std::uint64_t seq_ = 0;
    std::int64_t events_ = 0;
    std::int64_t arrived_ = 0;
    std::int64_t answered_ = 0;
};

using Clock = std::chrono::steady_clock;

double elapsedNs(Clock::time_point since) {
    return std::chrono::duration<double, std::nano>(Clock::now() - since).count();
}

taillab::HedgeSimConfig engineConfig() {
    taillab::HedgeSimConfig cfg;
    cfg.servers = kServers;
    cfg.load = kLoad;
    cfg.service = taillab::ExponentialModel{kMeanMs};
    cfg.requests = kRequests;
    cfg.warmup = 0;
    cfg.mode = taillab::HedgeMode::Delayed;
    cfg.hedgeDelay = taillab::fromMs(kDelayMs);
    cfg.cancel = taillab::CancelRule::BackupOnly;
    return cfg;
}

// Times one run of each; returns {events, bare ns, engine ns}.
struct Timed {
    std::int64_t bareEvents = 0, engineEvents = 0;
    double bareNs = 0, engineNs = 0;
};

Timed timeBoth(taillab::HdrHistogram& response) {
    Timed t;
    auto start = Clock::now();
    BareLoop loop(streams());
    t.bareEvents = loop.run();
    t.bareNs = elapsedNs(start);
    start = Clock::now();
    t.engineEvents = taillab::runHedgeSim(engineConfig(), streams(), response).events;
    t.engineNs = elapsedNs(start);
    return t;
}

void report(benchmark::State& state, std::int64_t events, double totalNs) {
    const double n = static_cast<double>(events) * static_cast<double>(state.iterations());
    state.counters["events"] = static_cast<double>(events);
    state.counters["events_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
    state.counters["ns_per_event"] = totalNs / n;
}

void BM_BareLoop(benchmark::State& state) {
    std::int64_t events = 0;
    double totalNs = 0;
    for (auto _ : state) {
        const auto start = Clock::now();
        BareLoop loop(streams());
        events = loop.run();
        totalNs += elapsedNs(start);
        if (loop.answered() != kRequests) state.SkipWithError("bare loop lost a request");
    }
    report(state, events, totalNs);
}

void BM_TailLabEngine(benchmark::State& state) {
    taillab::HdrHistogram response(taillab::hedgeResponseHdrConfig());
    std::int64_t events = 0;
    double totalNs = 0;
    for (auto _ : state) {
        const auto start = Clock::now();
        const taillab::HedgeSimStats s = taillab::runHedgeSim(engineConfig(), streams(), response);
        totalNs += elapsedNs(start);
        events = s.events;
        if (s.answered != kRequests) state.SkipWithError("engine lost a request");
    }
    report(state, events, totalNs);
}

// Both in the same iteration, so machine noise hits both alike: the ratio is the headline.
void BM_EngineOverBareLoop(benchmark::State& state) {
    taillab::HdrHistogram response(taillab::hedgeResponseHdrConfig());
    Timed sum;
    for (auto _ : state) {
        const Timed t = timeBoth(response);
        // Same model, same draws: both must dispatch exactly the same events.
        if (t.bareEvents != t.engineEvents) state.SkipWithError("bare loop and engine disagree");
        sum.bareEvents = t.bareEvents;
        sum.bareNs += t.bareNs;
        sum.engineNs += t.engineNs;
    }
    const double n = static_cast<double>(sum.bareEvents) * static_cast<double>(state.iterations());
    state.counters["bare_ns_per_event"] = sum.bareNs / n;
    state.counters["engine_ns_per_event"] = sum.engineNs / n;
    state.counters["engine_over_bare"] = sum.engineNs / sum.bareNs;
}

BENCHMARK(BM_BareLoop)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_TailLabEngine)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_EngineOverBareLoop)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
