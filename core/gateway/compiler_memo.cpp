#include "gateway/compiler_memo.h"

#include <stdexcept>

#include "gateway/compiler.h"

namespace taillab::gateway {

const QueryFacts& CompilerMemo::analyze(std::string_view raw) {
    const std::uint64_t h = hashText(raw);
    if (const std::uint32_t* i = index_.find(h)) {
        ++hits_;
        return facts_[*i];
    }
    ++misses_;
    QueryFacts f;
    f.normalized = normalizeQuery(raw);
    if (f.normalized.empty()) throw std::invalid_argument("the query is empty after normalization");
    f.normalized_hash = hashText(f.normalized);
    f.query_class = classifyQuery(f.normalized);
    f.zero_results_allowed = zeroResultsAllowed(f.normalized);
    if (facts_.size() >= capacity_) {
        facts_.clear();
        index_ = FlatMap<std::uint32_t>(1024);
    }
    facts_.push_back(std::move(f));
    index_.put(h, static_cast<std::uint32_t>(facts_.size() - 1));
    return facts_.back();
}

}  // namespace taillab::gateway
