// Live mode's run loop: one thread, one epoll set. The HTTP server, the HTTP client, the fleet's
// delayed answers and the gateway's hedge and deadline timers all run on it, so the objects they
// touch need no locks: everything that reads or changes them is posted here.
//
// Our own rather than Asio's io_context (issue 9 weighs serve against nginx by the microsecond):
// every descriptor is registered once, edge-triggered for reading and writing both, and never
// modified again, so a request costs no epoll_ctl and no read that is bound to fail; a closed
// peer is reported on an idle connection with no read outstanding. Timers live in a heap and set
// the wait's timeout (epoll_pwait2, nanoseconds), with no timerfd to re-arm.
//
// Time on the loop is `now()`, a steady clock counted from the loop's construction, as the
// core's Time (integer nanoseconds): the same type the simulation uses, so a live driver can hand
// it to the gateway's `onRequest(now, ...)` unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

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
    // Runs the loop on the calling thread until quit() (a loop that is never start()ed: the
    // load generator's, a test's). May be called again after it returns.
    void run();
    // Makes run() return once the handler in progress returns. Any thread.
    void quit();
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

    // A deadline that moves often and is mostly cleared before it passes (a connection's idle
    // timeout, the earliest of many requests' timeouts): moving it later or clearing it touches
    // nothing but the object; only a deadline earlier than any the loop already holds for it adds
    // one to the loop's heap. fn runs once the deadline has passed, on the loop thread, never
    // from inside a call to this class; it may destroy the Timer. Loop thread only (or before
    // the loop runs).
    class Timer {
    public:
        Timer(Loop& loop, std::function<void()> fn);
        ~Timer();
        Timer(const Timer&) = delete;
        Timer& operator=(const Timer&) = delete;
        void setAt(Time at);
        void setAfter(Duration d);
        void clear() { deadline_.reset(); }
        std::optional<Time> deadline() const { return deadline_; }

    private:
        friend class Loop;
        Loop& loop_;
        std::function<void()> fn_;
        std::optional<Time> deadline_;
        std::optional<Time> queued_;  // the earliest entry the loop's heap holds for this timer
        std::uint32_t slot_;
    };

    // What a watched descriptor reports, as epoll's bits (EPOLLIN, EPOLLOUT, EPOLLRDHUP,
    // EPOLLHUP, EPOLLERR). Edge-triggered: a report says something changed (bytes came, room
    // came, the peer closed); the handler reads or writes until it would block, or remembers
    // that it did not.
    class IoHandler {
    public:
        virtual void onIo(std::uint32_t events) = 0;

    protected:
        ~IoHandler() = default;
    };
    // A descriptor in the loop's set, from construction to destruction (or reset()), which must
    // come before the descriptor is closed. The handler must outlive the Watch, or at least the
    // call in progress: a handler may destroy its own Watch, and no report reaches it after.
    // Loop thread only.
    class Watch {
    public:
        Watch() = default;
        // Throws std::system_error when epoll refuses the descriptor.
        Watch(Loop& loop, int fd, IoHandler& handler);
        ~Watch() { reset(); }
        Watch(Watch&& other) noexcept;
        Watch& operator=(Watch&& other) noexcept;
        void reset();
        explicit operator bool() const { return loop_ != nullptr; }

    private:
        Loop* loop_ = nullptr;
        int fd_ = -1;
        std::uint32_t slot_ = 0;
    };

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace taillab::live
