#include "gateway/answer.h"

#include "gateway/merge.h"
#include "gateway/validation.h"

namespace taillab::gateway {

ResultBody::ResultBody(std::vector<ResultItem> items, PageKind kind)
    : items_(std::move(items)), kind_(kind) {
    for (const ResultItem& item : items_) {
        malformed_ = malformed_ || itemMalformed(item);
        if (itemComplete(item)) ++complete_;
    }
    fingerprint_ = resultsFingerprint(items_);
}

const std::shared_ptr<const RankedResults>& ResultBody::ranked() const {
    if (!ranked_) {
        auto merged = std::make_shared<RankedResults>();
        const std::vector<ResultItem>* lists[] = {&items_};
        merged->items = mergeResults(lists, static_cast<int>(items_.size()));
        ranked_ = std::move(merged);
    }
    return ranked_;
}

}  // namespace taillab::gateway
