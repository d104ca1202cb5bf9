// The merge stage (seed 000): the answers that passed validation (validation.h) are deduplicated
// by canonical URL, ranked, and sliced to the requested maxResults. Pure functions: no clocks, no
// I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/answer.h"

namespace taillab::gateway {

// The identity of a result's URL, for dedupe. Leading and trailing ASCII whitespace is trimmed;
// the scheme and host are lowercased (ASCII); the default port (http :80, https :443) and an
// empty port are dropped; a leading "www." is dropped from the host; the fragment is dropped;
// tracking parameters are dropped from the query (see isTrackingParam in compiler.h), the others
// kept in order, and an emptied '?' dropped; trailing slashes of the path are dropped, except
// that an empty path becomes the root "/". Userinfo, path case and percent-encoding are kept.
// A URL without "scheme://" is canonicalized as if it began with its authority (or, when it
// starts with '/', as a bare path). "" stays "".
std::string canonicalUrl(std::string_view url);
namespace detail {
// The same by the general reading alone, without the one-pass path for URLs that are nearly
// canonical already: the reference that path is tested against.
std::string canonicalUrlGeneral(std::string_view url);
}  // namespace detail

// Merges the answers that passed validation: items are deduplicated by canonical URL, keeping
// the one with the highest score (on a tie, the one from the earlier answer, then the earlier
// position); then ranked by score, highest first, ties broken by canonical URL (bytewise
// ascending); then the first max_results are returned. A NaN score ranks below every number.
// Items whose URL is empty (canonically) are dropped. The items keep their original url.
// Throws std::invalid_argument for a negative max_results.
std::vector<ResultItem> mergeResults(const std::vector<std::vector<ResultItem>>& answers,
                                     int max_results);
// mergeResults without the copies: the merged items, pointing into `answers`.
std::vector<const ResultRef*> rankItems(std::span<const std::span<const ResultRef>> answers,
                                        std::size_t max_results);

// The merge of the answers that won a request, every item kept (each response slices to its own
// maxResults, so one merged list serves every request that shares the cache entry). One page, the
// path's case (the first valid answer wins and the others are cancelled), is its body's ranked(),
// computed once per body; several are merged afresh.
std::shared_ptr<const RankedResults> mergeAnswers(const std::vector<const ResultBody*>& pages);
inline std::shared_ptr<const RankedResults> mergeAnswer(const ResultBody& page) { return page.ranked(); }

}  // namespace taillab::gateway
