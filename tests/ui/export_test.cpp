// Export of the visible chart (PNG, SVG, PDF) and of its data (CSV, JSON) and the whole result,
// read back and checked.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QLineEdit>
#include <QSettings>
#include <QTimer>
#include <QImage>
#include <QTemporaryDir>
#include <QtSvg/QSvgRenderer>
#include <fstream>
#include <sstream>

#include "chart_data_export.h"
#include "export_actions.h"
#include "chart_sheet.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_view.h"
#include "gateway_test_support.h"
#include "knob_panel.h"
#include <QTabWidget>
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {


class ExportTest : public ::testing::Test {
  protected:
    void SetUp() override {
        window_ = std::make_unique<MainWindow>(scenarioDirectory());
        recorder_ = std::make_unique<DrawnRecorder>(*window_);
        window_->show();
        const quint64 generation = window_->controller()->generation();
        ASSERT_TRUE(window_->openScenario("fanout"));
        ASSERT_TRUE(waitForNewFinal(*window_, *recorder_, generation));
        ASSERT_NE(window_->chartArea()->currentChart(), nullptr) << "fanout produced no charts";
        ASSERT_TRUE(dir_.isValid());
    }
    bool exportTo(ExportFormat f, const QString& name) {
        QString error;
        const bool ok = window_->exportActions()->exportTo(f, dir_.filePath(name), &error);
        EXPECT_TRUE(ok) << error.toStdString();
        return ok;
    }

    std::unique_ptr<MainWindow> window_;
    std::unique_ptr<DrawnRecorder> recorder_;
    QTemporaryDir dir_;
};

TEST_F(ExportTest, PngIsAnImageOfSensibleSize) {
    ASSERT_TRUE(exportTo(ExportFormat::Png, "chart.png"));
    QImage image(dir_.filePath("chart.png"));
    ASSERT_FALSE(image.isNull());
    EXPECT_GE(image.width(), ChartView::kMinExportSize.width());
    EXPECT_GE(image.height(), ChartView::kMinExportSize.height());
    EXPECT_LE(image.width(), 8000);
}

TEST_F(ExportTest, SvgParses) {
    ASSERT_TRUE(exportTo(ExportFormat::Svg, "chart.svg"));
    QSvgRenderer svg(dir_.filePath("chart.svg"));
    EXPECT_TRUE(svg.isValid());
    EXPECT_GT(svg.defaultSize().width(), 0);
    const std::string text = readFile(dir_.filePath("chart.svg"));
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_TRUE(text.find("<polyline") != std::string::npos ||
                text.find("<path") != std::string::npos);
    EXPECT_NE(text.find("<text"), std::string::npos) << "the SVG has no text (labels)";
}

TEST_F(ExportTest, PdfIsAPdf) {
    ASSERT_TRUE(exportTo(ExportFormat::Pdf, "chart.pdf"));
    const std::string pdf = readFile(dir_.filePath("chart.pdf"));
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
    EXPECT_GT(pdf.size(), 1024u);
}

TEST_F(ExportTest, CsvReadsBackAsTheChartsSeries) {
    ASSERT_TRUE(exportTo(ExportFormat::Csv, "chart.csv"));
    const Chart& chart = *window_->chartArea()->currentChart();
    std::istringstream in(readFile(dir_.filePath("chart.csv")));
    std::string line;
    // The caption first: scenario, seed, knobs, version; then the chart's axes and units.
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line.rfind("# ", 0), 0u) << line;
    EXPECT_NE(line.find(" · seed "), std::string::npos) << line;
    EXPECT_NE(line.find(std::string("TailLab ") + TAILLAB_VERSION),
              std::string::npos)
        << line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_NE(line.find("x: " + exportedXLabel(chart)), std::string::npos) << line;
    EXPECT_NE(line.find("y: " + chart.y_label), std::string::npos) << line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "series,role,x,y");
    std::map<std::string, std::vector<std::pair<double, double>>> bySeries;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto f = csvFields(line);
        ASSERT_EQ(f.size(), 4u) << line;
        bySeries[f[0]].emplace_back(std::stod(f[2]), std::stod(f[3]));
    }
    ASSERT_EQ(bySeries.size(), chart.series.size());
    for (const Series& s : chart.series) {
        const auto& rows = bySeries[s.name];
        ASSERT_EQ(rows.size(), s.x.size()) << s.name;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            EXPECT_EQ(rows[i].first, s.x[i]);
            EXPECT_EQ(rows[i].second, s.y[i]);
        }
    }
}

TEST_F(ExportTest, JsonReadsBackAsTheChartAndTheResult) {
    ASSERT_TRUE(exportTo(ExportFormat::Json, "chart.json"));
    const Chart& chart = *window_->chartArea()->currentChart();
    const auto j = nlohmann::json::parse(readFile(dir_.filePath("chart.json")));
    EXPECT_EQ(j["id"], chart.id);
    EXPECT_EQ(j["lab"], "fanout");
    ASSERT_EQ(j["series"].size(), chart.series.size());
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        EXPECT_EQ(j["series"][i]["name"], chart.series[i].name);
        EXPECT_EQ(j["series"][i]["x"].get<std::vector<double>>(), chart.series[i].x);
        EXPECT_EQ(j["series"][i]["y"].get<std::vector<double>>(), chart.series[i].y);
    }

    ASSERT_TRUE(exportTo(ExportFormat::ResultJson, "result.json"));
    const auto r = nlohmann::json::parse(readFile(dir_.filePath("result.json")));
    EXPECT_EQ(r["lab"], "fanout");
    EXPECT_EQ(r["checks"].size(), window_->latestResult()->checks.size());
}

TEST_F(ExportTest, SuggestedNamesCarryScenarioAndChart) {
    const QString name = window_->exportActions()->suggestedName(ExportFormat::Png);
    EXPECT_TRUE(name.endsWith(".png"));
    EXPECT_TRUE(name.contains(QString::fromStdString(window_->chartArea()->currentChart()->id)));
}

// A percentile chart holds x as the quantile (0.99 for p99): its CSV and JSON say so, where the
// axis reads the same x in percent under "Percentile"; other charts keep their axis's label.
TEST(ChartDataExport, APercentileChartsXIsLabelledAsTheQuantileItHolds) {
    Chart c;
    c.kind = ChartKind::Percentile;
    c.title = "Latency distribution";
    c.x_label = "Percentile";
    c.y_label = "Latency (ms)";
    c.series.push_back(Series{"simulated", SeriesRole::Simulated, {0, 0.99, 0.99999}, {1, 2, 3}});
    const std::string csv = chartToCsv(c, {}, "caption");
    EXPECT_NE(csv.find("; x: Quantile (0 to 1; 0.99 is p99); y: Latency (ms)\n"), std::string::npos)
        << csv;
    EXPECT_EQ(csv.find("x: Percentile"), std::string::npos) << csv;
    EXPECT_EQ(chartToJson(c, nullptr)["x_label"], "Quantile (0 to 1; 0.99 is p99)");
    c.kind = ChartKind::XY;
    c.x_label = "Backends per request (N)";
    EXPECT_NE(chartToCsv(c, {}, "caption").find("; x: Backends per request (N);"), std::string::npos);
    EXPECT_EQ(chartToJson(c, nullptr)["x_label"], "Backends per request (N)");
}

TEST(ChartDataExport, CsvQuotesNamesWithCommasAndQuotes) {
    Chart c;
    c.series.push_back(Series{"a, \"b\"", SeriesRole::ClosedForm, {1, 2}, {3, 4.5}});
    c.series.push_back(Series{"plain", SeriesRole::Published, {0.5}, {7}});
    EXPECT_EQ(chartToCsv(c),
              "series,role,x,y\n"
              "\"a, \"\"b\"\"\",closed_form,1,3\n"
              "\"a, \"\"b\"\"\",closed_form,2,4.5\n"
              "\n"
              "plain,published,0.5,7\n");
}

// The caption names the scenario, the seed, each knob that differs from the scenario's and the
// version; CSV opens with it, and the images draw it under the legend.
TEST_F(ExportTest, EveryExportCarriesACaptionNamingTheRun) {
    const quint64 generation = window_->controller()->generation();
    window_->knobPanel()->applyValue("backends", 50);
    ASSERT_TRUE(waitForNewFinal(*window_, *recorder_, generation));
    ASSERT_TRUE(exportTo(ExportFormat::Csv, "edited.csv"));
    std::istringstream in(readFile(dir_.filePath("edited.csv")));
    std::string first;
    std::getline(in, first);
    // The knob by its label and its values as the knob panel writes them, not by its key.
    EXPECT_EQ(first, std::string("# fanout · seed 1 · Backends per request = 50 backends (scenario: "
                                 "100 backends) · TailLab ") +
                         TAILLAB_VERSION);
    // Drawn: the same chart with and without its caption are different images.
    ChartView* view = window_->chartArea()->currentView();
    const Chart& chart = *window_->chartArea()->currentChart();
    const auto none = [] { return nlohmann::ordered_json(); };
    ASSERT_TRUE(saveChart(*view, chart, ExportFormat::Png, dir_.filePath("with.png"), none,
                          ExportCaption::plain("fanout · seed 1 · TailLab")));
    ASSERT_TRUE(saveChart(*view, chart, ExportFormat::Png, dir_.filePath("without.png"), none, {}));
    const QImage with(dir_.filePath("with.png")), without(dir_.filePath("without.png"));
    ASSERT_FALSE(with.isNull());
    EXPECT_EQ(with.size(), without.size());
    EXPECT_NE(with, without);

    // A knob without a spec goes by its key and its value as a file writes it.
    EXPECT_EQ(exportCaption("s", 7, {{"a", 1}, {"b", "x"}, {"c", 3}}, {{"a", 1}, {"b", "y"}}, "9").text(),
              "s · seed 7 · b = x (scenario: y), c = 3 (scenario: unset) · TailLab 9");
    EXPECT_EQ(exportCaption("s", 7, {{"a", 1}}, {{"a", 1}}, "9").text(),
              "s · seed 7 · the scenario's knobs · TailLab 9");
    // The text (CSV, JSON) names every knob that differs; only an image shortens it.
    nlohmann::ordered_json many;
    for (const char* key : {"k0", "k1", "k2", "k3", "k4", "k5"}) many[key] = 1;
    const ExportCaption six = exportCaption("s", 1, many, nlohmann::ordered_json::object(), "9");
    EXPECT_EQ(six.items.size(), 6);
    EXPECT_TRUE(six.text().endsWith("k5 = 1 (scenario: unset) · TailLab 9")) << six.text().toStdString();
}

// A caption too long for its image loses whole items from the end, counted ("… and 2 more"),
// then all of them ("6 knob changes"), then the version, then the count; only a lead that does
// not fit alone is cut, after a whole word. Never a word cut in two, never wider than the room.
TEST(ExportCaptionFit, ALineTooLongIsShortenedAtAWholeItemNeverMidWord) {
    ExportCaption c;
    c.lead = QString::fromUtf8("day-eu-atlas-slow · seed 1");
    c.tail = "TailLab 9";
    for (int i = 0; i < 6; ++i) c.items << QString("Knob number %1 = %2 ms (scenario: 300 ms)").arg(i).arg(100 + i);
    const QFontMetrics m{QFont()};
    const int whole = m.horizontalAdvance(c.text());
    EXPECT_EQ(c.fitted(m, whole), c.text());
    const QString lead = c.lead + QString::fromUtf8(" · ");
    const QString tail = QString::fromUtf8(" · ") + c.tail;
    int lastKept = 7;
    for (int width = whole - 1; width > m.horizontalAdvance(lead + tail); width -= 20) {
        const QString f = c.fitted(m, width);
        EXPECT_LE(m.horizontalAdvance(f), width) << f.toStdString();
        EXPECT_TRUE(f.startsWith(c.lead)) << f.toStdString();
        const qsizetype more = f.indexOf(QString::fromUtf8(", … and "));
        if (more < 0) {
            if (f.endsWith(tail)) {
                EXPECT_EQ(f, lead + "6 knob changes" + tail);
            }
            continue;
        }
        // The items shown are the first ones, each whole, and the count is of the others.
        const QString shown = f.left(more);
        ASSERT_TRUE(c.text().startsWith(shown + ", ")) << f.toStdString();
        const int kept = static_cast<int>(shown.count(" (scenario: "));
        EXPECT_TRUE(f.endsWith(QString("and %1 more").arg(6 - kept) + tail)) << f.toStdString();
        EXPECT_LE(kept, lastKept);
        lastKept = kept;
    }
    EXPECT_LT(lastKept, 6);
    // Room for the lead only: cut after a whole word, never inside one.
    const QString cut = c.fitted(m, m.horizontalAdvance("day-eu-atlas-slow · se"));
    EXPECT_EQ(cut, QString::fromUtf8("day-eu-atlas-slow · …")) << cut.toStdString();
}

// File -> Export follows the visible tab: from the gateway tab it writes the gateway's chart
// (the one last clicked), never the hidden lab chart.
TEST_F(ExportTest, ExportFollowsTheVisibleTab) {
    GatewayView* gateway = window_->openGateway(std::nullopt, false);
    ASSERT_TRUE(QTest::qWaitFor([&] { return gateway->latestFrame() != nullptr; }, kGatewayTimeoutMs));
    ExportActions* ex = window_->exportActions();
    EXPECT_TRUE(ex->action(ExportFormat::Png)->isEnabled());
    const std::optional<ExportTarget> t = ex->target();
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->view, gateway->chartView(gateway->exportTarget()->chart->id));
    EXPECT_TRUE(ex->suggestedName(ExportFormat::Csv).startsWith("gateway-"))
        << ex->suggestedName(ExportFormat::Csv).toStdString();
    ASSERT_TRUE(exportTo(ExportFormat::Json, "gateway.json"));
    const auto doc = nlohmann::json::parse(readFile(dir_.filePath("gateway.json")));
    EXPECT_EQ(doc.at("lab"), "gateway");
    EXPECT_EQ(doc.at("id"), gateway->exportTarget()->chart->id);
    // The chart clicked last is the one exported.
    const std::string other = gateway->chartIds().back();
    emit gateway->chartView(other)->activated();
    EXPECT_EQ(ex->target()->chart->id, other);
    // Back on the labs tab, the lab's chart.
    window_->findChild<QTabWidget*>("mainTabs")->setCurrentIndex(0);
    EXPECT_EQ(ex->target()->view, window_->chartArea()->currentView());
    EXPECT_TRUE(ex->suggestedName(ExportFormat::Csv).startsWith("fanout-"));
}

namespace {
// Whether a cell of a sheet image holds a drawing: enough pixels unlike its top-left pixel.
int inkedPixels(const QImage& image, QRect cell) {
    const QRgb background = image.pixel(cell.topLeft());
    int n = 0;
    for (int y = cell.top(); y <= cell.bottom(); y += 2)
        for (int x = cell.left(); x <= cell.right(); x += 2) n += image.pixel(x, y) != background;
    return n;
}
}  // namespace

// Answers the next file dialog as a user would: types `name` and presses Save.
void answerNextSaveDialog(const QString& name) {
    auto* poll = new QTimer(qApp);
    poll->setInterval(10);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, name] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible()) return;
        poll->stop();
        poll->deleteLater();
        auto* edit = dialog->findChild<QLineEdit*>("fileNameEdit");
        if (!edit) {
            ADD_FAILURE() << "the save dialog has no file name field";
            dialog->reject();
            return;
        }
        edit->selectAll();
        QTest::keyClicks(edit, name);
        QTest::keyClick(edit, Qt::Key_Return);
    });
    poll->start();
}

// "Export Whole View as PDF…" with a name typed without ".pdf" wrote PNG bytes: the format was
// taken from the name, not from the menu item. The file gets the format chosen, and its
// extension.
TEST_F(ExportTest, WholeViewAsPdfWritesAPdfWhateverTheNameTyped) {
    QSettings().setValue("export/lastDirectory", dir_.path());
    QAction* pdfAction = window_->exportActions()->sheetActions()[1];
    ASSERT_TRUE(pdfAction->text().remove('&').contains("PDF"));
    answerNextSaveDialog("typed-without-extension");
    pdfAction->trigger();
    const QStringList written = QDir(dir_.path()).entryList(QDir::Files);
    ASSERT_EQ(written.size(), 1) << written.join(", ").toStdString();
    EXPECT_EQ(written[0].toStdString(), "typed-without-extension.pdf");
    EXPECT_EQ(readFile(dir_.filePath(written[0])).rfind("%PDF", 0), 0u) << "PDF bytes";

    // Called directly with another extension, the format asked for still wins.
    QString error;
    const QString odd = dir_.filePath("sheet.png");
    ASSERT_TRUE(window_->exportActions()->exportSheet(odd, SheetFormat::Pdf, &error))
        << error.toStdString();
    EXPECT_EQ(readFile(odd).rfind("%PDF", 0), 0u);
}

// File -> Export Whole View: every chart of the lab's result on one PNG (two to a row, each
// drawn) and on one PDF page; from the gateway tab, every gateway chart that has data.
TEST_F(ExportTest, TheWholeViewGoesOnOneSheet) {
    ExportActions* ex = window_->exportActions();
    ASSERT_EQ(ex->sheetActions().size(), 2);
    EXPECT_TRUE(ex->sheetActions()[0]->isEnabled());
    const LabResultPtr result = window_->latestResult();
    const int charts = static_cast<int>(result->charts.size());
    ASSERT_GE(charts, 3) << "fanout draws more charts than its two panes show";

    QString error;
    const QString png = dir_.filePath("view.png");
    ASSERT_TRUE(ex->exportSheet(png, &error)) << error.toStdString();
    QImage image(png);
    ASSERT_FALSE(image.isNull());
    const ChartSheet shape{"t", ExportCaption::plain("c"), std::vector<const ChartView*>(static_cast<std::size_t>(charts))};
    EXPECT_EQ(image.size(), sheetSize(shape) * 2);
    const int rows = (charts + 1) / 2;
    const int header = image.height() - rows * shape.cell.height() * 2;
    EXPECT_GT(header, 0);
    for (int i = 0; i < charts; ++i) {
        const QRect cell((i % 2) * shape.cell.width() * 2, header + (i / 2) * shape.cell.height() * 2,
                         shape.cell.width() * 2, shape.cell.height() * 2);
        EXPECT_GT(inkedPixels(image, cell), 5000) << "chart " << i << " is drawn";
    }
    EXPECT_GT(inkedPixels(image, QRect(0, 0, image.width(), header)), 500) << "the header";

    const QString pdf = dir_.filePath("view.pdf");
    ASSERT_TRUE(ex->exportSheet(pdf, &error)) << error.toStdString();
    const std::string bytes = readFile(pdf);
    ASSERT_EQ(bytes.rfind("%PDF", 0), 0u);
    std::size_t pages = 0;
    for (std::size_t at = bytes.find("/Type /Page"); at != std::string::npos;
         at = bytes.find("/Type /Page", at + 1))
        pages += bytes.compare(at, 12, "/Type /Pages") != 0;
    EXPECT_EQ(pages, 1u) << "one page";

    // Nothing written where the file cannot go; the reason is given.
    EXPECT_FALSE(ex->exportSheet(dir_.filePath("missing/dir/view.png"), &error));
    EXPECT_FALSE(error.isEmpty());

    GatewayView* gateway = window_->openGateway(oneDay(), false);
    gateway->session()->setSpeed(0);
    gateway->session()->play();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return gateway->latestFrame() && gateway->latestFrame()->snapshot->now_s > 6 * kHour; },
        kGatewayTimeoutMs));
    gateway->session()->pause();
    QTest::qWait(100);
    ASSERT_TRUE(ex->exportSheet(dir_.filePath("gateway.png"), &error)) << error.toStdString();
    QImage gatewayImage(dir_.filePath("gateway.png"));
    ASSERT_FALSE(gatewayImage.isNull());
    int withData = 0;
    for (const std::string& id : gateway->chartIds()) {
        const auto& series = gateway->chartView(id)->chart().series;
        withData += std::any_of(series.begin(), series.end(), [](const Series& s) {
            return s.role == SeriesRole::Simulated && !s.x.empty();
        });
    }
    ASSERT_GE(withData, 4);
    const ChartSheet gatewayShape{"t", ExportCaption::plain("c"), std::vector<const ChartView*>(static_cast<std::size_t>(withData))};
    EXPECT_EQ(gatewayImage.size(), sheetSize(gatewayShape) * 2);
}

}  // namespace
}  // namespace taillab::ui::test
