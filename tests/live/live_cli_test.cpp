// taillab-cli live as a real process: fleet, gateway and load in one process over loopback; its
// result JSON is a run's (figures, series, invariant checks) plus what the clients saw, and the
// two views count the same requests.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../core/cli_support.h"

namespace taillab::test {
namespace {

const std::string kCli = TAILLAB_CLI_PATH;

double figure(const nlohmann::json& doc, const std::string& name) {
    const auto& figures = doc.at("figures");
    if (!figures.contains(name)) {
        ADD_FAILURE() << "no figure " << name;
        return -1;
    }
    return figures.at(name).get<double>();
}

TEST(LiveCli, ARunWritesTheGatewaysResultAndTheClientsView) {
    const std::string out = "/tmp/taillab_live_cli_test_" + std::to_string(::getpid()) + ".json";
    const ShellOutcome o = runShell(kCli + " live gateway/day-eu-atlas-slow --duration 2s --rate 30 --quiet --out " +
                                    out + " 2>&1");
    ASSERT_EQ(o.exit_code, 0) << o.out;
    std::ifstream in(out);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::remove(out.c_str());
    EXPECT_EQ(doc.at("mode"), "live");
    EXPECT_EQ(doc.at("lab"), "gateway");
    // The scenario's own arrivals for 2 s (about 30 a second over them, in bursts).
    const auto& load = doc.at("load");
    const double sent = load.at("sent").get<double>();
    EXPECT_GT(sent, 10);
    EXPECT_EQ(load.at("intended"), sent);
    // The rate asked for, the one offered (within the knob's range: the same) and how.
    EXPECT_EQ(load.at("rate_asked_per_s"), 30);
    EXPECT_NEAR(load.at("rate_offered_per_s").get<double>(), 30, 30 * 5e-4);  // a multiplier of 4 digits
    EXPECT_EQ(load.at("schedule").at(0).at("rate_per_s"), load.at("rate_offered_per_s"));
    EXPECT_GT(load.at("load_multiplier").get<double>(), 0);
    EXPECT_EQ(load.at("rate_averaged_over_s"), 2);
    EXPECT_EQ(load.at("answered").get<double>() + load.at("failed").get<double>(), sent);
    // Every request the clients sent was accepted, counted and answered by the gateway.
    EXPECT_EQ(figure(doc, "requests"), sent);
    EXPECT_EQ(figure(doc, "answered") + figure(doc, "rejected") + figure(doc, "failed"), sent);
    bool saysArrivals = false;
    for (const auto& n : doc.at("live_notes")) saysArrivals |= n.get<std::string>().find("own arrivals") != std::string::npos;
    EXPECT_TRUE(saysArrivals) << doc.at("live_notes").dump();
    ASSERT_FALSE(doc.at("checks").empty());
    for (const auto& c : doc.at("checks")) EXPECT_EQ(c.at("pass"), true) << c.dump();
    EXPECT_TRUE(doc.at("all_checks_pass").get<bool>());
    // Per-window series although the run is shorter than one window: 10 s windows (not the
    // scenario's 600 s), the last cut by the run's end and kept, x in seconds since the start.
    const auto& windows = doc.at("windows");
    EXPECT_EQ(windows.at("window_s"), 10);
    EXPECT_EQ(windows.at("scenario_window_s"), 600);
    EXPECT_TRUE(windows.at("window_chosen_for_the_run").get<bool>());
    EXPECT_EQ(windows.at("count"), 1);
    EXPECT_TRUE(windows.at("last_window_partial").get<bool>());
    EXPECT_GE(windows.at("last_window_s").get<double>(), 2.0);  // the load ran 2 s
    EXPECT_EQ(doc.at("parameters").at("window_s"), 10);
    bool found = false;
    for (const auto& chart : doc.at("series")) {
        if (chart.at("id") != "percentiles_over_time") continue;
        found = true;
        EXPECT_EQ(chart.at("x_label"), "Time since start (s)");
        const auto& p50 = chart.at("series").at(0);
        EXPECT_EQ(p50.at("name"), "p50");
        ASSERT_EQ(p50.at("x").size(), 1u) << chart.dump();
        EXPECT_EQ(p50.at("x").at(0).get<double>(), windows.at("last_window_s").get<double>());
    }
    EXPECT_TRUE(found);
}

TEST(LiveCli, BadInputIsExplainedWithExitCode2) {
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"gateway/day-eu-atlas-slow", "live needs --duration"},
             {"labs/fanout --duration 1s", "a live run needs a gateway scenario"},
             {"gateway/day-eu-atlas-slow --duration 1s --rate 0", "--rate expects requests per second above 0"},
             {"gateway/day-eu-atlas-slow --duration 1s --rate fast", "--rate expects"},
             {"gateway/day-eu-atlas-slow --duration never", "--duration"},
             {"gateway/day-eu-atlas-slow --duration 1s --out /nonexistent/dir/x.json", "/nonexistent/dir"},
             // As `load` words them (not as --jobs).
             {"gateway/day-eu-atlas-slow --duration 1s --connections 0",
              "--connections expects a whole number from 1 to 1000000, found '0'"},
             {"gateway/day-eu-atlas-slow --duration 1s --connections -1", "--connections expects a whole number"},
             {"gateway/day-eu-atlas-slow --duration 1s --connections abc", "--connections expects a whole number"},
             // Both ends of each are this process's: more than any ulimit -n (Linux caps it near 2^20).
             {"gateway/day-eu-atlas-slow --duration 1s --connections 1000000",
              "1000000 connections need 2000064 file descriptors"},
         }) {
        const ShellOutcome o = runShell(kCli + " live " + args + " 2>&1");
        EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out;
        EXPECT_NE(o.out.find(says), std::string::npos) << args << "\n" << o.out;
    }
}

// Monday 00:00 is the week's quietest hour: 100 requests a second needs a load_multiplier past the
// knob's maximum there. A run at the rate it reaches would measure another experiment than the one
// asked for, so both commands refuse before anything runs, saying what is reached and how to get
// the rate.
TEST(LiveCli, ARateTheScenarioCannotReachIsRefusedWithTheWaysToReachIt) {
    for (const char* command : {"live", "twin"}) {
        const ShellOutcome o =
            runShell(kCli + " " + command + " gateway/week-v4-september --duration 10s --rate 100 2>&1");
        EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.out;
        for (const char* says : {"--rate 100 cannot be offered", "from Mon 00:00 reach at most",
                                 "load_multiplier at its maximum, 50", "or less, or --start-at"})
            EXPECT_NE(o.out.find(says), std::string::npos) << command << ": " << says << "\n" << o.out;
        EXPECT_EQ(o.out.find("simulated then live"), std::string::npos) << o.out;
        EXPECT_EQ(o.out.find("sent "), std::string::npos) << o.out;
    }
    // The default rate, which nobody asked for, becomes the most the scenario reaches, said
    // before the run and in the summary's header.
    const ShellOutcome o = runShell(kCli + " live gateway/week-v4-september --duration 1s 2>&1");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("(no --rate: the most the scenario reaches from there, not the default 100 req/s)"),
              std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find(", 100 req/s for"), std::string::npos) << o.out;
}

// The rate a run offers is the asked one up to the load multiplier's four digits (99.9962 for 100
// from Tue 14:00): the header lines print it as a person would (three significant figures, or
// the whole number), the JSON keeps it exact.
TEST(LiveCli, TheSummaryRoundsTheOfferedRateAndTheJsonKeepsIt) {
    const std::string out = "/tmp/taillab_live_cli_rate_" + std::to_string(::getpid()) + ".json";
    for (const auto& [rate, shown] : {std::pair{"100", "100 req/s"}, std::pair{"33.3", "33.3 req/s"}}) {
        const ShellOutcome o = runShell(kCli + " live gateway/week-v4-september --start-at 38h --duration 1s --rate " +
                                        rate + " --out " + out + " 2>&1");
        ASSERT_EQ(o.exit_code, 0) << o.out;
        std::ifstream in(out);
        const nlohmann::json doc = nlohmann::json::parse(in);
        std::remove(out.c_str());
        const double offered = doc.at("load").at("rate_offered_per_s").get<double>();
        EXPECT_NE(offered, std::stod(rate)) << "the multiplier's rounding makes it another rate";
        EXPECT_NEAR(offered, std::stod(rate), std::stod(rate) * 5e-4);
        EXPECT_EQ(doc.at("load").at("schedule").at(0).at("rate_per_s").get<double>(), offered);
        EXPECT_NE(o.out.find(std::string("at about ") + shown + " (load_multiplier"), std::string::npos) << o.out;
        EXPECT_NE(o.out.find(std::string("/search/lite, ") + shown + " for 1 s"), std::string::npos) << o.out;
    }
}

TEST(TwinCli, TheSameArrivalsSimulatedAndLiveSideBySide) {
    const std::string out = "/tmp/taillab_twin_cli_test_" + std::to_string(::getpid()) + ".json";
    const ShellOutcome o = runShell(kCli + " twin gateway/week-v4-september --duration 2s --rate 20 --out " + out +
                                    " 2>/dev/null");
    // Agreement depends on the machine (exit 3 says the live run diverged); the run itself must work.
    ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 3) << o.out;
    EXPECT_NE(o.out.find("| p99 |"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("| stage | simulated (ms) | live (ms) |"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("| engines |"), std::string::npos) << o.out;
    std::ifstream in(out);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::remove(out.c_str());
    EXPECT_EQ(doc.at("mode"), "twin");
    EXPECT_EQ(doc.at("agrees").get<bool>(), o.exit_code == 0);
    const auto& rows = doc.at("rows");
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0].at("figure"), "requests");
    EXPECT_EQ(rows[0].at("simulated"), rows[0].at("live"));
    EXPECT_EQ(rows[0].at("simulated").get<double>(), doc.at("requests").get<double>());
    EXPECT_EQ(figure(doc.at("simulated"), "requests"), figure(doc.at("live"), "requests"));
    EXPECT_EQ(doc.at("live").at("load").at("schedule"), "planned");
    // Both halves' charts cut in the same 10 s windows, in seconds since their start.
    EXPECT_EQ(doc.at("windows").at("window_s"), 10);
    for (const char* half : {"simulated", "live"})
        for (const auto& chart : doc.at(half).at("series"))
            if (chart.at("id") == "percentiles_over_time") {
                EXPECT_EQ(chart.at("x_label"), "Time since start (s)") << half;
                EXPECT_EQ(chart.at("series").at(0).at("x").size(), 1u) << half << chart.dump();
            }
    // The simulated half charges the stage costs the live one measured; the model's are beside them.
    for (const auto& st : doc.at("stage_means")) {
        if (st.at("stage") != "merge") continue;  // the model's dearest stage (about 9 ms)
        EXPECT_GT(st.at("modelled_ms").get<double>(), 5) << st.dump();
        EXPECT_LT(st.at("simulated_ms").get<double>(), st.at("modelled_ms").get<double>()) << st.dump();
    }
    EXPECT_GT(doc.at("modelled_p50_ms").get<double>(), 0);
}

TEST(TwinCli, BadInputIsExplainedWithExitCode2) {
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"gateway/week-v4-september", "twin needs --duration"},
             {"labs/fanout --duration 1s", "a twin run needs a gateway scenario"},
             {"gateway/week-v4-september --duration 1s --rate -3", "--rate expects"},
             {"gateway/week-v4-september --duration 1s --out /nonexistent/dir/x.json", "/nonexistent/dir"},
             {"gateway/week-v4-september --duration 1s --start-at 999h", "must lie within the scenario's run"},
         }) {
        const ShellOutcome o = runShell(kCli + " twin " + args + " 2>&1");
        EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out;
        EXPECT_NE(o.out.find(says), std::string::npos) << args << "\n" << o.out;
        // Refused before anything is announced as running.
        EXPECT_EQ(o.out.find("simulated then live"), std::string::npos) << args << "\n" << o.out;
    }
}

}  // namespace
}  // namespace taillab::test
