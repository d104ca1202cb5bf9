// EventQueue throughput in steady state (the "hold" model: pop the next event, schedule one in its
// place) with 1k and 100k pending events, and with a timeout scheduled and cancelled per event.
// Delays come from a precomputed array so the random-number generator is not measured.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/event_queue.h"
#include "base/rng.h"

namespace taillab {
namespace {

struct Payload {
    std::uint64_t request = 0;
    std::uint32_t kind = 0;
};

constexpr std::size_t kDelays = 1 << 16;

// Exponential delays with a mean of 1 ms.
const std::vector<Duration>& delays() {
    static const std::vector<Duration> values = [] {
        Rng rng(7, "bench-event-queue");
        std::vector<Duration> v(kDelays);
        for (auto& d : v) d = fromMs(rng.exponential(1.0));
        return v;
    }();
    return values;
}

EventQueue<Payload> prefilled(std::size_t pending) {
    EventQueue<Payload> q;
    q.reserve(pending * 2);
    const auto& d = delays();
    for (std::size_t i = 0; i < pending; ++i)
        q.schedule(d[i % kDelays] * static_cast<std::int64_t>(i % 97 + 1), Payload{i, 0});
    return q;
}

void BM_EventQueueHold(benchmark::State& state) {
    auto q = prefilled(static_cast<std::size_t>(state.range(0)));
    const auto& d = delays();
    std::size_t i = 0;
    for (auto _ : state) {
        auto event = q.pop();
        q.schedule(event->at + d[i++ & (kDelays - 1)], event->payload);
    }
    state.SetItemsProcessed(state.iterations());
    state.counters["pending"] = static_cast<double>(q.size());
}
BENCHMARK(BM_EventQueueHold)->Arg(1000)->Arg(100'000);

// Each event also arms a 50 ms timeout and cancels it (the request finished in time), so
// cancelled entries pile up in the heap until their time passes.
void BM_EventQueueHoldWithCancelledTimeout(benchmark::State& state) {
    auto q = prefilled(static_cast<std::size_t>(state.range(0)));
    const auto& d = delays();
    constexpr Duration kTimeout = std::chrono::milliseconds(50);
    std::size_t i = 0;
    for (auto _ : state) {
        auto event = q.pop();
        const TimerId timeout =
            q.schedule(event->at + kTimeout, Payload{event->payload.request, 1});
        q.schedule(event->at + d[i++ & (kDelays - 1)], event->payload);
        benchmark::DoNotOptimize(q.cancel(timeout));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHoldWithCancelledTimeout)->Arg(1000)->Arg(100'000);

// schedule() immediately followed by cancel() on a queue of N pending events; every 64 pairs one
// event is popped so the lazily cancelled entries drain and the heap stays at steady state.
void BM_EventQueueScheduleCancel(benchmark::State& state) {
    auto q = prefilled(static_cast<std::size_t>(state.range(0)));
    const auto& d = delays();
    std::size_t i = 0;
    Time now = kZero;
    for (auto _ : state) {
        const TimerId id = q.schedule(now + d[i & (kDelays - 1)], Payload{i, 2});
        benchmark::DoNotOptimize(q.cancel(id));
        if ((++i & 63) == 0) {
            auto event = q.pop();
            now = event->at;
            q.schedule(now + d[(i >> 6) & (kDelays - 1)] * 50, event->payload);
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueScheduleCancel)->Arg(1000)->Arg(100'000);

}  // namespace
}  // namespace taillab
