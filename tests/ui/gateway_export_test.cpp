// What the gateway view's exports say, read back from the files: the breaker strips' lanes by
// name, in the data and in an image drawn taller than the chart on screen; a caption that names
// the user's edits in the knob panel's words, not the scenario's own timeline, and that is
// shortened at a whole item when it does not fit; and the hedge-delay sweep's points each with
// the delay they ran at, under the sweep's own settings (not the main run's), its published
// points as the published table writes them.
#include <gtest/gtest.h>

#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "gateway/gateway_charts.h"
#include "gateway/gateway_scenario.h"
#include "gateway/hedge_sweep.h"
#include "gateway/sweep_panel.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway_test_support.h"
#include "knob_editor.h"
#include "plots/breaker_strip_chart.h"

namespace taillab::ui::test {
namespace {


// The data rows of a chart's CSV (after its header, up to the annotations' section), each by
// the header's column names.
struct CsvTable {
    std::string caption;  // the first line, without "# "
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
};
CsvTable readCsv(const QString& path) {
    CsvTable t;
    std::istringstream in(readFile(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) {
            if (t.caption.empty()) t.caption = line.substr(2);
            continue;
        }
        if (line.empty()) continue;
        const std::vector<std::string> fields = csvFields(line);
        if (t.header.empty()) {
            t.header = fields;
            continue;
        }
        if (fields.front() == "annotation") break;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < fields.size() && i < t.header.size(); ++i) row[t.header[i]] = fields[i];
        t.rows.push_back(std::move(row));
    }
    return t;
}

// The text of every <text> element of an SVG, in document order.
QStringList svgTexts(const QString& path) {
    QStringList out;
    QXmlStreamReader xml(QByteArray::fromStdString(readFile(path)));
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            out << xml.readElementText(QXmlStreamReader::IncludeChildElements);
    return out;
}

const KnobSpec& gatewayKnob(const std::string& key) {
    static const std::vector<KnobSpec> specs = gateway::GatewaySim::knobs();
    const auto it = std::find_if(specs.begin(), specs.end(), [&](const KnobSpec& s) { return s.key == key; });
    if (it == specs.end()) throw std::invalid_argument("no gateway knob " + key);
    return *it;
}


// The breaker strips' data names every lane beside its index (a "lane" column, a "lane" field of
// each series), as the chart's axis does.
TEST_F(GatewayViewTest, TheBreakerExportNamesEveryLane) {
    ASSERT_TRUE(seekAndWait(2 * kHour));
    QTemporaryDir dir;
    QString error;
    const QString csvPath = dir.filePath("breakers.csv"), jsonPath = dir.filePath("breakers.json");
    ASSERT_TRUE(view_->exportChart(gateway_charts::kBreakers, ExportFormat::Csv, csvPath, &error)) << error.toStdString();
    ASSERT_TRUE(view_->exportChart(gateway_charts::kBreakers, ExportFormat::Json, jsonPath, &error)) << error.toStdString();
    const gateway::GatewaySnapshot& s = *view_->latestFrame()->snapshot;
    const int lanes = gateway::kRegions * static_cast<int>(s.engines.size());
    ASSERT_EQ(lanes, 9);

    const CsvTable csv = readCsv(csvPath);
    EXPECT_EQ(csv.header, (std::vector<std::string>{"series", "role", "x", "y", "lane"}));
    std::set<std::string> named;
    ASSERT_FALSE(csv.rows.empty());
    for (const auto& row : csv.rows) {
        const int lane = std::stoi(row.at("y"));
        ASSERT_TRUE(row.count("lane")) << "row without a lane name";
        EXPECT_EQ(row.at("lane"), gateway_charts::laneName(s, lane));
        named.insert(row.at("lane"));
    }
    EXPECT_EQ(named.size(), static_cast<std::size_t>(lanes));

    const auto json = nlohmann::json::parse(readFile(jsonPath));
    for (const auto& series : json["series"]) {
        ASSERT_TRUE(series.contains("lane")) << series["name"];
        ASSERT_EQ(series["lane"].size(), series["y"].size());
        for (std::size_t i = 0; i < series["y"].size(); ++i)
            EXPECT_EQ(series["lane"][i], gateway_charts::laneName(s, series["y"][i].get<int>()));
    }
}

// An image of the breaker strips is laid out at its own size: an export tall enough labels every
// lane although the chart on screen is too short for more than its regions, and one too short
// says that its lanes go by region; the chart on screen is left as it was.
TEST(GatewayExportImages, TheBreakerImageLabelsEveryLaneWhenTallEnough) {
    gateway::GatewaySnapshot s;
    s.now_s = 7200;
    s.end_s = 86400;
    s.engines = {"atlas", "borealis", "cirrus"};
    s.breaker_spans.push_back({});  // EU / atlas open for ten minutes
    s.breaker_spans.back().t0_s = 1200;
    s.breaker_spans.back().t1_s = 1800;
    QStringList lanes;
    for (int lane = 0; lane < 9; ++lane) lanes << QString::fromStdString(gateway_charts::laneName(s, lane));
    BreakerStripChart view;
    view.setLanes(lanes);
    view.setMinimumSize(0, 0);
    view.resize(420, 240);
    view.show();
    view.showStrips(gateway_charts::breakers(s, 0));
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    // As short as the gateway view's pane gets in a small window: lanes too thin to name.
    for (int height = 240; height >= 100 && view.laneLabels().size() != 3; height -= 10) {
        view.resize(420, height);
        view.replotNow();
    }
    ASSERT_EQ(view.laneLabels(), (QStringList{"EU", "US", "APAC"})) << "the chart on screen is by region";

    QTemporaryDir dir;
    ASSERT_TRUE(view.saveSvg(dir.filePath("tall.svg"), QSize(960, 600)));
    const QStringList tall = svgTexts(dir.filePath("tall.svg"));
    for (const QString& lane : lanes) EXPECT_TRUE(tall.contains(lane)) << lane.toStdString() << " in " << tall.join(" | ").toStdString();
    EXPECT_FALSE(tall.join(" ").contains("by region")) << tall.join(" | ").toStdString();

    ASSERT_TRUE(view.saveSvg(dir.filePath("short.svg"), QSize(960, 150)));
    const QStringList shortOne = svgTexts(dir.filePath("short.svg"));
    EXPECT_TRUE(shortOne.contains("EU")) << shortOne.join(" | ").toStdString();
    EXPECT_FALSE(shortOne.contains(lanes.front())) << shortOne.join(" | ").toStdString();
    EXPECT_TRUE(shortOne.join(" ").contains("by region")) << shortOne.join(" | ").toStdString();

    view.replotNow();
    EXPECT_EQ(view.laneLabels(), (QStringList{"EU", "US", "APAC"})) << "the export left the chart on screen as it was";
}

// A knob the scenario's own timeline set is no user change: the caption of a run nobody edited
// says the scenario's knobs, however far the timeline has gone. An edit is named as the knob
// panel names it, against the value the scenario has in force by then. A caption too long for
// its image is shortened at a whole item, with the count of those left out, never mid-word.
TEST_F(GatewayViewTest, ExportCaptionsNameTheUsersEditsNotTheScenariosTimeline) {
    const GatewayRunSpec spec = atlasDay();
    ASSERT_TRUE(startAndWait(spec));
    ASSERT_TRUE(seekAndWait(20 * kHour));
    ASSERT_EQ(view_->latestFrame()->params.real("hedge_budget"), 0.075) << "the 15:00 change applied";
    const QString untouched = view_->exportCaption();
    EXPECT_FALSE(untouched.contains("hedge", Qt::CaseInsensitive)) << untouched.toStdString();
    EXPECT_TRUE(untouched.contains("the scenario's knobs")) << untouched.toStdString();

    ASSERT_TRUE(waitSettled(session().applyChanges({{"hedge_budget", 0.2}})));
    const QString edited = view_->exportCaption();
    const KnobSpec& budget = gatewayKnob("hedge_budget");
    const QString expected = QString("%1 = %2 (scenario: %3)")
                                 .arg(QString::fromStdString(budget.label), knobValueText(budget, 0.2),
                                      knobValueText(budget, 0.075));
    EXPECT_TRUE(edited.contains(expected)) << edited.toStdString() << "\nexpected " << expected.toStdString();
    EXPECT_FALSE(edited.contains("hedge_budget")) << edited.toStdString();
    EXPECT_FALSE(edited.contains("Fixed hedge delay")) << "set by the timeline: " << edited.toStdString();

    // Many edits: more than an image's width holds.
    ASSERT_TRUE(waitSettled(session().applyChanges({{"deadline_ms", 700},
                                                    {"breaker_threshold", 0.5},
                                                    {"breaker_window_s", 20},
                                                    {"breaker_open_s", 10},
                                                    {"serialization_margin_ms", 20},
                                                    {"ewma_half_life_s", 60}})));
    const QString full = view_->exportCaption();
    QTemporaryDir dir;
    QString error;
    const QString svg = dir.filePath("percentiles.svg");
    ASSERT_TRUE(view_->exportChart(gateway_charts::kPercentiles, ExportFormat::Svg, svg, &error)) << error.toStdString();
    QString drawn;
    for (const QString& t : svgTexts(svg))
        if (t.contains("seed 1")) drawn = t;
    ASSERT_FALSE(drawn.isEmpty()) << "no caption in the image";
    ASSERT_NE(drawn, full) << "the caption fits: the test needs one that does not";
    const QString lead = "day-eu-atlas-slow · seed 1 · ";
    const QString tail = QString(" · TailLab ") + TAILLAB_VERSION;
    EXPECT_TRUE(drawn.startsWith(lead)) << drawn.toStdString();
    EXPECT_TRUE(drawn.endsWith(tail)) << drawn.toStdString();
    // "<whole items>, … and N more": the items shown are the first of the full caption's, whole.
    const qsizetype more = drawn.indexOf(QString::fromUtf8(", … and "));
    ASSERT_GT(more, 0) << drawn.toStdString();
    const QString shown = drawn.left(more);
    EXPECT_TRUE(full.startsWith(shown + ", ")) << "cut inside an item: " << drawn.toStdString();
    const int items = static_cast<int>(full.mid(lead.size()).count(" (scenario: "));
    const int kept = static_cast<int>(shown.mid(lead.size()).count(" (scenario: "));
    EXPECT_EQ(items, 7);
    EXPECT_TRUE(drawn.contains(QString("and %1 more").arg(items - kept))) << drawn.toStdString();
}

// The sweep's export says, for every point, the hedge delay it ran at (a column in CSV, a field
// of each series in JSON); its parameters and caption are the sweep's (hedge mode fixed, the
// days each point ran, the delays), not the main run's; and the published points are written
// as the published table has them, not as 100 × 0.58 comes out in binary (57.99999999999999).
TEST_F(GatewayViewTest, TheSweepExportSaysEachPointsDelayAndTheSweepsOwnSettings) {
    SweepPanel* sweep = view_->sweepPanel();
    view_->showSweepTab(true);
    sweep->delaysEdit()->setText("600, 250");
    QSignalSpy done(sweep, &SweepPanel::finished);
    ASSERT_TRUE(sweep->run());
    ASSERT_TRUE(done.wait(kGatewayTimeoutMs)) << "the sweep did not finish";
    ASSERT_EQ(sweep->points().size(), 2u);
    ASSERT_NE(view_->latestFrame()->params.choice("hedge_mode"), "fixed")
        << "the main run must hedge otherwise, or the test cannot tell the two apart";

    QTemporaryDir dir;
    QString error;
    const QString csvPath = dir.filePath("sweep.csv"), jsonPath = dir.filePath("sweep.json");
    ASSERT_TRUE(view_->exportChart(gateway_charts::kSweep, ExportFormat::Csv, csvPath, &error)) << error.toStdString();
    ASSERT_TRUE(view_->exportChart(gateway_charts::kSweep, ExportFormat::Json, jsonPath, &error)) << error.toStdString();

    const std::string publishedPath = findPublishedFigures(scenarioDirectory());
    ASSERT_FALSE(publishedPath.empty());
    const nlohmann::json table =
        nlohmann::json::parse(readFile(QString::fromStdString(publishedPath)))["gateway_000"]["hedge_delay_sweep"];
    ASSERT_EQ(table.size(), 6u);
    // The table's extra load is a fraction with so many decimals ("0.58"); in percent, two fewer.
    auto publishedPercent = [](const nlohmann::json& load) {
        const std::string text = load.dump();
        const std::size_t dot = text.find('.');
        const int decimals = dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
        return QString::number(100 * load.get<double>(), 'f', std::max(0, decimals - 2)).toStdString();
    };

    const CsvTable csv = readCsv(csvPath);
    EXPECT_EQ(csv.header, (std::vector<std::string>{"series", "role", "x", "y", "hedge_delay_ms"}));
    std::set<std::string> simulatedDelays;
    std::map<std::string, std::map<std::string, std::string>> published;  // by delay
    for (const auto& row : csv.rows) {
        if (row.at("role") == "simulated") {
            simulatedDelays.insert(row.count("hedge_delay_ms") ? row.at("hedge_delay_ms") : "");
            const double delay = std::atof(row.count("hedge_delay_ms") ? row.at("hedge_delay_ms").c_str() : "-1");
            const auto p = std::find_if(sweep->points().begin(), sweep->points().end(),
                                        [&](const SweepPoint& s) { return s.delay_ms == delay; });
            ASSERT_NE(p, sweep->points().end()) << "a row of no point: " << row.at("x");
            EXPECT_DOUBLE_EQ(std::stod(row.at("x")), 100 * p->extra_load);
            EXPECT_DOUBLE_EQ(std::stod(row.at("y")), p->p99_ms);
        } else if (row.at("role") == "published") {
            published[row.count("hedge_delay_ms") ? row.at("hedge_delay_ms") : ""] = row;
        }
    }
    EXPECT_EQ(simulatedDelays, (std::set<std::string>{"250", "600"}));
    for (const auto& point : table) {
        const std::string delay = point["delay_ms"].dump();
        ASSERT_TRUE(published.count(delay)) << "no published row for " << delay << " ms";
        EXPECT_EQ(published[delay]["x"], publishedPercent(point["extra_upstream_load"])) << delay << " ms";
        EXPECT_EQ(published[delay]["y"], point["p99_ms"].dump()) << delay << " ms";
    }
    // The caption states the sweep: its fixed delays and the days each point ran.
    EXPECT_EQ(csv.caption.find("the scenario's knobs"), std::string::npos) << csv.caption;
    EXPECT_NE(csv.caption.find("250, 600 ms"), std::string::npos) << csv.caption;
    EXPECT_NE(csv.caption.find("1 simulated day"), std::string::npos) << csv.caption;

    const auto json = nlohmann::json::parse(readFile(jsonPath));
    EXPECT_EQ(json["parameters"]["hedge_mode"], "fixed") << json["parameters"].dump();
    EXPECT_EQ(json["parameters"]["days"], sweep->daysBox()->value());
    EXPECT_EQ(json["parameters"]["hedge_delay_ms"], nlohmann::json({250, 600}));
    EXPECT_FALSE(json.contains("simulated_time_s")) << "the main run's clock, not the sweep's";
    ASSERT_EQ(json["series"].size(), 2u);
    EXPECT_EQ(json["series"][0]["hedge_delay_ms"], nlohmann::json({250, 600}));
    nlohmann::json publishedDelays = nlohmann::json::array();
    for (const auto& point : table) publishedDelays.push_back(point["delay_ms"]);
    EXPECT_EQ(json["series"][1]["hedge_delay_ms"], publishedDelays);
    for (std::size_t i = 0; i < table.size(); ++i)
        EXPECT_EQ(json["series"][1]["x"][i].get<double>(), std::stod(publishedPercent(table[i]["extra_upstream_load"])))
            << table[i]["delay_ms"] << " ms";
}

}  // namespace
}  // namespace taillab::ui::test
