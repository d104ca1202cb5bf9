// taillab-cli load, run as a real process against the stall fixture on 127.0.0.1.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "../core/cli_support.h"
#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"
#include "stall_server.h"

namespace taillab {
namespace {

using test::readFile;
using test::runShell;

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

class LoadCli : public test::ScratchDirTest {
  protected:
    Outcome load(const std::string& args) {
        const std::string err = path("stderr.txt");
        const test::ShellOutcome o = runShell(std::string(TAILLAB_CLI_PATH) + " load " + args + " 2>" + err);
        return {o.exit_code, o.out, readFile(err)};
    }
    // Bad input: exit code 2, nothing on stdout, and stderr holding `message`.
    void expectRefused(const std::string& args, const std::string& message) {
        const Outcome o = load(args);
        EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_NE(o.err.find(message), std::string::npos) << args << "\nstderr: " << o.err;
    }
    void write(const std::string& name, const std::string& text) { std::ofstream(path(name)) << text; }

    test::StallServer server_;
};

TEST_F(LoadCli, BadInputIsRefusedBeforeAnythingIsSent) {
    const std::string url = server_.url("");
    expectRefused("", "no URL given");
    expectRefused("https://127.0.0.1:1/ --rate 1 --duration 1", "plain HTTP");
    expectRefused("http://example.com/ --rate 1 --duration 1", "dotted IPv4 address or localhost");
    expectRefused(url + " --duration 1", "--rate or --schedule is required");
    expectRefused(url + " --rate 10", "--duration is required");
    expectRefused(url + " --rate 0 --duration 1", "--rate expects requests per second above 0");
    expectRefused(url + " --rate fast --duration 1", "found 'fast'");
    expectRefused(url + " --rate 10 --duration soon", "--duration expects a duration");
    expectRefused(url + " --rate 10 --duration -1s", "--duration expects a duration");
    expectRefused(url + " --rate 10 --duration 1 --connections 0",
                  "--connections expects a whole number from 1 to 1000000, found '0'");
    expectRefused(url + " --rate 10 --duration 1 --endpoint slow", "--endpoint expects lite or fast");
    expectRefused(server_.url("/x") + " --rate 10 --duration 1 --endpoint fast", "give one");
    expectRefused(url + " --rate 10 --duration 1 --keys a,,b", "empty item");
    expectRefused(url + " --rate 10 --duration 1 --keys 'a b'", "an API key must be non-empty printable text");
    expectRefused(url + " --rate 10 --duration 1 --frobnicate", "unknown option '--frobnicate'");
    write("keys.txt", "# the test's keys\nk1\n\n  k2  \nk 3\n");
    expectRefused(url + " --rate 10 --duration 1 --keys-file " + path("keys.txt"), path("keys.txt") + ":5: an API key");
    write("none.txt", "# nothing\n\n");
    expectRefused(url + " --rate 10 --duration 1 --keys-file " + path("none.txt"), "holds no keys");
    expectRefused(url + " --rate 10 --duration 1 --keys-file " + path("missing.txt"), "cannot open");
    expectRefused(url + " --rate 10 --duration 1 --keys a --keys-file " + path("none.txt"), "not both");
    expectRefused(url + " --rate 10 --duration 1 --hgrm " + path("no/such/dir/x.hgrm"), "does not exist");
    expectRefused(url + " --rate 10 --duration 1 --hlog " + dir_.string(), "is a directory");
    expectRefused(url + " --rate 10 --duration 1 --json -", "needs a file path");
    expectRefused(url + " --rate 10 --duration 1 --json " + path("a.hgrm") + " --hgrm " + path("a.hgrm"),
                  "the same file");
    write("steps.txt", "0 10\n# then faster\n2 fast\n");
    expectRefused(url + " --schedule " + path("steps.txt") + " --duration 5", path("steps.txt") + ":3:3: the rate");
    expectRefused(url + " --schedule " + path("steps.txt") + " --rate 5 --duration 5", "not both");
    expectRefused(url + " --schedule " + path("missing.txt") + " --duration 5", "cannot open");
    expectRefused("http://127.0.0.1:" + std::to_string(test::closedPort()) + "/ --rate 10 --duration 1",
                  "nothing answers at 127.0.0.1:");
    EXPECT_EQ(server_.requests(), 0u);
    EXPECT_EQ(load("--help").exit_code, 0);
}

TEST_F(LoadCli, KeysFromAFileOrStandardInputAreSent) {
    write("keys.txt", "# one key\n  key-from-file  \n");
    ASSERT_EQ(load(server_.url("") + " --rate 20 --duration 0.2s --quiet --keys-file " + path("keys.txt")).exit_code, 0);
    EXPECT_EQ(server_.lastRequest().authorization, "Bearer key-from-file");
    const test::ShellOutcome piped = runShell("printf 'key-from-stdin\\n' | " + std::string(TAILLAB_CLI_PATH) + " load " +
                                              server_.url("") + " --rate 20 --duration 0.2s --quiet --keys-file -");
    ASSERT_EQ(piped.exit_code, 0) << piped.out;
    EXPECT_EQ(server_.lastRequest().authorization, "Bearer key-from-stdin");
}

TEST_F(LoadCli, ARunWritesItsSummaryAndFiles) {
    server_.setDelay(std::chrono::milliseconds(2));
    write("steps.txt", "0 40\n0.5 80\n");
    const Outcome o = load(server_.url("") + " --schedule " + path("steps.txt") + " --duration 1.2s --keys k1,k2" +
                           " --hgrm " + path("run.hgrm") + " --hlog " + path("run.hlog") + " --json " +
                           path("run.json"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("corrected"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("status 200: 76"), std::string::npos) << o.out;  // 20 + 56 sends
    EXPECT_NE(o.err.find("lag p99"), std::string::npos) << o.err;
    EXPECT_EQ(server_.lastRequest().target, "/search/lite");

    const auto json = nlohmann::json::parse(readFile(path("run.json")));
    EXPECT_EQ(json["sent"], 76);
    EXPECT_EQ(json["too_late"], 0);
    EXPECT_EQ(json["intended"], 76);
    EXPECT_EQ(json["statuses"]["200"], 76);
    EXPECT_EQ(json["corrected"]["count"], 76);
    EXPECT_GE(json["corrected"]["p50_ms"].get<double>(), 2.0);
    // Every answer took the server's 2 ms at least; a stall-free second is far from 1 s.
    EXPECT_EQ(json["corrected"]["share_above_ms"]["1"].get<double>(), 1.0);
    EXPECT_EQ(json["uncorrected"]["share_above_ms"]["1000"].get<double>(), 0.0);
    EXPECT_TRUE(json["connection_pool_bottleneck"].is_null()) << json["connection_pool_bottleneck"];

    const auto hgrm = parseHgrm(readFile(path("run.hgrm")));
    EXPECT_EQ(hgrm.back().total_count, 76);
    EXPECT_EQ(parseHgrm(readFile(path("run.uncorrected.hgrm"))).back().total_count, 76);

    const HdrLog log = parseHdrLog(readFile(path("run.hlog")));
    ASSERT_TRUE(log.start_time_s && log.base_time_s);
    std::int64_t corrected = 0, uncorrected = 0;
    for (const HdrLogInterval& i : log.intervals) (i.tag.empty() ? corrected : uncorrected) += i.histogram.totalCount();
    EXPECT_EQ(corrected, 76);
    EXPECT_EQ(uncorrected, 76);
}

// Ctrl-C while the server stalls (the tester's run: answers at once, then held from 1 s on,
// SIGINT 1.5 s into the stall). What is printed and every file agree, and none drops the stalled
// requests: the corrected percentiles, the .hgrm and the .hlog all hold the answered requests and
// the abandoned ones (at their age when abandoned), the run lasted until the stop, and the
// generator is not blamed. (The stall once vanished: corrected p99 0.4 ms, "in 1.000 s", and a
// warning that the generator was the bottleneck.)
TEST_F(LoadCli, CtrlCKeepsTheStallInEveryOutput) {
    std::thread staller([&] {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        server_.stallFor(std::chrono::seconds(60));
    });
    const std::string command = std::string(TAILLAB_CLI_PATH) + " load " + server_.url("") +
                                " --rate 20 --duration 20s --json " + path("run.json") + " --hgrm " + path("run.hgrm") +
                                " --hlog " + path("run.hlog") + " >" + path("out.txt") + " 2>" + path("err.txt") +
                                " & pid=$!; sleep 2.5; kill -INT $pid; wait $pid";
    const test::ShellOutcome o = runShell(command);
    staller.join();
    const std::string out = readFile(path("out.txt"));
    ASSERT_EQ(o.exit_code, 0) << readFile(path("err.txt"));

    const auto json = nlohmann::json::parse(readFile(path("run.json")));
    EXPECT_TRUE(json["stopped_early"].get<bool>());
    const std::int64_t abandoned = json["abandoned"];
    const std::int64_t finished = json["answered"].get<std::int64_t>() + json["failed"].get<std::int64_t>();
    EXPECT_GE(abandoned, 20) << out;
    EXPECT_EQ(json["corrected"]["count"], finished + abandoned);
    EXPECT_EQ(json["abandoned_age"]["count"], abandoned);
    EXPECT_GE(json["corrected"]["p99_ms"].get<double>(), 1000.0) << out;
    // The run lasted to the stop (SIGINT 2.5 s after the shell started it; a sanitizer build
    // takes a moment to start), well past the last answer at about 1 s.
    EXPECT_GE(json["stopped_at_s"].get<double>(), 1.5) << out;
    EXPECT_GE(json["elapsed_s"].get<double>(), json["stopped_at_s"].get<double>()) << out;
    EXPECT_TRUE(json["generator_bottleneck"].is_null()) << json["generator_bottleneck"];
    EXPECT_NE(json["abandoned_note"].get<std::string>().find("a lower bound"), std::string::npos);
    EXPECT_NE(out.find("include the " + std::to_string(abandoned) + " requests abandoned"), std::string::npos) << out;
    EXPECT_EQ(out.find("warning: the generator"), std::string::npos) << out;

    EXPECT_EQ(parseHgrm(readFile(path("run.hgrm"))).back().total_count, finished + abandoned);
    const HdrLog log = parseHdrLog(readFile(path("run.hlog")));
    std::int64_t corrected = 0;
    for (const HdrLogInterval& i : log.intervals)
        if (i.tag.empty()) corrected += i.histogram.totalCount();
    EXPECT_EQ(corrected, finished + abandoned);
}

// A progress line over an interval far shorter than a second (here the whole run: one request,
// --duration 1us) gives the count and how long, not a rate per second extrapolated from a few
// milliseconds ("rate 198/s" for one request).
TEST_F(LoadCli, AShortIntervalsProgressGivesTheCountNotARate) {
    const Outcome o = load(server_.url("") + " --rate 10 --duration 1us");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::vector<std::string> progress;
    for (const std::string& line : test::lines(o.err))
        if (line.rfind("[", 0) == 0) progress.push_back(line);
    ASSERT_EQ(progress.size(), 1u) << o.err;
    EXPECT_NE(progress[0].find("completed 1 "), std::string::npos) << progress[0];
    EXPECT_EQ(progress[0].find("/s"), std::string::npos) << progress[0];
    EXPECT_NE(progress[0].find("1 in the last 0.0"), std::string::npos) << progress[0];
}

}  // namespace
}  // namespace taillab
