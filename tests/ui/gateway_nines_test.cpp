// The gateway's whole-run latency on the nines axis: built from the snapshot's HDR histograms
// (merged and per class, never averaged), with the deadline as a reference line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gateway/gateway_charts.h"

namespace taillab::ui::test {
namespace {

using gateway_charts::kAllClasses;
using gateway_charts::kDeadline;
using gateway_charts::kLatencyNines;

const std::vector<std::string> kNinesSeries{"navigational",    "evergreen", "product pricing",
                                            "long-tail agent", "news live", kAllClasses,
                                            kDeadline};

std::vector<std::string> names(const Chart& c) {
    std::vector<std::string> out;
    for (const Series& s : c.series) out.push_back(s.name);
    return out;
}

TEST(GatewayChartsTest, TheNinesChartReadsEveryClassAndTheMergedHistogram) {
    gateway::GatewaySnapshot s;
    // Class k answers in (k + 1) * 10 ms, with a tail of k * 100 ms extra on one request in 50.
    for (int k = 0; k < gateway::kClasses; ++k) {
        for (int i = 0; i < 1000; ++i) {
            const std::int64_t us = (k + 1) * 10'000 + (i % 50 == 0 ? k * 100'000 : i);
            s.latency_by_class_us[k].record(us);
            s.latency_us.record(us);
        }
    }
    const Chart c = gateway_charts::latencyNines(s, 600.0);
    EXPECT_EQ(c.id, kLatencyNines);
    EXPECT_EQ(c.kind, ChartKind::Percentile);
    EXPECT_TRUE(c.log_y);
    ASSERT_EQ(names(c), kNinesSeries);
    for (int k = 0; k < gateway::kClasses; ++k) {
        const Series& series = c.series[static_cast<std::size_t>(k)];
        EXPECT_EQ(series.role, SeriesRole::Simulated);
        EXPECT_EQ(series.y, percentileSeries("", s.latency_by_class_us[k]).y) << series.name;
    }
    const Series& merged = c.series[gateway::kClasses];
    ASSERT_FALSE(merged.x.empty());
    const auto p99 = std::find_if(merged.x.begin(), merged.x.end(),
                                  [](double p) { return std::abs(p - 0.99) < 1e-12; });
    ASSERT_NE(p99, merged.x.end());
    EXPECT_EQ(merged.y[static_cast<std::size_t>(p99 - merged.x.begin())],
              static_cast<double>(s.latency_us.valueAtPercentile(99)) / 1000.0);
    // 5,000 requests: the curve stops at the last percentile they resolve (99.98%).
    EXPECT_LE(merged.x.back(), 1.0 - 1.0 / 5000);
    const Series& deadline = c.series.back();
    EXPECT_EQ(deadline.role, SeriesRole::ClosedForm);
    EXPECT_EQ(deadline.x, (std::vector<double>{0.0, merged.x.back()}));
    EXPECT_EQ(deadline.y, (std::vector<double>{600.0, 600.0}));
}

// Before the first request ends every histogram is empty: the same series, none with a point
// (so nothing NaN reaches the plot), and the graphs are kept when the data comes.
TEST(GatewayChartsTest, AnEmptyRunHasTheNinesSeriesWithoutPoints) {
    const gateway::GatewaySnapshot empty;
    for (const std::optional<double> deadline : {std::optional(600.0), std::optional<double>()}) {
        const Chart c = gateway_charts::latencyNines(empty, deadline);
        ASSERT_EQ(names(c), kNinesSeries);
        for (const Series& s : c.series) {
            EXPECT_TRUE(s.x.empty()) << s.name;
            EXPECT_TRUE(s.y.empty()) << s.name;
        }
    }
    gateway::GatewaySnapshot one;
    one.latency_us.record(250'000);
    one.latency_by_class_us[2].record(250'000);
    EXPECT_TRUE(gateway_charts::latencyNines(one, std::nullopt).series.back().x.empty())
        << "no deadline, no line";
}

}  // namespace
}  // namespace taillab::ui::test
