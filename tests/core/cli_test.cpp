// taillab-cli as a user runs it: the real binary, real files, exit codes and messages.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace {

namespace fs = std::filesystem;

using Outcome = taillab::test::ShellOutcome;  // stdout and stderr, merged
using taillab::test::readFile;

Outcome runCli(const std::string& args) {
    return taillab::test::runShell(std::string(TAILLAB_CLI_PATH) + " " + args + " 2>&1");
}

class Cli : public taillab::test::ScratchDirTest {};

TEST_F(Cli, HelpAndUnknownCommand) {
    auto o = runCli("--help");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_NE(o.out.find("taillab-cli run SCENARIO"), std::string::npos);
    o = runCli("frobnicate");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("unknown command 'frobnicate'"), std::string::npos);
    EXPECT_EQ(runCli("").exit_code, 2);
}

// COMMAND --help prints that command's entry and the notes on SCENARIO and exit codes, and
// exits 0; an unknown option points there.
TEST_F(Cli, EachCommandHasItsOwnHelp) {
    for (const std::string command :
         {"run", "sweep", "compare", "fleet", "serve", "live", "twin", "list"}) {
        const auto o = runCli(command + " --help");
        EXPECT_EQ(o.exit_code, 0) << command << "\n" << o.out;
        EXPECT_EQ(o.out.rfind("usage:\n  taillab-cli " + command + " ", 0), 0u) << o.out;
        EXPECT_NE(o.out.find("Exit codes:"), std::string::npos) << o.out;
        // No other command's entry.
        EXPECT_EQ(o.out.find("\n  taillab-cli ", 8), std::string::npos) << o.out;
    }
    EXPECT_NE(runCli("run labs/fanout -h").out.find("taillab-cli run SCENARIO"), std::string::npos);
    const auto bad = runCli("twin gateway/week-v4-september --bogus 1");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.out.find("unknown option '--bogus' (try taillab-cli twin --help)"),
              std::string::npos)
        << bad.out;
}

TEST_F(Cli, ListShowsEveryScenarioAndNoneIsInvalid) {
    const auto o = runCli("list");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_NE(o.out.find("labs/fanout\tfanout\t"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("INVALID"), std::string::npos) << o.out;
}

TEST_F(Cli, RunWritesTheResultContract) {
    const auto o = runCli("run labs/fanout --out " + path("r.json"));
    ASSERT_EQ(o.exit_code, 0) << o.out;
    const auto j = nlohmann::json::parse(readFile(path("r.json")));
    EXPECT_EQ(j.at("scenario"), "fanout");
    EXPECT_EQ(j.at("lab"), "fanout");
    EXPECT_TRUE(j.at("seed").is_number_unsigned());
    EXPECT_TRUE(j.at("parameters").is_object());
    EXPECT_TRUE(j.at("summary").is_object());
    EXPECT_TRUE(j.at("series").is_array());
    ASSERT_TRUE(j.at("checks").is_array());
    EXPECT_FALSE(j.at("checks").empty());
    // `pass` says what a check decided: true or false when it applies, null when it is
    // inconclusive or not applicable, as `verdict` says. The default's backend p99 falls between
    // the model's modes: no run decides it, and its tolerance (10^13 ms) is written as null.
    bool sawUnbounded = false;
    for (const auto& c : j.at("checks")) {
        for (const char* key :
             {"name", "simulated", "closed_form", "tolerance", "pass", "verdict"})
            EXPECT_TRUE(c.contains(key)) << key;
        const std::string verdict = c.at("verdict");
        if (c.contains("inconclusive")) {
            EXPECT_EQ(verdict, "inconclusive") << c.dump();
            EXPECT_TRUE(c.at("pass").is_null()) << c.dump();
            sawUnbounded = sawUnbounded || c.at("tolerance").is_null();
        } else {
            EXPECT_EQ(verdict, "pass") << c.dump();
            EXPECT_TRUE(c.at("pass").get<bool>()) << c.dump();
            EXPECT_TRUE(c.at("tolerance").is_number()) << c.dump();
        }
    }
    EXPECT_TRUE(sawUnbounded) << j.at("checks").dump();
}

// A knob the others leave unused (greyed out in the GUI) changes nothing: the command line says
// so rather than take it without a word, for run, sweep and compare alike.
TEST_F(Cli, AKnobThatHasNoEffectIsNoted) {
    const std::string small = " --set params.requests=2000 --set params.calibration_samples=2000";
    const auto run = runCli("run labs/hedge-idle --set params.hedge_delay_ms=40" + small +
                            " --out " + path("r.json"));
    EXPECT_EQ(run.exit_code, 0) << run.out;
    EXPECT_NE(run.out.find("taillab-cli run: note: --set params.hedge_delay_ms=40 has no effect: "
                           "hedge_delay_ms is not used while "),
              std::string::npos)
        << run.out;
    EXPECT_EQ(run.out.find("params.requests=2000 has no effect"), std::string::npos) << run.out;
    const auto fixed = runCli("run labs/hedge-idle --set params.hedge_mode=fixed --set "
                              "params.hedge_delay_ms=40" + small + " --out " + path("f.json"));
    EXPECT_EQ(fixed.exit_code, 0) << fixed.out;
    EXPECT_EQ(fixed.out.find("no effect"), std::string::npos) << "used in fixed mode: " << fixed.out;

    const auto sweep = runCli("sweep labs/hedge-idle --vary params.hedge_delay_ms=15,40 --vary "
                              "params.hedge_mode=fixed,percentile" + small + " --quiet --out " +
                              path("s.csv"));
    EXPECT_EQ(sweep.exit_code, 0) << sweep.out;
    EXPECT_NE(sweep.out.find("taillab-cli sweep: note: --vary params.hedge_delay_ms has no effect "
                             "at 2 of 4 points: hedge_delay_ms is not used while "),
              std::string::npos)
        << sweep.out;
    const auto all = runCli("sweep labs/hedge-idle --vary params.hedge_delay_ms=15,40" + small +
                            " --quiet --out " + path("a.csv"));
    EXPECT_NE(all.out.find("--vary params.hedge_delay_ms has no effect at any point"),
              std::string::npos)
        << all.out;

    const auto compare = runCli("compare labs/hedge-idle --b-set params.hedge_delay_ms=40" + small +
                                " --quiet --series none");
    EXPECT_EQ(compare.exit_code, 0) << compare.out;
    EXPECT_NE(compare.out.find("taillab-cli compare: note: --b-set params.hedge_delay_ms=40 has "
                               "no effect"),
              std::string::npos)
        << compare.out;
}

// A small gateway day (Tue, a tenth of the load): a run takes well under a second.
std::string smallGatewayDay(const std::string& timeline) {
    return R"({"schema_version": 1, "name": "day", "lab": "gateway",
  "params": {"days": 1, "start_day": "Tue", "load_multiplier": 0.1},
  "timeline": )" + timeline + "}\n";
}

// A timeline change that changes nothing (a knob the knobs in force leave unused, or one set to
// the value it has) is noted as a --set of such a knob is, naming the event's path: it used to be
// taken without a word and drawn as "hedge_delay_ms 420 -> 100". The run still runs.
TEST_F(Cli, ATimelineChangeThatChangesNothingIsNoted) {
    const std::string unused = path("unused.json");
    std::ofstream(unused) << smallGatewayDay(R"([{"at": "Tue 08:00", "set": {"hedge_delay_ms": 100}}])");
    const std::string why = "hedge_delay_ms is not used while Hedge delay is rolling p90 per (region, engine)";
    auto o = runCli("run " + unused + " --out " + path("r.json"));
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("taillab-cli run: note: " + unused + ": /timeline/0/set/hedge_delay_ms has no "
                         "effect: " + why),
              std::string::npos)
        << o.out;
    // Made by an override: named with it.
    o = runCli("run " + unused + " --set 'timeline.0.set.hedge_delay_ms=200' --out " + path("r.json"));
    EXPECT_NE(o.out.find("note: " + unused + " (--set timeline.0.set.hedge_delay_ms): "
                         "/timeline/0/set/hedge_delay_ms has no effect"),
              std::string::npos)
        << o.out;
    // Used once the mode is fixed, by the same event or a later one: no note.
    for (const char* timeline :
         {R"([{"at": "Tue 08:00", "set": {"hedge_delay_ms": 100, "hedge_mode": "fixed"}}])",
          R"([{"at": "Tue 08:00", "set": {"hedge_delay_ms": 100}}, {"at": "Tue 09:00", "set": {"hedge_mode": "fixed"}}])"}) {
        std::ofstream(path("used.json")) << smallGatewayDay(timeline);
        o = runCli("run " + path("used.json") + " --out " + path("r.json"));
        EXPECT_EQ(o.exit_code, 0) << o.out;
        EXPECT_EQ(o.out.find("no effect"), std::string::npos) << timeline << "\n" << o.out;
    }
    // The value the knob already has.
    std::ofstream(path("same.json")) << smallGatewayDay(
        R"([{"at": "Tue 07:00", "set": {"hedge_mode": "fixed", "hedge_delay_ms": 300}},
            {"at": "Tue 08:00", "set": {"hedge_delay_ms": 300}}])");
    o = runCli("run " + path("same.json") + " --out " + path("r.json"));
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("note: " + path("same.json") + ": /timeline/1/set/hedge_delay_ms has no effect: "
                         "hedge_delay_ms is already 300 when the event comes"),
              std::string::npos)
        << o.out;

    // sweep says at how many points; compare notes a timeline its two sides share once.
    o = runCli("sweep " + unused + " --vary timeline.0.set.hedge_delay_ms=100,200 --vary "
               "params.hedge_mode=fixed,off --figures p99_ms --quiet");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("taillab-cli sweep: note: " + unused + " (--vary timeline.0.set.hedge_delay_ms): "
                         "/timeline/0/set/hedge_delay_ms has no effect at 2 of 4 points: hedge_delay_ms is "
                         "not used while Hedge delay is off"),
              std::string::npos)
        << o.out;
    o = runCli("compare " + unused + " --b-set params.hedge_budget=0.1 --series none --quiet");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    const std::string note = "taillab-cli compare: note: " + unused + ": /timeline/0/set/hedge_delay_ms has no effect";
    const std::size_t first = o.out.find(note);
    EXPECT_NE(first, std::string::npos) << o.out;
    EXPECT_EQ(o.out.find(note, first + 1), std::string::npos) << o.out;
}

// A second --set of one path used to win without a word (a second --seed is refused as given
// twice): every command that reads a scenario refuses it, naming the path and both values.
TEST_F(Cli, ASecondSetOfOnePathIsRefusedByEveryCommand) {
    const std::string day = path("day.json");
    std::ofstream(day) << smallGatewayDay("[]");
    const std::string twice = " --set params.instances=5 --set params.instances=6";
    const std::string says = "--set params.instances=6: params.instances is already set by --set "
                             "params.instances=5";
    for (const std::string& command :
         {"run " + day + twice + " --out " + path("r.json"), "sweep " + day + twice + " --vary params.days=1,2",
          // (With a duration: a server that took them would stop by itself.)
          "compare " + day + twice + " --b-set params.days=2", "fleet " + day + twice + " --duration 1s",
          "serve " + day + twice + " --upstream atlas=http://127.0.0.1:9 --duration 1s",
          "twin " + day + twice + " --duration 1s",
          "live " + day + twice + " --duration 1s"}) {
        const auto o = runCli(command);
        EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.out;
        EXPECT_NE(o.out.find(says), std::string::npos) << command << "\n" << o.out;
    }
    // compare's per-side options too (a --b-set over the common --set is B's own value).
    auto o = runCli("compare " + day + " --b-set params.instances=5 --b-set params.instances=6");
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.out.find("B: --b-set params.instances=6: params.instances is already set by --b-set "
                         "params.instances=5"),
              std::string::npos)
        << o.out;
    // The seed, however it is given; an object that sets the knob among others.
    o = runCli("run " + day + " --seed 3 --set seed=5");
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.out.find("the seed is given twice ('3', then '5')"), std::string::npos) << o.out;
    o = runCli("run " + day + " --set 'params={\"instances\": 5, \"days\": 1}' --set params.instances=6");
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.out.find("params.instances is already set by --set params={\"instances\": 5"), std::string::npos)
        << o.out;
}

TEST_F(Cli, SameSeedSameBytesOtherSeedOtherResult) {
    ASSERT_EQ(runCli("run labs/fanout --seed 11 --out " + path("a.json")).exit_code, 0);
    ASSERT_EQ(runCli("run labs/fanout --seed 11 --out " + path("b.json")).exit_code, 0);
    ASSERT_EQ(runCli("run labs/fanout --seed 12 --out " + path("c.json")).exit_code, 0);
    const std::string a = readFile(path("a.json"));
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, readFile(path("b.json")));
    auto ja = nlohmann::json::parse(a), jc = nlohmann::json::parse(readFile(path("c.json")));
    ja.erase("seed");
    jc.erase("seed");
    EXPECT_NE(ja.dump(), jc.dump()) << "a different seed must change the simulated figures";
}

TEST_F(Cli, SetOverridesAParameterAndIsValidated) {
    auto o = runCli("run labs/fanout --set params.requests=20000 --out " + path("r.json"));
    ASSERT_EQ(o.exit_code, 0) << o.out;
    const auto j = nlohmann::json::parse(readFile(path("r.json")));
    EXPECT_EQ(j.at("parameters").at("requests"), 20000);
    o = runCli("run labs/fanout --set params.requests=lots");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("--set params.requests"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("expected a number"), std::string::npos) << o.out;
    o = runCli("run labs/fanout --set params.no_such_knob=1");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("unknown key 'no_such_knob'"), std::string::npos) << o.out;
}

TEST_F(Cli, BadScenarioFileGivesFileLineColumn) {
    std::ofstream(path("bad.json")) << "{\n  \"schema_version\": 1,\n  \"name\": \"bad\",\n"
                                       "  \"lab\": \"fanout\",\n  \"params\": {\"requets\": 5}\n}\n";
    const auto o = runCli("run " + path("bad.json"));
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find(path("bad.json") + ":5:14: /params/requets: unknown key 'requets'; did you mean 'requests'?"),
              std::string::npos)
        << o.out;
}

TEST_F(Cli, MissingScenarioAndBadOptions) {
    auto o = runCli("run no/such/scenario");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("no scenario file 'no/such/scenario'"), std::string::npos) << o.out;
    o = runCli("run labs/fanout --seed -3");
    EXPECT_EQ(o.exit_code, 2);
    o = runCli("run labs/fanout --bogus");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("unknown option '--bogus'"), std::string::npos);
    o = runCli("run");
    EXPECT_EQ(o.exit_code, 2);
}

// Outputs that would destroy what is being read are refused before the work, and a result that
// could not be written to standard output is not a success.
TEST_F(Cli, AnOutputThatIsAnInputIsRefusedAndLostStandardOutputFails) {
    const std::string scenario = path("s.json");
    fs::copy_file(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/averaging-percentiles.json", scenario);
    const std::string before = readFile(scenario);
    auto o = runCli("run " + scenario + " --set params.requests=1000 --out " + scenario);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.out.find("is also an input"), std::string::npos) << o.out;
    EXPECT_EQ(readFile(scenario), before);

    std::ofstream(path("lat.txt")) << "1\n2\n3\n";
    o = runCli("hdr " + path("lat.txt") + " --hgrm " + path("lat.txt"));
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_EQ(readFile(path("lat.txt")), "1\n2\n3\n");

    if (fs::exists("/dev/full")) {
        o = taillab::test::runShell(std::string(TAILLAB_CLI_PATH) +
                                    " run labs/averaging-percentiles --set params.requests=1000 "
                                    "2>&1 >/dev/full");
        EXPECT_NE(o.exit_code, 0);
        EXPECT_NE(o.out.find("cannot write standard output"), std::string::npos) << o.out;
    }
}

// Every command that writes --out checks where it goes before any work: a missing directory, a
// "directory" that is a file, and (for a user the permissions bind) a directory it may not write
// in are each refused with exit 2 and no trace of a run (no progress line, no live load line).
TEST_F(Cli, AnOutFileThatCannotBeWrittenIsRefusedBeforeAnyCommandWorks) {
    std::ofstream(path("file")) << "a file, not a directory\n";
    fs::create_directory(path("locked"));
    fs::permissions(path("locked"), fs::perms::owner_read | fs::perms::owner_exec);
    std::vector<std::pair<std::string, std::string>> outs{
        {path("no/such/dir/r.json"), "the directory '" + path("no/such/dir") + "' does not exist"},
        {path("file/r.json"), "'" + path("file") + "' is not a directory"}};
    if (::geteuid() != 0) outs.push_back({path("locked/r.json"), "cannot write in '" + path("locked") + "'"});
    for (const std::string& command :
         {std::string("run labs/fanout --set params.requests=2000"),
          std::string("sweep labs/fanout --set params.requests=2000 --vary params.backends=1,2"),
          std::string("compare labs/fanout --set params.requests=2000 --b-set params.backends=10"),
          std::string("twin gateway/day-eu-atlas-slow --duration 1s"),
          std::string("live gateway/day-eu-atlas-slow --duration 1s")})
        for (const auto& [out, says] : outs) {
            const auto o = runCli(command + " --out " + out);
            EXPECT_EQ(o.exit_code, 2) << command << " --out " << out << "\n" << o.out;
            EXPECT_NE(o.out.find("--out " + out + ": " + says), std::string::npos) << command << "\n" << o.out;
            for (const char* work : {"ran in", "done in", "[1/", "simulated then live", "load: "})
                EXPECT_EQ(o.out.find(work), std::string::npos) << command << ": " << work << "\n" << o.out;
        }
    fs::permissions(path("locked"), fs::perms::owner_all);
}

// --out /dev/stdout writes through the descriptor the shell gave: a log it appends to (>>) keeps
// what it held and gets the result after it, instead of being replaced by it.
TEST_F(Cli, OutToStandardOutputAppendsWhereTheShellSaysSo) {
    const std::string log = path("log.txt");
    std::ofstream(log) << "EXISTING LOG LINE\n";
    const auto o = taillab::test::runShell(std::string(TAILLAB_CLI_PATH) +
                                           " run labs/averaging-percentiles --set params.requests=1000"
                                           " --out /dev/stdout 2>/dev/null >> " + log);
    EXPECT_EQ(o.exit_code, 0) << o.out;
    const std::string text = readFile(log);
    ASSERT_EQ(text.rfind("EXISTING LOG LINE\n", 0), 0u) << text.substr(0, 200);
    const auto j = nlohmann::json::parse(text.substr(std::string("EXISTING LOG LINE\n").size()), nullptr, false);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["lab"], "averaging_percentiles");
}

// A FIFO (as a device or a shell's >(...)) is written to, not replaced by a plain file.
TEST_F(Cli, AFifoOutputGetsTheResultAndStaysAFifo) {
    const std::string fifo = path("out.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto o = runCli("run labs/averaging-percentiles --set params.requests=1000 --out " + fifo +
                          " & timeout 60 cat " + fifo + " > " + path("got.json") + "; wait");
    EXPECT_TRUE(fs::is_fifo(fifo));
    const auto j = nlohmann::json::parse(readFile(path("got.json")), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << o.out;
    EXPECT_EQ(j["lab"], "averaging_percentiles");
}

}  // namespace
