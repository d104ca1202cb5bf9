#include "gateway_sim/query_preanalysis.h"

#include <stdexcept>

#include "gateway/compiler_memo.h"

namespace taillab::gateway {

QueryPreanalysis::QueryPreanalysis(std::size_t memoEntries)
    : capacity_(memoEntries < 1 ? 1 : memoEntries) {}

void QueryPreanalysis::annotate(std::vector<RequestSpec>& arrivals,
                                std::vector<AnalyzedQuery>& analyses) {
    std::size_t n = 0;
    for (RequestSpec& spec : arrivals) {
        const std::string_view text = spec.query();
        spec.text_hash = CompilerMemo::hashOf(text);
        spec.analysis = 0;
        // The gateway analyses a text only for a known key and a valid max_results (prefetch).
        if (spec.customer == kUnknownCustomer || !maxResultsInRange(spec.max_results)) continue;
        if (held_.find(spec.text_hash)) continue;
        if (n == analyses.size()) analyses.emplace_back();
        try {
            analyzeQuery(text, analyses[n]);
        } catch (const std::invalid_argument&) {
            continue;  // a 400, which the gateway finds for itself; the memo keeps no failures
        }
        spec.analysis = static_cast<std::uint32_t>(++n);
        ++analysed_;
        if (ring_.size() < capacity_) {
            ring_.push_back(spec.text_hash);
        } else {
            held_.erase(ring_[next_]);
            ring_[next_] = spec.text_hash;
            next_ = next_ + 1 == capacity_ ? 0 : next_ + 1;
        }
        held_.put(spec.text_hash, 1);
    }
}

}  // namespace taillab::gateway
