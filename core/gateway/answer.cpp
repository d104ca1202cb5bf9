#include "gateway/answer.h"

#include "gateway/merge.h"
#include "gateway/validation.h"

namespace taillab::gateway {

ResultBody::ResultBody(const std::vector<ResultItem>& items, PageKind kind) : kind_(kind) {
    std::vector<ResultRef> refs;
    refs.reserve(items.size());
    for (const ResultItem& item : items) refs.emplace_back(item);
    adopt(refs, false);
}

ResultBody::ResultBody(std::span<const ResultRef> items, PageKind kind) : kind_(kind) { adopt(items, false); }

ResultBody::ResultBody(std::span<const ResultRef> items, PageKind kind, Utf8Text) : kind_(kind) {
    adopt(items, true);
}

void ResultBody::adopt(std::span<const ResultRef> items, bool text_is_utf8) {
    std::size_t size = 0;
    for (const ResultRef& item : items) size += item.title.size() + item.url.size() + item.snippet.size();
    text_.reserve(size);  // never grows past this, so the views below stay put
    const auto keep = [this](std::string_view s) {
        const std::size_t at = text_.size();
        text_.append(s);
        return std::string_view(text_).substr(at, s.size());
    };
    items_.reserve(items.size());
    for (const ResultRef& item : items) {
        const std::string_view title = keep(item.title), url = keep(item.url);
        items_.emplace_back(title, url, keep(item.snippet), item.score);
    }
    judge(text_is_utf8);
}

ResultBody::ResultBody(std::string&& text, std::vector<ResultRef> items, PageKind kind, Utf8Text)
    : kind_(kind) {
    // A string short enough to live inside its object moves by copy: the views are rebased on
    // the moved bytes, wherever they are.
    const char* was = text.data();
    text_ = std::move(text);
    items_ = std::move(items);
    const auto rebase = [&](std::string_view& v) {
        if (v.empty()) v = {};
        else v = std::string_view(text_).substr(static_cast<std::size_t>(v.data() - was), v.size());
    };
    for (ResultRef& item : items_) {
        rebase(item.title);
        rebase(item.url);
        rebase(item.snippet);
    }
    judge(true);
}

void ResultBody::judge(bool text_is_utf8) {
    for (const ResultRef& item : items_) {
        malformed_ = malformed_ || itemMalformed(item, text_is_utf8);
        if (itemComplete(item)) ++complete_;
    }
    fingerprint_ = resultsFingerprint(items_);
}

std::shared_ptr<const RankedResults> ResultBody::ranked() const {
    if (std::shared_ptr<const ResultBody> self = weak_from_this().lock()) {
        if (!rankedDone_) {
            const std::span<const ResultRef> lists[] = {items_};
            ranked_.items = rankItems(lists, items_.size());
            rankedDone_ = true;
        }
        return std::shared_ptr<const RankedResults>(std::move(self), &ranked_);
    }
    // No shared_ptr owns this body, so nothing could keep it alive for the ranking: rank a copy.
    return std::make_shared<const ResultBody>(items_, kind_)->ranked();
}

RankedResults RankedResults::copyOf(std::vector<ResultItem> list) {
    auto body = std::make_shared<const ResultBody>(list);
    RankedResults r;
    r.items.reserve(body->items().size());
    for (const ResultRef& item : body->items()) r.items.push_back(&item);
    r.sources.push_back(std::move(body));
    return r;
}

}  // namespace taillab::gateway
