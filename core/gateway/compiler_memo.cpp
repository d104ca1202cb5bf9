#include "gateway/compiler_memo.h"

#include <stdexcept>

#include "gateway/compiler.h"

namespace taillab::gateway {
namespace {
constexpr std::size_t kEvictAhead = 4;
constexpr std::size_t kSlotAhead = 16;
}  // namespace

CompilerMemo::Ref CompilerMemo::find(std::string_view raw, std::uint64_t h,
                                     const AnalyzedQuery* given) {
    if (const Facts* known = index_.find(h)) {
        ++hits_;
        return Ref{known->slot, known->query_class, known->zero_results_allowed,
                   known->normalized_is_raw, h, known->normalized_hash};
    }
    ++misses_;
    std::uint32_t i;
    if (slots_.size() < capacity_) {
        slots_.emplace_back();
        i = static_cast<std::uint32_t>(slots_.size() - 1);
    } else {
        i = static_cast<std::uint32_t>(next_);
        next_ = next_ + 1 == capacity_ ? 0 : next_ + 1;
        // The ring replaces its slots in order: start loading the index entry that a replacement
        // a few misses from now will erase, which would otherwise be a cache miss then, and,
        // further on, the slot that names the entry (the ring advances one slot per miss, too
        // slowly for the hardware to stream it in).
        __builtin_prefetch(&slots_[(i + kSlotAhead) % capacity_]);
        const std::uint64_t ahead = slots_[(i + kEvictAhead) % capacity_].raw_hash;
        if (ahead != 0) index_.prefetch(ahead);
        if (slots_[i].raw_hash != 0) index_.erase(slots_[i].raw_hash);
    }
    Slot& slot = slots_[i];
    slot.raw_hash = 0;
    if (!given) analyzeQuery(raw, scratch_);  // throws before the slot is filed
    const AnalyzedQuery& f = given ? *given : scratch_;
    const bool same = f.normalized == raw;
    if (!same) slot.normalized.assign(f.normalized);
    slot.raw_hash = h;
    index_.put(h, Facts{f.normalized_hash, i, f.query_class, f.zero_results_allowed, same});
    return Ref{i, f.query_class, f.zero_results_allowed, same, h, f.normalized_hash};
}

}  // namespace taillab::gateway
