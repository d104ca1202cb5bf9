// Runs many independent jobs in parallel: the points of a CLI sweep, the two sides of a CLI
// compare, the GUI's hedge-delay sweep. The one place in core that starts threads; the jobs it
// runs stay pure functions of their inputs, so results never depend on the thread count.
//
//   SweepRunner<LabResult> runner(jobs, threads);   // threads 0: one per hardware thread
//   runner.start(onJobDone, onFinished);            // returns at once
//   SweepOutcome<LabResult> outcome = runner.wait(); // joins; outcomes in job order
//
// Jobs are taken in index order by min(jobs, threads) std::threads. Each job gets the runner's
// RunControl and polls it (checkpoint()) between units of work: cancel() and the first failure
// both request cancel on it. After cancel or a job's first failure (an exception), no new job
// starts; jobs already running stop at their next checkpoint, and whatever they return is kept.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "sim/run_control.h"

namespace taillab {

// How many threads a sweep of `jobs` jobs runs on: min(jobs, requested), where requested 0 means
// one per hardware thread; at least 1.
unsigned sweepThreadCount(std::size_t jobs, unsigned requested = 0);

// The untyped engine under SweepRunner: a pool of threads taking job indices in order, with the
// cancellation and first-error rules above. Use SweepRunner; this is its machinery.
class SweepPool {
  public:
    struct Hooks {
        std::function<void(std::size_t index)> run;  // runs one job; throws when it fails
        std::function<void(std::size_t index, std::exception_ptr error)> done;  // serialized
        std::function<void()> finished;
    };

    SweepPool() = default;
    SweepPool(const SweepPool&) = delete;
    SweepPool& operator=(const SweepPool&) = delete;
    ~SweepPool();  // cancels and joins

    // Starts `threads` workers over jobs 0..count-1 (at most once per pool).
    void start(std::size_t count, unsigned threads, Hooks hooks);
    void cancel();  // safe from any thread, callbacks included
    void wait();    // joins every worker; not from a callback (a worker cannot join itself)
    RunControl& control() { return control_; }
    std::optional<std::size_t> firstError() const;
    bool cancelled() const;

  private:
    void work();

    RunControl control_;
    Hooks hooks_;
    std::size_t count_ = 0;
    std::atomic<unsigned> live_{0};       // workers still running
    std::atomic<bool> stop_{false};       // no new job starts
    std::atomic<bool> cancelled_{false};  // cancel() was called
    mutable std::mutex mutex_;            // serializes `done`; guards the two members below
    std::size_t next_ = 0;                // the next job to claim
    std::optional<std::size_t> firstError_;
    std::vector<std::thread> threads_;
    bool started_ = false;
};

template <class Result>
struct JobOutcome {
    std::optional<Result> result;  // the job returned (possibly early, when it was cancelled)
    std::exception_ptr error;      // the job threw
    bool ran() const { return result.has_value() || error != nullptr; }
};

template <class Result>
struct SweepOutcome {
    std::vector<JobOutcome<Result>> jobs;   // in job order, whatever order they finished in
    std::optional<std::size_t> firstError;  // the job whose failure stopped the sweep
    bool cancelled = false;                 // cancel() was called
};

template <class Result>
class SweepRunner {
  public:
    using Job = std::function<Result(RunControl&)>;
    using Outcome = JobOutcome<Result>;
    // Called on the worker thread that ran the job, right after it returned or threw, with the
    // job's index and outcome. Calls are serialized (never two at once, each sees the outcomes
    // of the jobs reported before it), so a callback may count or print without a lock of its
    // own; it holds up other workers' reports, so it should be short, and it must not throw.
    using JobDone = std::function<void(std::size_t index, const JobOutcome<Result>& outcome)>;
    // Called once, on the last worker thread to finish (on the caller's thread when there are no
    // jobs), after every JobDone. Call wait() from anywhere else to join and collect.
    using Finished = std::function<void()>;

    explicit SweepRunner(std::vector<Job> jobs, unsigned threads = 0)
        : jobs_(std::move(jobs)),
          outcomes_(jobs_.size()),
          threadCount_(sweepThreadCount(jobs_.size(), threads)) {}

    void start(JobDone onJobDone = {}, Finished onFinished = {}) {
        SweepPool::Hooks hooks;
        hooks.run = [this](std::size_t i) {
            outcomes_[i].result.emplace(jobs_[i](pool_.control()));
        };
        hooks.done = [this, onJobDone = std::move(onJobDone)](std::size_t i, std::exception_ptr e) {
            outcomes_[i].error = std::move(e);
            if (onJobDone) onJobDone(i, outcomes_[i]);
        };
        hooks.finished = std::move(onFinished);
        pool_.start(jobs_.size(), threadCount_, std::move(hooks));
    }

    // Requests cancel: no new job starts, running ones stop at their next checkpoint.
    void cancel() { pool_.cancel(); }
    // Shared by every job: pause and resume through it. Progress a job reports on it is the last
    // report of whichever job reported last; report per-job progress through JobDone instead.
    RunControl& control() { return pool_.control(); }
    unsigned threadCount() const { return threadCount_; }

    // Blocks until every worker has finished, then hands over the outcomes. Call it once, and not
    // from a callback (a worker cannot join itself).
    SweepOutcome<Result> wait() {
        pool_.wait();
        SweepOutcome<Result> out;
        out.jobs = std::move(outcomes_);
        out.firstError = pool_.firstError();
        out.cancelled = pool_.cancelled();
        return out;
    }

  private:
    std::vector<Job> jobs_;
    std::vector<JobOutcome<Result>> outcomes_;  // each element written by one worker only
    unsigned threadCount_;
    SweepPool pool_;  // declared last: destroyed (cancelled and joined) first
};

// Runs the jobs and waits for them: SweepRunner's start() then wait() on the calling thread.
template <class Result>
SweepOutcome<Result> runSweep(std::vector<typename SweepRunner<Result>::Job> jobs,
                              unsigned threads = 0,
                              typename SweepRunner<Result>::JobDone onJobDone = {}) {
    SweepRunner<Result> runner(std::move(jobs), threads);
    runner.start(std::move(onJobDone));
    return runner.wait();
}

}  // namespace taillab
