// The discrete-event core: an event queue ordered by (time, insertion sequence) with
// cancellable timers, and a run loop that can step, run until a time, pause, cancel and report
// progress.
//
// Events with equal times run in insertion order (FIFO), so a run never depends on heap layout or
// pointer values. The queue is a binary heap of small POD entries; the payload is a template
// parameter so a model's dispatch is a switch the compiler can inline, not a std::function call.
// Cancellation is lazy: a cancelled timer's slot is marked and its entry skipped when it surfaces,
// so cancel() is O(1) and costs nothing on the hot path of timers that fire.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "base/time.h"

namespace taillab {

// Identifies a scheduled event so it can be cancelled. Generation-checked: a stale id never
// cancels a later event that reuses the slot.
struct TimerId {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
};

template <class Payload>
class EventQueue {
public:
    struct Event {
        Time at;
        Payload payload;
    };

    TimerId schedule(Time at, Payload payload) {
        const std::uint32_t slot = acquireSlot();
        heap_.emplace_back();  // the hole the new entry sifts up from
        siftUp(heap_.size() - 1, Entry{at, nextSeq_++, slot, std::move(payload)});
        return TimerId{slot, slots_[slot].generation};
    }

    // Cancels a pending event. Returns false if it already ran or was cancelled.
    bool cancel(TimerId id) {
        if (id.slot >= slots_.size()) return false;
        Slot& s = slots_[id.slot];
        if (s.generation != id.generation || !s.pending) return false;
        s.pending = false;
        --live_;
        return true;
    }

    bool empty() const { return live_ == 0; }
    std::size_t size() const { return live_; }

    // Time of the next live event, if any.
    std::optional<Time> nextTime() {
        dropCancelledTop();
        if (heap_.empty()) return std::nullopt;
        return heap_.front().at;
    }

    // The same as a plain Time, `none` when there is no live event: for a driver that asks
    // before every event. An optional<Time> is built on the stack and read back whole, which
    // waits on the two stores that wrote it (value and flag); a Time stays in a register.
    Time nextTimeOr(Time none) {
        dropCancelledTop();
        return heap_.empty() ? none : heap_.front().at;
    }

    // Removes and returns the next live event.
    std::optional<Event> pop() {
        dropCancelledTop();
        if (heap_.empty()) return std::nullopt;
        Entry top = takeTop();
        releaseSlot(top.slot);
        --live_;
        return Event{top.at, std::move(top.payload)};
    }

    void reserve(std::size_t n) {
        heap_.reserve(n);
        slots_.reserve(n);
    }

private:
    struct Entry {
        Time at;
        std::uint64_t seq;
        std::uint32_t slot;
        Payload payload;
    };
    struct Slot {
        std::uint32_t generation = 0;
        bool pending = false;
    };

    static bool before(const Entry& a, const Entry& b) {
        return a.at < b.at || (a.at == b.at && a.seq < b.seq);
    }

    std::uint32_t acquireSlot() {
        std::uint32_t slot;
        if (!freeSlots_.empty()) {
            slot = freeSlots_.back();
            freeSlots_.pop_back();
        } else {
            slot = static_cast<std::uint32_t>(slots_.size());
            slots_.push_back(Slot{});
        }
        slots_[slot].pending = true;
        ++live_;
        return slot;
    }
    void releaseSlot(std::uint32_t slot) {
        slots_[slot].pending = false;
        ++slots_[slot].generation;
        freeSlots_.push_back(slot);
    }

    void dropCancelledTop() {
        while (!heap_.empty() && !slots_[heap_.front().slot].pending) {
            const std::uint32_t slot = heap_.front().slot;
            takeTop();
            ++slots_[slot].generation;
            freeSlots_.push_back(slot);
        }
    }

    Entry takeTop() {
        Entry top = std::move(heap_.front());
        Entry last = std::move(heap_.back());
        heap_.pop_back();
        if (!heap_.empty()) siftDown(0, std::move(last));  // the last entry fills the top's hole
        return top;
    }

    // The sifts take the entry to place and move it into the heap once, at its final position:
    // writing it into the hole first and reading it back there would stall on the read, which
    // spans the several stores that wrote the entry and so cannot be forwarded from them.
    // Places `e` at or above the hole `i`.
    void siftUp(std::size_t i, Entry e) {
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!before(e, heap_[parent])) break;
            heap_[i] = std::move(heap_[parent]);
            i = parent;
        }
        heap_[i] = std::move(e);
    }

    // Places `e` at or below the hole `i`.
    void siftDown(std::size_t i, Entry e) {
        const std::size_t n = heap_.size();
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
            if (!before(heap_[child], e)) break;
            heap_[i] = std::move(heap_[child]);
            i = child;
        }
        heap_[i] = std::move(e);
    }

    std::vector<Entry> heap_;
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> freeSlots_;
    std::uint64_t nextSeq_ = 0;
    std::size_t live_ = 0;
};

}  // namespace taillab
