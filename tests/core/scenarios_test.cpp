// Every scenario file in scenarios/ runs, passes all its checks, and cites published figures
// faithfully: an "expect" entry whose source names a path in published-figures.json must expect
// exactly the published value (so a tolerance can be argued about, but never the figure itself).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "test_support.h"

namespace taillab {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenarioFiles() {
    return findScenarioFiles(std::string(TAILLAB_SOURCE_DIR) + "/scenarios");
}

std::string shortName(const std::string& path) {
    std::string s = fs::relative(path, std::string(TAILLAB_SOURCE_DIR) + "/scenarios").string();
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

using test::publishedAt;

class EveryScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScenario, RunsAndPassesAllChecks) {
    const Scenario s = loadScenarioFile(GetParam());
    const LabResult r = runScenario(s);
    EXPECT_FALSE(r.checks.empty()) << "a scenario with nothing checked proves nothing";
    EXPECT_FALSE(r.charts.empty());
    for (const auto& c : r.checks) {
        EXPECT_TRUE(c.pass) << c.name << ": simulated " << c.simulated << ", expected "
                            << c.closed_form << " ± " << c.tolerance
                            << (c.relative ? " (relative)" : "") << " [" << c.source << "]";
    }
}

TEST_P(EveryScenario, PublishedExpectationsQuoteTheirFigureExactly) {
    const Scenario s = loadScenarioFile(GetParam());
    static const std::regex kCite(R"((lab_001|essay_003|gateway_000|routing_002)(\.[A-Za-z0-9_]+)+)");
    for (const auto& e : s.expect) {
        std::smatch m;
        if (!std::regex_search(e.source, m, kCite)) continue;
        const nlohmann::json* fig = publishedAt(m.str(0));
        ASSERT_NE(fig, nullptr) << "source '" << e.source << "' names no published figure";
        ASSERT_TRUE(fig->is_number()) << e.source;
        const double want = fig->get<double>();
        const double quoted = e.value ? *e.value : e.at_least ? *e.at_least : *e.at_most;
        if (e.value) {
            EXPECT_DOUBLE_EQ(quoted, want) << e.figure << " cites " << m.str(0);
        } else {
            // A one-sided claim may use a weaker bound than the figure (the robust claim), but
            // never one on the other side of it.
            if (e.at_least) {
                EXPECT_LE(*e.at_least, want) << e.figure << " cites " << m.str(0);
            }
            if (e.at_most) {
                EXPECT_GE(*e.at_most, want) << e.figure << " cites " << m.str(0);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, EveryScenario, ::testing::ValuesIn(scenarioFiles()),
                         [](const auto& info) { return shortName(info.param); });

TEST(ScenarioSet, EveryLabHasItsDefaultScenario) {
    for (const auto& lab : allLabs()) {
        std::string file = lab->id();
        for (char& c : file)
            if (c == '_') c = '-';
        const std::string path = std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/" + file + ".json";
        ASSERT_TRUE(fs::exists(path)) << path;
        EXPECT_EQ(loadScenarioFile(path).lab, lab->id());
    }
}

TEST(ScenarioSet, DefaultScenariosAreByteIdenticalAcrossRuns) {
    for (const auto& lab : allLabs()) {
        std::string file = lab->id();
        for (char& c : file)
            if (c == '_') c = '-';
        const Scenario s =
            loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/" + file + ".json");
        EXPECT_EQ(toJson(runScenario(s)).dump(), toJson(runScenario(s)).dump()) << lab->id();
    }
}

TEST(ScenarioSet, EveryLabDeclaresKnobsWithUnitsRangesAndHelp) {
    for (const auto& lab : allLabs()) {
        std::set<std::string> keys;
        for (const auto& k : lab->knobs()) {
            EXPECT_TRUE(keys.insert(k.key).second) << lab->id() << ": duplicate knob " << k.key;
            EXPECT_FALSE(k.label.empty()) << lab->id() << "." << k.key;
            EXPECT_FALSE(k.help.empty()) << lab->id() << "." << k.key;
            EXPECT_LE(k.min, k.defaultValue) << lab->id() << "." << k.key;
            EXPECT_LE(k.defaultValue, k.max) << lab->id() << "." << k.key;
            if (k.kind == KnobKind::Real || k.kind == KnobKind::Integer) {
                EXPECT_FALSE(k.unit.empty()) << lab->id() << "." << k.key << " has no unit";
            }
        }
        EXPECT_TRUE(keys.count(lab->mainKnob())) << lab->id() << ": main knob not declared";
        EXPECT_FALSE(lab->explanation().empty());
    }
}

TEST(ScenarioSet, CancelledRunStopsAndSaysSo) {
    for (const auto& lab : allLabs()) {
        RunControl control;
        control.requestCancel();
        const LabResult r = lab->run(lab->defaultParams(), 1, control, {});
        EXPECT_TRUE(r.cancelled) << lab->id();
    }
}

}  // namespace
}  // namespace taillab
