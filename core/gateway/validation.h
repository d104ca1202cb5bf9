// Validation (seed 000, "'Valid' is not '200'"): whether an upstream answer may win the race. One
// implementation judges every answer, from the live driver's parsed pages and the simulated
// fleet's alike. An answer is valid only if all of these hold, checked in this order (the first
// failing check is the verdict):
//   - it is a page at all (not a reset, timeout, HTTP error or unparseable payload): NoAnswer;
//   - its structure is not a block page, CAPTCHA or consent wall: BlockPage;
//   - every item fits the schema (finite score; a URL, when present, absolute http(s) with a
//     host; every field UTF-8): Malformed;
//   - it has items, unless the query allows zero results (site: or an exact phrase): Empty. An
//     allowed empty page is Valid with no further check (two site: queries may both find nothing);
//   - at least half the items have a title, a URL and a snippet: Incomplete;
//   - its bytes are not identical to the previous answer from the same egress IP for a different
//     query (the signature of a cached block page): DuplicateOfOtherQuery.
// The checks that depend only on the page are computed once when the page is parsed (ResultBody),
// so judging an answer is constant time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gateway/answer.h"

namespace taillab::gateway {

enum class Validity : std::uint8_t {
    Valid,
    Malformed,
    Empty,
    BlockPage,
    Incomplete,
    DuplicateOfOtherQuery,
    NoAnswer,
};

// "valid", "malformed", "empty", "block_page", "incomplete", "duplicate_of_other_query",
// "no_answer".
const char* validityName(Validity v);

// A 64-bit fingerprint of a result list's bytes: the item count and, per item in order, the
// title, url and snippet (each length-prefixed) and the score's bit pattern. Equal lists give
// equal fingerprints; any changed byte, order or score changes it (up to hash collisions).
std::uint64_t resultsFingerprint(std::span<const ResultRef> items);
std::uint64_t resultsFingerprint(const std::vector<ResultItem>& items);

// The per-item checks ResultBody runs once. `text_is_utf8`: the fields are known to be UTF-8
// already (a strict JSON reader refused anything else), so that check is skipped.
bool itemMalformed(const ResultRef& item, bool text_is_utf8 = false);
bool itemComplete(const ResultRef& item);
namespace detail {
// Whether `url` is an absolute http(s) URL with a non-empty host, by the general reading alone:
// the reference the one-pass check inside itemMalformed is tested against.
bool isHttpUrlGeneral(std::string_view url);
}  // namespace detail

// The verdict on an upstream answer. `previous_fingerprint_other_query`: the fingerprint of the
// previous answer from the same egress IP and engine when it was for a different query.
Validity validateAnswer(const UpstreamAnswer& answer, bool zero_results_allowed,
                        std::optional<std::uint64_t> previous_fingerprint_other_query);

// The same judgement on a bare item list (an answer with no echo): `looks_like_block_page` stands
// for the page's structure. Builds the ResultBody and calls validateAnswer.
Validity validateResults(const std::vector<ResultItem>& items, bool zero_results_allowed,
                         bool looks_like_block_page,
                         std::optional<std::uint64_t> previous_fingerprint_other_query);

}  // namespace taillab::gateway
