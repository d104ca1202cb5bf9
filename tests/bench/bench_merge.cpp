// What the gateway does with one result page after it arrives, on serve's answer path and on
// every simulated answer: rank the page on its own (dedupe by canonical URL, order by score),
// and merge two pages. Pages of ten results shaped as the emulated fleet writes them. Reported as
// ns per page.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "gateway/answer.h"
#include "gateway/merge.h"

namespace {

namespace gw = taillab::gateway;

std::vector<gw::ResultItem> page(const std::string& engine, int n) {
    std::vector<gw::ResultItem> items;
    for (int i = 0; i < n; ++i)
        items.push_back({"Result 9-" + std::to_string(i) + " from " + engine,
                         "https://" + engine + ".example/r/9-" + std::to_string(i),
                         "A synthetic result: page 9, rank " + std::to_string(i + 1) + ".", 1.0 - 0.01 * i});
    return items;
}

// The ranking of one page, as ResultBody::ranked() computes it the first time.
void BM_RankPage(benchmark::State& state) {
    const auto body = std::make_shared<const gw::ResultBody>(page("atlas", 10));
    const std::span<const gw::ResultRef> lists[] = {body->items()};
    for (auto _ : state) {
        auto ranked = gw::rankItems(lists, 10);
        benchmark::DoNotOptimize(ranked.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

// Two engines' pages merged (a hedge and its primary both answered and both count).
void BM_MergeTwoPages(benchmark::State& state) {
    const auto a = std::make_shared<const gw::ResultBody>(page("atlas", 10));
    const auto b = std::make_shared<const gw::ResultBody>(page("boreal", 10));
    const std::span<const gw::ResultRef> lists[] = {a->items(), b->items()};
    for (auto _ : state) {
        auto ranked = gw::rankItems(lists, 10);
        benchmark::DoNotOptimize(ranked.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

BENCHMARK(BM_RankPage);
BENCHMARK(BM_MergeTwoPages);

}  // namespace
