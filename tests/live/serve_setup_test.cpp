#include "live/serve_setup.h"

#include <gtest/gtest.h>

#include "error_of.h"
#include "gateway_sim/gateway_sim.h"

namespace taillab::live {
namespace {

using test::errorOf;

TEST(ServeSetup, TheScenariosGatewayAsTheSimulationBuildsIt) {
    Params p(gateway::GatewaySim::knobs());
    p.set("hedge_delay_ms", 250.0);
    p.set("window_s", 60.0);
    const GatewaySetup s = gatewaySetup(p, 1);
    EXPECT_EQ(s.config.hedge_delay_ms, 250.0);
    EXPECT_EQ(s.window, fromSeconds(60));
    ASSERT_EQ(s.config.engines.size(), 3u);
    EXPECT_EQ(s.config.engines[2].name, "cirrus");
    EXPECT_GT(s.config.keys.size(), 10u);  // the workload's customers and the batch job
    // The simulation's probe keys skip rate limits and admission: live mode knows none of them.
    for (const gateway::ApiKey& k : s.config.keys) EXPECT_FALSE(k.probe) << k.name;
}

TEST(ServeSetup, OneUpstreamPerEngine) {
    Params p(gateway::GatewaySim::knobs());
    const gateway::GatewayConfig c = gatewaySetup(p, 1).config;
    const auto urls = upstreamUrls(c, {"cirrus=http://127.0.0.1:9003/c", "atlas=http://127.0.0.1:9001/a",
                                       "borealis=http://localhost:9002/b"});
    ASSERT_EQ(urls.size(), 3u);
    EXPECT_EQ(urls[0].at.port, 9001);
    EXPECT_EQ(urls[1].target, "/b");
    EXPECT_EQ(urls[2].at.port, 9003);
    EXPECT_EQ(errorOf([&] { upstreamUrls(c, {"atlas=http://127.0.0.1:1/"}); }),
              "no --upstream for engine 'borealis': give NAME=URL for each of atlas, borealis, cirrus");
    EXPECT_EQ(errorOf([&] { upstreamUrls(c, {"zephyr=http://127.0.0.1:1/"}); }),
              "--upstream 'zephyr=http://127.0.0.1:1/': the scenario has no engine 'zephyr' (engines: "
              "atlas, borealis, cirrus)");
    EXPECT_EQ(errorOf([&] { upstreamUrls(c, {"atlas=http://127.0.0.1:1/", "atlas=http://127.0.0.1:2/"}); }),
              "--upstream: engine 'atlas' is given twice");
    EXPECT_NE(errorOf([&] { upstreamUrls(c, {"atlas=ftp://x"}); }).find("--upstream atlas: URL 'ftp://x'"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { upstreamUrls(c, {"atlas"}); }).find("expected NAME=URL"), std::string::npos);
}

}  // namespace
}  // namespace taillab::live
