// taillab-cli serve as a real process in front of an emulated fleet (in this test's process): it
// prints its URL, answers searches and /metrics over HTTP, and stops after --duration with a
// summary; bad input is a clear message and exit code 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "../core/cli_support.h"
#include "http_test_client.h"
#include "live/fleet_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"
#include "scenario/scenario.h"

namespace taillab::test {
namespace {

const std::string kCli = TAILLAB_CLI_PATH;
const std::string kScenario = "gateway/day-eu-atlas-slow";

void expectBadInput(const std::string& args, const std::string& says) {
    const ShellOutcome o = runShell(kCli + " serve " + args + " 2>&1");
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out;
    EXPECT_NE(o.out.find(says), std::string::npos) << args << "\n" << o.out;
}

TEST(ServeCli, ServesSearchesInFrontOfAFleetAndStopsWithASummary) {
    const Scenario scenario = loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/" + kScenario + ".json");
    live::Loop loop;
    live::FleetServer fleet(loop, scenario);
    loop.start();
    fleet.start();
    std::string upstreams;
    for (const auto& [name, url] : fleet.engineUrls()) upstreams += " --upstream " + name + "=" + url;
    const std::string key = live::gatewaySetup(scenario.params, scenario.seed).config.keys[0].key;

    FILE* p = popen((kCli + " serve " + kScenario + " --listen 127.0.0.1:0 --duration 3s" + upstreams +
                     " 2>&1").c_str(),
                    "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char line[512];
    while (out.find("gateway http://") == std::string::npos && fgets(line, sizeof line, p)) out += line;
    const std::size_t at = out.find("gateway http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << out;
    const int port = std::stoi(out.substr(at + 25));
    {
        TestConnection c(live::HostPort{"127.0.0.1", static_cast<std::uint16_t>(port)});
        const TestResult r = c.request("POST", "/search/lite", R"({"query": "weather lyon tomorrow"})",
                                       {{"Authorization", "Bearer " + key}});
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 200) << r.response->body;
        EXPECT_FALSE(nlohmann::json::parse(r.response->body).at("results").empty());
        const TestResult m = c.request("GET", "/metrics");
        ASSERT_EQ(m.ending, Ending::Response);
        EXPECT_NE(m.response->body.find("taillab_requests_total{outcome=\"ok\"} 1\n"), std::string::npos);
    }
    while (fgets(line, sizeof line, p)) out += line;
    const int status = pclose(p);
    EXPECT_EQ(WEXITSTATUS(status), 0) << out;
    EXPECT_NE(out.find("serve: stopped after 1 searches (1 answered, 0 rejected, 0 failed)"), std::string::npos)
        << out;
    fleet.stop();
    loop.stop();
}

TEST(ServeCli, ListsTheScenariosKeys) {
    const ShellOutcome o = runShell(kCli + " serve " + kScenario + " --keys 2>&1");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_EQ(o.out.rfind("tl-cust-001-", 0), 0u) << o.out;
    EXPECT_NE(o.out.find("\tprobe\n"), std::string::npos);
}

TEST(ServeCli, BadInputIsExplainedWithExitCode2) {
    expectBadInput("", "missing SCENARIO");
    expectBadInput("labs/fanout --keys", "serve needs a gateway scenario");
    expectBadInput(kScenario, "no --upstream for engine 'atlas'");
    expectBadInput(kScenario + " --upstream atlas=http://127.0.0.1:1/ --upstream atlas=http://127.0.0.1:2/",
                   "engine 'atlas' is given twice");
    expectBadInput(kScenario + " --upstream zephyr=http://127.0.0.1:1/", "no engine 'zephyr'");
    expectBadInput(kScenario + " --upstream atlas=https://127.0.0.1/", "plain HTTP");
    expectBadInput(kScenario + " --listen 127.0.0.1:99999", "--listen");
    expectBadInput(kScenario + " --duration soon", "--duration");
    expectBadInput(kScenario + " --frobnicate", "unknown option '--frobnicate'");
}

}  // namespace
}  // namespace taillab::test
