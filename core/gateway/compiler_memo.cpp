#include "gateway/compiler_memo.h"

#include <stdexcept>

#include "gateway/compiler.h"

namespace taillab::gateway {
namespace {
constexpr std::size_t kEvictAhead = 4;
}  // namespace

CompilerMemo::Ref CompilerMemo::find(std::string_view raw, std::uint64_t h) {
    if (const Ref* known = index_.find(h)) {
        ++hits_;
        return *known;
    }
    ++misses_;
    std::uint32_t i;
    if (slots_.size() < capacity_) {
        slots_.emplace_back();
        i = static_cast<std::uint32_t>(slots_.size() - 1);
    } else {
        i = static_cast<std::uint32_t>(next_);
        next_ = (next_ + 1) % capacity_;
        // The ring replaces its slots in order: start loading what a replacement a few misses
        // from now will touch (the index entry it erases, the text it overwrites), which would
        // otherwise be a cache miss each, one at a time.
        const Slot& ahead = slots_[(i + kEvictAhead) % capacity_];
        if (ahead.raw_hash != 0) index_.prefetch(ahead.raw_hash);
        __builtin_prefetch(ahead.facts.normalized.data(), 1);
        if (slots_[i].raw_hash != 0) index_.erase(slots_[i].raw_hash);
    }
    Slot& slot = slots_[i];
    QueryFacts& f = slot.facts;
    slot.raw_hash = 0;
    analyzeQuery(raw, f);  // throws before the slot is filed
    slot.raw_hash = h;
    const Ref ref{i, f.query_class, f.zero_results_allowed, f.normalized == raw, h, f.normalized_hash};
    index_.put(h, ref);
    return ref;
}

}  // namespace taillab::gateway
