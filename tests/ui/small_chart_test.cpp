// Charts in a small window (the gateway view at 1280x720): a legend of six entries takes two
// columns before it takes one, and breaker lanes too thin for a line of text are labelled by
// region only.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>

#include "gateway/gateway_charts.h"
#include "plots/axis_tickers.h"
#include "plots/breaker_strip_chart.h"
#include "plots/chart_style.h"
#include "plots/gateway_time_chart.h"
#include "plots/sweep_chart.h"
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

// Shows `chart` in `view` at w x h and draws it; false when the window never appeared.
bool showChart(GatewayTimeChart& view, const Chart& chart, int w, int h) {
    view.resize(w, h);
    view.show();
    view.setChart(chart);
    if (!QTest::qWaitForWindowExposed(&view)) return false;
    view.replotNow();
    return true;
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

namespace {
// The dark pixels of each legend item's text, counted from its rect's top down `rows` rows
// (0: down to its rect's bottom).
std::vector<int> legendInk(QCustomPlot& plot, int rows) {
    plot.replot();
    const QImage image = plot.grab().toImage();
    std::vector<int> ink;
    for (int i = 0; i < plot.legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i));
        if (!item) continue;
        const QRect r = item->rect();
        int n = 0;
        const int end = rows > 0 ? r.top() + rows : item->outerRect().bottom() + 1;
        for (int y = r.top(); y < std::min(end, image.height()); ++y)
            for (int x = r.left() + plot.legend->iconSize().width(); x <= r.right(); ++x)
                n += image.pixelColor(x, y).lightness() < 160;
        ink.push_back(n);
    }
    return ink;
}
}  // namespace

// QCustomPlot clips each legend item to its rect. Drawn as laid out, every name has the same
// ink as when drawn with room to spare below it: no descender of any row ("p", ",") is cut.
// A legend too tall for a short chart takes more columns with its names elided; a column of
// short names keeps them whole and leaves the room it does not need to the long ones, so the
// columns fill the chart's width rather than each taking an equal share.
TEST(SmallCharts, AnElidingLegendGivesTheRoomShortNamesLeaveToTheLongOnes) {
    QCustomPlot plot;
    plot.resize(300, 120);
    plot.legend->setVisible(true);
    // Filled row by row: columns 0 and 2 hold the long names, column 1 the short ones.
    const QStringList names = {"navigational requests", "p50", "product pricing requests",
                               "long-tail agent requests", "p90", "all requests in the run"};
    for (const QString& name : names) plot.addGraph()->setName(name);
    chart_style::fitLegend(plot, plot.size());
    plot.replot();
    QCPLegend* legend = plot.legend;
    ASSERT_EQ(legend->itemCount(), 6);
    ASSERT_EQ(legend->wrap(), 3) << "two rows in a 120 px chart, so three columns";
    const QFontMetrics metrics(legend->font());
    // An entry's text width as laid out: its hint less the icon and the padding beside it.
    auto shown = [&](int i) {
        return legend->item(i)->minimumOuterSizeHint().width() - legend->iconSize().width() -
               legend->iconTextPadding();
    };
    for (int i : {1, 4}) EXPECT_EQ(shown(i), metrics.horizontalAdvance(names[i])) << "whole: " << names[i].toStdString();
    int columns = 0;
    for (int c = 0; c < 3; ++c)
        columns += std::max(legend->item(c)->minimumOuterSizeHint().width(),
                            legend->item(c + 3)->minimumOuterSizeHint().width());
    const int room = plot.width() - legend->margins().left() - legend->margins().right() -
                     2 * legend->columnSpacing();
    EXPECT_LE(columns, room) << "the columns fit the chart";
    EXPECT_GE(columns, room - 12) << "and leave it no room unused: the short column's share went to the long names";
    for (int i : {0, 2, 3, 5}) EXPECT_LT(shown(i), metrics.horizontalAdvance(names[i])) << "elided: " << names[i].toStdString();
}

TEST(SmallCharts, EveryLegendEntryIsDrawnWhole) {
    GatewayTimeChart view;
    view.resize(330, 260);
    view.show();
    Chart chart = gateway_charts::queue(snapshot(), 0);
    for (std::size_t i = 0; i < chart.series.size(); ++i)
        chart.series[i].name += ", typical qpj (" + std::to_string(i) + ")";
    view.setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    auto* plot = view.findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    const int rows = 24;
    const std::vector<int> drawn = legendInk(*plot, 0);
    ASSERT_EQ(drawn.size(), 6u);
    for (int i = 0; i < plot->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = plot->legend->item(i);
        if (!item) continue;
        EXPECT_LE(item->outerRect().bottom(), plot->height()) << i;
        item->setMargins(QMargins(0, 0, 0, rows));
    }
    plot->resize(plot->width(), plot->height() + 6 * rows);
    const std::vector<int> roomy = legendInk(*plot, rows);
    EXPECT_EQ(drawn, roomy);
    for (int n : drawn) EXPECT_GT(n, 20);
}

// A log axis is labelled as densely as its length allows: a tall one over less than a decade
// and a half labels every digit, a shorter one 1-2-5 (with the other digits as unlabelled minor
// ticks), a short one only powers of ten; labels never sit closer than a line of text.
TEST(SmallCharts, LogAxesLabelMinorTicksWhenThereIsRoom) {
    Chart chart;
    chart.id = "log";
    chart.kind = ChartKind::XY;
    chart.x_label = "x";
    chart.y_label = "Latency (ms)";
    chart.log_y = true;
    chart.series.push_back(Series{"s", SeriesRole::Simulated, {0, 1, 2, 3}, {1.2, 10, 100, 900}});
    std::unique_ptr<ChartView> view(ChartView::create(ChartKind::XY));
    view->setChart(chart);
    view->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    auto* plot = view->findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    const auto labelsAt = [&](int height, double lower, double upper) {
        view->resize(700, height);
        QApplication::processEvents();
        plot->yAxis->setRange(lower, upper);
        plot->replot();
        plot->replot();  // the density follows the laid-out length
        QStringList shown;
        const QVector<double> ticks = plot->yAxis->tickVector();
        const QVector<QString> labels = plot->yAxis->tickVectorLabels();
        double lastPx = 1e9;
        for (int i = 0; i < ticks.size(); ++i) {
            if (!plot->yAxis->range().contains(ticks[i])) continue;
            const double px = plot->yAxis->coordToPixel(ticks[i]);
            EXPECT_GE(std::abs(lastPx - px), QFontMetrics(plot->yAxis->tickLabelFont()).height())
                << labels[i].toStdString() << " at " << height << " px";
            lastPx = px;
            shown << labels[i];
        }
        return shown;
    };
    EXPECT_EQ(labelsAt(700, 110, 950), (QStringList{"200", "300", "400", "500", "600", "700", "800", "900"}));
    QStringList mid = labelsAt(420, 1, 900);
    EXPECT_EQ(mid, (QStringList{"1", "2", "5", "10", "20", "50", "100", "200", "500"}));
    EXPECT_EQ(labelsAt(200, 1, 900), (QStringList{"1", "10", "100"}));

    // Across, labels are wider than tall: 1-2-5 over three decades of small fractions only
    // where each label clears its neighbours by a gap.
    for (int width : {1200, 600, 420}) {
        view->resize(width, 400);
        QApplication::processEvents();
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<NiceLogTicker>::create();
        ticker->setAxis(plot->xAxis);
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(0.001, 1);
        plot->replot();
        plot->replot();
        const QFontMetrics metrics(plot->xAxis->tickLabelFont());
        const QVector<double> ticks = plot->xAxis->tickVector();
        const QVector<QString> labels = plot->xAxis->tickVectorLabels();
        double lastRight = -1e9;
        int shown = 0;
        for (int i = 0; i < ticks.size(); ++i) {
            if (!plot->xAxis->range().contains(ticks[i])) continue;
            const double half = metrics.horizontalAdvance(labels[i]) / 2.0;
            const double px = plot->xAxis->coordToPixel(ticks[i]);
            EXPECT_GE(px - half - lastRight, 4) << labels[i].toStdString() << " at width " << width;
            lastRight = px + half;
            ++shown;
        }
        EXPECT_GE(shown, 4) << width;
    }
}

TEST(SmallCharts, ThinBreakerLanesKeepTheirLabelsThenFallBackToRegions) {
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
    // Hovering a strip names its lane ("EU / atlas"), not its index.
    QString readout;
    for (int x = 0; x < view.width() && readout.isEmpty(); x += 6)
        for (int y = 0; y < view.height() && readout.isEmpty(); y += 6) {
            view.showReadoutNear(QPoint(x, y));
            readout = view.readoutText();
        }
    ASSERT_FALSE(readout.isEmpty());
    EXPECT_TRUE(std::any_of(lanes.begin(), lanes.end(),
                            [&](const QString& l) { return readout.contains("Region / engine: " + l); }))
        << readout.toStdString();
    // Shorter, the lanes are thinner than a line of the axis's font: each keeps its label, in a
    // smaller font (the gateway view at 1280x720).
    view.resize(420, 200);
    QTest::qWait(100);
    EXPECT_EQ(view.laneLabels(), lanes);
    // Twice the lanes (B's under A's, as the incident board draws them): too thin for even the
    // smallest font, so each region is named once.
    QStringList both = lanes;
    for (const QString& l : lanes) both << "B " + l;
    view.setLanes(both);
    view.showStrips(gateway_charts::breakers(s, 0));
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.laneLabels().size() == 6; }, 2000 * kSlowdown));
    EXPECT_EQ(view.laneLabels(), (QStringList{"EU", "US", "APAC", "B EU", "B US", "B APAC"}));
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

// How wide `text` is in the default font at `points`.
int advanceAt(const QString& text, int points) {
    QFont f;
    f.setPointSize(points);
    return QFontMetrics(f).horizontalAdvance(text);
}

// An axis label longer than its axis, even at 8 pt, is elided to the axis, and whole again when
// there is room.
TEST(SmallCharts, AxisLabelsLongerThanTheirAxisAreElided) {
    GatewayTimeChart view;
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.y_label = "Requests in flight per region, and the adaptive admission limit";
    ASSERT_TRUE(showChart(view, chart, 500, 220));
    const QString shown = view.drawnAxisLabel(Qt::Vertical);
    EXPECT_TRUE(shown.endsWith(QChar(0x2026))) << shown.toStdString();
    EXPECT_EQ(view.axisLabelPointSize(Qt::Vertical), 8);  // shrunk to 8 pt before it was elided
    EXPECT_LE(advanceAt(shown, view.axisLabelPointSize(Qt::Vertical)),
              view.axisLength(Qt::Vertical) + 4);
    EXPECT_EQ(view.drawnAxisLabel(Qt::Horizontal), "Simulated time (UTC)");
    view.resize(500, 900);
    QApplication::processEvents();
    view.replotNow();
    EXPECT_EQ(view.drawnAxisLabel(Qt::Vertical).toStdString(), chart.y_label);
}

// A label a little too long for its axis is drawn whole in a smaller font (down to 8 pt) before
// any word is elided, and at its usual size again once the axis has room.
TEST(SmallCharts, AnAxisLabelShrinksBeforeItIsElided) {
    GatewayTimeChart view;
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.y_label = "Latency (ms)";
    ASSERT_TRUE(showChart(view, chart, 500, 240));
    const int room = view.axisLength(Qt::Vertical);
    const int usual = view.axisLabelPointSize(Qt::Vertical);
    // A label just longer than the axis at its usual size: short words before it until it is.
    QString label = "Latency (ms)";
    while (advanceAt(label, usual) <= room) label = "a " + label;
    ASSERT_GT(advanceAt(label, usual), room) << label.toStdString();
    ASSERT_LE(advanceAt(label, 8), room) << label.toStdString() << ": too long even at 8 pt";
    chart.y_label = label.toStdString();
    view.setChart(chart);
    view.replotNow();
    EXPECT_EQ(view.drawnAxisLabel(Qt::Vertical), label) << "axis " << room << " px";
    const int shrunk = view.axisLabelPointSize(Qt::Vertical);
    EXPECT_LT(shrunk, usual);
    EXPECT_GE(shrunk, 8);
    EXPECT_LE(advanceAt(label, shrunk), view.axisLength(Qt::Vertical));
    view.resize(500, 700);
    QApplication::processEvents();
    view.replotNow();
    EXPECT_EQ(view.drawnAxisLabel(Qt::Vertical), label);
    EXPECT_EQ(view.axisLabelPointSize(Qt::Vertical), usual);
}

// A label too long for its axis keeps its unit: the words before it are elided, then only the
// unit is left, and only when the unit itself does not fit is it elided too.
TEST(SmallCharts, AnElidedAxisLabelKeepsItsUnit) {
    const QFontMetrics fm{QFont()};
    const QString full = "Requests in flight per region (log)";
    const QString unit = "(log)";
    EXPECT_EQ(chart_style::fitAxisLabel(full, fm, fm.horizontalAdvance(full)), full);
    const QString some =
        chart_style::fitAxisLabel(full, fm, fm.horizontalAdvance("Requests in (log)"));
    EXPECT_TRUE(some.startsWith("Requests")) << some.toStdString();
    EXPECT_TRUE(some.endsWith(QChar(0x2026) + QString(" ") + unit)) << some.toStdString();
    EXPECT_LE(fm.horizontalAdvance(some), fm.horizontalAdvance("Requests in (log)"));
    EXPECT_EQ(chart_style::fitAxisLabel(full, fm, fm.horizontalAdvance(unit) + 2), unit);
    const QString tiny = chart_style::fitAxisLabel(full, fm, fm.horizontalAdvance(unit) - 4);
    EXPECT_TRUE(tiny.endsWith(QChar(0x2026))) << tiny.toStdString();
    EXPECT_LE(fm.horizontalAdvance(tiny), fm.horizontalAdvance(unit) - 4);
    // No unit: elided at the end, as before.
    const QString plain =
        chart_style::fitAxisLabel("Region / engine", fm, fm.horizontalAdvance("Region /"));
    EXPECT_TRUE(plain.startsWith("Reg")) << plain.toStdString();
    EXPECT_TRUE(plain.endsWith(QChar(0x2026))) << plain.toStdString();
    EXPECT_EQ(chart_style::fitAxisLabel(full, fm, -5), QString());
}

// A y label too long for its axis goes on two lines before anything is cut: "In… (log)" read as
// nothing on the queue chart at 1280x720. At its unit first, else at the most even space.
TEST(SmallCharts, AYLabelTooLongForItsAxisTakesTwoLines) {
    const QFontMetrics fm{QFont()};
    EXPECT_EQ(chart_style::fitAxisLabel("In flight (log)", fm, fm.horizontalAdvance("In flight") + 1, true),
              "In flight\n(log)");
    EXPECT_EQ(chart_style::fitAxisLabel("Region / engine", fm, fm.horizontalAdvance("Region /") + 1, true),
              "Region /\nengine");
    EXPECT_EQ(chart_style::fitAxisLabel("In flight (log)", fm, fm.horizontalAdvance("In flight (log)"), true),
              "In flight (log)") << "one line where it fits";
    // Too long for two lines as well: shortened with its unit kept, on one line.
    const QString cut = chart_style::fitAxisLabel("Requests in flight (log)", fm, fm.horizontalAdvance("(log)") + 2, true);
    EXPECT_EQ(cut, "(log)");
    // Not for an x axis (height is scarce there): as before.
    EXPECT_FALSE(chart_style::fitAxisLabel("In flight (log)", fm, fm.horizontalAdvance("In flight") + 1).contains('\n'));

    // As drawn: the queue chart in a 1280x720 grid's cell, with a label a little longer than
    // its axis (the fonts differ from machine to machine).
    GatewayTimeChart view;
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.y_label = "Requests in flight (log)";
    ASSERT_TRUE(showChart(view, chart, 330, 190));
    const QString shown = view.drawnAxisLabel(Qt::Vertical);
    EXPECT_TRUE(shown.contains('\n') && !shown.contains(QChar(0x2026)) &&
                QString(shown).replace('\n', ' ') == chart.y_label.c_str())
        << shown.toStdString() << " on " << view.axisLength(Qt::Vertical) << " px at "
        << view.axisLabelPointSize(Qt::Vertical) << " pt";

    // The frame that first draws two lines is laid out for them: its label strip does not grow
    // on the next frame (the first line used to be cut off at the widget's edge until then, and
    // in an export for good).
    view.resize(900, 600);
    QApplication::processEvents();
    view.replotNow();
    ASSERT_FALSE(view.drawnAxisLabel(Qt::Vertical).contains('\n'));
    view.resize(330, 190);
    QApplication::processEvents();
    ASSERT_TRUE(view.drawnAxisLabel(Qt::Vertical).contains('\n'))
        << view.drawnAxisLabel(Qt::Vertical).toStdString() << " on " << view.axisLength(Qt::Vertical) << " px at "
        << view.axisLabelPointSize(Qt::Vertical) << " pt";
    const QRect first = view.plotArea();
    view.replotNow();
    EXPECT_EQ(view.plotArea(), first);
}

// A word cut short says nothing: "Latency (ms)" on a short axis is "(ms)", never "Late… (ms)"
// (the live tab's whole-run nines chart at 1280x720); cut words go back to the last whole one.
TEST(SmallCharts, AnElidedAxisLabelKeepsWholeWordsOnly) {
    const QFontMetrics fm{QFont()};
    const QString cut = QString("Late") + QChar(0x2026) + " (ms)";
    EXPECT_EQ(chart_style::fitAxisLabel("Latency (ms)", fm, fm.horizontalAdvance(cut)), "(ms)");
    const QString some = chart_style::fitAxisLabel("Requests in flight (log)", fm,
                                                   fm.horizontalAdvance(QString("Requests in fli") + QChar(0x2026) + " (log)"));
    EXPECT_EQ(some, QString("Requests in") + QChar(0x2026) + " (log)");
}

// In a short chart the drawn y label keeps "(ms)", and a label set anew replaces the old one
// (the fitted text is not mistaken for it).
TEST(SmallCharts, AShortChartsLatencyAxisStillSaysMilliseconds) {
    GatewayTimeChart view;
    Chart chart = gateway_charts::queue(snapshot(), 0);
    chart.y_label = "Latency of the slowest requests in each window (ms)";
    ASSERT_TRUE(showChart(view, chart, 500, 200));
    const QString shown = view.drawnAxisLabel(Qt::Vertical);
    EXPECT_TRUE(shown.endsWith(" (ms)")) << shown.toStdString();
    EXPECT_NE(shown.toStdString(), chart.y_label);
    chart.y_label = "Requests of every kind (count)";
    view.setChart(chart);
    view.replotNow();
    const QString again = view.drawnAxisLabel(Qt::Vertical);
    EXPECT_TRUE(again.startsWith("Req") && again.endsWith(" (count)")) << again.toStdString();
}

// A live chart's time axis (seconds since the start) does not reach below zero around the
// first window's lone point.
TEST(SmallCharts, ElapsedTimeAxisStartsAtZero) {
    GatewayTimeChart view;
    view.setElapsedTime(true);
    // As a live run draws it: no window closed yet, then the first.
    gateway::GatewaySnapshot s = snapshot();
    s.windows.clear();
    Chart chart = gateway_charts::queue(s, 0);
    chart.x_label = "Time since start (s)";
    ASSERT_TRUE(showChart(view, chart, 500, 300));
    s.windows = snapshot().windows;
    s.windows.resize(1);
    s.windows[0].t_s = 10;
    chart = gateway_charts::queue(s, 0);
    chart.x_label = "Time since start (s)";
    view.setChart(chart);
    view.replotNow();
    const ChartView::ViewRange r = view.viewRange();
    EXPECT_EQ(r.xLower, 0.0);
    EXPECT_GT(r.xUpper, 10.0);
}

// A chart of one point is drawn the same however often it is redrawn: QCustomPlot keeps an
// axis's old size around a single value, and the padding used to grow it on every redraw.
TEST(SmallCharts, OnePointKeepsItsRangeAcrossRedraws) {
    for (bool elapsed : {false, true}) {
        GatewayTimeChart view;
        view.setElapsedTime(elapsed);
        gateway::GatewaySnapshot s = snapshot();
        s.windows.resize(1);
        const Chart chart = gateway_charts::queue(s, 0);
        ASSERT_TRUE(showChart(view, chart, 500, 300));
        const ChartView::ViewRange first = view.viewRange();
        for (int i = 0; i < 5; ++i) {
            view.setChart(chart);
            view.replotNow();
        }
        const ChartView::ViewRange last = view.viewRange();
        EXPECT_EQ(last.xLower, first.xLower) << elapsed;
        EXPECT_EQ(last.xUpper, first.xUpper) << elapsed;
        EXPECT_EQ(last.yLower, first.yLower) << elapsed;
        EXPECT_EQ(last.yUpper, first.yUpper) << elapsed;
        EXPECT_LT(first.xLower, s.windows[0].t_s) << elapsed;
        EXPECT_GT(first.xUpper, s.windows[0].t_s) << elapsed;
    }
}

// The sweep's point labels (simulated above their points, published below) lie inside the plot
// area, also for the highest, the lowest and the outermost points, whose labels the data's own
// range used to clip.
TEST(SmallCharts, SweepLabelsAtTheEdgesAreNotClipped) {
    SweepChart view;
    Chart chart;
    chart.kind = ChartKind::XY;
    chart.title = "Hedge delay: p99 against extra upstream load";
    chart.x_label = "Extra upstream load (% of primary calls)";
    chart.y_label = "p99 latency (ms)";
    chart.series.push_back(
        Series{"simulated", SeriesRole::Simulated, {5, 7, 10, 26, 58}, {760, 670, 600, 480, 447}});
    chart.series.push_back(Series{
        "published", SeriesRole::Published, {4.5, 7, 10, 26, 58}, {745, 655, 587, 482, 430}});
    view.setPointLabels({{"600 ms", "500 ms", "420 ms", "250 ms", "150 ms"},
                         {"600 ms", "500 ms", "420 ms", "250 ms", "150 ms"}});
    view.resize(700, 230);  // short: the labels need a large share of its height
    view.show();
    // Then with an unlabelled series reaching just past the labelled points, so the fitted range
    // is already wider than theirs when the labels' room is made.
    Chart wider = chart;
    wider.series.push_back(
        Series{"bound", SeriesRole::Simulated, {4.4, 58.6}, {765, 425}});
    for (const Chart& c : {chart, wider}) {
        view.setChart(c);
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
        view.replotNow();
        QApplication::processEvents();  // the refit's queued replot
        view.replotNow();
        const QRectF area = QRectF(view.axisRectPixels()).adjusted(-0.5, -0.5, 0.5, 0.5);
        const std::vector<QRectF> rects = view.labelRects();
        ASSERT_EQ(rects.size(), 10u);
        for (const QRectF& r : rects)
            EXPECT_TRUE(area.contains(r))
                << c.series.size() << " series: " << r.left() << "," << r.top() << " " << r.width()
                << "x" << r.height() << " not inside " << area.left() << "," << area.top() << " "
                << area.width() << "x" << area.height();
    }
}

}  // namespace
}  // namespace taillab::ui::test
