// The simulation driver of the gateway path: a discrete-event loop on a virtual clock that feeds
// GatewayPath with arrivals from the Workload, answers from the simulated Fleet (through egress
// IPs with per-IP rate limits and a per-engine concurrency capacity), and timers.
#include "gateway_sim/gateway_sim.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <sstream>
#include <stdexcept>

#include "fleet/fleet.h"
#include "gateway/gateway_path.h"
#include "workload/workload.h"
#include "sim/event_queue.h"

namespace taillab::gateway {
namespace {

enum class EventType : std::uint8_t { Answer, Timer, Hour, Window, Probe };

struct Event {
    EventType type;
    std::uint8_t kind;   // TimerKind for timers, region for probes
    std::uint32_t index; // arrival index in the hour buffer, call id, request id
};

constexpr double kIpBurst = 30, kIpRatePerS = 3;  // an upstream's limit per egress IP
constexpr double kProbeIntervalS = 15;
constexpr std::uint32_t kPrefetchAhead = 4;  // arrivals whose cache slots are loaded ahead

std::string formatValue(const Params& p, const KnobSpec& k) {
    switch (k.kind) {
        case KnobKind::Choice: return p.choice(k.key);
        case KnobKind::Boolean: return p.flag(k.key) ? "on" : "off";
        default: {
            std::ostringstream out;
            out << p.real(k.key);
            return out.str();
        }
    }
}

}  // namespace

struct GatewaySim::Impl final : Port {
    Impl(const Params& p, std::uint64_t s)
        : params(p), seed(s), workload(p, s), fleet(FleetConfig::fromParams(p), s),
          path(PathConfig::fromParams(p), workload, s, *this), rng(s, "gateway/driver") {
        end = workload.end();
        window = fromSeconds(p.real("window_s"));
        probes = p.flag("probes");
        capacity = p.integer("engine_capacity");
        egressIps = p.integer("egress_ips");
        ipBuckets.assign(static_cast<std::size_t>(kRegions * egressIps * kEngines),
                         TokenBucket(kIpBurst, kIpRatePerS, kZero));
        lastServed.assign(ipBuckets.size(), 0);
        queue.reserve(1 << 16);
        queue.schedule(kZero, Event{EventType::Hour, 0, 0});
        queue.schedule(window, Event{EventType::Window, 0, 0});
        if (probes) {
            for (int g = 0; g < kRegions; ++g)
                queue.schedule(fromSeconds(kProbeIntervalS * (g + 1) / kRegions),
                               Event{EventType::Probe, static_cast<std::uint8_t>(g), 0});
        }
    }

    // Port.
    void startCall(std::uint32_t call, int engine, int region, int egressIp, QueryClass cls,
                   std::uint64_t key, int results, double shared, Time at) override {
        if (call >= calls.size()) calls.resize(call + 1);
        CallState& c = calls[call];
        c = CallState{};
        c.engine = static_cast<std::uint8_t>(engine);
        c.region = static_cast<std::uint8_t>(region);
        c.ip = static_cast<std::uint8_t>(egressIp);
        c.cls = cls;
        c.key = key;
        c.results = static_cast<std::uint16_t>(results);
        c.shared = shared;
        c.live = true;
        int& busy = engineBusy[region][engine];
        if (busy >= capacity) {
            c.queued = true;
            waiting[region][engine].push_back(call);
            return;
        }
        ++busy;
        launch(call, at);
    }
    void cancelCall(std::uint32_t call) override {
        CallState& c = calls[call];
        if (!c.live) return;
        c.live = false;
        if (c.queued) return;  // skipped when its turn comes
        queue.cancel(c.event);
        release(c.region, c.engine);
    }
    std::uint64_t setTimer(Time at, TimerKind kind, std::uint32_t request) override {
        const TimerId id =
            queue.schedule(std::max(at, now), Event{EventType::Timer, static_cast<std::uint8_t>(kind), request});
        return (static_cast<std::uint64_t>(id.slot) << 32 | id.generation) + 1;
    }
    void cancelTimer(std::uint64_t timer) override {
        const std::uint64_t v = timer - 1;
        queue.cancel(TimerId{static_cast<std::uint32_t>(v >> 32), static_cast<std::uint32_t>(v)});
    }

    void launch(std::uint32_t call, Time at) {
        CallState& c = calls[call];
        c.queued = false;
        Fleet::Draw d = fleet.call(c.engine, c.cls, c.key, c.results, c.shared);
        const std::size_t slot =
            static_cast<std::size_t>((c.region * egressIps + c.ip) * kEngines + c.engine);
        if (!ipBuckets[slot].take(at) && d.answer.kind == AnswerKind::Results) {
            // Over the upstream's limit for this egress IP: it serves its cached page, the
            // same bytes as its previous answer on this IP (or a block page if there was none).
            d.answer = lastServed[slot] ? AnswerSummary{AnswerKind::Results, c.results, c.results,
                                                        lastServed[slot]}
                                        : AnswerSummary{AnswerKind::BlockPage, 0, 0, 0};
            d.latency = d.latency / 3;
        }
        if (d.answer.kind == AnswerKind::Results) lastServed[slot] = d.answer.fingerprint;
        c.answer = d.answer;
        c.event = queue.schedule(at + d.latency, Event{EventType::Answer, 0, call});
    }
    void release(int region, int engine) {
        auto& w = waiting[region][engine];
        while (!w.empty()) {
            const std::uint32_t next = w.front();
            w.pop_front();
            if (calls[next].live) {
                launch(next, now);
                return;
            }
        }
        --engineBusy[region][engine];
    }

    // Runs every event at or before `target`: the heap's, and the arrivals of the current hour,
    // which are already sorted and so stream past the heap instead of through it (an hour holds
    // up to 20k of them; the heap keeps only timers and answers). On equal times the heap goes
    // first, so an hour's Hour event loads its arrivals before the first of them runs.
    bool runUntil(Time target, RunControl* control) {
        std::uint32_t sincePoll = 0;
        for (;;) {
            const std::optional<Time> next = queue.nextTime();
            const bool haveArrival = nextArrival < hourBuffer.size();
            const Time arrivalAt = haveArrival ? hourBuffer[nextArrival].at : Time::max();
            if (next && *next <= arrivalAt) {
                if (*next > target) return true;
                step(*queue.pop());
            } else if (haveArrival) {
                if (arrivalAt > target) return true;
                now = arrivalAt;
                ++events;
                if (nextArrival + kPrefetchAhead < hourBuffer.size())
                    path.prefetch(hourBuffer[nextArrival + kPrefetchAhead]);
                path.accept(now, hourBuffer[nextArrival++]);
            } else {
                return true;
            }
            if (control && ++sincePoll >= 4096) {
                sincePoll = 0;
                if (!control->checkpoint()) return false;
            }
        }
    }

    void step(const EventQueue<Event>::Event& ev) {
        now = ev.at;
        ++events;
        const Event& e = ev.payload;
        switch (e.type) {
            case EventType::Answer: {
                CallState& c = calls[e.index];
                if (!c.live) break;
                c.live = false;
                release(c.region, c.engine);
                path.onAnswer(now, e.index, c.answer);
                break;
            }
            case EventType::Timer: path.onTimer(now, static_cast<TimerKind>(e.kind), e.index); break;
            case EventType::Hour: {
                const int h = static_cast<int>(e.index);
                hourBuffer.clear();
                nextArrival = 0;
                workload.generateHour(h, hourBuffer);
                if (h + 1 < workload.hours())
                    queue.schedule(fromSeconds(3600.0 * (h + 1)), Event{EventType::Hour, 0,
                                                                        static_cast<std::uint32_t>(h + 1)});
                break;
            }
            case EventType::Window:
                path.closeWindow(now);
                if (now + window <= end) queue.schedule(now + window, Event{EventType::Window, 0, 0});
                break;
            case EventType::Probe: {
                RequestSpec probe;
                probe.at = now;
                probe.probe = true;
                probe.customer = e.kind;  // the probing region
                probe.query_class = QueryClass::Navigational;
                probe.query = 0xC0FFEE00ULL + (probeCount++ % 10);
                path.accept(now, probe);
                if (now + fromSeconds(kProbeIntervalS) < end)
                    queue.schedule(now + fromSeconds(kProbeIntervalS), ev.payload);
                break;
            }
        }
    }

    struct CallState {
        AnswerSummary answer;
        TimerId event{};
        std::uint64_t key = 0;
        double shared = 0;
        std::uint16_t results = 0;
        std::uint8_t engine = 0, region = 0, ip = 0;
        QueryClass cls = QueryClass::Evergreen;
        bool live = false, queued = false;
    };

    Params params;
    std::uint64_t seed;
    Workload workload;
    Fleet fleet;
    GatewayPath path;
    Rng rng;
    EventQueue<Event> queue;
    std::vector<RequestSpec> hourBuffer;
    std::size_t nextArrival = 0;
    std::vector<CallState> calls;
    std::array<std::array<int, kEngines>, kRegions> engineBusy{};
    std::array<std::array<std::deque<std::uint32_t>, kEngines>, kRegions> waiting;
    std::vector<TokenBucket> ipBuckets;      // [(region * egressIps + ip) * kEngines + engine]
    std::vector<std::uint64_t> lastServed;   // the last answer's bytes (fingerprint), same index
    int egressIps = 4;
    int capacity = 64;
    std::uint64_t probeCount = 0;
    std::uint64_t events = 0;
    bool probes = true;
    Time now{}, end{};
    Duration window{};
};

GatewaySim::GatewaySim(const Params& params, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(params, seed)) {}
GatewaySim::~GatewaySim() = default;

double GatewaySim::now_s() const { return toSeconds(impl_->now); }
double GatewaySim::end_s() const { return toSeconds(impl_->end); }
bool GatewaySim::finished() const { return impl_->now >= impl_->end; }
const Params& GatewaySim::params() const { return impl_->params; }

bool GatewaySim::advanceTo(double t_s, RunControl* control) {
    Impl& s = *impl_;
    const Time target = std::min(s.end, fromSeconds(t_s));
    if (!s.runUntil(target, control)) return false;
    s.now = std::max(s.now, target);
    return true;
}

bool GatewaySim::drain(RunControl* control) {
    Impl& s = *impl_;
    if (!advanceTo(end_s(), control)) return false;
    return s.runUntil(Time::max(), control);
}

void GatewaySim::applyParams(const Params& p) {
    Impl& s = *impl_;
    for (const char* fixed : {"days", "start_day", "customers", "instances", "l1_entries",
                              "window_s", "probes", "egress_ips"}) {
        if (p.real(fixed) != s.params.real(fixed)) {
            throw std::invalid_argument(std::string(fixed) + " cannot change during a run");
        }
    }
    if (p.real("load_multiplier") != s.params.real("load_multiplier") ||
        p.real("agent_share") != s.params.real("agent_share") ||
        p.real("unknown_key_rate") != s.params.real("unknown_key_rate")) {
        throw std::invalid_argument(
            "the workload (load_multiplier, agent_share, unknown_key_rate) cannot change during "
            "a run");
    }
    PathConfig pc = PathConfig::fromParams(p);  // validates before anything changes
    for (const KnobSpec& k : p.specs()) {
        if (p.real(k.key) == s.params.real(k.key)) continue;
        s.path.totals_.timeline.push_back(
            TimelineEvent{toSeconds(s.now), k.key + " " + formatValue(s.params, k) + " -> " +
                                                formatValue(p, k)});
    }
    s.path.setConfig(pc);
    s.fleet.setConfig(FleetConfig::fromParams(p));
    s.capacity = p.integer("engine_capacity");
    s.params = p;
}

GatewaySnapshot GatewaySim::snapshot() const {
    GatewaySnapshot snap;
    impl_->path.fillSnapshot(snap, impl_->now);
    snap.end_s = end_s();
    snap.events = impl_->events;
    return snap;
}

}  // namespace taillab::gateway
