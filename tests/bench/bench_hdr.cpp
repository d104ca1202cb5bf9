// HDR histogram costs: record per value, valueAtPercentile, merge, .hgrm formatting and latency-log
// parsing. Values come from precomputed arrays so the random-number generator is not measured.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "metrics/hdr_histogram.h"
#include "metrics/hgrm.h"
#include "metrics/latency_log.h"
#include "base/rng.h"

namespace taillab {
namespace {

constexpr std::size_t kValues = 1 << 16;

// Lognormal µs latencies (median 2 ms, sigma 2) like the reference data, clamped to the range.
const std::vector<std::int64_t>& lognormalValues() {
    static const std::vector<std::int64_t> values = [] {
        Rng rng(42, "bench-hdr-lognormal");
        std::vector<std::int64_t> v(kValues);
        for (auto& x : v) {
            const double us = 2000.0 * std::exp(2.0 * rng.normal());
            x = std::llround(std::min(std::max(us, 1.0), 60'000'000.0));
        }
        return v;
    }();
    return values;
}

// Uniform over the whole 1 µs .. 60 s range: touches every bucket, the worst case for caches.
const std::vector<std::int64_t>& uniformValues() {
    static const std::vector<std::int64_t> values = [] {
        Rng rng(42, "bench-hdr-uniform");
        std::vector<std::int64_t> v(kValues);
        for (auto& x : v) x = 1 + static_cast<std::int64_t>(rng.below(60'000'000));
        return v;
    }();
    return values;
}

void recordAll(benchmark::State& state, const std::vector<std::int64_t>& values) {
    HdrHistogram h;
    for (auto _ : state) {
        for (const std::int64_t v : values) h.record(v);
        benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(h.totalCount());
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(values.size()));
}

void BM_HdrRecordLognormal(benchmark::State& state) { recordAll(state, lognormalValues()); }
BENCHMARK(BM_HdrRecordLognormal);

void BM_HdrRecordUniform(benchmark::State& state) { recordAll(state, uniformValues()); }
BENCHMARK(BM_HdrRecordUniform);

void BM_HdrRecordConstant(benchmark::State& state) {
    recordAll(state, std::vector<std::int64_t>(kValues, 1234));
}
BENCHMARK(BM_HdrRecordConstant);

HdrHistogram filledHistogram(const HdrConfig& config = {}) {
    HdrHistogram h(config);
    for (int round = 0; round < 16; ++round)
        for (const std::int64_t v : lognormalValues()) h.record(v);
    return h;
}

// Percentile given as state.range(0) / 1000.
void BM_HdrValueAtPercentile(benchmark::State& state) {
    const HdrHistogram h = filledHistogram();
    const double p = static_cast<double>(state.range(0)) / 1000.0;
    for (auto _ : state) benchmark::DoNotOptimize(h.valueAtPercentile(p));
}
BENCHMARK(BM_HdrValueAtPercentile)->Arg(50'000)->Arg(99'000)->Arg(99'990);

void BM_HdrMergeSameLayout(benchmark::State& state) {
    const HdrHistogram source = filledHistogram();
    HdrHistogram target;
    for (auto _ : state) {
        target.merge(source);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_HdrMergeSameLayout);

void BM_HdrMergeOtherLayout(benchmark::State& state) {
    const HdrHistogram source = filledHistogram(HdrConfig{1, 3'600'000'000, 3});
    HdrHistogram target;
    for (auto _ : state) {
        target.merge(source);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_HdrMergeOtherLayout);

void BM_HgrmFormat(benchmark::State& state) {
    const HdrHistogram h = filledHistogram();
    for (auto _ : state) benchmark::DoNotOptimize(formatHgrm(h));
}
BENCHMARK(BM_HgrmFormat);

// Text latency log parsing (one integer a line), per value and per byte.
void BM_LatencyLogText(benchmark::State& state) {
    std::string log;
    for (const std::int64_t v : lognormalValues()) log.append(std::to_string(v)).push_back('\n');
    HdrHistogram h;
    for (auto _ : state) {
        LatencyLogReader reader(LatencyLogFormat::Text, h);
        reader.feed(log);
        reader.finish();
    }
    benchmark::DoNotOptimize(h.totalCount());
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kValues));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(log.size()));
}
BENCHMARK(BM_LatencyLogText);

}  // namespace
}  // namespace taillab
