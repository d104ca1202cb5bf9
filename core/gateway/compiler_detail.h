// The query compiler's insides, shared by its source files and reachable from tests. Not part of
// the gateway's API: callers use compiler.h.
//
// The reference path (compiler_reference.cpp) runs ICU on every call and builds a std::string
// per word, written to read like compiler.h's rules. It is kept apart from the public entry
// points so that a faster path can be held to it byte for byte. The word sets and word
// predicates below are shared, so each rule is written once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gateway/gateway_types.h"

namespace taillab::gateway::detail {

constexpr std::size_t kMaxQueryBytes = std::size_t{64} << 20;

// ---- the ICU reference ---------------------------------------------------------------------

// normalizeQuery as compiler.h specifies it, through ICU for any input (size and UTF-8 checks
// included).
std::string normalizeQueryReference(std::string_view utf8);
QueryClass classifyQueryReference(std::string_view normalized);
bool zeroResultsAllowedReference(std::string_view normalized);

// ICU's NFKC_Casefold of valid UTF-8 (step 3 alone), and ICU's White_Space property: what the
// ASCII fast path's per-byte rules are checked against.
std::string nfkcCasefold(std::string_view utf8);
bool isUnicodeWhiteSpace(char32_t c);

// ---- ASCII ----------------------------------------------------------------------------------------

constexpr char asciiFold(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// ---- word sets (compiler.h's classification rules) -----------------------------------------

constexpr std::array<std::string_view, 7> kOperatorNames{"site",  "filetype", "ext",   "lang",
                                                         "inurl", "intitle",  "intext"};
constexpr std::array<std::string_view, 21> kNewsWords{
    "today",   "tonight",   "yesterday", "tomorrow", "latest",   "breaking",  "live",
    "news",    "now",       "score",     "scores",   "election", "elections", "monday",
    "tuesday", "wednesday", "thursday",  "friday",   "saturday", "sunday",    "headlines"};
constexpr std::array<std::string_view, 17> kProductWords{
    "price", "prices", "pricing",  "cost",   "costs", "cheap",  "cheaper", "cheapest", "buy",
    "deal",  "deals",  "discount", "coupon", "vs",    "versus", "review",  "reviews"};
constexpr std::array<std::string_view, 10> kCurrencyCodes{"usd", "eur", "gbp", "jpy", "cny",
                                                          "inr", "cad", "aud", "chf", "krw"};
constexpr std::array<std::string_view, 17> kQuestionWords{
    "how",    "why",   "what", "which", "who", "when", "where", "can", "could",
    "should", "would", "is",   "are",   "do",  "does", "did",   "will"};
constexpr std::array<std::string_view, 3> kNavigationalWords{"login", "signin", "homepage"};

// ---- word predicates (allocation-free, shared by both paths) -------------------------------

constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool hasDigit(std::string_view w);
// A run of exactly four digits from 2000 to 2099.
bool hasYear(std::string_view w);
// v1, v1.2, 3.11: 'v' and digits, or digits with at least one dot (each dot between digits).
bool isVersion(std::string_view w);
// Digits, '.' and ',' only, with at least one digit.
bool isAmount(std::string_view w);
// A code point of Unicode category Sc in `w` (ICU for non-ASCII bytes).
bool hasCurrencySymbol(std::string_view w);
// A dotted host whose last label is 2..24 ASCII letters, optionally after http(s)://.
bool looksLikeDomain(std::string_view w);
// `w` without surrounding ASCII punctuation "\"'()[]{}<>,.;:!?" (and a leading '¡' or '¿').
std::string_view trimPunctuation(std::string_view w);
// Where an http:// or https:// URL starts in `w` at or after `from`, or npos.
std::size_t findUrlStart(std::string_view w, std::size_t from);
// "[-]name:value" with a name in kOperatorNames and a non-empty value.
bool isOperatorWord(std::string_view w);

}  // namespace taillab::gateway::detail
