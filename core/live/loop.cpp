#include "live/loop.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "live/loop_asio.h"

namespace taillab::live {

namespace asio = boost::asio;

struct Loop::Impl {
    asio::io_context io{1};  // one thread: Asio may skip its own locking
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    std::thread thread;
    std::atomic<std::thread::id> loopThread{};
    std::atomic<bool> running{false};
    std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
    std::unordered_map<TimerId, std::unique_ptr<asio::steady_timer>> timers;
    TimerId nextTimer = 1;
};

asio::io_context& ioContext(Loop& loop) { return loop.impl().io; }

Loop::Loop() : impl_(std::make_unique<Impl>()) {}

Loop::~Loop() {
    stop();
    // Pending handlers own sessions and timers that refer to the io_context: destroy them now,
    // while the rest of Impl is still whole.
    impl_->timers.clear();
}

void Loop::start() {
    if (impl_->thread.joinable()) throw std::logic_error("Loop::start: already started");
    impl_->work.emplace(impl_->io.get_executor());
    impl_->running = true;
    impl_->thread = std::thread([this] {
        impl_->loopThread = std::this_thread::get_id();
        impl_->io.run();
        impl_->loopThread = std::thread::id{};
    });
}

void Loop::stop() {
    if (!impl_->thread.joinable()) return;
    if (onLoopThread()) throw std::logic_error("Loop::stop called from the loop thread");
    impl_->work.reset();
    impl_->io.stop();
    impl_->thread.join();
    impl_->running = false;
}

bool Loop::running() const { return impl_->running; }

bool Loop::onLoopThread() const { return impl_->loopThread.load() == std::this_thread::get_id(); }

Time Loop::now() const {
    return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - impl_->origin);
}

void Loop::post(std::function<void()> fn) { asio::post(impl_->io, std::move(fn)); }

void Loop::invoke(const std::function<void()>& fn) {
    if (!running() || onLoopThread()) return fn();
    std::promise<void> done;
    post([&] {
        try {
            fn();
            done.set_value();
        } catch (...) {
            done.set_exception(std::current_exception());
        }
    });
    done.get_future().get();
}

Loop::TimerId Loop::runAfter(Duration delay, std::function<void()> fn) {
    const TimerId id = impl_->nextTimer++;
    auto timer = std::make_unique<asio::steady_timer>(impl_->io);
    timer->expires_after(std::chrono::duration_cast<asio::steady_timer::duration>(delay));
    timer->async_wait([this, id, fn = std::move(fn)](const boost::system::error_code& ec) {
        // Cancelled, or cancelled after it expired but before this handler ran.
        if (ec || impl_->timers.erase(id) == 0) return;
        fn();
    });
    impl_->timers.emplace(id, std::move(timer));
    return id;
}

bool Loop::cancel(TimerId id) {
    const auto it = impl_->timers.find(id);
    if (it == impl_->timers.end()) return false;
    it->second->cancel();
    impl_->timers.erase(it);
    return true;
}

}  // namespace taillab::live
