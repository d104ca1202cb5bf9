// AnswerStore: the answers the cache holds, by handle. An L1 or L2 entry carries a 32-bit handle
// instead of the answer, so entries stay small (the cache tables are the gateway's largest
// structures, and a lookup is bound by memory). Each entry that holds a handle holds one
// reference; the answer is dropped with its last reference.
//
// Answers are interned by identity: storing the same merged list twice (two keys answered by one
// page, or an L2 entry written back to an instance's L1) gives the same handle with one more
// reference, not a copy.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "gateway/answer.h"
#include "gateway/flat_map.h"

namespace taillab::gateway {

class AnswerStore {
public:
    using Handle = std::uint32_t;
    static constexpr Handle kNone = 0;

    // A handle to `answer` with one more reference.
    Handle acquire(const std::shared_ptr<const RankedResults>& answer) {
        const std::uint64_t id = identity(answer.get());
        if (Handle* h = byIdentity_.find(id)) {
            ++slots_[*h].refs;
            return *h;
        }
        Handle h;
        if (!free_.empty()) {
            h = free_.back();
            free_.pop_back();
        } else {
            if (slots_.size() >= kMaxSlots) throw std::length_error("AnswerStore: too many answers");
            slots_.emplace_back();
            h = static_cast<Handle>(slots_.size() - 1);
        }
        slots_[h] = Slot{answer, 1};
        byIdentity_.put(id, h);
        return h;
    }
    // One more reference to a held answer (an entry copied to another tier).
    Handle retain(Handle h) {
        if (h != kNone) ++slots_[h].refs;
        return h;
    }
    void release(Handle h) {
        if (h == kNone) return;
        Slot& s = slots_[h];
        if (--s.refs > 0) return;
        byIdentity_.erase(identity(s.answer.get()));
        s.answer.reset();
        free_.push_back(h);
    }
    const RankedResults& get(Handle h) const { return *slots_[h].answer; }
    std::uint32_t refs(Handle h) const { return slots_[h].refs; }
    // Answers held (each counted once, whatever its references).
    std::size_t size() const { return slots_.size() - 1 - free_.size(); }

private:
    static constexpr std::size_t kMaxSlots = 0xffffffffu;
    struct Slot {
        std::shared_ptr<const RankedResults> answer;
        std::uint32_t refs = 0;
    };
    static std::uint64_t identity(const void* p) {
        return mix64(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)));
    }
    std::vector<Slot> slots_{Slot{}};  // slot 0 is kNone
    std::vector<Handle> free_;
    FlatMap<Handle> byIdentity_{64};
};

}  // namespace taillab::gateway
