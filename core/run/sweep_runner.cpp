#include "run/sweep_runner.h"

#include <algorithm>
#include <stdexcept>

namespace taillab {

unsigned sweepThreadCount(std::size_t jobs, unsigned requested) {
    unsigned threads = requested != 0 ? requested : std::thread::hardware_concurrency();
    threads = std::max(1u, threads);
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, jobs)));
}

SweepPool::~SweepPool() {
    cancel();
    wait();
}

void SweepPool::start(std::size_t count, unsigned threads, Hooks hooks) {
    if (started_) throw std::logic_error("SweepPool::start called twice");
    started_ = true;
    hooks_ = std::move(hooks);
    count_ = count;
    if (count == 0) {
        if (hooks_.finished) hooks_.finished();
        return;
    }
    const auto workers =
        static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, count)));
    live_ = workers;
    threads_.reserve(workers);
    for (unsigned t = 0; t < workers; ++t) threads_.emplace_back([this] { work(); });
}

void SweepPool::cancel() {
    cancelled_ = true;
    stop_ = true;
    control_.requestCancel();
}

void SweepPool::wait() {
    for (auto& t : threads_)
        if (t.joinable()) t.join();
}

std::optional<std::size_t> SweepPool::firstError() const {
    std::lock_guard lock(mutex_);
    return firstError_;
}

bool SweepPool::cancelled() const { return cancelled_; }

void SweepPool::work() {
    while (true) {
        std::size_t index = 0;
        {
            // Claims happen under the lock that records a failure, so once a failure is
            // recorded no job starts, however the threads interleave.
            std::lock_guard lock(mutex_);
            if (stop_ || control_.cancelRequested() || next_ >= count_) break;
            index = next_++;
        }
        std::exception_ptr error;
        try {
            hooks_.run(index);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        if (error && !firstError_) {
            firstError_ = index;
            stop_ = true;
            control_.requestCancel();
        }
        if (hooks_.done) hooks_.done(index, error);
    }
    if (live_.fetch_sub(1) == 1 && hooks_.finished) hooks_.finished();
}

}  // namespace taillab
