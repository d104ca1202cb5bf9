// /metrics as Prometheus text, from a real gateway's snapshot (two simulated hours of the
// September week), checked by Prometheus' own promtool and against the snapshot it came from.
#include "live/prometheus.h"

#include <gtest/gtest.h>

#include <string>

#include "gateway_sim/gateway_sim.h"
#include "promtool_check.h"

namespace taillab::live {
namespace {

gateway::GatewaySnapshot twoHours() {
    Params params(gateway::GatewaySim::knobs());
    params.set("days", 1);
    gateway::GatewaySim sim(params, 3);
    sim.advanceTo(7200);
    return sim.snapshot();
}

TEST(Prometheus, PromtoolAcceptsTheExposition) {
    const std::string text = prometheusText(twoHours(), {{400, 3}, {413, 1}});
    EXPECT_NE(text.find("taillab_http_refused_total{status=\"400\"} 3\n"), std::string::npos);
    EXPECT_EQ(test::promtoolProblems(text), "");
}

TEST(Prometheus, SamplesAgreeWithTheSnapshot) {
    const gateway::GatewaySnapshot s = twoHours();
    ASSERT_GT(s.accepted, 1000u);
    const auto m = test::promSamples(prometheusText(s));
    EXPECT_EQ(m.at("taillab_requests_total{outcome=\"ok\"}"), static_cast<double>(s.outcomes[0]));
    EXPECT_EQ(m.at("taillab_upstream_calls_total{role=\"hedge\"}"), static_cast<double>(s.hedge_calls));
    for (int c = 0; c < gateway::kClasses; ++c) {
        const std::string cls = "class=\"" + std::string(gateway::kClassNames[static_cast<std::size_t>(c)]) + "\"";
        const HdrHistogram& h = s.latency_by_class_us[static_cast<std::size_t>(c)];
        EXPECT_EQ(m.at("taillab_request_duration_seconds_count{" + cls + "}"), static_cast<double>(h.totalCount()));
        EXPECT_EQ(m.at("taillab_request_duration_seconds_bucket{" + cls + ",le=\"+Inf\"}"),
                  static_cast<double>(h.totalCount()));
        // Cumulative buckets never fall, and the 0.5 s bucket holds what the histogram says.
        double previous = 0;
        for (const char* le : {"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1",
                               "2.5", "5", "10", "30"}) {
            const double n = m.at("taillab_request_duration_seconds_bucket{" + cls + ",le=\"" + le + "\"}");
            EXPECT_GE(n, previous) << cls << " le=" << le;
            previous = n;
        }
        EXPECT_EQ(m.at("taillab_request_duration_seconds_bucket{" + cls + ",le=\"0.5\"}"),
                  static_cast<double>(h.countAtOrBelow(500000)));
    }
    // Requests refused before classification have their own series; with the classes' they count
    // every request the gateway answered, once.
    EXPECT_EQ(m.at("taillab_request_duration_seconds_count{class=\"unclassified\"}"),
              static_cast<double>(s.latency_unclassified_us.totalCount()));
    double counted = 0, answered = 0;
    for (const auto& [k, v] : m) {
        if (k.rfind("taillab_request_duration_seconds_count{", 0) == 0) counted += v;
        if (k.rfind("taillab_requests_total{", 0) == 0) answered += v;
    }
    EXPECT_EQ(counted, answered);
    EXPECT_GT(s.latency_unclassified_us.totalCount(), 0);  // the week has 429s and unknown keys
    // Exactly one state per breaker.
    double states = 0;
    for (const auto& [k, v] : m)
        if (k.rfind("taillab_breaker_state{", 0) == 0) states += v;
    EXPECT_EQ(states, static_cast<double>(s.breaker_state.size()));
}

}  // namespace
}  // namespace taillab::live
