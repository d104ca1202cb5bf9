// An Asio timer for a deadline that moves often and is mostly cleared before it passes: a
// connection's idle timeout, the earliest of many requests' timeouts. Asio posts the handler of
// every wait it cancels, with operation_aborted, and each posted handler costs the loop one more
// turn through epoll (a syscall): once per request when a request's timer is cancelled as it
// ends. Here, clearing the deadline or moving it later touches no Asio timer. The wait stays armed
// at or before the deadline; a wait that fires early finds the deadline later (and waits again)
// or gone (and does nothing). Only a deadline earlier than the armed wait re-arms it.
//
// For the .cpp files that use Asio (see loop_asio.h). Loop thread only. The callback runs from
// the loop, never from inside a call to this class, and not after the timer is destroyed.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace taillab::live {

class LazyTimer {
  public:
    using Clock = boost::asio::steady_timer::clock_type;

    LazyTimer(boost::asio::io_context& io, std::function<void()> onDue)
        : state_(std::make_shared<State>(io, std::move(onDue))) {}
    ~LazyTimer() {
        state_->owned = false;
        state_->timer.cancel();
    }
    LazyTimer(const LazyTimer&) = delete;
    LazyTimer& operator=(const LazyTimer&) = delete;

    // The callback runs once `at` has passed, unless the deadline is moved or cleared first.
    void expireAt(Clock::time_point at) {
        state_->deadline = at;
        if (state_->armed && *state_->armed <= at) return;
        arm(state_, at);
    }
    void expireAfter(Clock::duration d) { expireAt(Clock::now() + d); }
    // No deadline, and the wait stays armed: the cheap way, for a deadline likely to be set again.
    void clear() { state_->deadline.reset(); }
    // No deadline, and no wait left to hold the io_context's run() (one posted handler).
    void cancel() {
        state_->deadline.reset();
        if (!state_->armed) return;
        state_->armed.reset();
        state_->timer.cancel();
    }
    std::optional<Clock::time_point> deadline() const { return state_->deadline; }

  private:
    struct State {
        State(boost::asio::io_context& io, std::function<void()> fn)
            : timer(io), onDue(std::move(fn)) {}
        boost::asio::steady_timer timer;
        std::function<void()> onDue;
        std::optional<Clock::time_point> deadline;
        std::optional<Clock::time_point> armed;  // the expiry of the wait in flight
        bool owned = true;                       // false once the LazyTimer is gone
    };

    static void arm(const std::shared_ptr<State>& s, Clock::time_point at) {
        s->armed = at;
        s->timer.expires_at(at);  // cancels a later wait: its handler does nothing
        s->timer.async_wait(
            [weak = std::weak_ptr<State>(s), at](const boost::system::error_code& ec) {
                const std::shared_ptr<State> s = weak.lock();
                // Cancelled (replaced by an earlier wait, or the timer is gone), or a wait that had
                // fired before an earlier one replaced it.
                if (!s || !s->owned || ec || s->armed != at) return;
                s->armed.reset();
                if (!s->deadline) return;
                if (*s->deadline > Clock::now()) return arm(s, *s->deadline);
                s->deadline.reset();
                const std::function<void()> onDue = s->onDue;  // it may destroy the LazyTimer
                onDue();
            });
    }

    std::shared_ptr<State> state_;
};

}  // namespace taillab::live
