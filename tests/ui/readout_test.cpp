// The hover read-out (the box of values at the pointer): drawn whole inside its chart wherever
// the pointer is, even in a narrow chart whose box is wider than half of it (the gateway view at
// 1280x720), and gone once the pointer leaves the chart.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QMouseEvent>
#include <algorithm>
#include <memory>
#include <string>

#include "gateway/gateway_charts.h"
#include "plots/gateway_time_chart.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

// The pointer moved to `pos` over the chart's plot, no button held.
void hover(QCustomPlot& plot, QPoint pos) {
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), plot.mapToGlobal(QPointF(pos)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&plot, &move);
}

void leave(QObject& receiver) {
    QEvent e(QEvent::Leave);
    QApplication::sendEvent(&receiver, &e);
}

// The percentiles per window of a day, in seconds since Mon 00:00 (read as "Mon 04:00").
Chart percentiles() {
    Chart c = gateway_charts::timeChart("percentiles", "Latency percentiles per window",
                                        "Latency (ms)", true);
    for (const char* name : {"p50", "p99", "p99.9"}) {
        Series s{name, SeriesRole::Simulated, {}, {}};
        for (int i = 1; i <= 24; ++i) {
            s.x.push_back(i * 3600.0);
            s.y.push_back((name[1] == '5' ? 120 : name[3] ? 560 : 380) + 10 * (i % 5));
        }
        c.series.push_back(std::move(s));
    }
    return c;
}

// The whole-run nines of five classes, the merged histogram and the deadline.
Chart nines() {
    gateway::GatewaySnapshot s;
    for (int k = 0; k < gateway::kClasses; ++k)
        for (int i = 0; i < 1000; ++i) {
            const std::int64_t us = (k + 1) * 10'000 + (i % 50 == 0 ? k * 100'000 : i);
            s.latency_by_class_us[k].record(us);
            s.latency_us.record(us);
        }
    return gateway_charts::latencyNines(s, 600.0);
}

// Hovers every drawn point of `view` (shown at `size`): where a read-out shows, its box lies
// inside the plot widget and is wide enough for its longest line. Both edges and the middle of
// the chart are among the points read.
void expectReadoutsInside(ChartView& view, QSize size, const QString& mustRead) {
    view.resize(size);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.replotNow();
    auto* plot = view.findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    const QRect area = view.plotArea();
    int read = 0, nearLeft = 0, nearRight = 0, midLeft = 0;
    const int own = static_cast<int>(view.plottedSeries().size());
    for (int k = 0; k < own; ++k)
        for (auto it = plot->graph(k)->data()->constBegin(); it != plot->graph(k)->data()->constEnd(); ++it) {
            // Where the point is drawn (the chart maps data x to plot x itself: the nines axis).
            const QPoint pos(qRound(plot->xAxis->coordToPixel(it->key)),
                             qRound(plot->yAxis->coordToPixel(it->value)));
            if (!area.contains(pos)) continue;
            hover(*plot, pos);
            const QString text = view.readoutText();
            if (text.isEmpty()) continue;
            ++read;
            const double at01 = double(pos.x() - area.left()) / area.width();
            nearLeft += at01 < 0.15;
            nearRight += at01 > 0.85;
            midLeft += at01 > 0.3 && at01 < 0.5;
            const QRect box = view.readoutRect();
            EXPECT_TRUE(plot->rect().contains(box))
                << "box " << box.x() << "," << box.y() << " " << box.width() << "x" << box.height()
                << " in " << plot->width() << "x" << plot->height() << " hovering " << pos.x()
                << "," << pos.y() << ": " << text.toStdString();
            QFont font;
            for (int i = 0; i < plot->itemCount(); ++i)
                if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible() && t->text() == text)
                    font = t->font();
            const int widest =
                QFontMetrics(font).boundingRect(QRect(), Qt::TextDontClip | Qt::AlignLeft, text).width();
            EXPECT_GE(box.width(), widest) << text.toStdString();
            // Each line after the name says a value: the x the tester found cut off.
            const QStringList lines = text.split('\n');
            ASSERT_EQ(lines.size(), 3) << text.toStdString();
            EXPECT_TRUE(lines[1].startsWith(mustRead + ": ") && lines[1].size() > mustRead.size() + 2)
                << text.toStdString();
        }
    EXPECT_GT(nearLeft, 0);
    EXPECT_GT(nearRight, 0);
    EXPECT_GT(midLeft, 0);
    EXPECT_GT(read, 5);
}

TEST(ChartReadout, FitsWholeInANarrowTimeChart) {
    GatewayTimeChart view;
    view.setChart(percentiles());
    expectReadoutsInside(view, QSize(330, 260), "Simulated time (UTC)");
}

TEST(ChartReadout, FitsWholeInANarrowNinesChart) {
    std::unique_ptr<ChartView> view(ChartView::create(ChartKind::Percentile));
    view->setChart(nines());
    expectReadoutsInside(*view, QSize(330, 260), QString::fromStdString(view->chart().x_label));
}

// A read-out higher than the chart keeps its first lines (what was hovered) in view.
TEST(ChartReadout, ABoxTallerThanTheChartKeepsItsTopInView) {
    GatewayTimeChart view;
    Chart c = percentiles();
    for (int i = 0; i < 24; ++i) c.series[0].name += "\nline " + std::to_string(i);
    view.setChart(c);
    view.resize(330, 240);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.replotNow();
    auto* plot = view.findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    const QCPGraph* g = plot->graph(0);
    const auto it = g->data()->at(g->dataCount() / 2);
    view.showReadoutNear(QPoint(qRound(plot->xAxis->coordToPixel(it->key)),
                                qRound(plot->yAxis->coordToPixel(it->value))));
    ASSERT_TRUE(view.readoutText().startsWith("p50\n")) << view.readoutText().toStdString();
    const QRect box = view.readoutRect();
    EXPECT_GT(box.height(), plot->height());
    EXPECT_EQ(box.top(), 0);
    EXPECT_GE(box.left(), 0);
    EXPECT_LE(box.right(), plot->rect().right());
}

// Moving from one chart into the next: the first chart's box goes, and comes back on the next
// move over it.
TEST(ChartReadout, LeavingTheChartHidesItsReadout) {
    GatewayTimeChart view;
    view.setChart(percentiles());
    view.resize(500, 300);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.replotNow();
    auto* plot = view.findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    const auto it = plot->graph(0)->data()->at(3);
    const QPoint pos(qRound(plot->xAxis->coordToPixel(it->key)),
                     qRound(plot->yAxis->coordToPixel(it->value)));
    for (QObject* receiver : {static_cast<QObject*>(plot), static_cast<QObject*>(&view)}) {
        hover(*plot, pos);
        ASSERT_FALSE(view.readoutText().isEmpty());
        leave(*receiver);
        EXPECT_TRUE(view.readoutText().isEmpty()) << view.readoutText().toStdString();
        EXPECT_TRUE(view.readoutRect().isEmpty());
    }
    hover(*plot, pos);
    EXPECT_FALSE(view.readoutText().isEmpty());

    // A crosshair is the owner's (the incident board sets every chart's at once): it stays.
    view.setCrosshairMode(true);
    view.setCrosshair(it->key);
    ASSERT_FALSE(view.crosshairText().isEmpty());
    leave(*plot);
    EXPECT_TRUE(view.readoutText().isEmpty());
    EXPECT_FALSE(view.crosshairText().isEmpty());
}

}  // namespace
}  // namespace taillab::ui::test
