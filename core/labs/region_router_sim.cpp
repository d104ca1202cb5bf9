#include "labs/region_router_sim.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "labs/fifo_ring.h"
#include "sim/event_queue.h"

namespace taillab::region_router {
namespace {

constexpr std::uint32_t kIdle = 0xffffffffu;
constexpr std::int64_t kCheckpointMask = 4095;
constexpr int kMaxNodes = 64;
constexpr double kIncidentSpanS = 120;  // the neighbours' latency is measured this long

// Heat: how much more than its capacity a city asks for (1 = balanced). Throttled: one of the
// region's nodes runs at a third of its rate, which only its health record shows.
const std::array<RegionInfo, kMaxRegions> kRegions{{
    {"fra", 50.11, 8.68, 1.00, false},    {"ams", 52.37, 4.90, 0.95, false},
    {"lhr", 51.47, -0.45, 0.95, false},   {"par", 48.86, 2.35, 0.85, false},
    {"mad", 40.42, -3.70, 1.40, false},   {"mil", 45.46, 9.19, 1.00, true},
    {"sto", 59.33, 18.07, 0.80, false},   {"waw", 52.23, 21.01, 1.45, false},
    {"iad", 38.95, -77.46, 0.90, false},  {"ord", 41.98, -87.90, 0.80, false},
    {"dfw", 32.90, -97.04, 1.00, true},   {"sjc", 37.36, -121.93, 0.80, false},
    {"sea", 47.45, -122.31, 0.85, false}, {"yyz", 43.68, -79.63, 1.40, false},
    {"mia", 25.79, -80.29, 1.45, false},  {"lax", 33.94, -118.41, 1.40, false},
    {"gru", -23.43, -46.47, 1.05, false}, {"scl", -33.39, -70.79, 0.90, false},
    {"nrt", 35.77, 140.39, 0.90, false},  {"sin", 1.36, 103.99, 1.00, false},
    {"hkg", 22.31, 113.91, 1.00, true},   {"bom", 19.09, 72.87, 1.05, false},
    {"syd", -33.95, 151.18, 0.90, false}, {"jnb", -26.14, 28.25, 1.00, false},
}};

double greatCircleKm(const RegionInfo& a, const RegionInfo& b) {
    constexpr double kEarthKm = 6371.0;
    const double rad = std::numbers::pi / 180.0;
    const double dlat = (b.lat - a.lat) * rad, dlon = (b.lon - a.lon) * rad;
    const double h =
        std::sin(dlat / 2) * std::sin(dlat / 2) +
        std::cos(a.lat * rad) * std::cos(b.lat * rad) * std::sin(dlon / 2) * std::sin(dlon / 2);
    return 2 * kEarthKm * std::asin(std::min(1.0, std::sqrt(h)));
}

enum class Kind : std::uint32_t { Arrival = 0, Done = 1, Timeout = 2, Health = 3, Fault = 4 };

struct Payload {
    std::uint32_t bits = 0;
    static Payload make(Kind k, std::uint32_t index) {
        return Payload{(index << 3) | static_cast<std::uint32_t>(k)};
    }
    Kind kind() const { return static_cast<Kind>(bits & 7u); }
    std::uint32_t index() const { return bits >> 3; }
};

enum class State : std::uint8_t { Queued, Running, Between };

struct Request {
    Time arrival{0};
    Time enqueued{0};
    Duration demand{0};
    Duration rttSum{0};
    TimerId timeout;
    std::uint32_t attempt = 0;  // id of the current attempt (unique over the run)
    std::uint32_t window = 0;
    std::int16_t edge = 0;
    std::int16_t region = 0;
    std::uint8_t tries = 0;
    State state = State::Between;
    bool measured = false;
    bool timerPending = false;
    bool faulty = false;  // its first attempt fails after service (a transient runtime error)
};

struct QueueEntry {
    std::uint32_t slot;
    std::uint32_t attempt;
};

struct Node {
    double speed = 1;
    bool up = true;
    std::uint32_t current = kIdle;
    TimerId done;
};

struct Record {  // what a region last published
    double depth = 0;
    double ratePerMs = 0;
    double lostShare = 0;
    double errorRate = 0;  // smoothed, as a fraction
    bool unhealthy = false;
};

struct Region {
    std::vector<Node> nodes;
    FifoRing<QueueEntry> queue;
    int waiting = 0;  // queued attempts still live
    int upNodes = 0;
    double nominal = 0;                                    // Σ full-rate nodes
    double actual = 0;                                     // Σ speeds of the nodes up
    std::int64_t completed = 0, received = 0, errors = 0;  // over the current interval
    double sentSince = 0;  // attempts the router sent since the record
    Record record;
};

class Fleet {
  public:
    Fleet(const FleetConfig& c, FleetStreams streams)
        : cfg_(c), rng_(std::move(streams)), run_(latencyHdrConfig()) {
        const auto n = static_cast<std::size_t>(cfg_.regions);
        regions_.resize(n);
        rtt_.resize(n * n);
        nearest_.resize(n * n);
        std::vector<double> demand(n);
        double total = 0;
        for (std::size_t r = 0; r < n; ++r) {
            Region& g = regions_[r];
            g.nodes.resize(static_cast<std::size_t>(cfg_.nodes));
            if (cfg_.throttle && kRegions[r].throttled) g.nodes[0].speed = 1.0 / 3.0;
            g.upNodes = cfg_.nodes;
            g.nominal = cfg_.nodes;
            for (const Node& node : g.nodes) g.actual += node.speed;
            g.record.lostShare = 1 - g.actual / g.nominal;
            demand[r] = g.nominal * std::max(0.0, 1 + cfg_.skew * (kRegions[r].heat - 1));
            total += demand[r];
            for (std::size_t to = 0; to < n; ++to)
                rtt_[r * n + to] = fromMs(rttMs(static_cast<int>(r), static_cast<int>(to)));
            std::vector<std::int16_t> order(n);
            for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::int16_t>(i);
            std::stable_sort(order.begin(), order.end(), [&](std::int16_t a, std::int16_t b) {
                return rtt_[r * n + static_cast<std::size_t>(a)] <
                       rtt_[r * n + static_cast<std::size_t>(b)];
            });
            std::copy(order.begin(), order.end(),
                      nearest_.begin() + static_cast<std::ptrdiff_t>(r * n));
        }
        double acc = 0;
        for (std::size_t r = 0; r < n; ++r) {
            acc += total > 0 ? demand[r] / total : 1.0 / static_cast<double>(n);
            edgeCdf_.push_back(acc);
        }
        edgeCdf_.back() = 1.0;
        interarrivalMs_ = 1000.0 / (cfg_.load * fleetCapacityPerS(cfg_));
        phaseMeanMs_ = cfg_.serviceMs / cfg_.serviceShape;
        duration_ = fromSeconds(cfg_.durationS);
        warmup_ = fromSeconds(cfg_.warmupS);
        windowNs_ = fromSeconds(cfg_.windowS).count();
        health_ = fromMs(cfg_.healthIntervalMs);
        errorAlpha_ = 1 - std::exp(-cfg_.healthIntervalMs / 1000.0 / cfg_.errorWindowS);
        const auto windows =
            static_cast<std::size_t>(std::ceil(cfg_.durationS / cfg_.windowS - 1e-9));
        run_.windows.assign(std::max<std::size_t>(windows, 1), Window(latencyHdrConfig()));
        run_.fraSentPerSecond.assign(static_cast<std::size_t>(std::ceil(cfg_.durationS)) + 1, 0);
        run_.waitSumPerWindow.assign(run_.windows.size(), 0.0);
        run_.waitCountPerWindow.assign(run_.windows.size(), 0);
        faultAt_ = fromSeconds(cfg_.faultAtS);
        events_.reserve(4096);
    }

    FleetRun run(const ProgressSlice& progress) {
        scheduleArrival();
        events_.schedule(health_, Payload::make(Kind::Health, 0));
        for (int k = 0; k < cfg_.faultNodes; ++k)
            events_.schedule(fromSeconds(faultTimeS(cfg_, k)),
                             Payload::make(Kind::Fault, static_cast<std::uint32_t>(k)));
        while (auto ev = events_.pop()) {
            now_ = ev->at;
            switch (ev->payload.kind()) {
                case Kind::Arrival:
                    onArrival();
                    break;
                case Kind::Done:
                    onDone(ev->payload.index());
                    break;
                case Kind::Timeout:
                    onTimeout(ev->payload.index());
                    break;
                case Kind::Health:
                    onHealth();
                    break;
                case Kind::Fault:
                    onFault();
                    break;
            }
            if ((++run_.events & kCheckpointMask) == 0 && progress.control) {
                if (!progress.control->checkpoint()) {
                    run_.cancelled = true;
                    break;
                }
                progress.control->reportProgress(
                    progress.base +
                    progress.span * std::min(1.0, toSeconds(now_) / cfg_.durationS));
            }
        }
        run_.inFlightAtEnd = inFlight_;
        return std::move(run_);
    }

  private:
    std::size_t n() const { return regions_.size(); }
    Duration rtt(int from, int to) const {
        return rtt_[static_cast<std::size_t>(from) * n() + static_cast<std::size_t>(to)];
    }
    std::size_t windowOf(Time t) const {
        return std::min(static_cast<std::size_t>(t.count() / windowNs_), run_.windows.size() - 1);
    }

    void scheduleArrival() {
        const Time at = now_ + fromMs(rng_.arrivals.exponential(interarrivalMs_));
        if (at < duration_) events_.schedule(at, Payload::make(Kind::Arrival, 0));
    }

    void onArrival() {
        const std::uint32_t slot = alloc();
        Request& q = reqs_[slot];
        const double u = rng_.arrivals.uniform();
        std::size_t e = 0;
        while (e + 1 < edgeCdf_.size() && u >= edgeCdf_[e]) ++e;
        double ms = 0;
        for (int k = 0; k < cfg_.serviceShape; ++k) ms += rng_.service.exponential(phaseMeanMs_);
        q.arrival = now_;
        q.demand = fromMs(ms);
        q.rttSum = Duration{0};
        q.edge = static_cast<std::int16_t>(e);
        q.tries = 0;
        q.measured = now_ >= warmup_;
        q.window = static_cast<std::uint32_t>(windowOf(now_));
        q.timerPending = false;
        q.faulty = rng_.errors.bernoulli(cfg_.errorShare);
        ++run_.arrived;
        ++inFlight_;
        dispatch(slot, choose(static_cast<int>(e), -1));
        scheduleArrival();
    }

    // The region a request from `edge` goes to, never `exclude` when another can take it.
    int choose(int edge, int exclude) const {
        const std::size_t base = static_cast<std::size_t>(edge) * n();
        if (cfg_.router == Router::Switch) {
            for (std::size_t i = 0; i < n(); ++i) {
                const int r = nearest_[base + i];
                const Region& g = regions_[static_cast<std::size_t>(r)];
                if (r != exclude && g.upNodes > 0 && !g.record.unhealthy) return r;
            }
            for (std::size_t i = 0; i < n(); ++i)
                if (nearest_[base + i] != exclude) return nearest_[base + i];
            return exclude;
        }
        const double elapsedMs = toMs(now_ - recordAt_);
        int best = -1;
        double bestScore = 0;
        const std::size_t candidates =
            std::min<std::size_t>(n(), static_cast<std::size_t>(cfg_.candidates));
        for (std::size_t i = 0; i < candidates; ++i) {
            const auto r = static_cast<std::size_t>(nearest_[base + i]);
            const Region& g = regions_[r];
            if (static_cast<int>(r) == exclude || g.upNodes == 0) continue;
            const Record& rec = g.record;
            const double depth = std::max(0.0, rec.depth + g.sentSince - rec.ratePerMs * elapsedMs);
            const double score = toMs(rtt_[base + r]) + depth * cfg_.perRequestCostMs +
                                 cfg_.hardwarePenaltyMs * rec.lostShare +
                                 cfg_.errorPenaltyMs * 100 * rec.errorRate;
            if (best < 0 || score < bestScore) {
                best = static_cast<int>(r);
                bestScore = score;
            }
        }
        return best < 0 ? (exclude >= 0 ? exclude : edge) : best;
    }

    void dispatch(std::uint32_t slot, int r) {
        Request& q = reqs_[slot];
        Region& g = regions_[static_cast<std::size_t>(r)];
        q.region = static_cast<std::int16_t>(r);
        q.attempt = ++attemptSeq_;
        q.rttSum += rtt(q.edge, r);
        ++q.tries;
        ++g.received;
        g.sentSince += 1;
        if (r < kTracked) {
            ++run_.windows[windowOf(now_)].sent[static_cast<std::size_t>(r)];
            if (r == kFra) {
                const auto s = std::min(static_cast<std::size_t>(toSeconds(now_)),
                                        run_.fraSentPerSecond.size() - 1);
                ++run_.fraSentPerSecond[s];
            }
        }
        const int node = idleNode(g);
        if (node >= 0) {
            q.state = State::Running;
            if (q.tries == 1) noteWait(q, 0.0);
            start(r, node, slot);
            return;
        }
        if (g.waiting >= cfg_.queueLimit) {
            ++g.errors;
            attemptFailed(slot);
            return;
        }
        q.state = State::Queued;
        q.enqueued = now_;
        g.queue.push({slot, q.attempt});
        ++g.waiting;
        if (r < kTracked) {
            auto& peak = now_ >= faultAt_ && cfg_.faultNodes > 0
                             ? run_.peakDepthAfter[static_cast<std::size_t>(r)]
                             : run_.peakDepthBefore[static_cast<std::size_t>(r)];
            peak = std::max(peak, g.waiting);
        }
        q.timeout = events_.schedule(now_ + fromMs(cfg_.queueTimeoutMs),
                                     Payload::make(Kind::Timeout, slot));
        q.timerPending = true;
    }

    // The fastest idle node (a throttled node only takes work when the others are busy).
    static int idleNode(const Region& g) {
        int best = -1;
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
            const Node& nd = g.nodes[i];
            if (nd.up && nd.current == kIdle &&
                (best < 0 || nd.speed > g.nodes[static_cast<std::size_t>(best)].speed))
                best = static_cast<int>(i);
        }
        return best;
    }

    void noteWait(const Request& q, double waitMs) {
        if (!q.measured) return;
        run_.waitSumPerWindow[q.window] += waitMs;
        ++run_.waitCountPerWindow[q.window];
    }

    void start(int r, int node, std::uint32_t slot) {
        Node& nd = regions_[static_cast<std::size_t>(r)].nodes[static_cast<std::size_t>(node)];
        Request& q = reqs_[slot];
        nd.current = slot;
        const auto service =
            Duration{std::llround(static_cast<double>(q.demand.count()) / nd.speed)};
        nd.done = events_.schedule(
            now_ + service,
            Payload::make(Kind::Done, static_cast<std::uint32_t>(r * kMaxNodes + node)));
    }

    // Gives an idle node that is up the next live attempt in its region's queue.
    void startNext(int r, int node) {
        Region& g = regions_[static_cast<std::size_t>(r)];
        const Node& nd = g.nodes[static_cast<std::size_t>(node)];
        if (!nd.up || nd.current != kIdle) return;
        while (!g.queue.empty()) {
            const QueueEntry e = g.queue.pop();
            Request& q = reqs_[e.slot];
            if (q.attempt != e.attempt || q.state != State::Queued) continue;  // timed out
            --g.waiting;
            q.state = State::Running;
            if (q.timerPending) {
                events_.cancel(q.timeout);
                q.timerPending = false;
            }
            if (q.tries == 1) noteWait(q, toMs(now_ - q.enqueued));
            start(r, node, e.slot);
            return;
        }
    }

    void onDone(std::uint32_t index) {
        const int r = static_cast<int>(index / kMaxNodes);
        const int node = static_cast<int>(index % kMaxNodes);
        Region& g = regions_[static_cast<std::size_t>(r)];
        const std::uint32_t slot = g.nodes[static_cast<std::size_t>(node)].current;
        g.nodes[static_cast<std::size_t>(node)].current = kIdle;
        ++g.completed;
        Request& q = reqs_[slot];
        if (q.faulty && q.tries == 1) {
            ++g.errors;
            // The node goes to the region's queue first: the retry may come back to this region
            // (the only one, or the only candidate up) and then waits behind what was queued.
            startNext(r, node);
            attemptFailed(slot);
            return;
        }
        const Duration latency = now_ - q.arrival + q.rttSum;
        if (q.measured) {
            run_.windows[q.window].latency.record(toUs(latency));
            if ((r == kAms || r == kLhr) && cfg_.faultNodes > 0 && q.arrival >= faultAt_ &&
                q.arrival < faultAt_ + fromSeconds(kIncidentSpanS))
                run_.neighbourLatency.record(toUs(latency));
        }
        ++run_.completed;
        finish(slot);
        startNext(r, node);
    }

    void onTimeout(std::uint32_t slot) {
        Request& q = reqs_[slot];
        q.timerPending = false;
        if (q.state != State::Queued) return;
        Region& g = regions_[static_cast<std::size_t>(q.region)];
        --g.waiting;
        ++g.errors;
        attemptFailed(slot);
    }

    // A failed attempt: retried in another region while tries remain, else failed for good.
    void attemptFailed(std::uint32_t slot) {
        Request& q = reqs_[slot];
        q.state = State::Between;
        if (q.tries <= cfg_.maxRetries) {
            ++run_.retries;
            ++run_.windows[windowOf(now_)].retries;
            dispatch(slot, choose(q.edge, q.region));
            return;
        }
        if (q.measured) {
            run_.windows[q.window].latency.record(toUs(now_ - q.arrival + q.rttSum));
            ++run_.windows[q.window].failed;
        }
        ++run_.failed;
        finish(slot);
    }

    void onFault() {
        Region& g = regions_[kFra];
        for (std::size_t i = g.nodes.size(); i-- > 0;) {
            Node& nd = g.nodes[i];
            if (!nd.up) continue;
            nd.up = false;
            --g.upNodes;
            g.actual -= nd.speed;
            if (nd.current != kIdle) {
                events_.cancel(nd.done);
                const std::uint32_t slot = nd.current;
                nd.current = kIdle;
                ++g.errors;
                attemptFailed(slot);
            }
            return;
        }
    }

    void onHealth() {
        const double intervalMs = cfg_.healthIntervalMs;
        for (Region& g : regions_) {
            Record& rec = g.record;
            rec.depth = g.waiting;
            rec.ratePerMs = static_cast<double>(g.completed) / intervalMs;
            rec.lostShare = 1 - g.actual / g.nominal;
            const double errors =
                g.received > 0 ? static_cast<double>(g.errors) / static_cast<double>(g.received)
                               : 0.0;
            rec.errorRate += errorAlpha_ * (std::min(1.0, errors) - rec.errorRate);
            rec.unhealthy = g.upNodes == 0 || rec.lostShare >= cfg_.unhealthyLostShare ||
                            rec.errorRate >= cfg_.unhealthyErrorRate;
            g.completed = g.received = g.errors = 0;
            g.sentSince = 0;
        }
        recordAt_ = now_;
        if (now_ < duration_ || inFlight_ > 0)
            events_.schedule(now_ + health_, Payload::make(Kind::Health, 0));
    }

    std::uint32_t alloc() {
        if (!free_.empty()) {
            const std::uint32_t s = free_.back();
            free_.pop_back();
            return s;
        }
        reqs_.emplace_back();
        return static_cast<std::uint32_t>(reqs_.size() - 1);
    }
    void finish(std::uint32_t slot) {
        reqs_[slot].state = State::Between;
        --inFlight_;
        free_.push_back(slot);
    }

    FleetConfig cfg_;
    FleetStreams rng_;
    FleetRun run_;
    std::vector<Region> regions_;
    std::vector<Duration> rtt_;
    std::vector<std::int16_t> nearest_;  // per edge, regions by round trip
    std::vector<double> edgeCdf_;
    std::vector<Request> reqs_;
    std::vector<std::uint32_t> free_;
    EventQueue<Payload> events_;
    Time now_{0}, recordAt_{0}, duration_{0}, warmup_{0}, faultAt_{0};
    Duration health_{0};
    std::int64_t windowNs_ = 1;
    std::int64_t inFlight_ = 0;
    std::uint32_t attemptSeq_ = 0;
    double interarrivalMs_ = 1, phaseMeanMs_ = 1, errorAlpha_ = 0.1;
};

}  // namespace

const std::array<RegionInfo, kMaxRegions>& regionTable() { return kRegions; }

double rttMs(int from, int to) {
    constexpr double kInCityMs = 2.0, kMsPer100Km = 1.5;
    return kInCityMs + kMsPer100Km *
                           greatCircleKm(kRegions[static_cast<std::size_t>(from)],
                                         kRegions[static_cast<std::size_t>(to)]) /
                           100.0;
}

FleetStreams fleetStreams(std::uint64_t seed) {
    return FleetStreams{Rng(seed, "region_router/arrivals"), Rng(seed, "region_router/service"),
                        Rng(seed, "region_router/errors")};
}

HdrConfig latencyHdrConfig() { return HdrConfig{1, 60'000'000LL, 3}; }

double fleetCapacityPerS(const FleetConfig& c) {
    return static_cast<double>(c.regions) * c.nodes * 1000.0 / c.serviceMs;
}

double faultTimeS(const FleetConfig& c, int k) {
    if (c.faultNodes <= 1) return c.faultAtS;
    return c.faultAtS + c.faultSpreadS * k / (c.faultNodes - 1);
}

FleetRun runFleet(const FleetConfig& config, FleetStreams streams, const ProgressSlice& progress) {
    Fleet fleet(config, std::move(streams));
    return fleet.run(progress);
}

}  // namespace taillab::region_router
