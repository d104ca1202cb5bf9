#include "ui_threads.h"

#include <QSocketNotifier>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <unistd.h>

namespace taillab::ui {

WorkerThread::WorkerThread(std::string name, std::function<void()> tick)
    : tick_(std::move(tick)), thread_([this] { loop(); }) {
    name.resize(std::min<std::size_t>(name.size(), 15));  // the kernel's limit
    pthread_setname_np(thread_.native_handle(), name.c_str());
}

WorkerThread::~WorkerThread() {
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        dropped.swap(jobs_);
    }
    wake_.notify_all();
    thread_.join();
}  // `dropped` (and what its closures hold) goes after the join, on this thread

void WorkerThread::post(std::function<void()> job) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
}

void WorkerThread::startTicking(std::chrono::milliseconds interval) {
    if (interval_ == interval) return;  // already ticking at this interval: keep its phase
    interval_ = interval;
    nextTick_ = Clock::now() + interval;
}

void WorkerThread::stopTicking() { interval_.reset(); }

void WorkerThread::loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!jobs_.empty()) {
            std::function<void()> job = std::move(jobs_.front());
            jobs_.pop_front();
            lock.unlock();
            job();
            job = nullptr;  // what it holds is released outside the lock
            lock.lock();
        } else if (interval_ && tick_ && Clock::now() >= nextTick_) {
            nextTick_ = Clock::now() + *interval_;
            lock.unlock();
            tick_();
            lock.lock();
        } else if (interval_ && tick_) {
            wake_.wait_until(lock, nextTick_);
        } else {
            wake_.wait(lock);
        }
    }
}

UiInbox::UiInbox(QObject* parent) : QObject(parent) {
    fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd_ < 0)
        throw std::runtime_error(std::string("cannot create the UI thread's wake-up eventfd: ") +
                                 std::strerror(errno));
    notifier_ = new QSocketNotifier(static_cast<qintptr>(fd_), QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, [this] { drain(); });
}

UiInbox::~UiInbox() {
    delete notifier_;  // before its descriptor closes
    ::close(fd_);
}

void UiInbox::post(std::function<void()> fn) {
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(fn));
    }
    const std::uint64_t one = 1;
    // The counter saturates only after 2^64 - 2 posts; EAGAIN then still leaves it readable.
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

void UiInbox::drain() {
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(fd_, &count, sizeof count);
    std::vector<std::function<void()>> ready;
    {
        std::lock_guard lock(mutex_);
        ready.swap(queue_);
    }
    for (auto& fn : ready) fn();
}

}  // namespace taillab::ui
