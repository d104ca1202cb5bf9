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

std::shared_ptr<const RankedResults> ResultBody::ranked() const {
    if (!rankedDone_) {
        const std::vector<ResultItem>* lists[] = {&items_};
        ranked_.items = rankItems(lists, items_.size());
        rankedDone_ = true;
    }
    if (std::shared_ptr<const ResultBody> self = weak_from_this().lock())
        return std::shared_ptr<const RankedResults>(std::move(self), &ranked_);
    std::vector<ResultItem> copy;
    copy.reserve(ranked_.items.size());
    for (const ResultItem* item : ranked_.items) copy.push_back(*item);
    return std::make_shared<const RankedResults>(RankedResults::copyOf(std::move(copy)));
}

RankedResults RankedResults::copyOf(std::vector<ResultItem> list) {
    RankedResults r;
    r.owned = std::move(list);
    r.items.reserve(r.owned.size());
    for (const ResultItem& item : r.owned) r.items.push_back(&item);
    return r;
}

}  // namespace taillab::gateway
