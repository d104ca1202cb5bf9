// taillab-cli compare as a user runs it: the real binary, result files written by `run --out`,
// exit codes and messages. Small labs and request counts keep every run well under a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.h"

namespace {

using taillab::test::lines;
using taillab::test::readFile;
using ojson = nlohmann::ordered_json;

struct CliRun {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

// The text from the first line starting with `marker` on ("" when there is none).
std::string from(const std::string& text, const std::string& marker) {
    const auto at = text.find("\n" + marker);
    return at == std::string::npos ? "" : text.substr(at + 1);
}

const std::string kFanout = "labs/fanout --set params.requests=2000";
// Coordinated omission has a time chart ("windows"); 4 s of it take a few milliseconds.
const std::string kOmission = "labs/coordinated-omission --set params.duration_s=4";

class CompareCli : public taillab::test::ScratchDirTest {
  protected:
    CliRun runCli(const std::string& args) const {
        const std::string errPath = path("stderr.txt");
        const auto r =
            taillab::test::runShell(std::string(TAILLAB_CLI_PATH) + " " + args + " 2>" + errPath);
        return CliRun{r.exit_code, r.out, readFile(errPath)};
    }
    // Runs `run` with the arguments and writes the result to `file` in the scratch directory.
    std::string writeResult(const std::string& args, const std::string& file) const {
        const auto o = runCli("run " + args + " --out " + path(file));
        EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 3) << o.err;
        return path(file);
    }
};

TEST_F(CompareCli, TwoResultFilesGiveTheDifferencesOfTheirFigures) {
    const std::string a = writeResult(kFanout, "a.json");
    const std::string b = writeResult(kFanout + " --set params.backends=10", "b.json");
    const auto o = runCli("compare " + a + " " + b + " --format json");
    // The scenario's figures hold for 100 backends: on B's side they do not apply.
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const ojson j = ojson::parse(o.out);
    const ojson ra = ojson::parse(readFile(a));
    const ojson rb = ojson::parse(readFile(b));

    EXPECT_EQ(j.at("a").at("source"), a);
    EXPECT_EQ(j.at("a").at("kind"), "result");
    EXPECT_EQ(j.at("a").at("lab"), "fanout");
    EXPECT_EQ(j.at("a").at("seed"), 1);
    EXPECT_EQ(j.at("a").at("differing_parameters"), ojson({{"backends", 100}}));
    EXPECT_EQ(j.at("b").at("differing_parameters"), ojson({{"backends", 10}}));

    const auto& figures = j.at("figures");
    ASSERT_EQ(figures.size(), ra.at("figures").size());
    std::size_t k = 0;
    for (const auto& [name, value] : ra.at("figures").items()) {
        const auto& row = figures.at(k++);
        ASSERT_EQ(row.at("name"), name) << "A's figure order";
        const double va = value.get<double>();
        const double vb = rb.at("figures").at(name).get<double>();
        EXPECT_EQ(row.at("a").get<double>(), va) << name;
        EXPECT_EQ(row.at("b").get<double>(), vb) << name;
        EXPECT_EQ(row.at("b_minus_a").get<double>(), vb - va) << name;
        if (va == 0) {
            EXPECT_TRUE(row.at("relative_change").is_null()) << name;
        } else {
            EXPECT_EQ(row.at("relative_change").get<double>(), (vb - va) / std::abs(va)) << name;
        }
    }

    const auto& checks = j.at("checks");
    ASSERT_EQ(checks.size(), ra.at("checks").size());
    bool bUndecided = false;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        EXPECT_EQ(checks[i].at("name"), ra.at("checks")[i].at("name"));
        EXPECT_EQ(checks[i].at("a_pass"), ra.at("checks")[i].at("pass"));
        EXPECT_EQ(checks[i].at("b_pass"), rb.at("checks")[i].at("pass"));
        // A check that decided nothing has no pass either way.
        if (checks[i].at("b_applies") == false) {
            EXPECT_TRUE(checks[i].at("b_pass").is_null()) << checks[i];
            bUndecided = true;
        }
    }
    EXPECT_TRUE(bUndecided) << "the test means B to have checks that do not apply";
    EXPECT_TRUE(j.at("series").empty()) << "fanout has no per-window chart";
}

TEST_F(CompareCli, ScenarioWithBSetGivesTheSameTablesAsItsTwoResultFiles) {
    const std::string change = "--set params.stall_s=1";
    const std::string a = writeResult(kOmission, "a.json");
    const std::string b = writeResult(kOmission + " " + change, "b.json");
    for (const char* format : {"md", "csv"}) {
        const std::string options = std::string(" --series all --quiet --format ") + format;
        const auto files = runCli("compare " + a + " " + b + options);
        const auto scenario =
            runCli("compare " + kOmission + " --b-set params.stall_s=1" + options);
        const auto mixed = runCli("compare " + a + " " + kOmission + " " + change + options);
        ASSERT_EQ(files.exit_code, 0) << files.err;
        ASSERT_EQ(scenario.exit_code, 0) << scenario.err;
        ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
        // Only the lines saying where each side came from differ.
        const std::string marker = std::string(format) == "md" ? "## Parameters" : "parameter,";
        const std::string tables = from(files.out, marker);
        ASSERT_FALSE(tables.empty()) << files.out;
        EXPECT_NE(tables.find("stall_s"), std::string::npos) << tables;
        EXPECT_EQ(from(scenario.out, marker), tables) << format;
        EXPECT_EQ(from(mixed.out, marker), tables) << format;
    }
}

TEST_F(CompareCli, SameBytesForAnyNumberOfJobs) {
    const std::string args = "compare " + kFanout + " --b-set params.backends=10 --quiet";
    const auto one = runCli(args + " --jobs 1");
    const auto two = runCli(args + " --jobs 2");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(one.out, two.out);
    EXPECT_EQ(one.out, runCli(args).out);
}

TEST_F(CompareCli, MarkdownTablesHaveHeadersWithUnits) {
    const auto o =
        runCli("compare " + kOmission + " --b-set params.duration_s=5 --series windows --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = lines(o.out);
    auto has = [&](const std::string& line) {
        return std::find(rows.begin(), rows.end(), line) != rows.end();
    };
    EXPECT_EQ(rows.at(0), "# Two runs of lab coordinated_omission");
    EXPECT_TRUE(has("- A: `" + kOmission + "` (scenario): scenario coordinated-omission, seed 3"))
        << o.out;
    EXPECT_TRUE(has("| parameter | A | B |")) << o.out;
    EXPECT_TRUE(has("| duration_s | 4 | 5 |")) << o.out;
    EXPECT_TRUE(has("| figure | A | B | B − A | (B − A)/\\|A\\| |")) << o.out;
    EXPECT_TRUE(has("| open_loop_requests | 4000 | 5000 | +1000 | +25% |")) << o.out;
    EXPECT_TRUE(has("| check | A | B |")) << o.out;
    // Without a stall (it is at 30 s) every window's p99 is its max: the title says so.
    EXPECT_TRUE(has("## Series: windows (Per-window p99 and max (p99 ≈ max in both loops))"))
        << o.out;
    const std::string header =
        "| Send time (s) | A open loop max (ms) | B open loop max (ms) | "
        "B−A open loop max (ms) | A open loop p99 (ms) |";
    const auto series = std::find_if(rows.begin(), rows.end(),
                                     [&](const std::string& r) { return r.rfind(header, 0) == 0; });
    ASSERT_NE(series, rows.end()) << o.out;
    // Windows 0..3 in both runs, window 4 only in B: A's cells and the differences are empty.
    ASSERT_EQ(rows.end() - series, 2 + 5) << o.out;
    EXPECT_EQ(series[2].rfind("| 0 | 0.5 | 0.5 | 0 |", 0), 0u) << series[2];
    EXPECT_EQ(series[6].rfind("| 4 |  | 0.5 |  |", 0), 0u) << series[6];
}

TEST_F(CompareCli, CsvSectionsAreSeparatedByBlankLinesEachWithItsHeader) {
    const auto o = runCli("compare " + kOmission +
                          " --b-set params.duration_s=5 --series all --format csv --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::vector<std::vector<std::string>> sections(1);
    for (const auto& line : lines(o.out)) {
        if (line.empty()) {
            sections.emplace_back();
        } else {
            sections.back().push_back(line);
        }
    }
    ASSERT_EQ(sections.size(), 5u) << o.out;
    EXPECT_EQ(sections[0].at(0), "side,source,kind,lab,scenario,seed");
    EXPECT_EQ(sections[0].size(), 3u);
    EXPECT_EQ(sections[1].at(0), "parameter,A,B");
    EXPECT_EQ(sections[1].at(1), "duration_s,4.0,5.0");
    EXPECT_EQ(sections[2].at(0), "figure,A,B,B − A,(B − A)/|A|");
    EXPECT_EQ(sections[2].at(1), "open_loop_requests,4000.0,5000.0,1000.0,0.25");
    EXPECT_EQ(sections[3].at(0), "check,A,B");
    EXPECT_EQ(
        sections[4].at(0).rfind("chart,x,A open loop max,B open loop max,B−A open loop max,", 0),
        0u)
        << sections[4].at(0);
    ASSERT_EQ(sections[4].size(), 1u + 5u);
    EXPECT_EQ(sections[4].back().rfind("windows,4.0,,0.5,,", 0), 0u) << sections[4].back();
}

TEST_F(CompareCli, PercentilesOverTimeAreShownUnlessSeriesSaysNone) {
    const std::string a = writeResult("labs/gateway --set params.days=1", "a.json");
    const std::string b =
        writeResult("labs/gateway --set params.days=1 --set params.deadline_ms=800", "b.json");
    auto o = runCli("compare " + a + " " + b + " --format json");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto j = ojson::parse(o.out);
    ASSERT_EQ(j.at("series").size(), 1u);
    const auto& chart = j.at("series")[0];
    EXPECT_EQ(chart.at("chart"), "percentiles_over_time");
    ASSERT_FALSE(chart.at("x").empty());
    for (const auto& s : chart.at("series")) {
        ASSERT_EQ(s.at("a").size(), chart.at("x").size());
        for (std::size_t i = 0; i < s.at("a").size(); ++i) {
            if (s.at("a")[i].is_null() || s.at("b")[i].is_null()) continue;
            EXPECT_EQ(s.at("b_minus_a")[i].get<double>(),
                      s.at("b")[i].get<double>() - s.at("a")[i].get<double>());
        }
    }
    EXPECT_EQ(j.at("a").at("differing_parameters"), ojson({{"deadline_ms", 600.0}}));

    o = runCli("compare " + a + " " + b + " --format json --series none");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_TRUE(ojson::parse(o.out).at("series").empty());
    o = runCli("compare " + a + " " + b +
               " --format json --series hedging_over_time,cache_over_time");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    j = ojson::parse(o.out);
    ASSERT_EQ(j.at("series").size(), 2u);
    EXPECT_EQ(j.at("series")[1].at("chart"), "cache_over_time");
}

// Points at one x are only comparable when they end windows of one width: with another
// window_s, B - A is left out and said why; runs of other lengths but one window still compare.
TEST_F(CompareCli, SeriesOfOtherWindowWidthsAreShownWithoutDifferences) {
    auto o = runCli("compare labs/coordinated-omission --set params.duration_s=40 --b-set params.window_s=2.5 "
                    "--format json --series windows --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto j = ojson::parse(o.out);
    ASSERT_EQ(j.at("series").size(), 1u);
    const auto& chart = j.at("series")[0];
    ASSERT_TRUE(chart.contains("windows_differ")) << chart.dump();
    std::size_t both = 0;
    for (const auto& s : chart.at("series"))
        for (std::size_t i = 0; i < s.at("a").size(); ++i) {
            both += !s.at("a")[i].is_null() && !s.at("b")[i].is_null();
            EXPECT_TRUE(s.at("b_minus_a")[i].is_null());
        }
    EXPECT_GT(both, 0u);  // x values they share: the case that was subtracted
    EXPECT_NE(o.err.find("windows of other widths"), std::string::npos) << o.err;

    // One window width: other lengths (a shorter last window in one of them), and windows with no
    // answers (so no point) in one run only, still compare.
    for (const std::string& args :
         {kOmission + " --b-set params.duration_s=8 --series windows",
          std::string("labs/gateway --set params.days=1 --set params.window_s=700 --set params.load_multiplier=0.1 "
                      "--b-set params.days=2"),
          std::string("labs/gateway --set params.days=1 --set params.window_s=10 --set params.probes=false "
                      "--set params.load_multiplier=0.1 --b-set params.load_multiplier=0.12")}) {
        o = runCli("compare " + args + " --format json --quiet");
        ASSERT_EQ(o.exit_code, 0) << o.err;
        j = ojson::parse(o.out);
        ASSERT_FALSE(j.at("series").empty()) << args;
        EXPECT_FALSE(j.at("series")[0].contains("windows_differ")) << args;
    }
}

// A --series name that neither side will have is refused before either side runs (no "ran in"
// line; the gateway's full week would take minutes), naming the charts the sides do have, which
// follow the scenario's params (the gateway's provider shares come with gateway compute only).
TEST_F(CompareCli, AnUnknownSeriesIsRefusedBeforeAnythingRuns) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {kOmission + " --b-set params.duration_s=5 --series window",
         {"--series: no time chart 'window' in A or B", "they have: windows"}},
        {"labs/fanout --b-set params.backends=10 --series windows", {"no time chart 'windows'", "they have none"}},
        {"labs/gateway --b-set params.hedge_budget=0.1 --series percentiles_over_time,provider_shares",
         {"no time chart 'provider_shares'", "percentiles_over_time, hedging_over_time"}},
        {std::string(writeResult(kOmission, "omission.json")) + " labs/coordinated-omission --series nope",
         {"no time chart 'nope'", "windows"}},
    };
    for (const auto& [args, needles] : cases) {
        const auto o = runCli("compare " + args);
        EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
        EXPECT_TRUE(o.out.empty()) << args << ": " << o.out;
        EXPECT_EQ(o.err.find("ran in"), std::string::npos) << args << "\n" << o.err;
        for (const auto& needle : needles)
            EXPECT_NE(o.err.find(needle), std::string::npos) << args << "\n" << o.err;
    }
    // With gateway compute on one side, its chart is there to name.
    const auto o = runCli("compare labs/gateway --set params.days=1 --set params.load_multiplier=0.1 "
                          "--b-set params.gateway_compute=true --series provider_shares --format json --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const ojson j = ojson::parse(o.out);
    ASSERT_EQ(j.at("series").size(), 1u);
    EXPECT_EQ(j.at("series")[0].at("chart"), "provider_shares");
}

// A cancelled or partial run, or a result file with a key twice, is refused with where and why.
TEST_F(CompareCli, PartialRunsAndDuplicateKeysAreRefused) {
    const std::string a = writeResult(kFanout, "a.json");
    ojson doc = ojson::parse(readFile(a));
    doc["cancelled"] = true;
    doc["progress"] = 0.4;
    std::ofstream(path("partial.json")) << doc.dump(2);
    auto o = runCli("compare " + path("partial.json") + " " + a);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("/cancelled: a cancelled run"), std::string::npos) << o.err;
    doc.erase("cancelled");
    std::ofstream(path("partial.json")) << doc.dump(2);
    o = runCli("compare " + path("partial.json") + " " + a);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("/progress: a run 40% done"), std::string::npos) << o.err;

    std::string text = readFile(a);
    const std::string figures = "\"figures\": {";
    const auto at = text.find(figures);
    ASSERT_NE(at, std::string::npos);
    const ojson first = ojson::parse(text).at("figures").items().begin().key();
    text.insert(at + figures.size(), "\"" + first.get<std::string>() + "\": 9, ");
    std::ofstream(path("dup.json")) << text;
    o = runCli("compare " + path("dup.json") + " " + a);
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("dup.json:"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("duplicate key"), std::string::npos) << o.err;
}

// Two runs that share every parameter can still differ in their timelines (a fault, a knob
// changed mid-run): compare lists the events only one of them has.
TEST_F(CompareCli, TimelinesThatDifferAreListed) {
    const auto o = runCli("compare gateway/day-eu-atlas-slow labs/gateway --set params.load_multiplier=0.1 "
                          "--format json --series none --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto j = ojson::parse(o.out);
    const auto& differences = j.at("timeline").at("differences");
    ASSERT_EQ(differences.size(), 3u) << differences.dump();
    EXPECT_EQ(differences[1].at("a_index"), 1);
    EXPECT_TRUE(differences[1].at("b_index").is_null());
    EXPECT_EQ(differences[1].at("at_s"), 9.5 * 3600);
    EXPECT_EQ(differences[1].at("text"), "timeline[1] (Tue 09:30, 'atlas slow ×3 (EU)'): only in A");
    EXPECT_TRUE(j.at("timeline").at("labels_only").empty());
    const auto md = runCli("compare gateway/day-eu-atlas-slow gateway/day-eu-atlas-slow --set "
                           "params.load_multiplier=0.1 --series none --quiet");
    EXPECT_NE(md.out.find("## Timeline that differs\n\nNone.\n\n## Figures"), std::string::npos) << md.out;
    // One timeline under other parameters: a knob change's chart mark names the value before
    // it, which the parameters set; what the change sets is the same, so nothing differs.
    const auto same = runCli("compare gateway/day-eu-atlas-slow --set params.load_multiplier=0.1 "
                             "--b-set params.hedge_budget=0.1 --format json --series none --quiet");
    ASSERT_EQ(same.exit_code, 0) << same.err;
    const auto js = ojson::parse(same.out);
    EXPECT_TRUE(js.at("timeline").at("differences").empty()) << js.at("timeline").dump();
    EXPECT_TRUE(js.at("timeline").at("labels_only").empty()) << js.at("timeline").dump();
}

// An event compares by what it does: its time, the knobs it sets, its fault. A label only names
// it on the charts, so a new label alone is noted apart and never stands in for a value that
// changed (a custom label hides the values from the chart's mark).
TEST_F(CompareCli, TimelineEventsCompareByWhatTheyDoNotByTheirLabels) {
    const std::string gw = "gateway/day-eu-atlas-slow --set params.load_multiplier=0.1";
    const std::string options = " --series none --quiet";
    const auto delay = runCli("compare " + gw + " --b-set timeline.0.set.hedge_delay_ms=200" + options);
    ASSERT_EQ(delay.exit_code, 0) << delay.err;
    EXPECT_NE(delay.out.find("## Timeline that differs\n\n"
                             "- timeline[0] (Tue 07:00, 'operator: fixed 300 ms hedge'): "
                             "hedge_delay_ms 300 -> 200\n\n## Figures"),
              std::string::npos)
        << delay.out;
    const auto label = runCli("compare " + gw + " --b-set timeline.0.label=foo" + options);
    ASSERT_EQ(label.exit_code, 0) << label.err;
    EXPECT_NE(label.out.find("## Timeline that differs\n\nNone.\n\n"
                             "Labels only (the events and so the runs are the same):\n\n"
                             "- timeline[0] (Tue 07:00): label 'operator: fixed 300 ms hedge' -> "
                             "'foo'\n\n## Figures"),
              std::string::npos)
        << label.out;
    const auto both = runCli("compare " + gw + " --b-set timeline.0.label=foo --b-set "
                             "timeline.1.fault.factor=4 --b-set timeline.2.at=57600 --b-set "
                             "'timeline.0.set.hedge_mode=rolling p90 per (region, engine)' --format json" + options);
    ASSERT_EQ(both.exit_code, 0) << both.err;
    const auto t = ojson::parse(both.out).at("timeline");
    ASSERT_EQ(t.at("differences").size(), 3u) << t.dump(1);
    EXPECT_TRUE(t.at("labels_only").empty()) << t.dump(1);
    const auto& knob = t.at("differences")[0];
    EXPECT_EQ(knob.at("text"), "timeline[0] (Tue 07:00, 'operator: fixed 300 ms hedge'): "
                               "hedge_mode fixed -> rolling p90 per (region, engine); "
                               "label 'operator: fixed 300 ms hedge' -> 'foo'");
    EXPECT_EQ(knob.at("changes"),
              ojson::parse(R"j([{"name": "hedge_mode", "a": "fixed",
                                     "b": "rolling p90 per (region, engine)"}])j"));
    EXPECT_EQ(knob.at("a_label"), "operator: fixed 300 ms hedge");
    EXPECT_EQ(knob.at("b_label"), "foo");
    EXPECT_EQ(t.at("differences")[1].at("text"),
              "timeline[1] (Tue 09:30, 'atlas slow ×3 (EU)'): fault.factor 3 -> 4");
    EXPECT_EQ(t.at("differences")[2].at("text"),
              "timeline[2] (Tue 15:00, 'hedge_budget 0.075'): at Tue 15:00 -> Tue 16:00");
    EXPECT_EQ(t.at("differences")[2].at("changes"),
              ojson::parse(R"([{"name": "at", "a": 54000, "b": 57600}])"));
}

// A result file records the timeline its run applied, so two result files, or a result and a
// scenario, compare their events as two scenarios do; a result written before results recorded
// it has only its charts' marks, and compare says it cannot tell what its events did.
TEST_F(CompareCli, ResultFilesCompareTheirTimelinesEventByEvent) {
    const std::string gw = "gateway/day-eu-atlas-slow --set params.load_multiplier=0.1";
    const std::string change = " --set timeline.0.set.hedge_delay_ms=200";
    const std::string a = writeResult(gw, "a.json");
    const std::string b = writeResult(gw + change, "b.json");
    const std::string options = " --series none --quiet";
    const auto files = runCli("compare " + a + " " + b + options);
    const auto mixed = runCli("compare " + a + " " + gw + change + options);
    const auto scenarios = runCli("compare " + gw + " --b-set timeline.0.set.hedge_delay_ms=200" + options);
    ASSERT_EQ(files.exit_code, 0) << files.err;
    const std::string tables = from(files.out, "## Parameters");
    EXPECT_NE(tables.find("hedge_delay_ms 300 -> 200"), std::string::npos) << tables;
    EXPECT_EQ(from(mixed.out, "## Parameters"), tables);
    EXPECT_EQ(from(scenarios.out, "## Parameters"), tables);

    ojson old = ojson::parse(readFile(a));
    ASSERT_TRUE(old.contains("annotations"));
    old.erase("timeline");
    std::ofstream(path("old.json")) << old.dump(2);
    const auto o = runCli("compare " + path("old.json") + " " + b + " --format json" + options);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto t = ojson::parse(o.out).at("timeline");
    EXPECT_EQ(t.at("not_compared").get<std::string>().rfind("A is a result file from before results "
                                                            "recorded the timeline they ran", 0),
              0u)
        << t.dump();
    EXPECT_TRUE(t.at("differences").empty());

    // The recorded timeline is read as a scenario's is: a bad one is refused at its path.
    ojson bad = ojson::parse(readFile(a));
    bad["timeline"][1]["fault"]["effect"] = "melted";
    std::ofstream(path("bad.json")) << bad.dump(2);
    const auto refused = runCli("compare " + path("bad.json") + " " + b);
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("A: " + path("bad.json") +
                               ": not a result of taillab-cli run: /timeline/1/fault/effect: "),
              std::string::npos)
        << refused.err;
}

// Runs with other seeds differ by chance alone: the seed is listed with what differs, in every
// form, not only in the lines naming the sides.
TEST_F(CompareCli, ASeedThatDiffersIsListedWithTheParameters) {
    const std::string r1 = writeResult(kFanout, "r1.json");
    const auto o = runCli("compare " + r1 + " " + kFanout + " --seed 2 --format json --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const ojson j = ojson::parse(o.out);
    EXPECT_EQ(j.at("a").at("differing_parameters"), ojson({{"seed", 1}})) << j.at("a").dump();
    EXPECT_EQ(j.at("b").at("differing_parameters"), ojson({{"seed", 2}})) << j.at("b").dump();
    const auto md = runCli("compare " + r1 + " " + kFanout + " --seed 2 --quiet");
    ASSERT_EQ(md.exit_code, 0) << md.err;
    EXPECT_NE(md.out.find("## Parameters that differ\n\n| parameter | A | B |\n|---|---:|---:|\n"
                          "| seed | 1 | 2 |\n\n"),
              std::string::npos)
        << md.out;
    const auto csv = runCli("compare " + r1 + " " + kFanout + " --seed 2 --format csv --quiet");
    EXPECT_NE(csv.out.find("\nparameter,A,B\nseed,1,2\n"), std::string::npos) << csv.out;
}

// A side's command line is one `run` takes and that gives that side: a seed given twice (--seed,
// then --a-set seed=...) is the last one, given once; a value with spaces is quoted for the shell.
TEST_F(CompareCli, EachSidesCommandLineRunsAsThatSide) {
    const auto o = runCli("compare " + kFanout + " --seed 3 --a-set seed=4 --a-set \"notes=A's run\""
                          " --b-set params.backends=10 --series none --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = lines(o.out);
    const std::string sideA = "- A: `" + kFanout +
                              " --seed 4 --set 'notes=A'\\''s run'` (scenario): scenario fanout, seed 4";
    const std::string sideB = "- B: `" + kFanout + " --seed 3 --set params.backends=10` (scenario): "
                              "scenario fanout, seed 3";
    ASSERT_EQ(rows.at(2), sideA) << o.out;
    ASSERT_EQ(rows.at(3), sideB) << o.out;
    for (const auto& [row, seed] : {std::pair{sideA, 4}, std::pair{sideB, 3}}) {
        const std::string line = row.substr(row.find('`') + 1, row.rfind('`') - row.find('`') - 1);
        const std::string file = "side" + std::to_string(seed) + ".json";
        const auto run = runCli("run " + line + " --out " + path(file));
        ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 3) << line << "\n" << run.err;
        EXPECT_EQ(ojson::parse(readFile(path(file))).at("seed"), seed) << line;
    }
}

TEST_F(CompareCli, BadInputIsExit2WithAMessageNamingTheProblem) {
    const std::string a = writeResult(kFanout, "a.json");
    const std::string b = writeResult(kFanout + " --set params.backends=10", "b.json");
    const std::string h = writeResult(
        "labs/hedge-idle --set params.requests=2000 --set params.calibration_samples=2000",
        "h.json");
    std::ofstream(path("broken.json")) << "{\"lab\": \"fanout\", \"figures\": {";
    std::ofstream(path("malformed.json")) << readFile(a).replace(
        readFile(a).find("\"slow_fraction\": "), 17, "\"slow_fraction\": \"lots\", \"x\": ");
    // A check that applies decided something: a null `pass` needs the reason it did not.
    std::ofstream(path("undecided.json")) << readFile(a).replace(
        readFile(a).find("\"pass\": true"), 12, "\"pass\": null");
    // `run` words a bad override; compare says the same about the side it belongs to, naming
    // the option that gave it.
    const auto run = runCli("run " + kFanout + " --set params.nope=1");
    ASSERT_EQ(run.exit_code, 2);
    std::string runMessage = run.err.substr(run.err.find(": ") + 2);
    ASSERT_NE(runMessage.find("(--set params.nope)"), std::string::npos) << runMessage;
    runMessage.replace(runMessage.find("(--set params.nope)"), 6, "(--b-set");

    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"", {"missing A"}},
        {path("nosuch.json") + " " + b, {"A: no scenario file '" + path("nosuch.json") + "'"}},
        {a + " " + path("broken.json"), {"B: " + path("broken.json") + ":1:", "invalid JSON"}},
        {path("malformed.json") + " " + b,
         {"not a result of taillab-cli run", "/figures/slow_fraction: expected a number or null"}},
        {path("undecided.json") + " " + b,
         {"/checks/0/pass: expected true or false (null only beside a not_applicable or "
          "inconclusive reason)"}},
        {a + " " + h, {"different labs", "lab 'fanout'", "lab 'hedge_idle'"}},
        {"labs/fanout labs/hedge-idle", {"lab 'fanout'", "lab 'hedge_idle'"}},
        {kFanout + " --b-set params.nope=1", {"B: " + runMessage.substr(0, runMessage.size() - 1)}},
        {kFanout + " --b-set params.backends=lots", {"B: ", "/params/backends", "\"lots\""}},
        {kFanout, {"at least one --b-set"}},
        {a + " --b-set params.backends=3", {"A must be a scenario", "is a result file"}},
        {a + " " + b + " --a-set params.backends=3", {"--a-set params.backends=3", "result file"}},
        {a + " " + b + " --seed 3", {"both result files"}},
        {a + " " + b + " --series windows", {"no time chart 'windows'"}},
        {a + " " + b + " --format xml", {"--format"}},
        {a + " " + b + " " + a, {"more than two inputs"}},
        {a + " " + b + " --bogus", {"unknown option '--bogus'"}},
    };
    for (const auto& [args, needles] : cases) {
        const auto o = runCli("compare " + args);
        EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
        EXPECT_TRUE(o.out.empty()) << args << ": " << o.out;
        for (const auto& needle : needles)
            EXPECT_NE(o.err.find(needle), std::string::npos) << args << "\n" << o.err;
    }
}

// B changes a knob the scenario's quoted figures depend on: on B's side they are not applicable
// (B does not even report the hedged one), while A, at the scenario's own knobs, checks them.
TEST_F(CompareCli, TheScenarioFiguresDoNotApplyToAWhatIfSide) {
    const auto o = runCli("compare labs/fanout-hedge-independent --b-set params.hedge_mode=none"
                          " --format json --series none --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto doc = nlohmann::json::parse(o.out);
    // The quoted figures (named "... (expected)") are the checks that apply on A's side and not
    // on B's; the lab's own may be undecided on both (the backend's p99 falls between its modes,
    // where no run decides it).
    int quoted = 0;
    for (const auto& c : doc.at("checks")) {
        const bool quotes = c.at("name").get<std::string>().ends_with(" (expected)");
        EXPECT_EQ(quotes, c.at("a_applies") == true && c.at("b_applies") == false) << c;
        if (quotes) {
            ++quoted;
            EXPECT_EQ(c.at("a_pass"), true) << c;
        }
    }
    EXPECT_EQ(quoted, 2);
    const auto md = runCli("compare labs/fanout-hedge-independent --b-set params.hedge_mode=none"
                           " --series none --quiet");
    EXPECT_NE(md.out.find("| n/a |"), std::string::npos) << md.out;
}

// A check too wide to decide at B's few requests is inconclusive there, and says so: "n/a" is for
// a check that does not apply to the side's knobs (B's quoted figures, here).
TEST_F(CompareCli, AnInconclusiveCheckIsCalledInconclusive) {
    const auto o = runCli("compare labs/fanout --b-set params.requests=1000 --series none --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("| pass | inconclusive |"), std::string::npos) << o.out;
}

TEST_F(CompareCli, HelpDescribesCompareAndItsExitCode) {
    const auto o = runCli("--help");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_NE(o.out.find("taillab-cli compare A [B]"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Failed checks do not change compare's exit code"), std::string::npos)
        << o.out;
}

}  // namespace
