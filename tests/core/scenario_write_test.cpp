// Scenarios and timelines written back to JSON read back equal: every file in scenarios/, and
// timelines with every kind of event and times that are not round numbers.
#include <gtest/gtest.h>

#include "cli_support.h"
#include "scenario/scenario.h"
#include "timeline_support.h"

namespace taillab {
namespace {

using namespace test;

const std::vector<std::string> kEveryKind = {
    R"({"at": "Tue 14:22", "set": {"hedge_delay_ms": 300, "hedge_mode": "fixed"}, "label": "operator lowers the delay"})",
    R"({"at": 3600, "until": "Mon 02:30:15", "fault": {"target": {"engine": "atlas", "region": "EU"}, "effect": "slow", "factor": 3}})",
    R"({"at": "Wed 00:00:00.001", "set": {"breakers": false, "breaker_min_samples": 120, "routing": "best score"}})",
    R"({"at": 0.1, "until": 0.30000000000000004, "fault": {"effect": "down"}})",
    R"({"at": 7, "fault": {"target": {"region": "US", "egress_ip": 3}, "effect": "slow", "median_ms": 812.5, "sigma": 0.33}})",
    R"({"at": 8, "fault": {"target": {"engine": "cirrus"}, "effect": "invalid", "share": 0.125}})",
    R"({"at": 9, "fault": {"target": {"engine": "borealis", "region": "APAC", "egress_ip": 0}, "effect": "resets", "share": 1}})",
    R"({"at": 10, "fault": {"effect": "latency", "add_ms": 0.001}})",
    R"({"at": 11, "fault": {"target": {"region": "EU"}, "effect": "capacity_lost", "share": 0.5}})",
    R"({"at": 604799.999999, "fault": {"target": {"region": "APAC"}, "effect": "surge", "factor": 2.5}})"};

Scenario read(const std::string& text) { return parseScenario(text, "week.json"); }

// The scenario with its timeline replaced by what timelineToJson wrote.
Scenario reread(const Scenario& s) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(gateway({}));
    doc["timeline"] = timelineToJson(s.timeline, s.params.specs());
    return read(doc.dump(2));
}

TEST(TimelineJson, EveryKindOfEventReadsBackEqual) {
    const Scenario s = read(gateway(kEveryKind));
    ASSERT_EQ(s.timeline.events.size(), kEveryKind.size());
    EXPECT_TRUE(reread(s).timeline == s.timeline);
}

TEST(TimelineJson, TimesAndNumbersKeepEveryBit) {
    Scenario s = read(gateway({}));
    TimelineEvent slow;
    slow.at_s = 1.0 / 3;
    slow.until_s = 86400 * 5 + 2.0 / 3;
    slow.fault = Fault{};
    slow.fault->effect = FaultEffect::Slow;
    slow.fault->factor = 1 + 1e-12;
    slow.label = "a label";
    TimelineEvent set;
    set.at_s = 604800 - 1e-9;
    set.set = {KnobSetting{"hedge_budget", 0.1 + 0.2}};
    set.label = "budget";
    s.timeline.events = {slow, set};
    const Timeline back = reread(s).timeline;
    ASSERT_EQ(back.events.size(), 2u);
    EXPECT_TRUE(back == s.timeline);
    EXPECT_EQ(back.events[0].at_s, 1.0 / 3);
    EXPECT_EQ(back.events[1].set[0].value, 0.1 + 0.2);
}

TEST(TimelineJson, WritesChoicesByNameBooleansAsBooleansAndTimesAsSeconds) {
    const Scenario s = read(gateway({kEveryKind[0], kEveryKind[2]}));
    const auto j = timelineToJson(s.timeline, s.params.specs());
    EXPECT_EQ(j[0]["at"], 86400 + 14 * 3600 + 22 * 60);
    EXPECT_EQ(j[0]["set"]["hedge_mode"], "fixed");
    EXPECT_EQ(j[0]["label"], "operator lowers the delay");
    EXPECT_TRUE(j[1]["set"]["breakers"].is_boolean());
    EXPECT_TRUE(j[1]["set"]["breaker_min_samples"].is_number_integer());
    EXPECT_EQ(j[1]["set"]["routing"], "best score");
    EXPECT_EQ(j[1]["label"], "breaker_min_samples 120, breakers off, routing best score");
    EXPECT_FALSE(j[1].contains("until"));
}

TEST(TimelineJson, AnUnknownKnobOrAnEventWithNothingToDoCannotBeWritten) {
    Timeline t;
    t.events.push_back(TimelineEvent{});
    EXPECT_THROW(timelineToJson(t, {}), std::invalid_argument);
    t.events[0].set = {KnobSetting{"no_such_knob", 1}};
    EXPECT_THROW(timelineToJson(t, {}), std::invalid_argument);
}

TEST(ScenarioJson, EveryScenarioFileReadsBackEqual) {
    const auto files = findScenarioFiles(std::string(TAILLAB_SOURCE_DIR) + "/scenarios");
    ASSERT_FALSE(files.empty());
    for (const auto& file : files) {
        SCOPED_TRACE(file);
        const Scenario s = loadScenarioFile(file);
        const std::string text = writeScenarioJson(s);
        const Scenario back = parseScenario(text, file);
        EXPECT_TRUE(back == s) << text;
        EXPECT_EQ(writeScenarioJson(back), text);
    }
}

TEST(ScenarioJson, AScenarioWithATimelineReadsBackEqual) {
    const Scenario s = read(gateway(kEveryKind, R"({"days": 7, "hedge_budget": 0.1})"));
    const std::string text = writeScenarioJson(s);
    EXPECT_TRUE(read(text) == s) << text;
}

TEST(ScenarioJson, ParamsListOnlyTheKnobsThatDifferFromTheirDefaults) {
    const Scenario s = read(gateway({}, R"({"days": 3, "hedge_mode": "fixed", "probes": true})"));
    const auto doc = nlohmann::ordered_json::parse(writeScenarioJson(s));
    EXPECT_EQ(doc["params"].dump(), R"({"days":3,"hedge_mode":"fixed"})");
    std::string keys;
    for (const auto& [k, v] : doc.items()) keys += k + " ";
    EXPECT_EQ(keys, "schema_version name title lab seed params ");
}

class SavedScenario : public ScratchDirTest {};

TEST_F(SavedScenario, LoadsBackEqual) {
    const Scenario s = read(gateway(kEveryKind));
    saveScenarioFile(path("week.json"), s);
    Scenario back = loadScenarioFile(path("week.json"));
    back.file = s.file;
    EXPECT_TRUE(back == s);
    EXPECT_THROW(saveScenarioFile(path("missing/week.json"), s), std::runtime_error);
}

}  // namespace
}  // namespace taillab
