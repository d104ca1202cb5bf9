// The request path's cards reconcile with the conservation line above the charts: the
// synthetic health probes are a term of their own on every card they reach, not hidden in
// counts larger than "accepted" (the edge) or in the customers' counts (the stages after it).
#include <gtest/gtest.h>

#include <QRegularExpression>
#include <memory>

#include "gateway/stage_path_widget.h"

namespace taillab::ui::test {
namespace {

TEST(StagePath, EveryCardNamesTheProbesApartFromTheCustomersRequests) {
    auto s = std::make_shared<gateway::GatewaySnapshot>();
    s->accepted = 228'927;
    s->probes = 25'920;
    auto& edge = s->stages[static_cast<std::size_t>(gateway::Stage::Edge)];
    edge.entered = edge.passed = s->accepted + s->probes;
    edge.probes_entered = edge.probes_passed = s->probes;
    auto& gw = s->stages[static_cast<std::size_t>(gateway::Stage::Gateway)];
    gw.entered = 1100;
    gw.passed = 1050;
    gw.probes_entered = 100;
    gw.probes_passed = 100;
    StagePathWidget path;
    path.resize(1280, path.sizeHint().height());
    path.setSnapshot(s);
    EXPECT_EQ(path.stageLines(0)[1], "in 228,927 → out 228,927") << "the edge's in is the accepted count";
    EXPECT_EQ(path.stageLines(0)[4], "probes in 25,920 → out 25,920");
    EXPECT_EQ(path.compactLines(0)[4], "probes 25,920 → 25,920");
    EXPECT_EQ(path.compactLines(0, /*shortCounts=*/true)[4], "probes 25.9k → 25.9k");
    EXPECT_EQ(path.stageLines(1)[1], "in 1,000 → out 950") << "the customers' requests alone";
    EXPECT_EQ(path.stageLines(1)[4], "probes in 100 → out 100") << "not only on the edge's card";
    EXPECT_EQ(path.stageLines(2)[4], "no probes");
    // Every card has its probes line, as drawn: the cards keep one height.
    for (int stage = 0; stage < gateway::kStages; ++stage)
        EXPECT_FALSE(path.drawnLines(stage)[4].isEmpty()) << stage;

    // No probes (v3): no probe counts, and the cards are as before.
    s->probes = 0;
    edge.entered = edge.passed = s->accepted;
    edge.probes_entered = edge.probes_passed = 0;
    path.setSnapshot(s);
    EXPECT_EQ(path.stageLines(0)[1], "in 228,927 → out 228,927");
    EXPECT_EQ(path.stageLines(0)[4], "no probes");

    // Where none can be sent (the live gateway) the line is left out, and its height with it.
    const int withProbes = path.sizeHint().height();
    path.setProbesShown(false);
    EXPECT_TRUE(path.stageLines(0)[4].isEmpty());
    EXPECT_LT(path.sizeHint().height(), withProbes);
}

// The stale-while-revalidate refreshes go through the router and the engines but never reach
// merge and are never answered or failed: the cards count them apart, as they do the probes, so
// that what leaves the engines and the cache is what enters merge.
TEST(StagePath, TheRefreshesAreNotInTheCustomersCounts) {
    auto s = std::make_shared<gateway::GatewaySnapshot>();
    auto& router = s->stages[static_cast<std::size_t>(gateway::Stage::Router)];
    router.entered = router.passed = 152'250;  // v4 at 36 h
    router.probes_entered = router.probes_passed = 31;
    router.refreshes_entered = router.refreshes_passed = 3'295;
    auto& engines = s->stages[static_cast<std::size_t>(gateway::Stage::Engines)];
    engines.entered = 152'250;
    engines.passed = 149'523;
    engines.probes_entered = 31;
    engines.probes_passed = 30;
    engines.refreshes_entered = 3'295;
    engines.refreshes_passed = 3'158;
    StagePathWidget path;
    path.resize(2400, path.sizeHint().height());
    path.setSnapshot(s);
    EXPECT_EQ(path.stageLines(static_cast<int>(gateway::Stage::Router))[1], "in 148,924 → out 148,924");
    EXPECT_EQ(path.stageLines(static_cast<int>(gateway::Stage::Engines))[1], "in 148,924 → out 146,335");
    EXPECT_EQ(path.stageLines(static_cast<int>(gateway::Stage::Engines))[4], "probes in 31 → out 30");
}

// Counts read alike on every card: in full where they fit, else in thousands everywhere, never
// "534,075" on one line beside "34.6k" on the next (a week's counts at 1280x720).
TEST(StagePath, CountsAreInOneFormOnEveryCard) {
    auto s = std::make_shared<gateway::GatewaySnapshot>();
    s->accepted = 534'075;
    s->probes = 34'560;
    for (auto& stage : s->stages) {
        stage.entered = stage.passed = s->accepted + s->probes;
        stage.probes_entered = stage.probes_passed = s->probes;
    }
    StagePathWidget path;
    path.setSnapshot(s);
    const QRegularExpression grouped("\\d,\\d{3}");
    for (const int width : {700, 900, 1000, 1280, 1600, 2400}) {
        path.resize(width, path.sizeHint().height());
        int full = 0, thousands = 0;
        for (int stage = 0; stage < gateway::kStages; ++stage) {
            const QStringList lines = path.drawnLines(stage);
            for (int k : {1, 4}) {
                full += lines[k].contains(grouped) ? 1 : 0;
                thousands += lines[k].contains("k") ? 1 : 0;
            }
        }
        EXPECT_TRUE(full == 0 || thousands == 0)
            << width << " px: " << full << " count lines in full beside " << thousands << " in thousands";
        if (width == 2400) {
            EXPECT_EQ(thousands, 0) << "room for every count in full";
        }
        if (width == 700) {
            EXPECT_EQ(full, 0) << "no room for them in full";
        }
    }
}

}  // namespace
}  // namespace taillab::ui::test
