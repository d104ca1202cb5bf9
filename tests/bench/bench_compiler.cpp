// The query compiler on the request path: what analysing one raw query costs (normalized text,
// its hash, freshness class, zero-results flag), for the shapes of query the simulated week
// sends, and for a non-ASCII one that has to go through ICU. Reported as ns per query.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <string_view>

#include "gateway/compiler.h"

namespace {

namespace gw = taillab::gateway;

// Everything the gateway needs from a raw query, computed the way the request path does.
struct Analysis {
    std::string normalized;
    std::uint64_t hash = 0;
    gw::QueryClass query_class = gw::QueryClass::Evergreen;
    bool zero_results_allowed = false;
};

void analyze(std::string_view raw, Analysis& out) {
    out.normalized = gw::normalizeQuery(raw);
    out.hash = gw::hashText(out.normalized);
    out.query_class = gw::classifyQuery(out.normalized);
    out.zero_results_allowed = gw::zeroResultsAllowed(out.normalized);
}

void runQueries(benchmark::State& state, const std::string_view* queries, std::size_t n) {
    Analysis a;
    std::size_t i = 0;
    for (auto _ : state) {
        analyze(queries[i], a);
        benchmark::DoNotOptimize(a.hash);
        benchmark::DoNotOptimize(a.query_class);
        if (++i == n) i = 0;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void runQuery(benchmark::State& state, std::string_view query) { runQueries(state, &query, 1); }

// One query per shape, 12 to 60 bytes, with the mixed case and stray spaces real users type.
constexpr std::string_view kNavigational = "Netflix Login";
constexpr std::string_view kEvergreen = "photosynthesis light reactions Diagram";
constexpr std::string_view kProduct = "iPhone 15 Pro Max price";
constexpr std::string_view kQuestion = "How do I reverse a linked list in Python";
constexpr std::string_view kOperators = "rust  async tutorial site:docs.rs -site:reddit.com";
constexpr std::string_view kNonAscii = "Stra\xC3\x9F" "e nach M\xC3\xBC" "nchen \xC3\xB6" "ffnungszeiten";

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

BENCHMARK(BM_CompilerNavigational2Words);
BENCHMARK(BM_CompilerEvergreen4Words);
BENCHMARK(BM_CompilerProductPrice);
BENCHMARK(BM_CompilerQuestion8Words);
BENCHMARK(BM_CompilerOperators);
BENCHMARK(BM_CompilerNonAscii);
BENCHMARK(BM_CompilerAsciiMix);

}  // namespace
