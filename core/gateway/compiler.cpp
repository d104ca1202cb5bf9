#include "gateway/compiler.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "base/rng.h"
#include "base/utf8.h"
#include "gateway/compiler_detail.h"

namespace taillab::gateway {
namespace {

// ---- hashing -------------------------------------------------------------------------------

// hashRawText's mix: the 128-bit product of two words folded to 64 bits (every input bit moves
// about half the output bits).
__extension__ using Uint128 = unsigned __int128;

std::uint64_t foldedMultiply(std::uint64_t a, std::uint64_t b) {
    const Uint128 product = static_cast<Uint128>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

// Odd constants, each with a byte >= 0x80: XOR with ASCII text is never the zero that would blank
// a multiply.
constexpr std::uint64_t kRawSeed = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio
constexpr std::uint64_t kRawMulA = 0xbf58476d1ce4e5b9ULL;  // splitmix64's multipliers
constexpr std::uint64_t kRawMulB = 0x94d049bb133111ebULL;

// ---- small text helpers --------------------------------------------------------------------

bool iequalsAscii(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (detail::asciiFold(a[i]) != detail::asciiFold(b[i])) return false;
    return true;
}

}  // namespace

// ---- public --------------------------------------------------------------------------------

std::optional<std::size_t> invalidUtf8Offset(std::string_view bytes) {
    // ASCII runs first: most text is ASCII, and the check of a sequence is not inlined cheaply.
    for (std::size_t i = 0; i < bytes.size();) {
        if (bytes.size() - i >= 8) {
            const std::uint64_t word = detail::loadLe64(bytes.data() + i);
            if ((word & 0x8080808080808080ull) == 0) {  // eight ASCII bytes
                i += 8;
                continue;
            }
        }
        if (static_cast<unsigned char>(bytes[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t len = utf8SequenceLength(bytes, i);
        if (len == 0) return i;
        i += len;
    }
    return std::nullopt;
}

bool isTrackingParam(std::string_view name) {
    static constexpr std::array<std::string_view, 9> kExact{
        "gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "yclid", "_ga", "ref_src", "igshid"};
    if (name.size() >= 4 && iequalsAscii(name.substr(0, 4), "utm_")) return true;
    return std::any_of(kExact.begin(), kExact.end(),
                       [&](std::string_view t) { return iequalsAscii(name, t); });
}

std::string stripTrackingParams(std::string_view url) {
    std::string out(url.size(), '\0');
    out.resize(detail::stripTrackingParamsTo(url, out.data()));
    return out;
}

std::string normalizeQuery(std::string_view utf8) {
    if (!detail::isAscii(utf8)) return detail::normalizeQueryReference(utf8);
    std::string out;
    detail::normalizeAscii(utf8, out);
    return out;
}

int maxResultsBucket(int n) {
    static_assert(kMaxResultsLowest >= 1 && kMaxResultsHighest > 20,
                  "the buckets of 10 and 20 lie inside the range, the top one ends with it");
    if (!maxResultsInRange(n))
        throw std::invalid_argument("max_results " + maxResultsRangeText() + ", got " +
                                    std::to_string(n));
    return maxResultsBucketInRange(n);
}

std::uint64_t TextHash::value() const { return mix64(h_); }

std::uint64_t hashText(std::string_view bytes) { return TextHash().add(bytes).value(); }

std::uint64_t hashRawText(std::string_view bytes) {
    const char* p = bytes.data();
    std::size_t n = bytes.size();
    std::uint64_t state = foldedMultiply(n ^ kRawSeed, kRawMulA);
    std::uint64_t a = 0, b = 0;
    if (n > 16) {
        for (; n > 16; p += 16, n -= 16)
            state = foldedMultiply(detail::loadLe64(p) ^ kRawMulA, detail::loadLe64(p + 8) ^ state);
        a = detail::loadLe64(p + n - 16);  // the last 16 bytes, overlapping the last round
        b = detail::loadLe64(p + n - 8);
    } else if (n >= 8) {
        a = detail::loadLe64(p);
        b = detail::loadLe64(p + n - 8);
    } else if (n >= 4) {
        a = detail::loadLe32(p);
        b = detail::loadLe32(p + n - 4);
    } else if (n > 0) {
        const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(p[i]); };
        a = std::uint64_t{byte(0)} << 16 | std::uint64_t{byte(n / 2)} << 8 | byte(n - 1);
    }
    return mix64(foldedMultiply(a ^ kRawMulB, b ^ state));
}

CacheKeyPrefix cacheKeyPrefix(std::string_view endpoint, std::string_view region,
                              std::string_view lang, std::string_view mode, bool include_media) {
    TextHash h;
    constexpr std::string_view nul("\0", 1), one("\1", 1);
    // Length, bytes, NUL: two different field lists never give the same stream.
    for (const std::string_view field : {std::string_view("v4"), endpoint, region, lang, mode})
        h.addLe64(field.size()).add(field).add(nul);
    return CacheKeyPrefix{h.add(include_media ? one : nul).value()};
}

std::uint64_t foldCacheKey(CacheKeyPrefix prefix, std::uint64_t normalizedQueryHash, int bucket) {
    // mix64 is a bijection: for one prefix, distinct query hashes stay distinct before the
    // bucket goes in; the second mix spreads the bucket over every bit.
    const std::uint64_t query = mix64(prefix.state ^ normalizedQueryHash);
    return mix64(query + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(bucket));
}

std::uint64_t foldCacheKey(std::string_view endpoint, std::string_view region,
                           std::string_view lang, std::uint64_t normalizedQueryHash, int bucket,
                           std::string_view mode, bool include_media) {
    return foldCacheKey(cacheKeyPrefix(endpoint, region, lang, mode, include_media),
                        normalizedQueryHash, bucket);
}

QueryClass classifyQuery(std::string_view normalized) {
    return detail::analyzeNormalized(normalized).query_class;
}

bool zeroResultsAllowed(std::string_view normalized) {
    return detail::analyzeNormalized(normalized).zero_results_allowed;
}

void analyzeQuery(std::string_view raw, AnalyzedQuery& out) {
    if (detail::isAscii(raw))
        detail::normalizeAscii(raw, out.normalized);
    else
        out.normalized = detail::normalizeQueryReference(raw);
    if (out.normalized.empty())
        throw std::invalid_argument("empty after normalization");
    if (out.normalized.size() > kMaxNormalizedQueryBytes)
        throw std::invalid_argument(std::to_string(out.normalized.size()) + " bytes after normalization, over " +
                                    std::to_string(kMaxNormalizedQueryBytes));
    out.normalized_hash = hashText(out.normalized);
    const detail::QueryFacts facts = detail::analyzeNormalized(out.normalized);
    out.query_class = facts.query_class;
    out.zero_results_allowed = facts.zero_results_allowed;
}

CompiledQuery compileQuery(const CompileInput& in) {
    AnalyzedQuery analyzed;
    analyzeQuery(in.query, analyzed);
    CompiledQuery out;
    out.fetch_count = maxResultsBucket(in.max_results);
    out.cache_key = foldCacheKey(in.endpoint, in.region, in.lang, analyzed.normalized_hash,
                                 out.fetch_count, in.mode, in.include_media);
    out.normalized = std::move(analyzed.normalized);
    out.query_class = analyzed.query_class;
    out.zero_results_allowed = analyzed.zero_results_allowed;
    return out;
}

}  // namespace taillab::gateway
