// The gateway's own timers (hedge, last chance, deadline, coalescing detach), in a binary heap
// ordered by (time, arming sequence), so equal times fire in the order they were armed and runs
// reproduce. A timer is cancelled by forgetting its sequence number (the owner keeps the number of
// the one it has armed per kind); a popped entry whose number is no longer held is skipped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/time.h"

namespace taillab::gateway {

enum class TimerKind : std::uint8_t { Hedge, LastChance, Deadline, Detach };
constexpr int kTimerKinds = 4;

class TimerQueue {
public:
    struct Entry {
        Time at;
        std::uint64_t seq;
        std::uint32_t request;  // slot
        TimerKind kind;
    };
    // Arms a timer; returns its sequence number (never 0).
    std::uint64_t arm(Time at, std::uint32_t request, TimerKind kind) {
        const std::uint64_t seq = ++seq_;
        heap_.push_back(Entry{at, seq, request, kind});
        std::push_heap(heap_.begin(), heap_.end(), later);
        return seq;
    }
    bool empty() const { return heap_.empty(); }
    const Entry& top() const { return heap_.front(); }
    Entry pop() {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        const Entry e = heap_.back();
        heap_.pop_back();
        return e;
    }
    std::size_t size() const { return heap_.size(); }

private:
    static bool later(const Entry& a, const Entry& b) {
        return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
    std::vector<Entry> heap_;
    std::uint64_t seq_ = 0;
};

}  // namespace taillab::gateway
