// The gateway's whole-run latency on the nines axis: built from the snapshot's HDR histograms
// (merged and per class, never averaged), with the deadline as a reference line; in the view it
// sits beside the percentiles per window at 1280x720 and 1600x1000, follows the frames without
// rebuilding its graphs, and exports like every other chart.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>

#include "export_actions.h"
#include "gateway/gateway_charts.h"
#include "gateway_test_support.h"

namespace taillab::ui::test {
namespace {

using gateway_charts::kAllRequests;
using gateway_charts::kDeadline;
using gateway_charts::kLatencyNines;

const std::vector<std::string> kNinesSeries{"navigational",    "evergreen", "product pricing",
                                            "long-tail agent", "news live", kAllRequests,
                                            kDeadline};

std::vector<std::string> names(const Chart& c) {
    std::vector<std::string> out;
    for (const Series& s : c.series) out.push_back(s.name);
    return out;
}

// The y of the point drawn at percentile `p` (as a fraction); NaN when there is none.
double yAt(const PlottedSeries& s, double p) {
    for (qsizetype i = 0; i < s.x.size(); ++i)
        if (std::abs(s.x[i] - p) < 1e-12) return s.y[i];
    return std::nan("");
}

const PlottedSeries* find(const std::vector<PlottedSeries>& drawn, const std::string& name) {
    for (const PlottedSeries& s : drawn)
        if (s.name.toStdString() == name) return &s;
    return nullptr;
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
    EXPECT_EQ(deadline.role, SeriesRole::Reference);
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

TEST_F(GatewayViewTest, TheNinesChartIsEmptyAtTheStartWithoutNaN) {
    ASSERT_EQ(view_->latestFrame()->snapshot->now_s, 0);
    ASSERT_TRUE(view_->latestFrame()->snapshot->latency_us.empty());
    ChartView* nines = view_->chartView(kLatencyNines);
    ASSERT_NE(nines, nullptr);
    EXPECT_EQ(nines->kind(), ChartKind::Percentile);
    EXPECT_EQ(names(nines->chart()), kNinesSeries);
    EXPECT_EQ(points(*nines), 0u);
    nines->replotNow();
    const ChartView::ViewRange r = nines->viewRange();
    for (double v : {r.xLower, r.xUpper, r.yLower, r.yUpper}) EXPECT_TRUE(std::isfinite(v)) << v;
    // Whole nines, 0% to just past 99.9%, until there is a curve to fit.
    EXPECT_EQ(r.xLower, 0.85);
    EXPECT_EQ(r.xUpper, 1500.0);
}

// After six simulated hours the chart holds the merged run and each class, each from its own
// histogram: the merged p99 is the histogram's p99 exactly, and every curve rises with p.
TEST_F(GatewayViewTest, TheNinesChartDrawsTheRunsHistogramsMergedAndByClass) {
    ASSERT_TRUE(seekAndWait(6 * kHour));
    const GatewayFramePtr frame = view_->latestFrame();
    const gateway::GatewaySnapshot& s = *frame->snapshot;
    ASSERT_GT(s.latency_us.totalCount(), 1000);
    ChartView* nines = view_->chartView(kLatencyNines);
    ASSERT_NE(nines, nullptr);
    const std::vector<PlottedSeries> drawn = nines->plottedSeries();
    ASSERT_EQ(drawn.size(), kNinesSeries.size());
    for (std::size_t i = 0; i < drawn.size(); ++i)
        EXPECT_EQ(drawn[i].name.toStdString(), kNinesSeries[i]);

    const PlottedSeries* merged = find(drawn, kAllRequests);
    ASSERT_NE(merged, nullptr);
    EXPECT_EQ(yAt(*merged, 0.99), static_cast<double>(s.latency_us.valueAtPercentile(99)) / 1000.0);
    EXPECT_EQ(yAt(*merged, 0.9), static_cast<double>(s.latency_us.valueAtPercentile(90)) / 1000.0);
    for (int k = 0; k < gateway::kClasses; ++k) {
        const PlottedSeries& cls = drawn[static_cast<std::size_t>(k)];
        ASSERT_FALSE(s.latency_by_class_us[k].empty()) << k;
        ASSERT_GT(cls.x.size(), 1) << cls.name.toStdString();
        EXPECT_EQ(yAt(cls, 0.9),
                  static_cast<double>(s.latency_by_class_us[k].valueAtPercentile(90)) / 1000.0)
            << cls.name.toStdString();
    }
    for (std::size_t i = 0; i + 1 < drawn.size(); ++i) {  // every simulated curve
        const PlottedSeries& c = drawn[i];
        for (qsizetype k = 1; k < c.x.size(); ++k) {
            EXPECT_GT(c.x[k], c.x[k - 1]) << c.name.toStdString();
            EXPECT_GE(c.y[k], c.y[k - 1]) << c.name.toStdString() << " at p " << c.x[k];
        }
    }
    const PlottedSeries* deadline = find(drawn, kDeadline);
    ASSERT_NE(deadline, nullptr);
    EXPECT_EQ(deadline->role, SeriesRole::Reference);
    ASSERT_EQ(deadline->y.size(), 2);
    EXPECT_EQ(deadline->y[0], frame->params.real("deadline_ms"));
    EXPECT_EQ(deadline->x.back(), merged->x.back()) << "the line ends where the data does";
}

// Each frame replaces the curves' data; the graphs (same names) are not rebuilt.
TEST_F(GatewayViewTest, TheNinesChartFollowsTheFramesWithoutRebuildingItsGraphs) {
    ASSERT_TRUE(seekAndWait(3 * kHour));
    ChartView* nines = view_->chartView(kLatencyNines);
    auto* plot = nines->findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    std::vector<QCPGraph*> graphs;
    for (int i = 0; i < plot->graphCount(); ++i) graphs.push_back(plot->graph(i));
    ASSERT_EQ(graphs.size(), kNinesSeries.size());
    const auto before = find(nines->plottedSeries(), kAllRequests)->y;

    ASSERT_TRUE(seekAndWait(9 * kHour));
    const gateway::GatewaySnapshot& s = *view_->latestFrame()->snapshot;
    for (int i = 0; i < plot->graphCount(); ++i)
        EXPECT_EQ(plot->graph(i), graphs[static_cast<std::size_t>(i)]) << i;
    const std::vector<PlottedSeries> drawn = nines->plottedSeries();
    const PlottedSeries* merged = find(drawn, kAllRequests);
    ASSERT_NE(merged, nullptr);
    const Series expected = percentileSeries(kAllRequests, s.latency_us);
    EXPECT_EQ(std::vector<double>(merged->y.begin(), merged->y.end()), expected.y);
    EXPECT_NE(merged->y, before) << "the chart still shows 03:00";
}

// At 1280x720 and 1600x1000 the nines chart is on screen in the Run tab, to the right of the
// percentiles per window on the same row, with its legend whole and its x label unabridged.
TEST_F(GatewayViewTest, TheNinesChartSitsBesideThePercentilesPerWindow) {
    ASSERT_TRUE(seekAndWait(6 * kHour));
    ChartView* nines = view_->chartView(kLatencyNines);
    ChartView* percentiles = view_->chartView(gateway_charts::kPercentiles);
    for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
        window_->resize(size);
        QApplication::processEvents();
        // A pane more in the row, and the window still as narrow as asked.
        EXPECT_EQ(window_->width(), size.width()) << "the layout asks for more than the window has";
        EXPECT_EQ(window_->height(), size.height()) << "the layout asks for more height than the window has";
        ASSERT_TRUE(nines->isVisible()) << size.width();
        ASSERT_TRUE(percentiles->isVisible()) << size.width();
        const QRect n(nines->mapTo(view_, QPoint(0, 0)), nines->size());
        const QRect p(percentiles->mapTo(view_, QPoint(0, 0)), percentiles->size());
        EXPECT_EQ(n.top(), p.top()) << size.width();
        EXPECT_GE(n.left(), p.right()) << size.width();
        EXPECT_LE(n.left() - p.right(), 12) << "beside, not across the view";
        EXPECT_TRUE(view_->rect().contains(n)) << size.width();
        EXPECT_GE(n.width(), 300);

        nines->replotNow();
        auto* plot = nines->findChild<QCustomPlot*>();
        ASSERT_NE(plot, nullptr);
        EXPECT_EQ(nines->legendNames().size(), static_cast<int>(kNinesSeries.size()));
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            QCPAbstractLegendItem* item = plot->legend->item(i);
            if (!item) continue;
            EXPECT_TRUE(plot->rect().contains(item->outerRect())) << size.width() << " item " << i;
        }
        EXPECT_EQ(nines->drawnAxisLabel(Qt::Horizontal), "Percentile") << size.width();
        EXPECT_GE(nines->axisLength(Qt::Vertical), 60) << size.width();
    }
}

// File -> Export takes the nines chart once it was clicked, like any gateway chart.
TEST_F(GatewayViewTest, FileExportTakesTheNinesChartOnceClicked) {
    ASSERT_TRUE(seekAndWait(4 * kHour));
    emit view_->chartView(kLatencyNines)->activated();
    EXPECT_EQ(view_->currentChartId(), kLatencyNines);
    ExportActions* ex = window_->exportActions();
    const std::optional<ExportTarget> t = ex->target();
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->view, view_->chartView(kLatencyNines));
    EXPECT_EQ(ex->suggestedName(ExportFormat::Png).toStdString(), "gateway-latency_nines.png");

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QString error;
    ASSERT_TRUE(ex->exportTo(ExportFormat::Png, dir.filePath("nines.png"), &error))
        << error.toStdString();
    const QImage image(dir.filePath("nines.png"));
    ASSERT_FALSE(image.isNull());
    EXPECT_GE(image.width(), ChartView::kMinExportSize.width());
    ASSERT_TRUE(ex->exportTo(ExportFormat::Json, dir.filePath("nines.json"), &error))
        << error.toStdString();
    const auto doc = nlohmann::json::parse(readFile(dir.filePath("nines.json")));
    EXPECT_EQ(doc.at("id"), kLatencyNines);
    EXPECT_EQ(doc.at("kind"), "percentile");
    EXPECT_EQ(doc.at("series").size(), kNinesSeries.size());
}

}  // namespace
}  // namespace taillab::ui::test
