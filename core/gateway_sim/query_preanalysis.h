// The compiler's work on an hour of arrivals, done on the thread that draws the hour: each text's
// hash, and the analysis of each text the gateway's compiler memo will not hold when it arrives.
// The gateway's thread then files these (Request::query_hash, Request::analysis) instead of
// normalizing and classifying the text itself, which is a third of the requests of a week (the
// one-off queries) and a sixth of its thread's work.
//
// Which texts the memo holds is mirrored, not shared: the same capacity, one slot per analysed
// text, replaced oldest first, in arrival order, for the requests whose text the gateway
// analyses (a known API key and max_results in range). Where the mirror is wrong (a text the
// memo has replaced since, a surge's arrival, a request the gateway refuses before it analyses)
// the gateway analyses the text itself: that costs time, never a different answer, since an
// analysis depends on the text alone.
#pragma once

#include <cstdint>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/flat_map.h"
#include "workload/workload.h"

namespace taillab::gateway {

class QueryPreanalysis {
public:
    // `memoEntries`: the gateway's GatewayConfig::compile_memo_entries.
    explicit QueryPreanalysis(std::size_t memoEntries);

    // Sets text_hash and analysis of every arrival; analysis indexes `analyses` (1-based), whose
    // entries are reused from one hour to the next (their strings keep their capacity).
    void annotate(std::vector<RequestSpec>& arrivals, std::vector<AnalyzedQuery>& analyses);

    std::uint64_t analysed() const { return analysed_; }

private:
    std::size_t capacity_;
    FlatMap<std::uint8_t> held_{1024};  // raw hashes the memo holds, as far as the mirror knows
    std::vector<std::uint64_t> ring_;   // the same, in the order the memo replaces them
    std::size_t next_ = 0;
    std::uint64_t analysed_ = 0;
};

}  // namespace taillab::gateway
