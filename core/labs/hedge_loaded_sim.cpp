#include "labs/hedge_loaded_sim.h"

#include <utility>
#include <vector>

#include "labs/fifo_ring.h"
#include "sim/event_queue.h"

namespace taillab {
namespace {

constexpr std::uint32_t kIdle = 0xffffffffu;
constexpr std::int64_t kCheckpointMask = 4095;  // checkpoint every 4096 events

enum class EventKind : std::uint32_t { Arrival = 0, Hedge = 1, Done = 2 };

// 4 bytes: the kind in the low two bits, a request slot or server index above them.
struct EventPayload {
    std::uint32_t bits = 0;
    static EventPayload make(EventKind kind, std::uint32_t index) {
        return EventPayload{(index << 2) | static_cast<std::uint32_t>(kind)};
    }
    EventKind kind() const { return static_cast<EventKind>(bits & 3u); }
    std::uint32_t index() const { return bits >> 2; }
};

enum class CopyState : std::uint8_t { Absent, Queued, Running, Finished, Dropped, Stopped };

struct Request {
    Time arrival{0};
    TimerId hedgeTimer;
    Duration service[2]{};      // primary, backup
    std::uint32_t server[2]{};  // primary, backup
    CopyState copy[2]{CopyState::Absent, CopyState::Absent};
    std::uint8_t live = 0;  // copies still queued (dropped ones included) or running
    bool answered = false;
    bool measured = false;
    bool timerPending = false;
};

// A FIFO of copy handles ((slot << 1) | is_backup).
using CopyRing = FifoRing<std::uint32_t>;

struct Server {
    CopyRing queue;
    std::uint32_t current = kIdle;
    Time startedAt{0};
    TimerId done;
};

class HedgeSim {
  public:
    HedgeSim(const HedgeSimConfig& config, HedgeSimStreams streams, HdrHistogram& response)
        : cfg_(config),
          rng_(std::move(streams)),
          response_(response),
          servers_(static_cast<std::size_t>(config.servers)) {
        response_.reset();
        interarrivalMeanMs_ = cfg_.service.mean() / (cfg_.load * cfg_.servers);
        events_.reserve(static_cast<std::size_t>(4 * cfg_.servers + 64));
    }

    HedgeSimStats run(const HedgeSimProgress& progress) {
        if (cfg_.requests > 0) scheduleArrival();
        while (auto ev = events_.pop()) {
            now_ = ev->at;
            dispatch(ev->payload);
            if ((++stats_.events & kCheckpointMask) == 0 && progress.control) {
                if (!progress.control->checkpoint()) {
                    stats_.cancelled = true;
                    break;
                }
                progress.control->reportProgress(
                    progress.base + progress.span * static_cast<double>(stats_.arrived) /
                                        static_cast<double>(cfg_.requests));
            }
        }
        stats_.demandMs = toMs(demand_);
        stats_.busyMs = toMs(busy_);
        return std::move(stats_);
    }

  private:
    void dispatch(EventPayload p) {
        switch (p.kind()) {
            case EventKind::Arrival:
                onArrival();
                break;
            case EventKind::Hedge:
                onHedge(p.index());
                break;
            case EventKind::Done:
                onDone(p.index());
                break;
        }
    }

    void scheduleArrival() {
        const Time at = now_ + fromMs(rng_.arrivals.exponential(interarrivalMeanMs_));
        events_.schedule(at, EventPayload::make(EventKind::Arrival, 0));
    }

    void onArrival() {
        const std::uint32_t slot = allocRequest();
        Request& r = requests_[slot];
        r.arrival = now_;
        r.measured = stats_.arrived >= cfg_.warmup;
        ++stats_.arrived;
        if (r.measured) ++stats_.measured;
        r.server[0] = static_cast<std::uint32_t>(rng_.routing.below(servers_.size()));
        r.service[0] = fromMs(cfg_.service.sample(rng_.service));
        if (r.measured) demand_ += r.service[0];
        enqueue(slot, 0);
        if (cfg_.mode == HedgeMode::Immediate) {
            sendBackup(slot);
        } else if (cfg_.mode == HedgeMode::Delayed) {
            Request& q = requests_[slot];
            q.hedgeTimer = events_.schedule(now_ + cfg_.hedgeDelay,
                                            EventPayload::make(EventKind::Hedge, slot));
            q.timerPending = true;
        }
        if (stats_.arrived < cfg_.requests) scheduleArrival();
    }

    void onHedge(std::uint32_t slot) {
        Request& r = requests_[slot];
        r.timerPending = false;
        if (!r.answered) sendBackup(slot);
    }

    void sendBackup(std::uint32_t slot) {
        Request& r = requests_[slot];
        const auto others = static_cast<std::uint32_t>(servers_.size() - 1);
        std::uint32_t b = static_cast<std::uint32_t>(rng_.backupRouting.below(others));
        if (b >= r.server[0]) ++b;
        r.server[1] = b;
        r.service[1] = fromMs(cfg_.service.sample(rng_.backupService));
        ++stats_.backupsSent;
        if (r.measured) ++stats_.measuredBackups;
        enqueue(slot, 1);
    }

    void enqueue(std::uint32_t slot, int which) {
        Request& r = requests_[slot];
        ++stats_.copiesCreated;
        ++r.live;
        r.copy[which] = CopyState::Queued;
        Server& s = servers_[r.server[which]];
        const std::uint32_t handle = (slot << 1) | static_cast<std::uint32_t>(which);
        if (s.current == kIdle) {
            start(r.server[which], handle);
        } else {
            s.queue.push(handle);
        }
    }

    void start(std::uint32_t serverIndex, std::uint32_t handle) {
        Request& r = requests_[handle >> 1];
        const int which = static_cast<int>(handle & 1u);
        Server& s = servers_[serverIndex];
        s.current = handle;
        s.startedAt = now_;
        r.copy[which] = CopyState::Running;
        s.done = events_.schedule(now_ + r.service[which],
                                  EventPayload::make(EventKind::Done, serverIndex));
    }

    void startNext(std::uint32_t serverIndex) {
        Server& s = servers_[serverIndex];
        while (!s.queue.empty()) {
            const std::uint32_t handle = s.queue.pop();
            const std::uint32_t slot = handle >> 1;
            if (requests_[slot].copy[handle & 1u] == CopyState::Dropped) {
                --requests_[slot].live;
                maybeFree(slot);
                continue;
            }
            start(serverIndex, handle);
            return;
        }
    }

    void onDone(std::uint32_t serverIndex) {
        Server& s = servers_[serverIndex];
        const std::uint32_t handle = s.current;
        const std::uint32_t slot = handle >> 1;
        const int which = static_cast<int>(handle & 1u);
        s.current = kIdle;
        Request& r = requests_[slot];
        const Duration busy = now_ - s.startedAt;
        r.copy[which] = CopyState::Finished;
        --r.live;
        ++stats_.copiesFinished;
        if (r.measured) busy_ += busy;
        if (!r.answered) answer(slot, which);
        startNext(serverIndex);
        maybeFree(slot);
    }

    void answer(std::uint32_t slot, int which) {
        Request& r = requests_[slot];
        r.answered = true;
        ++stats_.answered;
        if (r.measured) response_.record(toUs(now_ - r.arrival));
        if (r.timerPending) {
            events_.cancel(r.hedgeTimer);
            r.timerPending = false;
        }
        const int other = 1 - which;
        const bool mayStop = cfg_.cancel == CancelRule::Both ||
                             (cfg_.cancel == CancelRule::BackupOnly && other == 1);
        if (mayStop) stopCopy(slot, other);
    }

    void stopCopy(std::uint32_t slot, int which) {
        Request& r = requests_[slot];
        if (r.copy[which] == CopyState::Queued) {
            r.copy[which] = CopyState::Dropped;  // skipped (and released) when it surfaces
            ++stats_.copiesDropped;
        } else if (r.copy[which] == CopyState::Running) {
            const std::uint32_t serverIndex = r.server[which];
            Server& s = servers_[serverIndex];
            events_.cancel(s.done);
            if (r.measured) busy_ += now_ - s.startedAt;
            r.copy[which] = CopyState::Stopped;
            --r.live;
            ++stats_.copiesStopped;
            s.current = kIdle;
            startNext(serverIndex);
        }
    }

    std::uint32_t allocRequest() {
        if (!freeSlots_.empty()) {
            const std::uint32_t slot = freeSlots_.back();
            freeSlots_.pop_back();
            requests_[slot] = Request{};
            return slot;
        }
        requests_.emplace_back();
        return static_cast<std::uint32_t>(requests_.size() - 1);
    }

    void maybeFree(std::uint32_t slot) {
        const Request& r = requests_[slot];
        if (r.answered && r.live == 0 && !r.timerPending) freeSlots_.push_back(slot);
    }

    HedgeSimConfig cfg_;
    HedgeSimStreams rng_;
    HdrHistogram& response_;
    std::vector<Server> servers_;
    std::vector<Request> requests_;
    std::vector<std::uint32_t> freeSlots_;
    EventQueue<EventPayload> events_;
    HedgeSimStats stats_;
    Time now_{0};
    Duration demand_{0};
    Duration busy_{0};
    double interarrivalMeanMs_ = 1.0;
};

}  // namespace

HdrConfig hedgeResponseHdrConfig() { return HdrConfig{1, 3'600'000'000LL, 3}; }

HedgeSimStats runHedgeSim(const HedgeSimConfig& config, HedgeSimStreams streams,
                          HdrHistogram& response, const HedgeSimProgress& progress) {
    HedgeSim sim(config, std::move(streams), response);
    return sim.run(progress);
}

}  // namespace taillab
