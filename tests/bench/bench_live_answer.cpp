// Serve's answer path without the sockets: what the gateway does between reading an engine's
// result page and writing its own response, on one core, in ns per page. The page is the
// emulated fleet's own (ten results, pageJson/resultItemsJson), so the figures follow what
// live_vs_nginx.sh's TailLab path does per request:
//   BM_ServeReadPage      the page's JSON read into a ResultBody (schema check, fingerprint)
//   BM_ServeWriteResponse the client's response body and headers (writeResponse)
//   BM_ServeAnswerPath    read, rank (BM_RankPage in bench_merge.cpp alone) and write in a row,
//                         as one answer takes them
// These are the parts of serve's added latency that nginx, which copies the bytes through, does
// not have; tests/bench/live_vs_nginx.sh measures the whole against nginx on the wire. Here the
// code and data stay in cache from one page to the next; on the wire, at 1000 req/s, serve runs
// them cold after other processes had the core, which is most of the difference.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "gateway/answer.h"
#include "gateway/contract.h"
#include "gateway/merge.h"
#include "live/fleet_wire.h"
#include "live/search_api.h"
#include "live/upstream_wire.h"

namespace {

namespace gw = taillab::gateway;
namespace live = taillab::live;

std::string fleetPage() {
    std::vector<gw::ResultItem> items;
    for (int i = 0; i < 10; ++i)
        items.push_back({"Result 9-" + std::to_string(i) + " from atlas", "https://atlas.example/r/9-" + std::to_string(i),
                         "A synthetic result: page 9, rank " + std::to_string(i + 1) + ".", 1.0 - 0.01 * i});
    const gw::ResultBody body(items);
    return live::pageJson(gw::PageKind::Results, 0x06829e8a5d781a0eULL, live::resultItemsJson(body));
}

gw::Response okResponse(const gw::RankedResults& ranked) {
    gw::Response r;
    r.status = 200;
    r.results = &ranked;
    r.result_count = static_cast<int>(ranked.size());
    r.rate_limit = gw::RateLimitFields{600, 599, std::chrono::seconds(1)};
    r.latency = std::chrono::microseconds(2150);
    return r;
}

void BM_ServeReadPage(benchmark::State& state) {
    const std::string page = fleetPage();
    for (auto _ : state) {
        live::UpstreamReply reply = live::readUpstreamReply(200, page);
        benchmark::DoNotOptimize(reply.page.get());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * page.size()));
}

void BM_ServeWriteResponse(benchmark::State& state) {
    const live::UpstreamReply reply = live::readUpstreamReply(200, fleetPage());
    const auto ranked = reply.page->ranked();
    const gw::Response response = okResponse(*ranked);
    for (auto _ : state) {
        live::HttpReply out = live::writeResponse(response);
        benchmark::DoNotOptimize(out.body.data());
    }
}

void BM_ServeAnswerPath(benchmark::State& state) {
    const std::string page = fleetPage();
    for (auto _ : state) {
        const live::UpstreamReply reply = live::readUpstreamReply(200, page);
        const auto ranked = reply.page->ranked();
        live::HttpReply out = live::writeResponse(okResponse(*ranked));
        benchmark::DoNotOptimize(out.body.data());
    }
}

BENCHMARK(BM_ServeReadPage);
BENCHMARK(BM_ServeWriteResponse);
BENCHMARK(BM_ServeAnswerPath);

}  // namespace
