// The merge stage (seed 000, "'Valid' is not '200'"): the checks an upstream answer must pass
// before it may win the race, and the merge of the answers that passed (dedupe by canonical URL,
// rank, slice to the requested maxResults). Pure functions: no clocks, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace taillab::gateway {

struct ResultItem {
    std::string title, url, snippet;
    double score = 0;  // higher ranks first
};

// The identity of a result's URL, for dedupe. Leading and trailing ASCII whitespace is trimmed;
// the scheme and host are lowercased (ASCII); the default port (http :80, https :443) and an
// empty port are dropped; a leading "www." is dropped from the host; the fragment is dropped;
// tracking parameters are dropped from the query (see isTrackingParam in compiler.h), the others
// kept in order, and an emptied '?' dropped; trailing slashes of the path are dropped, except
// that an empty path becomes the root "/". Userinfo, path case and percent-encoding are kept.
// A URL without "scheme://" is canonicalized as if it began with its authority (or, when it
// starts with '/', as a bare path). "" stays "".
std::string canonicalUrl(std::string_view url);

// Merges the answers that passed validation: items are deduplicated by canonical URL, keeping
// the one with the highest score (on a tie, the one from the earlier answer, then the earlier
// position); then ranked by score, highest first, ties broken by canonical URL (bytewise
// ascending); then the first max_results are returned. A NaN score ranks below every number.
// Items whose URL is empty (canonically) are dropped. The items keep their original url.
// Throws std::invalid_argument for a negative max_results.
std::vector<ResultItem> mergeResults(std::vector<std::vector<ResultItem>> answers, int max_results);

enum class Validity : std::uint8_t {
    Valid,
    Malformed,              // an item does not fit the schema: non-finite score, a URL that is
                            // not absolute http(s) with a host, or a field that is not UTF-8
    Empty,                  // no items, and the query does not allow zero results
    BlockPage,              // the answer is a block page, CAPTCHA or consent wall
    Incomplete,             // fewer than half the items have a title, a URL and a snippet
    DuplicateOfOtherQuery,  // byte-identical to the previous answer for a different query
};

// "valid", "malformed", "empty", "block_page", "incomplete", "duplicate_of_other_query".
const char* validityName(Validity v);

// A 64-bit fingerprint of a result list's bytes: the item count and, per item in order, the
// title, url and snippet (each length-prefixed) and the score's bit pattern. Equal lists give
// equal fingerprints; any changed byte, order or score changes it (up to hash collisions).
std::uint64_t resultsFingerprint(const std::vector<ResultItem>& items);

// Whether an upstream answer may be used. The first failing check, in this order, is returned:
// BlockPage (looks_like_block_page, decided by the caller from the page's structure), Malformed,
// Empty (no items and !zero_results_allowed), Incomplete (a field counts as present when it has
// a non-whitespace character), DuplicateOfOtherQuery (resultsFingerprint(items) equals
// previous_fingerprint_other_query: the previous answer from the same egress for a different
// query). An empty list that is allowed is Valid without the duplicate check: two different
// site: queries may both legitimately find nothing.
Validity validateResults(const std::vector<ResultItem>& items, bool zero_results_allowed,
                         bool looks_like_block_page,
                         std::optional<std::uint64_t> previous_fingerprint_other_query);

}  // namespace taillab::gateway
