// The loop itself: posted work, one-shot and moving timers, and descriptors it watches
// (socket pairs: real descriptors, edge-triggered as the HTTP layer uses them).
#include "live/loop.h"

#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../test_slowdown.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;

TEST(Loop, RunsPostedWorkInOrderThenTimersByDeadline) {
    Loop loop;
    std::string order;
    loop.post([&] { order += 'a'; });
    loop.post([&] { order += 'b'; });
    loop.post([&] {
        // Far enough apart that a thread preempted for a while still sees them in this order,
        // and 'c' (posted from the loop) before the first is due.
        loop.runAfter(300ms, [&] {
            order += '3';
            loop.quit();
        });
        loop.runAfter(100ms, [&] { order += '1'; });
        loop.runAfter(200ms, [&] { order += '2'; });
        loop.post([&] { order += 'c'; });  // posted from the loop: before any timer
    });
    const Time before = loop.now();
    loop.run();
    EXPECT_EQ(order, "abc123");
    EXPECT_GE(loop.now() - before, 300ms);
}

TEST(Loop, ACancelledTimerNeverRuns) {
    Loop loop;
    bool ran = false;
    const Loop::TimerId id = loop.runAfter(5ms, [&] { ran = true; });
    loop.runAfter(30ms, [&] { loop.quit(); });
    EXPECT_TRUE(loop.cancel(id));
    EXPECT_FALSE(loop.cancel(id));
    loop.run();
    EXPECT_FALSE(ran);
}

// A moving deadline: moved later it fires at the later time, moved earlier at the earlier one,
// cleared never; re-armed from its own callback it fires again.
TEST(Loop, AMovingTimerFiresAtItsLastDeadline) {
    Loop loop;
    std::vector<Duration> fired;
    const Time t0 = loop.now();
    int round = 0;
    std::optional<Loop::Timer> timer;
    timer.emplace(loop, [&] {
        fired.push_back(loop.now() - t0);
        if (++round == 1) timer->setAt(t0 + 600ms);
        else loop.quit();
    });
    timer->setAt(t0 + 100ms);
    timer->setAt(t0 + 400ms);  // later: the 100 ms entry finds it moved and waits on
    Loop::Timer cleared(loop, [&] { ADD_FAILURE() << "a cleared timer ran"; });
    cleared.setAt(t0 + 50ms);
    cleared.clear();
    loop.run();
    ASSERT_EQ(fired.size(), 2u);
    EXPECT_GE(fired[0], 400ms);
    EXPECT_LT(fired[0], 600ms);  // before its next deadline: it fired at the moved one
    EXPECT_GE(fired[1], 600ms);

    // Moved earlier, it fires at the earlier deadline.
    fired.clear();
    round = 1;
    const Time t1 = loop.now();
    timer->setAt(t1 + 500ms);
    timer->setAt(t1 + 20ms);
    loop.run();
    ASSERT_EQ(fired.size(), 1u);
    EXPECT_GE(fired[0] - (t1 - t0), 20ms);
    EXPECT_LT(fired[0] - (t1 - t0), 400ms);
}

TEST(Loop, ATimerMayDestroyItselfWhenItFires) {
    Loop loop;
    int ran = 0;
    std::unique_ptr<Loop::Timer> timer;
    timer = std::make_unique<Loop::Timer>(loop, [&] {
        ++ran;
        timer.reset();
        loop.quit();
    });
    timer->setAfter(1ms);
    loop.run();
    EXPECT_EQ(ran, 1);
    EXPECT_EQ(timer, nullptr);
}

// Thousands of timers moved earlier and earlier leave stale entries behind; they are dropped and
// the live deadlines still fire, each once.
TEST(Loop, ManyMovingTimersEachFireOnce) {
    Loop loop;
    constexpr int kTimers = 2000;
    std::vector<int> fired(kTimers, 0);
    std::vector<std::unique_ptr<Loop::Timer>> timers;
    int done = 0;
    for (int i = 0; i < kTimers; ++i)
        timers.push_back(std::make_unique<Loop::Timer>(loop, [&, i] {
            ++fired[i];
            if (++done == kTimers) loop.quit();
        }));
    const Time t0 = loop.now();
    for (int step = 10; step >= 1; --step)
        for (int i = 0; i < kTimers; ++i) timers[i]->setAt(t0 + std::chrono::milliseconds(step) + std::chrono::microseconds(i));
    loop.run();
    for (int i = 0; i < kTimers; ++i) EXPECT_EQ(fired[i], 1) << "timer " << i;
}

TEST(Loop, InvokeRunsOnTheLoopThreadAndRethrows) {
    Loop loop;
    loop.start();
    std::thread::id ranOn;
    loop.invoke([&] { ranOn = std::this_thread::get_id(); });
    EXPECT_NE(ranOn, std::this_thread::get_id());
    EXPECT_THROW(loop.invoke([] { throw std::runtime_error("no"); }), std::runtime_error);
    // Posts from several threads all run.
    std::atomic<int> ran{0};
    std::vector<std::thread> posters;
    for (int t = 0; t < 4; ++t)
        posters.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) loop.post([&] { ++ran; });
        });
    for (auto& t : posters) t.join();
    loop.invoke([] {});
    EXPECT_EQ(ran.load(), 4000);
    loop.stop();
    EXPECT_FALSE(loop.running());
}

TEST(Loop, QuitBeforeRunMakesRunReturnAtOnceAndRunCanBeCalledAgain) {
    Loop loop;
    loop.quit();
    loop.run();  // returns
    bool ran = false;
    loop.post([&] {
        ran = true;
        loop.quit();
    });
    loop.run();
    EXPECT_TRUE(ran);
}

struct Recorder final : Loop::IoHandler {
    std::vector<std::uint32_t> events;
    std::function<void()> then;
    void onIo(std::uint32_t e) override {
        events.push_back(e);
        if (then) then();
    }
};

// Edge-triggered: one report per change (bytes came, the peer closed), none while nothing
// changes, and none after the watch is gone.
TEST(Loop, AWatchReportsEachChangeOnce) {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    Loop loop;
    Recorder r;
    Loop::Watch watch(loop, fds[0], r);
    // Each change comes after the loop reported the one before (timers alone could let two
    // changes land in one report on a busy machine).
    int step = 0;
    r.then = [&] {
        if (step == 0) ASSERT_EQ(::write(fds[1], "x", 1), 1);
        else if (step == 1) ::shutdown(fds[1], SHUT_WR);
        else loop.quit();
        ++step;
    };
    loop.run();
    // The registration's own report (writable), the byte, the end.
    ASSERT_EQ(r.events.size(), 3u);
    EXPECT_TRUE(r.events[0] & EPOLLOUT);
    EXPECT_FALSE(r.events[0] & EPOLLIN);
    EXPECT_TRUE(r.events[1] & EPOLLIN);
    EXPECT_FALSE(r.events[1] & EPOLLRDHUP);
    EXPECT_TRUE(r.events[2] & EPOLLRDHUP);

    watch.reset();
    ASSERT_EQ(::send(fds[1], "y", 1, MSG_NOSIGNAL), -1);  // shut down for writing
    loop.runAfter(5ms, [&] { loop.quit(); });
    loop.run();
    EXPECT_EQ(r.events.size(), 3u);
    ::close(fds[0]);
    ::close(fds[1]);
}

// Two socket pairs whose first ends the loop watches, registered (and their first reports
// taken) so that a test can make both readable at once, for one wait to report both.
class TwoWatches : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, a), 0);
        ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, b), 0);
        wa.emplace(loop, a[0], ra);
        wb.emplace(loop, b[0], rb);
        loop.runAfter(1ms, [&] { loop.quit(); });
        loop.run();
        ra.events.clear();
        rb.events.clear();
    }
    void TearDown() override {
        wa.reset();
        wb.reset();
        for (int fd : {a[0], a[1], b[0], b[1]}) ::close(fd);
    }
    // Both readable, before the loop next waits.
    void writeBoth() {
        ASSERT_EQ(::write(a[1], "x", 1), 1);
        ASSERT_EQ(::write(b[1], "x", 1), 1);
    }

    int a[2] = {-1, -1}, b[2] = {-1, -1};
    Loop loop;
    Recorder ra, rb;
    std::optional<Loop::Watch> wa, wb;
};

// Two descriptors ready in one wait: the first one's handler ends the second's watch, whose
// report is then dropped.
TEST_F(TwoWatches, AReportForAWatchEndedEarlierInTheSameWaitIsDropped) {
    ra.then = [&] { wb.reset(); };
    rb.then = [&] { wa.reset(); };
    writeBoth();
    loop.runAfter(5ms, [&] { loop.quit(); });
    loop.run();
    EXPECT_EQ(ra.events.size() + rb.events.size(), 1u);
}

// A quit from a handler ends the run before the rest of that wait's reports are handed over;
// edge-triggered, they would never come again, so the next run hands them over first.
TEST_F(TwoWatches, ReportsAQuitLeftUndeliveredComeInTheNextRun) {
    ra.then = [&] { loop.quit(); };
    rb.then = [&] { loop.quit(); };
    writeBoth();
    loop.run();  // one handler runs and quits
    EXPECT_EQ(ra.events.size() + rb.events.size(), 1u);
    loop.runAfter(50ms, [&] { loop.quit(); });  // in case the other report were lost
    loop.run();
    EXPECT_EQ(ra.events.size(), 1u);
    EXPECT_EQ(rb.events.size(), 1u);
}

// A timer that came due while other timers' callbacks ran is not kept waiting: the wait's
// timeout is taken from the clock after those callbacks, not before them.
TEST(Loop, ATimerDueDuringLongCallbacksRunsRightAfterThem) {
    Loop loop;
    Time busyEnd{}, fired{};
    loop.runAfter(1ms, [&] {
        std::this_thread::sleep_for(300ms);  // the second timer comes due in here
        busyEnd = loop.now();
    });
    loop.runAfter(200ms, [&] {
        fired = loop.now();
        loop.quit();
    });
    loop.run();
    // Late by the time to get from one callback to the next, not by another 200 ms.
    EXPECT_LT(fired - busyEnd, 150ms * test::kSlowdown);
}

}  // namespace
}  // namespace taillab::live
