// Lab::figureNames: the figures a run reports, named before it runs, so that `expect` entries and
// `sweep --figures` are checked before any work starts (issue 12); Lab::timeChartIds likewise
// for the time charts `compare --series` names. The declared list must be
// exactly what a real run reports, in the same order: over every shipped scenario, and over every
// value of every choice and on/off knob of every lab (the knobs that add or remove figures).
// Request counts are cut to each knob's minimum: names do not depend on them, and the runs stay
// short.
#include <gtest/gtest.h>

#include <filesystem>

#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

// The knobs that only say how much to simulate, at their minimum.
void shrink(Params& p) {
    for (const KnobSpec& k : p.specs())
        if (k.key == "requests" || k.key == "calibration_samples" || k.key == "duration_s" ||
            k.key == "warmup_s" ||  // a warm-up as long as the shortest run measures nothing
            k.key == "days" || k.key == "load_multiplier" || k.key == "customers")
            p.set(k.key, k.min);
}

LabResult runOnce(const Lab& lab, const Params& params) {
    RunControl control;
    return lab.run(params, 1, control, {});
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, DeclaresExactlyTheFiguresItsRunReports) {
    Scenario s = loadScenarioFile(GetParam());
    const Lab* lab = findLab(s.lab);
    ASSERT_NE(lab, nullptr);
    shrink(s.params);
    const std::vector<std::string> declared = lab->figureNames(s.params);
    EXPECT_FALSE(declared.empty());
    const LabResult r = runOnce(*lab, s.params);
    EXPECT_EQ(declared, figureNamesOf(r));
    // The time charts too (Lab::timeChartIds: what `compare --series` is checked against).
    EXPECT_EQ(lab->timeChartIds(s.params), timeChartIdsOf(r));
}

std::vector<std::string> shippedScenarios() {
    return findScenarioFiles(std::string(TAILLAB_SOURCE_DIR) + "/scenarios");
}

INSTANTIATE_TEST_SUITE_P(Files, ShippedScenario, ::testing::ValuesIn(shippedScenarios()),
                         [](const auto& info) {
                             const std::filesystem::path p(info.param);
                             std::string n = p.parent_path().filename().string() + "_" +
                                             p.stem().string();
                             for (char& c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

class EveryLab : public ::testing::TestWithParam<std::string> {};

// Each choice and on/off knob at each of its values, the others at their defaults.
TEST_P(EveryLab, DeclaresExactlyTheFiguresOfEveryChoice) {
    const Lab* lab = findLab(GetParam());
    ASSERT_NE(lab, nullptr);
    Params base = lab->defaultParams();
    shrink(base);
    const LabResult r = runOnce(*lab, base);
    EXPECT_EQ(lab->figureNames(base), figureNamesOf(r)) << "defaults";
    EXPECT_EQ(lab->timeChartIds(base), timeChartIdsOf(r)) << "defaults";
    for (const KnobSpec& k : base.specs()) {
        if (k.kind != KnobKind::Choice && k.kind != KnobKind::Boolean) continue;
        const int values = k.kind == KnobKind::Choice ? static_cast<int>(k.choices.size()) : 2;
        for (int v = 0; v < values; ++v) {
            Params p = base;
            p.set(k.key, v);
            const LabResult rp = runOnce(*lab, p);
            EXPECT_EQ(lab->figureNames(p), figureNamesOf(rp)) << k.key << " = " << v;
            EXPECT_EQ(lab->timeChartIds(p), timeChartIdsOf(rp)) << k.key << " = " << v;
        }
    }
}

std::vector<std::string> labIds() {
    std::vector<std::string> ids;
    for (const auto& l : allLabs()) ids.push_back(l->id());
    return ids;
}

INSTANTIATE_TEST_SUITE_P(Labs, EveryLab, ::testing::ValuesIn(labIds()),
                         [](const auto& info) { return info.param; });

// Names that depend on the params: the per-load families follow the chosen load, the largest d
// and the hedge mode.
TEST(FigureNames, FollowTheParams) {
    auto has = [](const std::vector<std::string>& names, const std::string& name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    const Lab* loaded = findLab("hedge_loaded");
    Params p = loaded->defaultParams();
    EXPECT_FALSE(has(loaded->figureNames(p), "p99_ms_dup_at_0_35"));
    p.set("load", 0.35);
    EXPECT_TRUE(has(loaded->figureNames(p), "p99_ms_dup_at_0_35"));

    const Lab* pod = findLab("power_of_d");
    Params q = pod->defaultParams();
    q.set("max_d", 2);
    EXPECT_FALSE(has(pod->figureNames(q), "mean_time_d3_at_0_5"));
    q.set("max_d", 3);
    EXPECT_TRUE(has(pod->figureNames(q), "mean_time_d3_at_0_5"));

    const Lab* fanout = findLab("fanout");
    Params f = fanout->defaultParams();
    f.set("hedge_mode", 0);
    EXPECT_FALSE(has(fanout->figureNames(f), "hedged_request_p999_ms"));
    f.set("hedge_mode", 1);
    EXPECT_TRUE(has(fanout->figureNames(f), "hedged_request_p999_ms"));
}

// The time charts follow the params too: the region router draws the traffic shares only when a
// node is lost (the defaults lose two; EveryLab holds them to a run), and a run without the loss
// draws exactly what is declared for it.
TEST(TimeChartIds, FollowTheParams) {
    const Lab* router = findLab("region_router");
    Params p = router->defaultParams();
    shrink(p);
    const std::vector<std::string> withLoss = router->timeChartIds(p);
    EXPECT_NE(std::find(withLoss.begin(), withLoss.end(), "share_over_time"), withLoss.end());
    p.set("fault_nodes", 0);
    const std::vector<std::string> noLoss = router->timeChartIds(p);
    EXPECT_EQ(std::find(noLoss.begin(), noLoss.end(), "share_over_time"), noLoss.end());
    EXPECT_FALSE(noLoss.empty());
    EXPECT_EQ(noLoss, timeChartIdsOf(runOnce(*router, p)));
    // A lab without time charts declares none.
    EXPECT_TRUE(findLab("fanout")->timeChartIds(findLab("fanout")->defaultParams()).empty());
}

// A mistyped figure is refused while the scenario is read, at the entry's line and column, with
// the nearest names offered; the message stays short however many figures the lab reports.
TEST(FigureNames, UnknownExpectFigureIsRefusedWhenTheScenarioIsRead) {
    const std::string text =
        "{\"schema_version\": 1, \"name\": \"x\", \"lab\": \"hedge_loaded\",\n"
        " \"expect\": [{\"figure\": \"p99_ms_dup_at_0_7\", \"at_least\": 0},\n"
        "            {\"figure\": \"p99_ms_dupe_at_0_7\", \"at_least\": 0}]}";
    try {
        parseScenario(text, "typo.json");
        FAIL() << "accepted an unknown figure";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(e.path(), "/expect/1/figure");
        EXPECT_EQ(e.line(), 3);
        const std::string what = e.what();
        EXPECT_NE(what.find("reports no figure 'p99_ms_dupe_at_0_7'"), std::string::npos) << what;
        EXPECT_NE(what.find("did you mean 'p99_ms_dup_at_0_7'"), std::string::npos) << what;
        EXPECT_NE(what.find("and 200 more"), std::string::npos) << what;
        EXPECT_LT(what.size(), 1000u);
    }
}

TEST(FigureNames, MessageListsAShortListWhole) {
    const std::vector<std::string> known{"a_ms", "b_ms"};
    const std::string m = unknownFigureMessage("lab", "c_ms", known);
    EXPECT_NE(m.find("(it reports a_ms, b_ms)"), std::string::npos) << m;
    const std::string huge(100000, 'x');
    EXPECT_LT(unknownFigureMessage("lab", huge, known).size(), 300u);
}

}  // namespace
}  // namespace taillab
