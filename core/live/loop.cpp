#include "live/loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <future>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <unordered_map>
#include <vector>

namespace taillab::live {

namespace {

// The eventfd's mark in the epoll set: no watch slot is ever this.
constexpr std::uint64_t kWake = ~std::uint64_t{0};
constexpr int kEventsPerWait = 64;

[[noreturn]] void throwErrno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// A free slot of `slots` (a freed one first), its generation kept.
template <class Slot>
std::uint32_t takeSlot(std::vector<Slot>& slots, std::vector<std::uint32_t>& free) {
    if (free.empty()) {
        slots.emplace_back();
        return static_cast<std::uint32_t>(slots.size() - 1);
    }
    const std::uint32_t slot = free.back();
    free.pop_back();
    return slot;
}

}  // namespace

struct Loop::Impl {
    Impl() {
        epfd = ::epoll_create1(EPOLL_CLOEXEC);
        if (epfd < 0) throwErrno("epoll_create1");
        wakefd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (wakefd < 0) {
            const int e = errno;
            ::close(epfd);
            throw std::system_error(e, std::generic_category(), "eventfd");
        }
        // Level-triggered: whatever number of writes, it reports until it is read.
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = kWake;
        if (::epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, &ev) != 0) {
            const int e = errno;
            ::close(wakefd);
            ::close(epfd);
            throw std::system_error(e, std::generic_category(), "epoll_ctl");
        }
    }
    ~Impl() {
        ::close(wakefd);
        ::close(epfd);
    }

    int epfd = -1;
    int wakefd = -1;
    std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
    std::thread thread;
    std::atomic<std::thread::id> loopThread{};
    std::atomic<bool> running{false};
    std::atomic<bool> quitting{false};
    bool pwait2 = true;  // epoll_pwait2 (Linux 5.11) is there; else epoll_wait, in milliseconds

    // Work posted from other threads, and from the loop's own.
    std::mutex mutex;
    std::vector<std::function<void()>> incoming;  // guarded by mutex
    std::vector<std::function<void()>> ready;

    struct WatchSlot {
        IoHandler* handler = nullptr;
        std::uint32_t generation = 0;
    };
    std::vector<WatchSlot> watches;
    std::vector<std::uint32_t> freeWatches;

    struct TimerSlot {
        Timer* timer = nullptr;
        std::uint32_t generation = 0;
    };
    std::vector<TimerSlot> timers;
    std::vector<std::uint32_t> freeTimers;
    std::size_t liveTimers = 0;
    // Deadlines in a min-heap. An entry counts while its slot holds the same generation and its
    // timer's earliest queued entry is at its time; the others are dropped as they surface.
    struct Entry {
        Time at;
        std::uint32_t slot, generation;
        bool operator>(const Entry& o) const { return at > o.at; }
    };
    std::vector<Entry> heap;

    std::vector<epoll_event> held;  // reports a quit left undelivered, for the next run

    std::unordered_map<TimerId, std::unique_ptr<Timer>> oneShots;
    TimerId nextOneShot = 1;

    Time now() const {
        return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - origin);
    }

    void wake() const {
        const std::uint64_t one = 1;
        // EAGAIN: the counter is full, and so the loop is woken anyway.
        [[maybe_unused]] const ssize_t n = ::write(wakefd, &one, sizeof one);
    }

    bool live(const Entry& e) const {
        const TimerSlot& s = timers[e.slot];
        return s.generation == e.generation && s.timer && s.timer->queued_ == e.at;
    }

    void push(Timer& t, Time at) {
        if (heap.size() > 2 * liveTimers + 1024) {
            std::erase_if(heap, [&](const Entry& e) { return !live(e); });
            std::make_heap(heap.begin(), heap.end(), std::greater<>());
        }
        heap.push_back(Entry{at, t.slot_, timers[t.slot_].generation});
        std::push_heap(heap.begin(), heap.end(), std::greater<>());
        t.queued_ = at;
    }

    void popHeap() {
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        heap.pop_back();
    }

    // The timers due at `now`, in deadline order; false if quit() came from one of them.
    bool runTimers(Time now) {
        while (!heap.empty() && heap.front().at <= now) {
            const Entry e = heap.front();
            popHeap();
            if (!live(e)) continue;
            Timer* t = timers[e.slot].timer;
            t->queued_.reset();
            if (!t->deadline_) continue;
            if (*t->deadline_ > now) {
                push(*t, *t->deadline_);
                continue;
            }
            t->deadline_.reset();
            // Out of the timer while it runs: fn may destroy it.
            std::function<void()> fn = std::move(t->fn_);
            fn();
            if (timers[e.slot].generation == e.generation && timers[e.slot].timer == t) t->fn_ = std::move(fn);
            if (quitting.load(std::memory_order_relaxed)) return false;
        }
        return true;
    }

    // The wait's timeout: none while work is ready, up to the earliest live deadline otherwise.
    std::optional<Duration> timeout(Time now) {
        if (!ready.empty()) return Duration::zero();
        while (!heap.empty() && !live(heap.front())) popHeap();
        if (heap.empty()) return std::nullopt;
        return std::max(Duration::zero(), heap.front().at - now);
    }

    int wait(epoll_event* events, std::optional<Duration> timeout) {
        if (pwait2) {
            timespec ts{};
            if (timeout) {
                ts.tv_sec = static_cast<time_t>(timeout->count() / 1'000'000'000);
                ts.tv_nsec = static_cast<long>(timeout->count() % 1'000'000'000);
            }
            const int n = ::epoll_pwait2(epfd, events, kEventsPerWait, timeout ? &ts : nullptr, nullptr);
            if (n >= 0 || errno != ENOSYS) return n;
            pwait2 = false;
        }
        int ms = -1;
        if (timeout) {
            const auto up = std::chrono::ceil<std::chrono::milliseconds>(*timeout).count();
            ms = static_cast<int>(std::min<std::int64_t>(up, 1 << 30));
        }
        return ::epoll_wait(epfd, events, kEventsPerWait, ms);
    }

    void drainWake() {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t n = ::read(wakefd, &count, sizeof count);
        std::lock_guard lock(mutex);
        if (ready.empty()) {
            ready.swap(incoming);
        } else {
            for (auto& fn : incoming) ready.push_back(std::move(fn));
            incoming.clear();
        }
    }

    // Posted work, in the order posted; what it posts in turn waits for the next pass.
    bool runReady(std::vector<std::function<void()>>& batch) {
        batch.swap(ready);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            batch[i]();
            if (quitting.load(std::memory_order_relaxed)) {
                // The rest stays queued, ahead of what they posted.
                batch.erase(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                for (auto& fn : ready) batch.push_back(std::move(fn));
                ready.swap(batch);
                batch.clear();
                return false;
            }
        }
        batch.clear();
        return true;
    }

    void loop() {
        // A wait's timeout is a timer of the calling thread, and Linux lets a thread's timers
        // fire up to its timer slack late (50 us by default) so that wake-ups can be batched:
        // the fleet's delays, the load generator's send times and the gateway's hedges would all
        // run that much late. 1 ns: as exact as the timerfd Asio used.
        ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        epoll_event events[kEventsPerWait];
        std::vector<std::function<void()>> batch;
        while (!quitting.load(std::memory_order_relaxed)) {
            // Reports a quit left undelivered in the last run go first: edge-triggered, they
            // would not come again.
            if (!held.empty()) {
                std::vector<epoll_event> earlier;
                earlier.swap(held);
                if (!dispatch(earlier.data(), static_cast<int>(earlier.size()))) break;
            }
            if (!runReady(batch)) break;
            if (!runTimers(now())) break;
            // The clock read again: timers that came due while the ones above ran wait for no one.
            const int n = wait(events, timeout(now()));
            if (n < 0) {
                if (errno == EINTR) continue;
                throwErrno("epoll_wait");
            }
            if (!dispatch(events, n)) break;
        }
    }

    // Hands a wait's reports to their watches' handlers. After a quit, the reports not yet
    // handed over are held for the next run (false).
    bool dispatch(const epoll_event* events, int n) {
        for (int i = 0; i < n; ++i) {
            const std::uint64_t data = events[i].data.u64;
            if (data == kWake) {
                drainWake();
            } else {
                const auto slot = static_cast<std::uint32_t>(data);
                const auto generation = static_cast<std::uint32_t>(data >> 32);
                // A report for a watch that an earlier handler of this batch ended is dropped.
                if (slot < watches.size() && watches[slot].generation == generation && watches[slot].handler)
                    watches[slot].handler->onIo(events[i].events);
            }
            if (quitting.load(std::memory_order_relaxed)) {
                held.insert(held.end(), events + i + 1, events + n);
                return false;
            }
        }
        return true;
    }
};

Loop::Loop() : impl_(std::make_unique<Impl>()) {}

Loop::~Loop() {
    stop();
    // Queued work and one-shot timers own sessions and timers that refer to the loop: destroy
    // them now, while the rest of Impl is still whole.
    std::vector<std::function<void()>> queued;
    queued.swap(impl_->ready);
    queued.clear();
    {
        std::lock_guard lock(impl_->mutex);
        queued.swap(impl_->incoming);
    }
    queued.clear();
    impl_->oneShots.clear();
}

void Loop::start() {
    if (impl_->thread.joinable()) throw std::logic_error("Loop::start: already started");
    impl_->running = true;
    impl_->thread = std::thread([this] {
        impl_->loopThread = std::this_thread::get_id();
        impl_->loop();
        impl_->loopThread = std::thread::id{};
    });
}

void Loop::stop() {
    if (!impl_->thread.joinable()) return;
    if (onLoopThread()) throw std::logic_error("Loop::stop called from the loop thread");
    impl_->quitting = true;
    impl_->wake();
    impl_->thread.join();
    impl_->quitting = false;
    impl_->running = false;
}

void Loop::run() {
    if (impl_->thread.joinable()) throw std::logic_error("Loop::run: the loop runs on its own thread");
    impl_->loopThread = std::this_thread::get_id();
    impl_->running = true;
    try {
        impl_->loop();
    } catch (...) {
        impl_->running = false;
        impl_->loopThread = std::thread::id{};
        impl_->quitting = false;
        throw;
    }
    impl_->running = false;
    impl_->loopThread = std::thread::id{};
    impl_->quitting = false;
}

void Loop::quit() {
    impl_->quitting = true;
    if (!onLoopThread()) impl_->wake();
}

bool Loop::running() const { return impl_->running; }

bool Loop::onLoopThread() const { return impl_->loopThread.load() == std::this_thread::get_id(); }

Time Loop::now() const { return impl_->now(); }

void Loop::post(std::function<void()> fn) {
    if (onLoopThread()) {
        impl_->ready.push_back(std::move(fn));
        return;
    }
    {
        std::lock_guard lock(impl_->mutex);
        impl_->incoming.push_back(std::move(fn));
        if (impl_->incoming.size() > 1) return;  // the first one's wake-up is still unread
    }
    impl_->wake();
}

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
    const TimerId id = impl_->nextOneShot++;
    auto timer = std::make_unique<Timer>(*this, [this, id, fn = std::move(fn)] {
        const auto node = impl_->oneShots.extract(id);  // the timer goes when this returns
        fn();
    });
    timer->setAfter(delay);
    impl_->oneShots.emplace(id, std::move(timer));
    return id;
}

bool Loop::cancel(TimerId id) { return impl_->oneShots.erase(id) > 0; }

Loop::Timer::Timer(Loop& loop, std::function<void()> fn) : loop_(loop), fn_(std::move(fn)) {
    Impl& impl = *loop_.impl_;
    slot_ = takeSlot(impl.timers, impl.freeTimers);
    impl.timers[slot_].timer = this;
    ++impl.liveTimers;
}

Loop::Timer::~Timer() {
    Impl& impl = *loop_.impl_;
    Impl::TimerSlot& s = impl.timers[slot_];
    s.timer = nullptr;
    ++s.generation;
    impl.freeTimers.push_back(slot_);
    --impl.liveTimers;
}

void Loop::Timer::setAt(Time at) {
    deadline_ = at;
    if (queued_ && *queued_ <= at) return;  // an entry already comes at or before it
    loop_.impl_->push(*this, at);
}

void Loop::Timer::setAfter(Duration d) { setAt(loop_.now() + d); }

Loop::Watch::Watch(Loop& loop, int fd, IoHandler& handler) {
    Impl& impl = *loop.impl_;
    const std::uint32_t slot = takeSlot(impl.watches, impl.freeWatches);
    Impl::WatchSlot& s = impl.watches[slot];
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.u64 = (std::uint64_t{s.generation} << 32) | slot;
    if (::epoll_ctl(impl.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        impl.freeWatches.push_back(slot);
        throwErrno("epoll_ctl");
    }
    s.handler = &handler;
    loop_ = &loop;
    fd_ = fd;
    slot_ = slot;
}

Loop::Watch::Watch(Watch&& other) noexcept
    : loop_(std::exchange(other.loop_, nullptr)), fd_(other.fd_), slot_(other.slot_) {}

Loop::Watch& Loop::Watch::operator=(Watch&& other) noexcept {
    if (this != &other) {
        reset();
        loop_ = std::exchange(other.loop_, nullptr);
        fd_ = other.fd_;
        slot_ = other.slot_;
    }
    return *this;
}

void Loop::Watch::reset() {
    if (!loop_) return;
    Impl& impl = *loop_->impl_;
    ::epoll_ctl(impl.epfd, EPOLL_CTL_DEL, fd_, nullptr);
    Impl::WatchSlot& s = impl.watches[slot_];
    s.handler = nullptr;
    ++s.generation;
    impl.freeWatches.push_back(slot_);
    loop_ = nullptr;
}

}  // namespace taillab::live
