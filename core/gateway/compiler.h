// The query compiler (seed 000, "The query compiler"): turns a request into a normalized query,
// a cache key and a freshness class. Pure functions: no clocks, no I/O, no global state beyond
// ICU's immutable normalization data. Pure-ASCII queries, almost all of them, take a path
// without ICU and without a heap allocation per word that gives the same bytes and classes
// (compiler_detail.h says how, and how tests hold it to the ICU reference).
//
// Normalization, in order:
//   1. the input must be valid UTF-8 (else std::invalid_argument naming the byte offset);
//   2. curly double quotes (U+201C..U+201F) become ASCII '"';
//   3. Unicode NFKC with full case folding (ICU's NFKC_Casefold: "ＡＰＩ" -> "api",
//      "Straße" -> "strasse", "ﬁ" -> "fi"; default-ignorable characters such as U+200B vanish);
//   4. the text is split on runs of Unicode White_Space;
//   5. a '"' without a partner (the last one when their count is odd) is removed, so phrases
//      always pair up and normalizing twice changes nothing;
//   6. in every http:// or https:// URL inside a word, tracking parameters (isTrackingParam) are
//      removed from the query string, the others kept in order, and an emptied '?' dropped;
//   7. words of the form [-]name:value with a known operator name (site, filetype, ext, lang,
//      inurl, intitle, intext) and a non-empty value are operators, unless they sit inside a
//      quoted phrase; an operator whose value opens a phrase (intitle:"a b") takes the words up
//      to the closing quote. Operators are de-duplicated, sorted bytewise and put after the free
//      terms, which keep their order;
//   8. the result is joined with single ASCII spaces (no leading or trailing space).
// The output is a fixed point: normalizeQuery(normalizeQuery(q)) == normalizeQuery(q).
//
// Classification (classifyQuery) is a transparent rule set over the free terms of a normalized
// query (operators are ignored except that a query made only of a site: restriction is
// navigational). Each word is matched with surrounding punctuation trimmed. It fails toward
// fresh: every rule is evaluated and the freshest class that fires wins, in the order
// News > Product > LongTail > Navigational > Evergreen (Navigational's TTL is the shorter of the
// last two). The rules:
//   News:     a word in {today, tonight, yesterday, tomorrow, latest, breaking, live, news, now,
//             headlines, score, scores, election, elections, monday .. sunday}; the words
//             "this week"; or a run of exactly four digits from 2000 to 2099 anywhere in a
//             word (a year).
//             ("where do penguins live" is News: the rules over-trigger on purpose.)
//   Product:  a word in {price, prices, pricing, cost, costs, cheap, cheaper, cheapest, buy,
//             deal, deals, discount, coupon, vs, versus, review, reviews}; a currency symbol
//             (Unicode category Sc: $ € £ ¥ ₹ ...) or ISO code (usd eur gbp jpy cny inr cad aud
//             chf krw) in a word with a digit or next to a word with a digit ("$5", "5 usd",
//             "usd5"); or a version: v1, v1.2, 3.11 (digits with at least one dot, or 'v' digits).
//   LongTail: 7 or more free words, or 5 or more whose first is a question word
//             {how, why, what, which, who, when, where, can, could, should, would, is, are,
//             do, does, did, will}.
//   Navigational: a single word that looks like a domain or URL (a dotted host whose last
//             label is 2..24 ASCII letters: "github.com", "https://a.io/x"); any query with
//             login, log in, signin, sign in, homepage, "official site", "official website";
//             1 or 2 free words none of which is a question word; or no free words and a site:
//             operator.
//   Evergreen: everything else (including the empty query).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/gateway_types.h"

namespace taillab::gateway {

// The byte offset of the first ill-formed UTF-8 sequence (overlong forms, surrogates and code
// points above U+10FFFF are ill-formed), or nullopt when `bytes` is valid UTF-8.
std::optional<std::size_t> invalidUtf8Offset(std::string_view bytes);

// True for the query-parameter names the compiler and the merge stage strip: utm_* and gclid,
// fbclid, msclkid, mc_cid, mc_eid, yclid, _ga, ref_src, igshid (ASCII case-insensitive; the
// name is compared as written, not percent-decoded).
bool isTrackingParam(std::string_view name);

// `url` with tracking parameters removed from its query string (between the first '?' and the
// first '#'), the other parameters kept in order, empty parameters ("&&") dropped, and the '?'
// dropped when nothing is left. Everything else, the fragment included, is kept byte for byte.
std::string stripTrackingParams(std::string_view url);

// See the header comment. Throws std::invalid_argument("... invalid UTF-8 at byte offset N")
// for ill-formed input, and std::invalid_argument for input longer than 64 MiB. Pure-ASCII input
// (almost every query) takes a path without ICU that gives the same bytes; other input goes
// through ICU.
std::string normalizeQuery(std::string_view utf8);

// The result-count bucket a request fetches: 1..10 -> 10, 11..20 -> 20, 21..50 -> 50. Throws
// std::invalid_argument for n outside the range of max_results (maxResultsInRange).
int maxResultsBucket(int n);

// A well-mixed 64-bit hash of bytes (FNV-1a, then the splitmix64 finalizer). Not
// cryptographic; stable across platforms and runs.
std::uint64_t hashText(std::string_view bytes);
// hashText of a byte stream given in pieces, without gathering them: equal streams, equal
// hashes, so TextHash().add(a).add(b).value() == hashText(a + b).
class TextHash {
public:
    TextHash& add(std::string_view bytes) {
        for (const unsigned char c : bytes) byte(c);
        return *this;
    }
    // v's 8 bytes, least significant first.
    TextHash& addLe64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(v >> (8 * i)));
        return *this;
    }
    std::uint64_t value() const;

private:
    void byte(unsigned char c) {
        h_ ^= c;
        h_ *= 0x100000001b3ull;
    }
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};


// A fast, well-mixed 64-bit hash of raw bytes, for keying memos of raw query text (the cache key
// keeps hashText of the normalized text). 16 bytes a round as two little-endian 8-byte words
// folded by a 64x64->128-bit multiply, the last 1..16 bytes read with overlapping loads, the
// length mixed in first and splitmix64's finalizer last. Stable across platforms (byte order
// included), compilers and runs. Not cryptographic, and not meant for input chosen to collide.
std::uint64_t hashRawText(std::string_view bytes);

// The cache key from its fields: schema tag "v4", endpoint, region, lang, mode and
// include_media (each string folded as its length, its bytes and a NUL, so no two different
// field lists give the same byte stream), then the normalized query's hash and the maxResults
// bucket, mixed in as whole words.
// compileQuery(in).cache_key == foldCacheKey(in.endpoint, in.region, in.lang,
//     hashText(normalizeQuery(in.query)), maxResultsBucket(in.max_results), in.mode,
//     in.include_media); the simulator calls it with synthetic query hashes.
std::uint64_t foldCacheKey(std::string_view endpoint, std::string_view region,
                           std::string_view lang, std::uint64_t normalizedQueryHash, int bucket,
                           std::string_view mode, bool include_media);

// The same key in two steps, for callers that fold many queries under few sets of the other
// fields (the simulator: one per endpoint, region and lang): the prefix is hashed once, and the
// fold of a query is then two multiply-xorshift mixes.
// foldCacheKey(cacheKeyPrefix(e, r, l, m, i), q, b) == foldCacheKey(e, r, l, q, b, m, i).
struct CacheKeyPrefix {
    std::uint64_t state = 0;
};
CacheKeyPrefix cacheKeyPrefix(std::string_view endpoint, std::string_view region,
                              std::string_view lang, std::string_view mode, bool include_media);
std::uint64_t foldCacheKey(CacheKeyPrefix prefix, std::uint64_t normalizedQueryHash, int bucket);

// See the header comment. `normalized` should come from normalizeQuery; other text is
// classified as if it had been split on ASCII spaces.
QueryClass classifyQuery(std::string_view normalized);

// True when an empty result list is a legitimate answer to the normalized query: it has a
// site: operator (not -site:) or a non-empty phrase in double quotes.
bool zeroResultsAllowed(std::string_view normalized);

// Everything the request path needs from a raw query, computed once.
struct AnalyzedQuery {
    std::string normalized;                          // normalizeQuery(raw)
    std::uint64_t normalized_hash = 0;               // hashText(normalized)
    QueryClass query_class = QueryClass::Evergreen;  // classifyQuery(normalized)
    bool zero_results_allowed = false;               // zeroResultsAllowed(normalized)
};

// The longest a normalized query may be: it goes to every engine in the request body, and NFKC
// can make a short text long (U+FDFA is 3 bytes and becomes 33).
constexpr std::size_t kMaxNormalizedQueryBytes = 4096;

// Fills `out` for `raw`, reusing out.normalized's capacity: for a pure-ASCII query of up to 256
// bytes nothing is allocated once that capacity is large enough. Throws std::invalid_argument
// where normalizeQuery and compileQuery do: for invalid UTF-8 (naming the byte offset), for
// input longer than 64 MiB, for a query that is empty after normalization, and for one longer
// than kMaxNormalizedQueryBytes after it; `out` is then unspecified. The messages name what is
// wrong with the query ("empty after normalization"), not the query's field.
void analyzeQuery(std::string_view raw, AnalyzedQuery& out);

struct CompileInput {
    std::string_view endpoint, region, lang, mode, query;
    int max_results = 10;
    std::string_view request_id;  // identifies the request only; never part of the key
    bool include_media = false;
};

struct CompiledQuery {
    std::string normalized;
    std::uint64_t cache_key = 0;
    QueryClass query_class = QueryClass::Evergreen;
    int fetch_count = 0;  // the bucket: fetch this many, slice to max_results after the merge
    bool zero_results_allowed = false;
};

// Normalizes, buckets, keys and classifies one request: analyzeQuery, then the bucket and the
// key. Throws std::invalid_argument for invalid UTF-8, for a query that is empty after
// normalization, and for max_results out of range (maxResultsInRange).
CompiledQuery compileQuery(const CompileInput& in);

}  // namespace taillab::gateway
