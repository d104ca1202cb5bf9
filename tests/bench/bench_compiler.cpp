// The query compiler on the request path: what analysing one raw query costs (analyzeQuery:
// normalized text, its hash, freshness class, zero-results flag), for the shapes of query the
// simulated week sends, and for a non-ASCII one that has to go through ICU; what hashing the
// raw text for the analysed-query memo costs; and the parts of one query's analysis. Reported as
// ns per query.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <string_view>

#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"

namespace {

namespace gw = taillab::gateway;

// analyzeQuery into one reused AnalyzedQuery, as the gateway's request path calls it.
void runQueries(benchmark::State& state, const std::string_view* queries, std::size_t n) {
    gw::AnalyzedQuery a;
    std::size_t i = 0;
    for (auto _ : state) {
        gw::analyzeQuery(queries[i], a);
        benchmark::DoNotOptimize(a.normalized_hash);
        benchmark::DoNotOptimize(a.query_class);
        if (++i == n) i = 0;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void runQuery(benchmark::State& state, std::string_view query) { runQueries(state, &query, 1); }

// One query per shape, 13 to 51 bytes, with the mixed case and stray spaces real users type.
constexpr std::string_view kNavigational = "Netflix Login";
constexpr std::string_view kEvergreen = "photosynthesis light reactions Diagram";
constexpr std::string_view kProduct = "iPhone 15 Pro Max price";
constexpr std::string_view kQuestion = "How do I reverse a linked list in Python";
constexpr std::string_view kOperators = "rust  async tutorial site:docs.rs -site:reddit.com";
constexpr std::string_view kNonAscii =
    "Stra\xC3\x9F"
    "e nach M\xC3\xBC"
    "nchen \xC3\xB6"
    "ffnungszeiten";

void BM_CompilerNavigational2Words(benchmark::State& s) { runQuery(s, kNavigational); }
void BM_CompilerEvergreen4Words(benchmark::State& s) { runQuery(s, kEvergreen); }
void BM_CompilerProductPrice(benchmark::State& s) { runQuery(s, kProduct); }
void BM_CompilerQuestion8Words(benchmark::State& s) { runQuery(s, kQuestion); }
void BM_CompilerOperators(benchmark::State& s) { runQuery(s, kOperators); }
void BM_CompilerNonAscii(benchmark::State& s) { runQuery(s, kNonAscii); }

// The ASCII shapes in turn, so branch prediction sees a changing query as the week does.
void BM_CompilerAsciiMix(benchmark::State& s) {
    static constexpr std::array<std::string_view, 5> kMix{kNavigational, kEvergreen, kProduct,
                                                          kQuestion, kOperators};
    runQueries(s, kMix.data(), kMix.size());
}

// The memo's key for a typical query: hashRawText of 40 bytes.
void BM_CompilerHashRawText(benchmark::State& s) {
    for (auto _ : s) {
        std::string_view q = kQuestion;
        benchmark::DoNotOptimize(q);
        benchmark::DoNotOptimize(gw::hashRawText(q));
    }
    s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()));
}

// The three parts of analysing the 8-word question, one by one: the ASCII normalization, the
// cache key's hash of the normalized text (FNV-1a: a byte at a time, fixed by the cache keys),
// and the classifier.
void BM_CompilerPartNormalizeAscii(benchmark::State& s) {
    std::string out;
    for (auto _ : s) {
        std::string_view q = kQuestion;
        benchmark::DoNotOptimize(q);
        gw::detail::normalizeAscii(q, out);
        benchmark::DoNotOptimize(out.data());
    }
    s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()));
}

void BM_CompilerPartHashText(benchmark::State& s) {
    const std::string normalized = gw::normalizeQuery(kQuestion);
    for (auto _ : s) {
        std::string_view q = normalized;
        benchmark::DoNotOptimize(q);
        benchmark::DoNotOptimize(gw::hashText(q));
    }
    s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()));
}

void BM_CompilerPartClassify(benchmark::State& s) {
    const std::string normalized = gw::normalizeQuery(kQuestion);
    for (auto _ : s) {
        std::string_view q = normalized;
        benchmark::DoNotOptimize(q);
        benchmark::DoNotOptimize(gw::detail::analyzeNormalized(q));
    }
    s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()));
}

BENCHMARK(BM_CompilerNavigational2Words);
BENCHMARK(BM_CompilerEvergreen4Words);
BENCHMARK(BM_CompilerProductPrice);
BENCHMARK(BM_CompilerQuestion8Words);
BENCHMARK(BM_CompilerOperators);
BENCHMARK(BM_CompilerNonAscii);
BENCHMARK(BM_CompilerAsciiMix);
BENCHMARK(BM_CompilerHashRawText);
BENCHMARK(BM_CompilerPartNormalizeAscii);
BENCHMARK(BM_CompilerPartHashText);
BENCHMARK(BM_CompilerPartClassify);

}  // namespace
