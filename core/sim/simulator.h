// The run loop: a virtual clock over an EventQueue. A model schedules events and handles them in
// a callable; the loop advances the clock to each event in turn and polls a RunControl every
// `kCheckEvery` events so a driver can pause, resume or cancel a long run and read its progress.
//
//   Simulator<MyEvent> sim;
//   sim.schedule(Duration{0}, MyEvent{...});
//   sim.runUntil(end, control, [&](Time now, MyEvent& e) { ... sim.schedule(...) ... });
//
// step() handles one event; runUntil() handles every event at or before `end` and leaves the clock
// at `end` (or where it was cancelled). The loop never reads a wall clock.
#pragma once

#include <cstdint>

#include "sim/event_queue.h"
#include "sim/run_control.h"

namespace taillab {

enum class RunOutcome { Finished, Cancelled };

template <class Payload>
class Simulator {
public:
    static constexpr std::uint64_t kCheckEvery = 4096;

    Time now() const { return now_; }
    std::uint64_t eventsHandled() const { return handled_; }

    TimerId schedule(Time at, Payload p) { return queue_.schedule(at < now_ ? now_ : at, std::move(p)); }
    TimerId scheduleAfter(Duration delay, Payload p) { return schedule(now_ + delay, std::move(p)); }
    bool cancel(TimerId id) { return queue_.cancel(id); }
    bool idle() const { return queue_.empty(); }
    std::size_t pending() const { return queue_.size(); }
    EventQueue<Payload>& queue() { return queue_; }

    // Handles the next event, if any. Returns false when there was none.
    template <class Handler>
    bool step(Handler&& handle) {
        auto e = queue_.pop();
        if (!e) return false;
        now_ = e->at;
        ++handled_;
        handle(now_, e->payload);
        return true;
    }

    // Handles every event at or before `end`; progress is reported as the fraction of
    // [start, end] covered.
    template <class Handler>
    RunOutcome runUntil(Time end, RunControl& control, Handler&& handle) {
        const Time start = now_;
        const double span = static_cast<double>((end - start).count());
        std::uint64_t sinceCheck = 0;
        for (;;) {
            const auto next = queue_.nextTime();
            if (!next || *next > end) break;
            step(handle);
            if (++sinceCheck == kCheckEvery) {
                sinceCheck = 0;
                if (span > 0)
                    control.reportProgress(static_cast<double>((now_ - start).count()) / span);
                if (!control.checkpoint()) return RunOutcome::Cancelled;
            }
        }
        if (end > now_) now_ = end;
        control.reportProgress(1.0);
        return RunOutcome::Finished;
    }

private:
    EventQueue<Payload> queue_;
    Time now_{0};
    std::uint64_t handled_ = 0;
};

}  // namespace taillab
