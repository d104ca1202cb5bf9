// Charts in a small window (the gateway view at 1280x720): a legend of six entries takes two
// columns before it takes one, and breaker lanes too thin for a line of text are labelled by
// region only.
#include <gtest/gtest.h>

#include "gateway/gateway_charts.h"
#include "plots/breaker_strip_chart.h"
#include "plots/gateway_time_chart.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

gateway::GatewaySnapshot snapshot() {
    gateway::GatewaySnapshot s;
    s.now_s = 7200;
    s.end_s = 86400;
    s.engines = {"atlas", "borealis", "cirrus"};
    for (double t = 600; t <= 7200; t += 600) {
        gateway::WindowPoint w;
        w.t_s = t;
        w.inflight_peak = {10, 20, 30};
        w.admission_limit = {200, 180, 160};
        s.windows.push_back(w);
    }
    return s;
}

TEST(SmallCharts, ASixEntryLegendTakesTwoColumnsInANarrowChart) {
    GatewayTimeChart view;
    view.resize(330, 260);
    view.show();
    view.setChart(gateway_charts::queue(snapshot(), 0));
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    EXPECT_EQ(view.legendNames().size(), 6);
    EXPECT_EQ(view.legendColumns(), 2);
}

TEST(SmallCharts, ThinBreakerLanesAreLabelledByRegion) {
    const gateway::GatewaySnapshot s = snapshot();
    QStringList lanes;
    for (int lane = 0; lane < 9; ++lane)
        lanes << QString::fromStdString(gateway_charts::laneName(s, lane));
    BreakerStripChart view;
    view.setLanes(lanes);
    view.resize(420, 420);
    view.show();
    view.showStrips(gateway_charts::breakers(s, 0));
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50);
    EXPECT_EQ(view.laneLabels(), lanes);
    view.resize(420, 200);
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.laneLabels().size() == 3; }, 2000));
    EXPECT_EQ(view.laneLabels(), (QStringList{"EU", "US", "APAC"}));
}

// A title wider than its chart shrinks (down to 8 pt), then is elided; it never runs past the
// edges over the axis labels, and it comes back whole when the chart widens.
TEST(SmallCharts, ALongTitleShrinksThenElidesToFitItsChart) {
    GatewayTimeChart view;
    view.resize(900, 300);
    view.show();
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.title = "Circuit breakers per region and engine, with the probes that half-open them";
    view.setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    EXPECT_EQ(view.drawnTitle().toStdString(), chart.title);
    EXPECT_EQ(view.titlePointSize(), 11);
    for (int width : {600, 420, 330}) {
        view.resize(width, 300);
        QApplication::processEvents();
        EXPECT_LE(view.titleWidth(), width - 16) << width;
        EXPECT_GE(view.titlePointSize(), 8);
    }
    EXPECT_TRUE(view.drawnTitle().endsWith(QChar(0x2026))) << view.drawnTitle().toStdString();
    view.resize(900, 300);
    QApplication::processEvents();
    EXPECT_EQ(view.drawnTitle().toStdString(), chart.title);
}

// An axis label longer than its axis is elided to the axis, and whole again when there is room.
TEST(SmallCharts, AxisLabelsLongerThanTheirAxisAreElided) {
    GatewayTimeChart view;
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.y_label = "Requests in flight per region, and the adaptive admission limit";
    view.resize(500, 220);
    view.show();
    view.setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.replotNow();
    const QString shown = view.drawnAxisLabel(Qt::Vertical);
    EXPECT_TRUE(shown.endsWith(QChar(0x2026))) << shown.toStdString();
    EXPECT_LE(QFontMetrics(QFont()).horizontalAdvance(shown), view.axisLength(Qt::Vertical) + 4);
    EXPECT_EQ(view.drawnAxisLabel(Qt::Horizontal), "Simulated time (UTC)");
    view.resize(500, 900);
    QApplication::processEvents();
    view.replotNow();
    EXPECT_EQ(view.drawnAxisLabel(Qt::Vertical).toStdString(), chart.y_label);
}

}  // namespace
}  // namespace taillab::ui::test
