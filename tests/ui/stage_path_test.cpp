// The request path's edge card reconciles with the conservation line above the charts: the
// synthetic health probes that went through the edge are a term of their own, not hidden in a
// count larger than "accepted".
#include <gtest/gtest.h>

#include <memory>

#include "gateway/stage_path_widget.h"

namespace taillab::ui::test {
namespace {

TEST(StagePath, TheEdgeCardNamesTheProbesApartFromTheAcceptedRequests) {
    auto s = std::make_shared<gateway::GatewaySnapshot>();
    s->accepted = 228'927;
    s->probes = 25'920;
    auto& edge = s->stages[static_cast<std::size_t>(gateway::Stage::Edge)];
    edge.entered = edge.passed = s->accepted + s->probes;
    auto& gw = s->stages[static_cast<std::size_t>(gateway::Stage::Gateway)];
    gw.entered = gw.passed = 1000;
    StagePathWidget path;
    path.resize(1280, path.sizeHint().height());
    path.setSnapshot(s);
    EXPECT_EQ(path.stageLines(0)[1], "in 228,927 + 25,920 probes");
    EXPECT_EQ(path.compactLines(0)[1], "229k + 25.9k probes");
    EXPECT_EQ(path.stageLines(1)[1], "in 1,000 → out 1,000") << "the other cards are as they were";
    // No probes (v3): the edge card is like the others.
    s->probes = 0;
    edge.entered = edge.passed = s->accepted;
    path.setSnapshot(s);
    EXPECT_EQ(path.stageLines(0)[1], "in 228,927 → out 228,927");
}

}  // namespace
}  // namespace taillab::ui::test
