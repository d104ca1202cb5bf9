// Timeline annotations on time charts: knob changes as lines and faults as spans, their labels
// laid out so none overlaps another (stacked, elided, hidden when there is no room, the full text
// on hover), colours that read in a dark palette, exports that include them (PNG/SVG drawn, CSV
// and JSON listed), and the labs' result view drawing LabResult::annotations on its time charts.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <qcustomplot.h>
#include <cmath>
#include <fstream>
#include <sstream>

#include "chart_data_export.h"
#include "export_actions.h"
#include "plots/chart_style.h"
#include "plots/gateway_time_chart.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

constexpr double kDay = 86400;

Chart dayChart() {
    Chart c;
    c.id = "day";
    c.title = "A day";
    c.kind = ChartKind::Time;
    c.x_label = "Simulated time (s)";
    c.y_label = "Latency (ms)";
    Series s{"p99", SeriesRole::Simulated, {}, {}};
    for (double t = 600; t <= kDay; t += 600) {
        s.x.push_back(t);
        s.y.push_back(300 + 100 * std::sin(t / 7200));
    }
    c.series.push_back(s);
    return c;
}

Annotation knob(double x, std::string label) { return {x, std::nullopt, "knob", std::move(label)}; }
Annotation fault(double x0, double x1, std::string label) {
    return {x0, x1, "fault", std::move(label)};
}

const std::vector<Annotation> kTimeline{
    knob(3 * 3600, "hedge_delay_ms 420 -> 300"),
    knob(3 * 3600 + 300, "hedge_budget 0.15 -> 0.3"),  // five minutes later: the same pixel
    fault(6 * 3600, 10 * 3600, "atlas slow ×3 (EU)"),
    knob(6 * 3600 + 600, "an operator's note far too long to fit above a chart of this width"),
    knob(20 * 3600, "hedge_mode rolling p90 per (region, engine) -> fixed")};

// Shows `view` at `size` with the timeline and the day, laid out.
void show(ChartView& view, QSize size, const std::vector<Annotation>& annotations) {
    view.resize(size);
    view.show();
    view.setAnnotations(annotations);
    view.setChart(dayChart());
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50);  // the queued replot lays the labels out
}

void expectNoOverlap(const std::vector<AnnotationLabel>& labels, const QRect& bounds) {
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (!labels[i].shown) continue;
        EXPECT_TRUE(QRectF(bounds).contains(labels[i].rect)) << labels[i].full.toStdString();
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (labels[j].shown) {
                EXPECT_FALSE(labels[i].rect.intersects(labels[j].rect))
                    << labels[i].text.toStdString() << " / " << labels[j].text.toStdString();
            }
    }
}

TEST(ChartAnnotations, LabelsStackElideAndNeverOverlap) {
    GatewayTimeChart view;
    show(view, {760, 400}, kTimeline);
    const auto& labels = view.annotationLabels();
    ASSERT_EQ(labels.size(), kTimeline.size());
    for (const AnnotationLabel& l : labels) EXPECT_TRUE(l.shown) << l.full.toStdString();
    expectNoOverlap(labels, view.rect());
    EXPECT_NE(labels[0].row, labels[1].row) << "two changes at one pixel stack";
    EXPECT_TRUE(labels[3].text.endsWith(QChar(0x2026))) << labels[3].text.toStdString();
    EXPECT_LT(labels[3].text.size(), labels[3].full.size());
    // Hovering a label gives its whole text, the kind and the time.
    view.showReadoutNear(labels[3].rect.center().toPoint());
    EXPECT_TRUE(view.readoutText().contains(labels[3].full)) << view.readoutText().toStdString();
    view.showReadoutNear(labels[2].rect.center().toPoint());
    EXPECT_TRUE(view.readoutText().startsWith("Fault: atlas slow"))
        << view.readoutText().toStdString();
}

TEST(ChartAnnotations, ACrowdKeepsEveryLabelFindableAndStillFitsASmallChart) {
    std::vector<Annotation> crowd;
    for (int i = 0; i < 14; ++i)
        crowd.push_back(knob(5 * 3600 + i * 240, "hedge_delay_ms change " + std::to_string(i)));
    GatewayTimeChart view;
    show(view, {420, 260}, crowd);
    const auto& labels = view.annotationLabels();
    int shown = 0, maxRow = 0;
    for (const AnnotationLabel& l : labels) {
        shown += l.shown;
        if (l.shown) maxRow = std::max(maxRow, l.row);
    }
    EXPECT_GT(shown, 0);
    EXPECT_LT(shown, 14) << "fourteen boxes cannot all fit in a few pixels";
    EXPECT_LT(maxRow, AnnotationLayer::kMaxRows);
    expectNoOverlap(labels, view.rect());
    for (const AnnotationLabel& l : labels) {
        // Readable, or a marker ("…") to hover; one with no room even for that is named by the
        // box of a label before it.
        if (l.shown && l.text != QString(QChar(0x2026))) {
            EXPECT_GE(l.rect.width(), AnnotationLayer::kMinLabelPx - 1) << l.text.toStdString();
        }
        if (!l.shown) {
            ASSERT_TRUE(l.sharedWith.has_value()) << l.full.toStdString();
            EXPECT_TRUE(labels[*l.sharedWith].shown);
        }
    }
    // Hovering a box lists what it stands for.
    const AnnotationLabel& last = labels.back();
    const std::size_t host = last.shown ? labels.size() - 1 : *last.sharedWith;
    view.showReadoutNear(labels[host].rect.center().toPoint());
    EXPECT_TRUE(view.readoutText().contains(last.full) || view.readoutText().contains("more here"))
        << view.readoutText().toStdString();
    // Zoomed out of view: no label at all.
    view.setAnnotations({knob(3 * kDay, "after the end")});
    QTest::qWait(50);
    EXPECT_FALSE(view.annotationLabels().front().shown);
}

// A small gateway chart (1280x720's grid) with a knob change, a fault and another change close
// together: the fault's label is elided or a marker, never dropped, and hovering it names it.
TEST(ChartAnnotations, AFaultBetweenTwoChangesKeepsABoxToHover) {
    const std::vector<Annotation> day{knob(7 * 3600, "operator: fixed 300 ms hedge"),
                                      fault(9.5 * 3600, 13 * 3600, "atlas slow ×3 (EU)"),
                                      knob(15 * 3600, "hedge_budget 0.15 -> 0.075")};
    for (const QSize size : {QSize(324, 230), QSize(260, 200), QSize(760, 400)}) {
        GatewayTimeChart view;
        show(view, size, day);
        const auto& labels = view.annotationLabels();
        ASSERT_EQ(labels.size(), day.size());
        for (const AnnotationLabel& l : labels)
            EXPECT_TRUE(l.shown) << l.full.toStdString() << " at " << size.width();
        expectNoOverlap(labels, view.rect());
        view.showReadoutNear(labels[1].rect.center().toPoint());
        EXPECT_TRUE(view.readoutText().startsWith("Fault: atlas slow"))
            << view.readoutText().toStdString() << " at " << size.width();
    }
}

TEST(ChartAnnotations, ColoursReadOnThePlotInALightAndADarkPalette) {
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 45));
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(235, 235, 235));
    dark.setColor(QPalette::WindowText, QColor(235, 235, 235));
    const QColor darkPlot(25, 25, 28);
    for (const QPalette& palette : {QPalette(), dark}) {
        for (const QColor& background : {QColor(Qt::white), darkPlot}) {
            const auto c = chart_style::annotationColors(palette, background);
            QColor knobLine = c.knob;
            knobLine.setAlpha(255);
            EXPECT_GE(chart_style::contrastRatio(c.ink, background), 4.5);
            EXPECT_GE(chart_style::contrastRatio(knobLine, background), 3.0);
            EXPECT_GE(chart_style::contrastRatio(c.fault, background), 3.0);
            EXPECT_GE(chart_style::contrastRatio(c.phase, background), 3.0);
            EXPECT_LT(c.faultFill.alpha(), 100) << "a span must not hide the data";
        }
    }
    // A chart restyles when its palette changes, and keeps its labels.
    GatewayTimeChart view;
    show(view, {760, 400}, kTimeline);
    view.setPalette(dark);
    QTest::qWait(50);
    EXPECT_TRUE(view.annotationLabels().front().shown);
}

// A phase changes nothing in the run: it is drawn by its edges, not tinted like a fault, so a
// fault inside it still reads as the only tint.
TEST(ChartAnnotations, APhaseIsItsEdgesAndAFaultASpan) {
    GatewayTimeChart view;
    show(view, {760, 400}, {fault(6 * 3600, 10 * 3600, "atlas slow"), {5 * 3600, 12 * 3600, "phase", "SEV-1"}});
    QCustomPlot* plot = view.findChild<QCustomPlot*>();
    ASSERT_NE(plot, nullptr);
    int rects = 0, lines = 0;
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (qobject_cast<QCPItemRect*>(plot->item(i))) ++rects;
        // An edge spans the axis rect at a data x; the labels' connectors are in pixels.
        if (auto* l = qobject_cast<QCPItemLine*>(plot->item(i));
            l && l->start->typeX() == QCPItemPosition::ptPlotCoords && l->pen().style() == Qt::DotLine)
            ++lines;
    }
    EXPECT_EQ(rects, 1) << "only the fault is a span";
    EXPECT_EQ(lines, 2) << "the phase's two edges, dotted (the fault's are dashed)";
}

TEST(ChartAnnotations, ExportsDrawAndListThem) {
    GatewayTimeChart with, without;
    show(with, {760, 400}, kTimeline);
    show(without, {760, 400}, {});
    QTemporaryDir dir;
    ASSERT_TRUE(with.savePng(dir.filePath("with.png")));
    ASSERT_TRUE(without.savePng(dir.filePath("without.png")));
    EXPECT_NE(QImage(dir.filePath("with.png")), QImage(dir.filePath("without.png")));
    // Laid out again at the export's size, and back at the widget's after it.
    expectNoOverlap(with.annotationLabels(), with.rect());
    ASSERT_TRUE(with.saveSvg(dir.filePath("with.svg")));
    QFile svg(dir.filePath("with.svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    const QByteArray text = svg.readAll();
    // As laid out for the export's size: every label is there.
    for (const AnnotationLabel& l : with.annotationLabels())
        EXPECT_TRUE(text.contains(">" + l.full.left(8).toUtf8())) << l.full.toStdString();

    const std::string csv = chartToCsv(dayChart(), kTimeline);
    EXPECT_NE(csv.find("\nannotation,kind,x0,x1\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("hedge_delay_ms 420 -> 300,knob,10800,\n"), std::string::npos);
    EXPECT_NE(csv.find("atlas slow ×3 (EU),fault,21600,36000\n"), std::string::npos);
    const auto json = chartToJson(dayChart(), nullptr, kTimeline);
    ASSERT_EQ(json["annotations"].size(), kTimeline.size());
    EXPECT_EQ(json["annotations"][2]["x1"], 36000);
    EXPECT_FALSE(json["annotations"][0].contains("x1"));
    EXPECT_FALSE(chartToJson(dayChart(), nullptr).contains("annotations"));
}

// The gateway lab in the labs' view: its result carries the timeline; the time charts draw it,
// the percentile chart does not, and the chart's data export lists it.
TEST(LabAnnotations, TheGatewayLabsTimeChartsDrawItsTimeline) {
    QTemporaryDir dir;
    const QString path = dir.filePath("day.json");
    {
        std::ofstream out(path.toStdString());
        out << R"({"schema_version": 1, "name": "day", "lab": "gateway",
                   "params": {"days": 1, "load_multiplier": 0.2},
                   "timeline": [
                     {"at": "Mon 03:00", "set": {"hedge_budget": 0.3}},
                     {"at": "Mon 06:00", "until": "Mon 08:00",
                      "fault": {"target": {"engine": "atlas"}, "effect": "down"}}]})";
    }
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    const quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario(path));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    const LabResultPtr r = window.latestResult();
    ASSERT_EQ(r->annotations.size(), 2u);
    EXPECT_EQ(r->annotations[1].x1, 8.0) << "in hours, like the lab's time charts";

    ChartPane* percentiles = window.chartArea()->pane(0);
    ChartPane* overTime = window.chartArea()->pane(1);
    ASSERT_EQ(percentiles->chart()->kind, ChartKind::Percentile);
    ASSERT_EQ(overTime->chart()->kind, ChartKind::Time);
    EXPECT_TRUE(percentiles->view()->annotations().empty());
    EXPECT_EQ(overTime->view()->annotations(), r->annotations);
    QTest::qWait(50);
    expectNoOverlap(overTime->view()->annotationLabels(), overTime->view()->rect());
    EXPECT_TRUE(overTime->view()->annotationLabels()[1].shown);

    window.chartArea()->setCurrentPane(1);
    const QString csv = dir.filePath("over-time.csv");
    ASSERT_TRUE(window.exportActions()->exportTo(ExportFormat::Csv, csv));
    QFile file(csv);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray data = file.readAll();
    EXPECT_TRUE(data.contains("annotation,kind,x0,x1\n"));
    EXPECT_TRUE(data.contains(",fault,6,8\n")) << data.toStdString();
}

}  // namespace
}  // namespace taillab::ui::test
