// Pinning a gateway run as the baseline: the next run's time charts draw the pinned run's series
// as ghosts under their own, aligned on time since each run's start, with one "(baseline)" entry
// in the legend and the axes fitted to the live run; "Clear baseline" removes them.
#include <gtest/gtest.h>

#include <QAction>

#include "gateway/gateway_charts.h"
#include "gateway_test_support.h"

namespace taillab::ui::test {
namespace {

const std::vector<std::string> kGhostCharts{gateway_charts::kPercentiles, gateway_charts::kQueue,
                                            gateway_charts::kHedging, gateway_charts::kCache};

TEST_F(GatewayViewTest, APinnedRunIsDrawnUnderTheNextRunUntilCleared) {
    GatewayRunSpec spec = oneDay();
    spec.params.set("load_multiplier", 0.2);
    ASSERT_TRUE(startAndWait(spec));
    EXPECT_FALSE(view_->clearBaselineAction()->isEnabled());
    ASSERT_TRUE(playToEnd());
    const auto pinned = view_->chartView(gateway_charts::kPercentiles)->plottedSeries();
    PlottedSeries pinnedNines;
    for (const auto& p : view_->chartView(gateway_charts::kLatencyNines)->plottedSeries())
        if (p.name == gateway_charts::kAllRequests) pinnedNines = p;
    ASSERT_FALSE(pinnedNines.x.isEmpty());
    ASSERT_TRUE(view_->pinBaselineAction()->isEnabled());
    view_->pinBaselineAction()->trigger();
    EXPECT_TRUE(view_->hasBaseline());
    EXPECT_TRUE(view_->clearBaselineAction()->isEnabled());

    // The next run, with a much smaller hedge budget, halfway through its day.
    spec.params.set("hedge_budget", 0.02);
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(12 * kHour));
    ChartView* percentiles = view_->chartView(gateway_charts::kPercentiles);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !percentiles->baselineSeries().empty(); }, 5000 * kSlowdown));
    for (const std::string& id : kGhostCharts) {
        ChartView* chart = view_->chartView(id);
        const auto own = chart->plottedSeries();
        const auto ghosts = chart->baselineSeries();
        ASSERT_EQ(ghosts.size(), own.size()) << id;
        for (std::size_t i = 0; i < ghosts.size(); ++i)
            EXPECT_EQ(ghosts[i].name, own[i].name + " (baseline)") << id;
        // One legend entry for the ghosts, after the chart's own.
        QStringList legend;
        for (const auto& s : own) legend << s.name;
        legend << "baseline run";
        EXPECT_EQ(chart->legendNames(), legend) << id;
        // The ghost covers the pinned run's whole day; the axes follow the live run.
        EXPECT_GT(ghosts.front().x.back(), 20 * kHour) << id;
        EXPECT_LT(chart->viewRange().xUpper, 14 * kHour) << id;
    }
    const auto ghosts = percentiles->baselineSeries();
    ASSERT_EQ(ghosts.size(), pinned.size());
    for (std::size_t i = 0; i < ghosts.size(); ++i) {
        EXPECT_EQ(ghosts[i].x, pinned[i].x) << pinned[i].name.toStdString();
        EXPECT_EQ(ghosts[i].y, pinned[i].y) << pinned[i].name.toStdString();
    }
    EXPECT_TRUE(view_->chartView(gateway_charts::kBreakers)->baselineSeries().empty())
        << "breaker strips are not ghosted";
    // The whole-run nines chart ghosts the pinned run's merged curve, as it ended.
    ChartView* nines = view_->chartView(gateway_charts::kLatencyNines);
    ASSERT_EQ(nines->baselineSeries().size(), 1u);
    EXPECT_EQ(nines->baselineSeries()[0].name.toStdString(), std::string(gateway_charts::kAllRequests) + " (baseline)");
    EXPECT_EQ(nines->baselineSeries()[0].x, pinnedNines.x);
    EXPECT_EQ(nines->baselineSeries()[0].y, pinnedNines.y);

    view_->clearBaselineAction()->trigger();
    EXPECT_FALSE(view_->hasBaseline());
    ASSERT_TRUE(QTest::qWaitFor([&] { return percentiles->baselineSeries().empty(); }, 5000 * kSlowdown));
    EXPECT_TRUE(nines->baselineSeries().empty());
    for (const std::string& id : kGhostCharts) {
        EXPECT_TRUE(view_->chartView(id)->baselineSeries().empty()) << id;
        EXPECT_FALSE(view_->chartView(id)->legendNames().join(",").contains("baseline")) << id;
    }
    EXPECT_FALSE(view_->clearBaselineAction()->isEnabled());
}

// At 1280x720 with a pinned run, every chart keeps most of its height for the data: the legends
// (the chart's series and the baseline's entry) take more columns with their names elided
// rather than stack until the plot is a sliver.
TEST_F(GatewayViewTest, WithABaselineTheLegendsLeaveThePlotsRoomAt1280x720) {
    window_->resize(1280, 720);
    GatewayRunSpec spec = oneDay();
    spec.params.set("load_multiplier", 0.2);
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(6 * kHour));
    view_->pinBaselineAction()->trigger();
    spec.params.set("hedge_budget", 0.02);
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(6 * kHour));
    ChartView* percentiles = view_->chartView(gateway_charts::kPercentiles);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !percentiles->baselineSeries().empty(); }, 5000 * kSlowdown));
    QTest::qWait(100);  // the queued replots lay the legends out
    for (const std::string& id : view_->chartIds()) {
        ChartView* chart = view_->chartView(id);
        if (!chart->isVisible() || chart->legendNames().isEmpty()) continue;
        chart->replotNow();
        const int rows = (chart->legendNames().size() + chart->legendColumns() - 1) /
                         chart->legendColumns();
        EXPECT_LE(rows, std::max(2, static_cast<int>(chart->height() * 0.3 / 14))) << id;
        EXPECT_GE(chart->plotArea().height(), chart->height() / 4)
            << id << ": " << chart->plotArea().height() << " px of " << chart->height();
    }
}

}  // namespace
}  // namespace taillab::ui::test
