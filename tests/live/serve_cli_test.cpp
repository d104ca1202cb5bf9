// taillab-cli serve as a real process in front of an emulated fleet (in this test's process): it
// prints its URL, answers searches and /metrics over HTTP, and stops on SIGTERM with a summary;
// bad input is a clear message and exit code 2.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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

// `taillab-cli serve` in front of an emulated fleet in this process, until stop() sends it
// SIGTERM (a --duration could end it before a slow run's searches were done); everything it
// writes (stdout and stderr) is collected in `out`.
// The fleet's engines answer as the scenario says, or each after about `engineMs` when it is set
// (serve's own knobs stay the scenario's).
Scenario fleetScenario(double engineMs) {
    Scenario s = loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/" + kScenario + ".json");
    if (engineMs > 0) {
        for (const char* e : {"atlas", "borealis", "cirrus"}) {
            s.params.set(std::string(e) + "_median_ms", engineMs);
            s.params.set(std::string(e) + "_sigma", 0.01);
        }
        s.params.set("slow_multiplier", 0);
        s.params.set("fault_multiplier", 0);
        s.timeline.events.clear();
    }
    return s;
}

struct ServeProcess {
    Scenario scenario;
    live::Loop loop;
    live::FleetServer fleet;
    std::string key = live::gatewaySetup(scenario.params, scenario.seed).config.keys[0].key;
    FILE* p = nullptr;
    std::string out;
    live::HostPort at{"127.0.0.1", 0};

    pid_t pid = 0;

    explicit ServeProcess(const std::string& extra = "", double engineMs = 0)
        : scenario(fleetScenario(engineMs)), fleet(loop, scenario) {
        loop.start();
        fleet.start();
        std::string upstreams;
        for (const auto& [name, url] : fleet.engineUrls()) upstreams += " --upstream " + name + "=" + url;
        // The shell says its pid, then becomes the CLI (the same pid).
        p = popen(("echo pid $$; exec " + kCli + " serve " + kScenario + " --listen 127.0.0.1:0 --duration 2m" +
                   extra + upstreams + " 2>&1").c_str(),
                  "r");
        if (!p) return;
        char line[512];
        if (fgets(line, sizeof line, p) && std::string_view(line).starts_with("pid ")) pid = std::atoi(line + 4);
        while (out.find("gateway http://") == std::string::npos && fgets(line, sizeof line, p)) out += line;
        const std::size_t found = out.find("gateway http://127.0.0.1:");
        if (found != std::string::npos) at.port = static_cast<std::uint16_t>(std::stoi(out.substr(found + 25)));
    }
    // Asks it to stop (SIGTERM, which it blocks from before it listens), reads the rest of its
    // output until it exits; its exit status.
    int stop() {
        if (pid > 0) ::kill(pid, SIGTERM);
        char line[512];
        while (fgets(line, sizeof line, p)) out += line;
        const int status = pclose(p);
        p = nullptr;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;  // killed by the signal: not a stop
    }
    ~ServeProcess() {
        if (p) {
            if (pid > 0) ::kill(pid, SIGTERM);
            pclose(p);
        }
        fleet.stop();
        loop.stop();
    }
};

TEST(ServeCli, ServesSearchesInFrontOfAFleetAndStopsWithASummary) {
    ServeProcess serve;
    ASSERT_NE(serve.p, nullptr);
    ASSERT_GT(serve.pid, 0) << serve.out;
    ASSERT_NE(serve.at.port, 0) << serve.out;
    const std::string& key = serve.key;
    {
        TestConnection c(serve.at);
        const TestResult r = c.request("POST", "/search/lite", R"({"query": "weather lyon tomorrow"})",
                                       {{"Authorization", "Bearer " + key}});
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        EXPECT_EQ(r.response->status, 200) << r.response->body;
        EXPECT_FALSE(nlohmann::json::parse(r.response->body).at("results").empty());
        const TestResult m = c.request("GET", "/metrics");
        ASSERT_EQ(m.ending, Ending::Response);
        EXPECT_NE(m.response->body.find("taillab_requests_total{outcome=\"ok\"} 1\n"), std::string::npos);
    }
    EXPECT_EQ(serve.stop(), 0) << serve.out;
    EXPECT_NE(serve.out.find("serve: stopped after 1 searches (1 answered, 0 rejected, 0 failed, 0 in flight)"),
              std::string::npos)
        << serve.out;
}

// Searches in flight when SIGTERM comes (engines that take 200 ms, the stop 30 ms after they
// were sent) are answered before serve exits, each with a status, and its summary counts them
// all: accepted = answered + rejected + failed, none left in flight.
TEST(ServeCli, ASigtermAnswersTheSearchesInFlightAndCountsThem) {
    ServeProcess serve("", 200);
    ASSERT_NE(serve.p, nullptr);
    ASSERT_GT(serve.pid, 0) << serve.out;
    ASSERT_NE(serve.at.port, 0) << serve.out;
    std::vector<std::future<TestResult>> searches;
    for (int i = 0; i < 6; ++i)
        searches.push_back(std::async(std::launch::async, [&serve, i] {
            TestConnection c(serve.at);
            return c.request("POST", "/search/lite",
                             nlohmann::json{{"query", "ferry times " + std::to_string(i)}}.dump(),
                             {{"Authorization", "Bearer " + serve.key}});
        }));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(serve.stop(), 0) << serve.out;
    for (auto& f : searches) {
        const TestResult r = f.get();
        ASSERT_EQ(r.ending, Ending::Response) << r.error << "\n" << serve.out;
        EXPECT_TRUE(r.response->status == 200 || r.response->status == 503) << r.response->body;
        if (r.response->status == 503) {
            EXPECT_TRUE(r.response->header("Retry-After"));
        }
    }
    // "stopped after N searches (A answered, R rejected, F failed, I in flight)"
    const std::size_t at = serve.out.find("serve: stopped after ");
    ASSERT_NE(at, std::string::npos) << serve.out;
    unsigned accepted = 0, answered = 0, rejected = 0, failed = 0, inFlight = 0;
    ASSERT_EQ(std::sscanf(serve.out.c_str() + at,
                          "serve: stopped after %u searches (%u answered, %u rejected, %u failed, %u in flight)",
                          &accepted, &answered, &rejected, &failed, &inFlight),
              5)
        << serve.out;
    EXPECT_EQ(accepted, 6u) << serve.out;
    EXPECT_EQ(inFlight, 0u) << serve.out;
    EXPECT_EQ(answered + rejected + failed, accepted) << serve.out;
}

// A key, known or not, is a secret: it is never written to the process's output nor to /metrics,
// whatever happens to the request that carried it.
TEST(ServeCli, ApiKeysNeverAppearInItsOutputOrMetrics) {
    ServeProcess serve;
    ASSERT_NE(serve.p, nullptr);
    ASSERT_GT(serve.pid, 0) << serve.out;
    ASSERT_NE(serve.at.port, 0) << serve.out;
    const std::string canary = "tl-canary-7f3a9c-never-log-me";
    std::string metrics;
    {
        TestConnection c(serve.at);
        for (const std::string& bearer : {serve.key, canary}) {
            for (const std::string& body : {std::string(R"({"query": "weather lyon tomorrow"})"),
                                            std::string(R"({"query": "weather lyon today"})"),
                                            std::string(R"({"query": 7})"), std::string("{broken")}) {
                const TestResult r = c.request("POST", "/search/lite", body, {{"Authorization", "Bearer " + bearer}});
                ASSERT_EQ(r.ending, Ending::Response) << r.error;
                EXPECT_EQ(r.response->body.find(canary), std::string::npos) << r.response->body;
            }
        }
        const TestResult m = c.request("GET", "/metrics");
        ASSERT_EQ(m.ending, Ending::Response);
        metrics = m.response->body;
    }
    // The canary's two well-formed searches reached the gateway (the HTTP layer answers the
    // malformed bodies with 400 before the key is judged, and those are not counted as searches).
    EXPECT_NE(metrics.find("taillab_requests_total{outcome=\"unauthorized\"} 2\n"), std::string::npos) << metrics;
    EXPECT_EQ(metrics.find(serve.key), std::string::npos);
    EXPECT_EQ(metrics.find(canary), std::string::npos);
    EXPECT_EQ(metrics.find("tl-"), std::string::npos);  // no key's prefix as a label either
    EXPECT_EQ(serve.stop(), 0) << serve.out;
    EXPECT_NE(serve.out.find("serve: stopped after 4 searches"), std::string::npos) << serve.out;
    EXPECT_EQ(serve.out.find(serve.key), std::string::npos) << serve.out;
    EXPECT_EQ(serve.out.find(canary), std::string::npos) << serve.out;
}

// Started at Tue 14:59:58 on the scenario's clock (--start-at, as fleet takes it), serve has the
// 07:00 change (fixed 300 ms hedge) in force from the start and applies the 15:00 one (hedge
// budget 0.075) two seconds into its run, not at once and not 15 hours later.
TEST(ServeCli, StartAtAppliesTheTimelinesKnobChangesAtTheirScenarioTimes) {
    ServeProcess serve(" --admin --start-at 53998s");
    ASSERT_NE(serve.p, nullptr);
    ASSERT_GT(serve.pid, 0) << serve.out;
    ASSERT_NE(serve.at.port, 0) << serve.out;
    EXPECT_NE(serve.out.find("from Tue 14:59:58 on the scenario's clock"), std::string::npos) << serve.out;
    TestConnection c(serve.at);
    const auto state = [&] {
        const TestResult r = c.request("GET", "/admin/state");
        if (r.ending != Ending::Response) return nlohmann::json();
        return nlohmann::json::parse(r.response->body);
    };
    const nlohmann::json first = state();
    ASSERT_TRUE(first.is_object());
    EXPECT_EQ(first.at("knobs").at("hedge_mode"), "fixed");
    EXPECT_EQ(first.at("knobs").at("hedge_delay_ms"), 300);
    EXPECT_NE(first.at("knobs").at("hedge_budget"), 0.075);
    std::optional<double> appliedAfter_s;
    for (int i = 0; i < 200 && !appliedAfter_s; ++i) {
        const nlohmann::json s = state();
        ASSERT_TRUE(s.is_object());
        const double runTime = s.at("now_s").get<double>() - s.at("started_at_s").get<double>();
        if (s.at("knobs").at("hedge_budget") == 0.075) appliedAfter_s = runTime;
        else std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(appliedAfter_s) << "the 15:00 change never applied";
    EXPECT_GE(*appliedAfter_s, 2.0);  // at 15:00, two seconds after the start, not before
    EXPECT_EQ(serve.stop(), 0) << serve.out;
}

// --admin serves unauthenticated endpoints: listening beyond loopback with them is allowed, with a
// warning on stderr; on loopback, or without --admin, there is none. (No search is sent: the
// upstream URLs are never called.)
TEST(ServeCli, AdminBeyondLoopbackWarnsThatTheAdminEndpointsAreReachable) {
    const std::string upstreams =
        " --upstream atlas=http://127.0.0.1:9/ --upstream borealis=http://127.0.0.1:9/ --upstream cirrus=http://127.0.0.1:9/";
    const auto serve = [&](const std::string& args) {
        return runShell(kCli + " serve " + kScenario + upstreams + " --duration 300ms " + args + " 2>&1");
    };
    const ShellOutcome open = serve("--listen 0.0.0.0:0 --admin");
    EXPECT_EQ(open.exit_code, 0) << open.out;
    EXPECT_NE(open.out.find("serve: warning: listening on 0.0.0.0:"), std::string::npos) << open.out;
    EXPECT_NE(open.out.find("POST /admin/knobs"), std::string::npos) << open.out;
    EXPECT_NE(open.out.find("reachable from the network"), std::string::npos) << open.out;
    for (const std::string args : {"--listen 127.0.0.1:0 --admin", "--listen 0.0.0.0:0"}) {
        const ShellOutcome quiet = serve(args);
        EXPECT_EQ(quiet.exit_code, 0) << args << "\n" << quiet.out;
        EXPECT_EQ(quiet.out.find("warning"), std::string::npos) << args << "\n" << quiet.out;
    }
}

TEST(ServeCli, ListsTheScenariosKeys) {
    const ShellOutcome o = runShell(kCli + " serve " + kScenario + " --keys 2>&1");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_EQ(o.out.rfind("tl-cust-001-", 0), 0u) << o.out;
    EXPECT_NE(o.out.find("\tbatch\n"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("probe"), std::string::npos) << o.out;  // the simulation's own, not live mode's
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
    expectBadInput(kScenario + " --drain soon", "--drain");
    // --start-at as fleet reads and checks it, before anything starts.
    expectBadInput(kScenario + " --start-at 25h --upstream atlas=http://127.0.0.1:1/",
                   "within the scenario's run (1 day)");
    expectBadInput(kScenario + " --start-at noon", "--start-at expects a time of 0 or more");
    expectBadInput(kScenario + " --frobnicate", "unknown option '--frobnicate'");
}

}  // namespace
}  // namespace taillab::test
