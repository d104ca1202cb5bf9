// The incident board's charts built from hand-made snapshots: an error rate is drawn only for
// windows with enough requests to rate, the others are gaps the chart names (not left out
// silently, not joined across), and the data export and the drawn chart agree on it.
#include <gtest/gtest.h>

#include <QApplication>
#include <cmath>

#include "incident/incident_charts.h"
#include "plots/chart_style.h"
#include "plots/event_lane_chart.h"
#include "plots/gateway_time_chart.h"

namespace taillab::ui::test {
namespace {

namespace ic = incident_charts;

// A quiet night's window (3 requests, 2 failed: 67%) between two busy ones (2%).
gateway::GatewaySnapshot quietNight() {
    gateway::GatewaySnapshot s;
    auto window = [](double t, std::uint32_t requests, std::uint32_t failed) {
        gateway::WindowPoint w;
        w.t_s = t;
        w.requests = requests;
        w.failed = failed;
        w.regions[2].requests = requests;  // all of it in APAC
        w.regions[2].failed = failed;
        return w;
    };
    s.windows = {window(60, 100, 2), window(120, 3, 2), window(180, 100, 2)};
    s.now_s = s.end_s = 180;
    return s;
}

const Series& named(const Chart& c, const std::string& name) {
    for (const Series& s : c.series)
        if (s.name == name) return s;
    throw std::runtime_error("no series " + name);
}

TEST(IncidentCharts, AWindowTooSmallToRateIsAGapTheChartNames) {
    const gateway::GatewaySnapshot s = quietNight();
    const Chart c = ic::errorRate(s, 0);
    for (const char* name : {"all, truth", "APAC truth"}) {
        const Series& rate = named(c, name);
        ASSERT_EQ(rate.y.size(), 3u) << name << ": every window is a point, the quiet one a gap";
        EXPECT_DOUBLE_EQ(rate.y[0], 2);
        EXPECT_TRUE(std::isnan(rate.y[1])) << name << ": 2 of 3 is not a 67% error rate";
        EXPECT_DOUBLE_EQ(rate.y[2], 2);
    }
    EXPECT_NE(c.title.find("2 unrated"), std::string::npos) << c.title;
    EXPECT_EQ(c.title.find("pooled"), std::string::npos) << "a lone quiet window has nothing to pool with";
    // A/B: B's gaps are counted in A's title too; with none, the title says nothing of gaps.
    gateway::GatewaySnapshot busy = quietNight();
    busy.windows[1].requests = busy.windows[1].regions[2].requests = 50;
    EXPECT_EQ(ic::errorRate(busy, 0).title.find("unrated"), std::string::npos);
    EXPECT_NE(ic::errorRate(busy, 0, &s).title.find("2 unrated"), std::string::npos);
    // The difference B − A is a gap there as well.
    const Chart diff = ic::diffErrors(busy, &s, 0);
    ASSERT_EQ(diff.series.front().y.size(), 3u);
    EXPECT_TRUE(std::isnan(diff.series.front().y[1]));
    EXPECT_DOUBLE_EQ(diff.series.front().y[0], 0);
}

// A quiet night: windows of 8, 7, 9, 6, 3 requests (APAC only) between busy ones. The run of
// quiet windows is rated in groups of at least 20 requests (8+7+9 = 24; then 6+3 = 9, too few, so
// it joins the group before it), each window showing its group's rate; busy windows keep their
// own, and a window without requests stays a gap.
TEST(IncidentCharts, QuietWindowsArePooledUntilTheyHoldEnoughRequests) {
    gateway::GatewaySnapshot s;
    auto window = [](double t, std::uint32_t requests, std::uint32_t failed) {
        gateway::WindowPoint w;
        w.t_s = t;
        w.requests = w.regions[2].requests = requests;
        w.failed = w.regions[2].failed = failed;
        return w;
    };
    s.windows = {window(60, 100, 50), window(120, 8, 1), window(180, 7, 0), window(240, 9, 2),
                 window(300, 6, 3),   window(360, 3, 0), window(420, 0, 0), window(480, 100, 1)};
    s.now_s = s.end_s = 480;
    const Chart c = ic::errorRate(s, 0);
    for (const char* name : {"all, truth", "APAC truth"}) {
        const Series& rate = named(c, name);
        ASSERT_EQ(rate.y.size(), 8u) << name;
        EXPECT_DOUBLE_EQ(rate.y[0], 50) << name << ": a busy window is not pooled, so the spike stays where it was";
        for (std::size_t i = 1; i <= 5; ++i) EXPECT_DOUBLE_EQ(rate.y[i], 100.0 * 6 / 33) << name << " window " << i;
        EXPECT_TRUE(std::isnan(rate.y[6])) << name << ": no requests, nothing to rate";
        EXPECT_DOUBLE_EQ(rate.y[7], 1) << name;
    }
    EXPECT_NE(c.title.find("quiet windows pooled"), std::string::npos) << c.title;
    EXPECT_EQ(c.title.find("unrated"), std::string::npos) << c.title;
    const ic::RateGaps g = ic::rateGaps(s);
    EXPECT_EQ(g.pooled, 10u) << "five windows, overall and APAC";
    EXPECT_EQ(g.rated, 4u);
    EXPECT_EQ(g.sparse, 0u);

    // A group is at most kMaxPooledWindows long: a dozen windows of one request each rate as
    // nothing (10 hold 10 requests; the 2 left would make it 12 windows long).
    gateway::GatewaySnapshot dark;
    for (int i = 1; i <= 12; ++i) dark.windows.push_back(window(60.0 * i, 1, 1));
    const Chart darkChart = ic::errorRate(dark, 0);
    const Series& none = named(darkChart, "all, truth");
    EXPECT_TRUE(std::all_of(none.y.begin(), none.y.end(), [](double v) { return std::isnan(v); }));
    EXPECT_EQ(ic::rateGaps(dark).sparse, 24u);

    // B − A uses each run's pooled rates, window by window.
    gateway::GatewaySnapshot b = s;
    b.windows[2].failed = b.windows[2].regions[2].failed = 3;  // 3 more failures in B's group
    const Chart diff = ic::diffErrors(s, &b, 0);
    const Series& d = diff.series.front();
    ASSERT_EQ(d.y.size(), 8u);
    EXPECT_DOUBLE_EQ(d.y[0], 0);
    for (std::size_t i = 1; i <= 5; ++i) EXPECT_NEAR(d.y[i], 100.0 * 3 / 33, 1e-9) << i;
    EXPECT_TRUE(std::isnan(d.y[6]));
}

TEST(IncidentCharts, DecimationKeepsTheGaps) {
    std::vector<Series> series(1);
    for (int i = 0; i < 3000; ++i) {
        series[0].x.push_back(i);
        series[0].y.push_back(i >= 1000 && i < 1010 ? NAN : 1.0 + (i % 7));
    }
    ic::decimate(series, 300);
    EXPECT_LT(series[0].x.size(), 400u);
    const auto gaps = std::count_if(series[0].y.begin(), series[0].y.end(), [](double v) { return std::isnan(v); });
    EXPECT_EQ(gaps, 1) << "a run of gaps stays one break in the line";
}

TEST(IncidentCharts, TheDrawnChartBreaksAtAGapAndItsAxisFollowsTheRatedWindows) {
    GatewayTimeChart view;
    view.resize(700, 400);
    view.setGapsShown(true, "not rated");
    view.setChart(ic::errorRate(quietNight(), 0));
    const auto plotted = view.plottedSeries();
    ASSERT_FALSE(plotted.empty());
    ASSERT_EQ(plotted.front().y.size(), 3) << "the gap is drawn as a break, not left out";
    EXPECT_TRUE(std::isnan(plotted.front().y[1]));
    EXPECT_LT(view.viewRange().yUpper, 10) << "the quiet window's 67% does not set the axis";
    view.setCrosshair(100);  // inside the quiet window (60, 120]
    EXPECT_TRUE(view.crosshairText().contains("all, truth: not rated")) << view.crosshairText().toStdString();
}

// Two faults close together: the second takes the row's second track, so neither label is cut by
// the other's bar; each label is a line of text high, and the tooltip has the full text.
TEST(IncidentLane, LabelsThatWouldRunIntoTheNextEventTakeASecondTrack) {
    EventLaneChart lane;
    lane.resize(1280, 160);
    lane.setChart(ic::lane());
    const std::vector<LaneEvent> events = {
        {6 * 3600.0, 8 * 3600.0, ic::kFaultRow, "EU-West A/zone a: hosts accept, never answer"},
        {6.5 * 3600, std::nullopt, ic::kFaultRow, "operator reroutes 20% of US-East to EU-West"},
        {18 * 3600.0, std::nullopt, ic::kPhaseRow, "Jul 29 08:22 phase: standby serving"},
    };
    lane.setEvents(events);
    lane.show();
    QApplication::processEvents();
    lane.setXRange(0, 86400);
    lane.replotNow();
    ASSERT_EQ(lane.labels().size(), events.size());
    ASSERT_EQ(lane.tracks().size(), events.size());
    EXPECT_NE(lane.tracks()[0], lane.tracks()[1]);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& l = lane.labels()[i];
        EXPECT_TRUE(l.shown) << i;
        EXPECT_EQ(l.text, events[i].label) << "elided: " << l.text.toStdString();
        EXPECT_GE(l.rect.height(), 10) << i;
        for (std::size_t j = 0; j < events.size(); ++j)
            if (j != i) {
                EXPECT_FALSE(l.rect.intersects(lane.labels()[j].rect)) << i << " and " << j;
            }
    }
    EXPECT_EQ(lane.eventAt(lane.eventPoint(0)), std::optional<std::size_t>(0));
}

// The error rate chart has eight series and B's ghosts share one grey legend entry: no series
// may be drawn in that grey.
TEST(IncidentCharts, NoSeriesIsDrawnInTheGhostsGrey) {
    Chart c;
    for (int i = 0; i < 12; ++i) c.series.push_back({"series " + std::to_string(i), SeriesRole::Simulated, {}, {}});
    for (const QColor& color : chart_style::seriesColors(c, Qt::white))
        EXPECT_GT(color.hsvSaturationF(), 0.3) << color.name().toStdString();
}

}  // namespace
}  // namespace taillab::ui::test
