// SweepRunner: results in job order whatever the thread count, no new job after a cancel or the
// first failure, running jobs stopped through the shared RunControl, serialized callbacks.
#include "run/sweep_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "run/runner.h"
#include "scenario/scenario.h"
#include "test_support.h"

namespace taillab {
namespace {

using namespace std::chrono_literals;

// A job that runs until the runner's control is cancelled and then returns `stopped`.
int runUntilCancelled(RunControl& control, int stopped) {
    while (control.checkpoint()) std::this_thread::sleep_for(1ms);
    return stopped;
}

// Waits (bounded) until `counter` reaches `target`; false on timeout.
bool waitFor(const std::atomic<int>& counter, int target) {
    for (int i = 0; i < 5000 && counter.load() < target; ++i) std::this_thread::sleep_for(1ms);
    return counter.load() >= target;
}

TEST(SweepRunner, ThreadCountIsTheSmallerOfJobsAndRequestAndAtLeastOne) {
    EXPECT_EQ(sweepThreadCount(3, 8), 3u);
    EXPECT_EQ(sweepThreadCount(10, 2), 2u);
    EXPECT_EQ(sweepThreadCount(0, 4), 1u);
    EXPECT_GE(sweepThreadCount(100, 0), 1u);
    EXPECT_LE(sweepThreadCount(100, 0), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(SweepRunner, ResultsComeBackInJobOrderWhateverOrderTheyFinishIn) {
    // Early jobs take longest, so with several threads they finish last.
    const int n = 12;
    std::vector<SweepRunner<int>::Job> jobs;
    for (int i = 0; i < n; ++i) {
        jobs.push_back([i](RunControl&) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2 * (n - i)));
            return i * i;
        });
    }
    std::vector<std::size_t> reported;
    const auto outcome = runSweep<int>(std::move(jobs), 4, [&](std::size_t i, const auto& o) {
        EXPECT_TRUE(o.result.has_value());
        reported.push_back(i);
    });
    ASSERT_EQ(outcome.jobs.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        ASSERT_TRUE(outcome.jobs[i].result) << i;
        EXPECT_EQ(*outcome.jobs[i].result, i * i);
        EXPECT_FALSE(outcome.jobs[i].error);
    }
    EXPECT_FALSE(outcome.firstError);
    EXPECT_FALSE(outcome.cancelled);
    std::sort(reported.begin(), reported.end());
    for (int i = 0; i < n; ++i) EXPECT_EQ(reported[i], static_cast<std::size_t>(i));
}

TEST(SweepRunner, OneThreadAndManyThreadsGiveTheSameLabResults) {
    std::vector<Scenario> points;
    for (const char* backends : {"1", "10", "100"})
        for (const char* seed : {"1", "2"})
            points.push_back(loadScenarioFile(test::labScenarioPath("fanout"),
                                              {"params.requests=2000", "seed=" + std::string(seed),
                                               "params.backends=" + std::string(backends)}));
    auto jobs = [&] {
        std::vector<SweepRunner<std::string>::Job> out;
        for (const auto& p : points)
            out.push_back([&p](RunControl& c) { return toJson(runScenario(p, c)).dump(); });
        return out;
    };
    const auto one = runSweep<std::string>(jobs(), 1);
    const auto many = runSweep<std::string>(jobs(), 4);
    ASSERT_EQ(one.jobs.size(), points.size());
    ASSERT_EQ(many.jobs.size(), points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        ASSERT_TRUE(one.jobs[i].result && many.jobs[i].result) << i;
        EXPECT_EQ(*one.jobs[i].result, *many.jobs[i].result) << i;
        EXPECT_EQ(*one.jobs[i].result, toJson(runScenario(points[i])).dump()) << i;
    }
}

TEST(SweepRunner, AfterTheFirstFailureNoNewJobStartsAndTheErrorIsKept) {
    std::vector<SweepRunner<int>::Job> jobs;
    for (int i = 0; i < 10; ++i) {
        jobs.push_back([i](RunControl&) {
            if (i == 3) throw std::runtime_error("point 3 is broken");
            return i;
        });
    }
    const auto outcome = runSweep<int>(std::move(jobs), 1);
    ASSERT_EQ(outcome.firstError, std::optional<std::size_t>(3));
    EXPECT_FALSE(outcome.cancelled) << "a failure is not a cancel by the caller";
    for (int i = 0; i < 3; ++i) EXPECT_EQ(outcome.jobs[i].result, std::optional<int>(i));
    ASSERT_TRUE(outcome.jobs[3].error);
    EXPECT_FALSE(outcome.jobs[3].result);
    try {
        std::rethrow_exception(outcome.jobs[3].error);
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "point 3 is broken");
    }
    for (int i = 4; i < 10; ++i) EXPECT_FALSE(outcome.jobs[i].ran()) << i;
}

TEST(SweepRunner, TheFirstFailureCancelsTheJobsStillRunning) {
    // Job 0 fails once the two others are running; they stop at their next checkpoint.
    std::atomic<int> running{0};
    std::vector<SweepRunner<int>::Job> jobs;
    jobs.push_back([&](RunControl&) -> int {
        if (!waitFor(running, 2)) return 0;
        throw std::runtime_error("boom");
    });
    for (int i = 1; i < 20; ++i) {
        jobs.push_back([&](RunControl& c) {
            ++running;
            return runUntilCancelled(c, -1);
        });
    }
    SweepRunner<int> runner(std::move(jobs), 3);
    runner.start();
    const auto outcome = runner.wait();
    ASSERT_EQ(outcome.firstError, std::optional<std::size_t>(0));
    EXPECT_TRUE(runner.control().cancelRequested());
    EXPECT_EQ(outcome.jobs[1].result, std::optional<int>(-1));
    EXPECT_EQ(outcome.jobs[2].result, std::optional<int>(-1));
    for (std::size_t i = 3; i < outcome.jobs.size(); ++i) EXPECT_FALSE(outcome.jobs[i].ran()) << i;
}

TEST(SweepRunner, CancelStopsRunningJobsAndStartsNoMore) {
    std::atomic<int> running{0};
    std::vector<SweepRunner<int>::Job> jobs;
    for (int i = 0; i < 10; ++i) {
        jobs.push_back([&](RunControl& c) {
            ++running;
            return runUntilCancelled(c, 7);
        });
    }
    std::atomic<int> finished{0};
    SweepRunner<int> runner(std::move(jobs), 2);
    runner.start({}, [&] { ++finished; });
    ASSERT_TRUE(waitFor(running, 2));
    runner.cancel();
    const auto outcome = runner.wait();
    EXPECT_TRUE(outcome.cancelled);
    EXPECT_FALSE(outcome.firstError);
    EXPECT_EQ(finished.load(), 1);
    EXPECT_EQ(outcome.jobs[0].result, std::optional<int>(7));
    EXPECT_EQ(outcome.jobs[1].result, std::optional<int>(7));
    for (std::size_t i = 2; i < outcome.jobs.size(); ++i) EXPECT_FALSE(outcome.jobs[i].ran()) << i;
}

TEST(SweepRunner, JobDoneCallsNeverOverlapAndFinishedComesLastOnce) {
    const std::size_t n = 40;
    std::vector<SweepRunner<std::size_t>::Job> jobs;
    for (std::size_t i = 0; i < n; ++i) jobs.push_back([i](RunControl&) { return i; });
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    std::size_t reports = 0;  // unguarded on purpose: the runner serializes the callbacks
    std::atomic<std::size_t> reportsAtFinish{0};
    std::atomic<int> finishedCalls{0};
    SweepRunner<std::size_t> runner(std::move(jobs), 4);
    runner.start(
        [&](std::size_t, const auto&) {
            if (++inside != 1) overlapped = true;
            std::this_thread::sleep_for(100us);
            ++reports;
            --inside;
        },
        [&] {
            reportsAtFinish = reports;
            ++finishedCalls;
        });
    const auto outcome = runner.wait();
    EXPECT_FALSE(overlapped.load());
    EXPECT_EQ(reports, n);
    EXPECT_EQ(reportsAtFinish.load(), n);
    EXPECT_EQ(finishedCalls.load(), 1);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(outcome.jobs[i].result, std::optional(i));
}

TEST(SweepRunner, NoJobsFinishesAtOnceOnTheCallersThread) {
    SweepRunner<int> runner({}, 4);
    const auto caller = std::this_thread::get_id();
    bool finishedHere = false;
    runner.start({}, [&] { finishedHere = std::this_thread::get_id() == caller; });
    EXPECT_TRUE(finishedHere);
    EXPECT_TRUE(runner.wait().jobs.empty());
}

TEST(SweepRunner, DestroyingARunningSweepCancelsAndJoinsIt) {
    std::atomic<int> running{0};
    std::atomic<int> stopped{0};
    {
        std::vector<SweepRunner<int>::Job> jobs;
        for (int i = 0; i < 4; ++i) {
            jobs.push_back([&](RunControl& c) {
                ++running;
                const int r = runUntilCancelled(c, 0);
                ++stopped;
                return r;
            });
        }
        SweepRunner<int> runner(std::move(jobs), 2);
        runner.start();
        ASSERT_TRUE(waitFor(running, 2));
    }
    EXPECT_EQ(running.load(), 2);
    EXPECT_EQ(stopped.load(), 2);
}

}  // namespace
}  // namespace taillab
