// /metrics as Prometheus text, from a real gateway's snapshot (two simulated hours of the
// September week), checked by Prometheus' own promtool and against the snapshot it came from.
#include "live/prometheus.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gateway_sim/gateway_sim.h"

namespace taillab::live {
namespace {

gateway::GatewaySnapshot twoHours() {
    Params params(gateway::GatewaySim::knobs());
    params.set("days", 1);
    gateway::GatewaySim sim(params, 3);
    sim.advanceTo(7200);
    return sim.snapshot();
}

// "name{labels}" -> value, for every sample line.
std::map<std::string, double> samples(const std::string& text) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::size_t space = line.rfind(' ');
        out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return out;
}

TEST(Prometheus, PromtoolAcceptsTheExposition) {
    const std::string text = prometheusText(twoHours(), {{400, 3}, {413, 1}});
    EXPECT_NE(text.find("taillab_http_refused_total{status=\"400\"} 3\n"), std::string::npos);
    char path[] = "/tmp/taillab_metrics_XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    ASSERT_EQ(std::system("command -v promtool > /dev/null"), 0)
        << "promtool not found: scripts/dev.sh installs Debian's prometheus package";
    // promtool prints lint problems and exits non-zero on any.
    const std::string cmd = std::string("promtool check metrics < ") + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string said;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) said += buf;
    const int status = pclose(p);
    std::remove(path);
    EXPECT_EQ(status, 0) << said;
    EXPECT_EQ(said, "");
}

TEST(Prometheus, SamplesAgreeWithTheSnapshot) {
    const gateway::GatewaySnapshot s = twoHours();
    ASSERT_GT(s.accepted, 1000u);
    const auto m = samples(prometheusText(s));
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
    // Exactly one state per breaker.
    double states = 0;
    for (const auto& [k, v] : m)
        if (k.rfind("taillab_breaker_state{", 0) == 0) states += v;
    EXPECT_EQ(states, static_cast<double>(s.breaker_state.size()));
}

}  // namespace
}  // namespace taillab::live
