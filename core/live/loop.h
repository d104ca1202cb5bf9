// Live mode's run loop: one Asio io_context driven by one thread. The HTTP server, the fleet's
// delayed answers and (later) the gateway's hedge and deadline timers all run on it, so the
// objects they touch need no locks: everything that reads or changes them is posted here.
//
// Time on the loop is `now()`, a steady clock counted from the loop's construction, as the
// core's Time (integer nanoseconds): the same type the simulation uses, so a live driver can hand
// it to the gateway's `onRequest(now, ...)` unchanged.
//
// Asio stays out of this header: code that needs the io_context itself (a socket, an acceptor)
// includes live/loop_asio.h, which only the networking .cpp files do.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "base/time.h"

namespace taillab::live {

class Loop {
public:
    Loop();
    ~Loop();  // stops and joins the thread
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    // Starts the loop's thread. Work posted before start() runs once it starts.
    void start();
    // Stops the loop and joins its thread; handlers not yet run are dropped (their objects are
    // destroyed with the loop). Safe to call twice, not from the loop thread.
    void stop();
    bool running() const;
    bool onLoopThread() const;

    Time now() const;

    // Runs fn on the loop thread, after what is already queued. Any thread.
    void post(std::function<void()> fn);
    // Runs fn on the loop thread and waits for it; runs it inline when called on the loop thread
    // or while the loop is not running. Rethrows what fn throws.
    void invoke(const std::function<void()>& fn);

    // A one-shot timer: fn runs on the loop thread after `delay`, unless cancelled first. Loop
    // thread only (ids are plain counters, never reused).
    using TimerId = std::uint64_t;
    TimerId runAfter(Duration delay, std::function<void()> fn);
    // True when the timer was pending and will now not run.
    bool cancel(TimerId id);

    struct Impl;
    Impl& impl() { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
