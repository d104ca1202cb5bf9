// WorkerThread and UiInbox (ui/ui_threads.h): the only ways the GUI's threads hand work to each
// other. Order, the tick, delivery on the UI thread, and what destruction drops. `scripts/dev.sh
// tsan` runs these (and the controllers built on them) under ThreadSanitizer.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QtTest/QTest>
#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "../test_slowdown.h"
#include "ui_threads.h"

namespace taillab::ui::test {
namespace {

using namespace std::chrono_literals;

TEST(WorkerThread, RunsJobsInOrderOnItsOwnThread) {
    std::vector<int> order;  // written by the worker only; read after the join below
    std::thread::id ran;
    {
        WorkerThread worker("test-worker");
        for (int i = 0; i < 100; ++i)
            worker.post([&order, &ran, i] {
                order.push_back(i);
                ran = std::this_thread::get_id();
            });
        std::promise<void> done;
        worker.post([&done] { done.set_value(); });
        done.get_future().wait();
    }
    ASSERT_EQ(order.size(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
    EXPECT_NE(ran, std::this_thread::get_id());
}

TEST(WorkerThread, TicksUntilStoppedAndJobsGoFirst) {
    std::atomic<int> ticks{0};
    WorkerThread* self = nullptr;
    WorkerThread worker("test-ticker", [&] {
        if (++ticks == 5) self->stopTicking();
    });
    self = &worker;
    std::promise<void> started;
    worker.post([&] {
        worker.startTicking(0ms);  // as often as the queue is empty
        started.set_value();
    });
    started.get_future().wait();
    ASSERT_TRUE(QTest::qWaitFor([&] { return ticks.load() >= 5; }, 5000 * taillab::test::kSlowdown));
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ticks.load(), 5) << "the tick ran on after stopTicking()";

    // A tick that is due waits for the jobs queued before it: even a 0 ms tick lets a job
    // queued meanwhile run first.
    ticks = 0;
    std::promise<int> seen;
    worker.post([&] {
        worker.startTicking(0ms);
        std::this_thread::sleep_for(20ms);  // the tick is overdue by now
        worker.post([&] { seen.set_value(ticks.load()); });
    });
    EXPECT_EQ(seen.get_future().get(), 0);
    ASSERT_TRUE(QTest::qWaitFor([&] { return ticks.load() >= 1; }, 5000 * taillab::test::kSlowdown));
}

TEST(WorkerThread, DestructionDropsTheJobsNotStartedAndWaitsForTheRunningOne) {
    std::atomic<bool> firstDone{false};
    std::atomic<int> later{0};
    std::promise<void> firstStarted;
    {
        WorkerThread worker("test-drop");
        worker.post([&] {
            firstStarted.set_value();
            std::this_thread::sleep_for(1s);  // long enough for the destructor to come first
            firstDone = true;
        });
        for (int i = 0; i < 10; ++i) worker.post([&] { ++later; });
        firstStarted.get_future().wait();
    }
    EXPECT_TRUE(firstDone.load());
    EXPECT_EQ(later.load(), 0);
}

TEST(UiInbox, RunsWhatOtherThreadsPostOnTheUiThreadInOrder) {
    UiInbox inbox;
    std::vector<int> order;
    std::vector<std::thread::id> threads;
    std::thread poster([&] {
        for (int i = 0; i < 1000; ++i)
            inbox.post([&order, &threads, i] {
                order.push_back(i);
                threads.push_back(std::this_thread::get_id());
            });
    });
    poster.join();
    EXPECT_TRUE(order.empty()) << "ran before the UI thread's event loop turned";
    ASSERT_TRUE(QTest::qWaitFor([&] { return order.size() == 1000; }, 5000 * taillab::test::kSlowdown));
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
    for (const auto& t : threads) EXPECT_EQ(t, std::this_thread::get_id());
}

TEST(UiInbox, DestructionDropsWhatHasNotRun) {
    auto ran = std::make_shared<std::atomic<int>>(0);
    {
        UiInbox inbox;
        std::thread([&inbox, ran] {
            for (int i = 0; i < 10; ++i) inbox.post([ran] { ++*ran; });
        }).join();
    }
    QCoreApplication::processEvents();
    EXPECT_EQ(ran->load(), 0);
}

}  // namespace
}  // namespace taillab::ui::test
