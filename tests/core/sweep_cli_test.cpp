// taillab-cli sweep as a user runs it: the real binary, real files, exit codes and messages.
// Small request counts keep each point well under a second.
#include <gtest/gtest.h>

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

struct Outcome {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

using taillab::test::lines;
using taillab::test::readFile;

std::vector<std::string> cells(const std::string& csvLine) {
    std::vector<std::string> out;
    std::stringstream s(csvLine);
    for (std::string cell; std::getline(s, cell, ',');) out.push_back(cell);
    if (!csvLine.empty() && csvLine.back() == ',') out.emplace_back();
    return out;
}

// hedge-idle has no scenario expectations and its lab checks hold at small request counts (those
// too wide to decide at 4,000 requests say inconclusive and are not counted).
const std::string kHedge =
    "labs/hedge-idle --set params.requests=4000 --set params.calibration_samples=4000";

// The checks of a result file that decide (neither inconclusive nor not applicable).
std::size_t decidingChecks(const nlohmann::ordered_json& checks) {
    std::size_t n = 0;
    for (const auto& c : checks)
        if (!c.contains("inconclusive") && !c.contains("not_applicable")) ++n;
    return n;
}

class SweepCli : public taillab::test::ScratchDirTest {
protected:
    Outcome runCli(const std::string& args) const {
        const std::string errPath = path("stderr.txt");
        const auto r = taillab::test::runShell(std::string(TAILLAB_CLI_PATH) + " " + args + " 2>" +
                                               errPath);
        return Outcome{r.exit_code, r.out, readFile(errPath)};
    }
};

TEST_F(SweepCli, RowsFollowTheCartesianProductAndMatchSingleRuns) {
    const auto o = runCli("sweep " + kHedge +
                          " --set params.hedge_mode=fixed --vary params.hedge_delay_ms=15,40"
                          " --vary params.shared_fraction=0,0.5,1 --jobs 2");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = lines(o.out);
    ASSERT_EQ(rows.size(), 1u + 6u) << o.out;
    const auto header = cells(rows[0]);
    ASSERT_GE(header.size(), 5u);
    EXPECT_EQ(header[0], "params.hedge_delay_ms");
    EXPECT_EQ(header[1], "params.shared_fraction");
    EXPECT_EQ(header[header.size() - 2], "checks_passed");
    EXPECT_EQ(header.back(), "checks_total");

    const std::vector<std::pair<std::string, std::string>> expected = {
        {"15", "0"}, {"15", "0.5"}, {"15", "1"}, {"40", "0"}, {"40", "0.5"}, {"40", "1"}};
    for (std::size_t r = 0; r < expected.size(); ++r) {
        const auto row = cells(rows[r + 1]);
        ASSERT_EQ(row.size(), header.size()) << rows[r + 1];
        EXPECT_EQ(row[0], expected[r].first);
        EXPECT_EQ(row[1], expected[r].second);
        EXPECT_EQ(row[row.size() - 2], row.back()) << "all checks pass at " << rows[r + 1];
    }

    // Two points, each against a single `run` with the same overrides: the same figures, in the
    // lab's order, written with the same bytes.
    for (const std::size_t r : {std::size_t{1}, std::size_t{5}}) {
        const auto single = runCli("run " + kHedge + " --set params.hedge_mode=fixed" +
                                   " --set params.hedge_delay_ms=" + expected[r].first +
                                   " --set params.shared_fraction=" + expected[r].second);
        ASSERT_EQ(single.exit_code, 0) << single.err;
        const auto j = nlohmann::ordered_json::parse(single.out);
        const auto& figures = j.at("figures");
        const auto row = cells(rows[r + 1]);
        ASSERT_EQ(header.size(), 2 + figures.size() + 2);
        std::size_t column = 2;
        for (const auto& [name, value] : figures.items()) {
            EXPECT_EQ(header[column], name);
            EXPECT_EQ(row[column], value.dump()) << name;
            ++column;
        }
        EXPECT_EQ(row[column], std::to_string(decidingChecks(j.at("checks"))));
    }
}

TEST_F(SweepCli, SameBytesForAnyNumberOfJobs) {
    const std::string args = "sweep labs/fanout --set params.requests=2000 --quiet"
                             " --vary params.backends=1,10,100 --vary seed=1,2";
    const auto one = runCli(args + " --jobs 1");
    const auto two = runCli(args + " --jobs 2");
    const auto all = runCli(args);
    EXPECT_EQ(lines(one.out).size(), 7u) << one.out;
    EXPECT_FALSE(one.out.empty());
    EXPECT_EQ(one.out, two.out);
    EXPECT_EQ(one.out, all.out);
    EXPECT_EQ(one.exit_code, two.exit_code);
    EXPECT_EQ(one.exit_code, all.exit_code);
}

// A --vary list written as a JSON array takes each element as one value: a choice whose name
// holds commas, or an array, is not cut at its commas. Strings read back as the same strings.
TEST_F(SweepCli, AJsonArrayVaryListKeepsCommasInsideItsValues) {
    auto o = runCli("sweep labs/gateway --quiet --format json --figures requests --vary "
                    "'params.hedge_mode=[\"fixed\", \"rolling p90 per (region, engine)\"]'");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = nlohmann::json::parse(o.out);
    ASSERT_EQ(rows.size(), 2u) << o.out;
    EXPECT_EQ(rows[0].at("point").at("params.hedge_mode"), "fixed") << o.out;
    EXPECT_EQ(rows[1].at("point").at("params.hedge_mode"), "rolling p90 per (region, engine)")
        << o.out;

    o = runCli("sweep labs/fanout --set params.requests=2000 --quiet --figures slow_fraction"
               " --vary 'params.backends=[1, 10]'");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto csv = lines(o.out);
    ASSERT_EQ(csv.size(), 3u) << o.out;
    EXPECT_EQ(cells(csv[1])[0], "1");
    EXPECT_EQ(cells(csv[2])[0], "10");

    for (const char* bad : {"'params.backends=[1, 10'", "'params.backends=[]'",
                            "'params.backends=[1, 10] x'"}) {
        o = runCli(std::string("sweep labs/fanout --vary ") + bad);
        EXPECT_EQ(o.exit_code, 2) << bad << "\n" << o.err;
        EXPECT_NE(o.err.find("--vary params.backends: "), std::string::npos) << o.err;
    }
}

TEST_F(SweepCli, FiguresOptionPicksAndOrdersColumns) {
    const auto o = runCli("sweep " + kHedge +
                          " --vary params.hedge_percentile=90,99 --quiet"
                          " --figures p999_after_ms,hedge_delay_ms --out " + path("t.csv"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    const auto rows = lines(readFile(path("t.csv")));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0],
              "params.hedge_percentile,p999_after_ms,hedge_delay_ms,checks_passed,checks_total");
    EXPECT_EQ(cells(rows[1]).size(), 5u);
    EXPECT_EQ(cells(rows[1])[0], "90");
    EXPECT_EQ(cells(rows[2])[0], "99");
}

TEST_F(SweepCli, BadPathValueOrFigureIsExit2WithNoTable) {
    auto o = runCli("sweep " + kHedge + " --vary params.no_such_knob=1,2 --out " + path("a.csv"));
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("--vary params.no_such_knob=1"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("unknown key 'no_such_knob'"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(path("a.csv")));

    o = runCli("sweep " + kHedge + " --vary params.hedge_delay_ms=10,lots");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_NE(o.err.find("--vary params.hedge_delay_ms=lots"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("expected a number"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("[1/"), std::string::npos) << "nothing may run: " << o.err;

    o = runCli("sweep " + kHedge + " --vary params.hedge_mode=fixed,sometimes");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_NE(o.err.find("--vary params.hedge_mode=sometimes"), std::string::npos) << o.err;

    // Refused before any point runs (no progress line), with the nearest name offered.
    o = runCli("sweep " + kHedge + " --vary params.hedge_delay_ms=10,20"
               " --figures p999_after_ms,p999_afterms");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_NE(o.err.find("--figures: lab 'hedge_idle' reports no figure 'p999_afterms' at any "
                         "point of this sweep; did you mean 'p999_after_ms'"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(o.err.find("[1/"), std::string::npos) << "nothing may run: " << o.err;

    for (const char* bad : {"--vary params.hedge_delay_ms", "--vary params.hedge_delay_ms=10,,20",
                            "--vary params.hedge_delay_ms=10 --jobs 0",
                            "--vary params.hedge_delay_ms=10 --format xml",
                            "--vary params.hedge_delay_ms=10 --vary params.hedge_delay_ms=20",
                            "--set params.requests=2000"}) {
        o = runCli("sweep labs/hedge-idle " + std::string(bad));
        EXPECT_EQ(o.exit_code, 2) << bad;
        EXPECT_TRUE(o.out.empty()) << bad << ": " << o.out;
        EXPECT_FALSE(o.err.empty()) << bad;
    }
}

// A timeline change that only some points make invalid: the sweep is refused before any point
// runs, naming the point (the file alone, and each value alone, are judged on the points). It
// used to run the valid points, then fail at the bad one with no table.
TEST_F(SweepCli, ATimelineChangeAPointMakesInvalidIsRefusedBeforeAnyPointRuns) {
    const std::string scenario = path("late.json");
    std::ofstream(scenario) << R"({"schema_version": 1, "name": "late", "lab": "gateway",
        "params": {"days": 1, "hedge_clamp_max_ms": 600},
        "timeline": [{"at": "Mon 23:00", "set": {"hedge_clamp_min_ms": 500}}]})";
    std::ofstream(path("old.csv")) << "old table\n";
    auto o = runCli("sweep " + scenario + " --vary params.hedge_clamp_max_ms=600,550,450 --out " +
                    path("old.csv"));
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("point params.hedge_clamp_max_ms=450: " + scenario + ":3:42: /timeline/0/set: "
                         "hedge_clamp_max_ms (450 ms) is below hedge_clamp_min_ms (500 ms)"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(o.err.find("[1/"), std::string::npos) << "nothing may run: " << o.err;
    EXPECT_EQ(readFile(path("old.csv")), "old table\n");
    // Whatever the file says, a sweep whose every point is valid runs.
    std::ofstream(scenario) << R"({"schema_version": 1, "name": "late", "lab": "gateway",
        "params": {"days": 1},
        "timeline": [{"at": "Mon 23:00", "set": {"hedge_clamp_min_ms": 500}}]})";
    o = runCli("sweep " + scenario + " --vary params.hedge_clamp_max_ms=600,550 --figures requests --quiet");
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(lines(o.out).size(), 3u) << o.out;
}

// A timeline's times, and what else in it the knobs or its other events decide, are judged on
// the points: a value valid at every point it is part of runs, although the file alone, or the
// value alone, would refuse it. They used to be refused from the file's own days ("Wed is not
// within the run") with every point valid. A point that is really invalid is still refused before
// any point runs, named.
TEST_F(SweepCli, TimelineTimesAreJudgedOnThePointsTheyArePartOf) {
    const std::string scenario = path("day.json");
    std::ofstream(scenario) << R"({"schema_version": 1, "name": "day", "lab": "gateway",
        "params": {"days": 1, "start_day": "Tue", "load_multiplier": 0.1},
        "timeline": [{"at": "Tue 07:00", "set": {"hedge_mode": "fixed", "hedge_delay_ms": 300}},
                     {"at": "Tue 09:30", "until": "Tue 13:00",
                      "fault": {"target": {"engine": "atlas", "region": "EU"}, "effect": "slow", "factor": 3}}]})";
    for (const auto& [args, points] : std::vector<std::pair<std::string, std::size_t>>{
             {"--vary params.days=2,3 --vary 'timeline.0.at=Wed 07:00,Wed 08:00'", 4},
             {"--set 'timeline.0.at=Wed 07:00' --vary params.days=2,3", 2},
             // The file's "until" is before this "at": not the point's own "until".
             {"--vary 'timeline.1.at=Tue 14:00' --vary 'timeline.1.until=Tue 15:00,Tue 16:00'", 2}}) {
        const auto o = runCli("sweep " + scenario + " " + args + " --figures requests --quiet");
        EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.err;
        EXPECT_EQ(lines(o.out).size(), points + 1) << args << "\n" << o.out;
    }
    const auto o = runCli("sweep " + scenario + " --vary params.days=1,2 --vary 'timeline.0.at=Wed 07:00'");
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_NE(o.err.find("taillab-cli sweep: point params.days=1 timeline.0.at=Wed 07:00: " + scenario +
                         " (--vary timeline.0.at): /timeline/0/at: Wed is not within the run (the run covers Tue)"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(o.err.find("[1/"), std::string::npos) << "nothing may run: " << o.err;
}

// A point whose knobs differ from the scenario's is a what-if: the figures the scenario quotes
// (here a hedged one, which an unhedged point does not even report) are not applicable there,
// and neither pass nor fail; the point's own checks still count.
TEST_F(SweepCli, ScenarioFiguresDoNotApplyToAPointWithOtherKnobs) {
    const auto o = runCli("sweep labs/fanout-hedge-independent --quiet --format json"
                          " --vary params.hedge_mode=immediate,none --out " + path("t.json"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = nlohmann::json::parse(readFile(path("t.json")));
    ASSERT_EQ(rows.size(), 2u);
    // At the file's own mode (immediate) its two quoted figures count; without hedging they
    // do not, and say why.
    const auto notApplicable = [](const nlohmann::json& row) {
        int n = 0;
        for (const auto& c : row["checks"])
            if (c.contains("not_applicable")) {
                ++n;
                EXPECT_NE(c["not_applicable"].get<std::string>().find(
                              "hedge_mode is \"none\" here, \"immediate\" in the scenario"),
                          std::string::npos)
                    << c;
            }
        return n;
    };
    EXPECT_EQ(notApplicable(rows[0]), 0);
    EXPECT_EQ(notApplicable(rows[1]), 2);
    EXPECT_EQ(rows[0]["checks_passed"], rows[0]["checks_total"]);
    EXPECT_EQ(rows[1]["checks_passed"], rows[1]["checks_total"]);
    EXPECT_EQ(rows[1]["checks_total"].get<std::size_t>(), decidingChecks(rows[1]["checks"]));
}

TEST_F(SweepCli, JsonFormat) {
    const auto o = runCli("sweep " + kHedge +
                          " --quiet --format json --vary params.hedge_mode=fixed,percentile"
                          " --vary params.hedge_delay_ms=10,30");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto j = nlohmann::ordered_json::parse(o.out);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 4u);
    EXPECT_EQ(j[0].at("point").at("params.hedge_mode"), "fixed");
    EXPECT_EQ(j[0].at("point").at("params.hedge_delay_ms"), 10);
    EXPECT_EQ(j[1].at("point").at("params.hedge_delay_ms"), 30);
    EXPECT_EQ(j[3].at("point").at("params.hedge_mode"), "percentile");
    for (const auto& row : j) {
        ASSERT_TRUE(row.at("figures").is_object());
        EXPECT_TRUE(row.at("figures").at("p999_after_ms").is_number());
        ASSERT_TRUE(row.at("checks").is_array());
        EXPECT_EQ(row.at("checks_total"), decidingChecks(row.at("checks")));
        EXPECT_EQ(row.at("checks_passed"), row.at("checks_total"));
        for (const auto& c : row.at("checks")) {
            for (const char* key : {"name", "simulated", "closed_form", "tolerance", "pass"})
                EXPECT_TRUE(c.contains(key)) << key;
        }
    }
    // A fixed delay is the knob's value, whatever the delay is; a percentile delay is not.
    EXPECT_EQ(j[0].at("figures").at("hedge_delay_ms"), 10.0);
    EXPECT_EQ(j[1].at("figures").at("hedge_delay_ms"), 30.0);
    EXPECT_EQ(j[2].at("figures").at("hedge_delay_ms"), j[3].at("figures").at("hedge_delay_ms"));
}

TEST_F(SweepCli, MarkdownFormat) {
    const auto o = runCli("sweep " + kHedge +
                          " --quiet --format md --vary params.hedge_delay_ms=10,30"
                          " --set params.hedge_mode=fixed"
                          " --figures p99_after_ms,backup_work_share");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto rows = lines(o.out);
    ASSERT_EQ(rows.size(), 4u) << o.out;
    EXPECT_EQ(rows[0], "| params.hedge_delay_ms | p99_after_ms | backup_work_share | "
                       "checks_passed | checks_total |");
    EXPECT_EQ(rows[1], "|---|---:|---:|---:|---:|");
    EXPECT_EQ(rows[2].rfind("| 10 | ", 0), 0u) << rows[2];
    EXPECT_EQ(rows[3].rfind("| 30 | ", 0), 0u) << rows[3];
    for (const auto& r : rows) EXPECT_EQ(r.back(), '|');
}

TEST_F(SweepCli, FailedCheckAtAPointIsExit3AndTheTableIsComplete) {
    // An expectation no seed can meet (about 63% of requests are slow at these knobs); varying the
    // seed leaves the knobs as the scenario has them, so it applies at every point.
    {
        std::ofstream f(path("s.json"));
        f << R"({"schema_version": 1, "name": "x", "lab": "fanout",
                 "params": {"backends": 100, "requests": 2000},
                 "expect": [{"figure": "slow_fraction", "at_least": 0.99}]})";
    }
    const auto o = runCli("sweep " + path("s.json") + " --vary seed=1,2 --figures slow_fraction");
    EXPECT_EQ(o.exit_code, 3) << o.err;
    const auto rows = lines(o.out);
    ASSERT_EQ(rows.size(), 3u) << o.out;
    EXPECT_EQ(rows[0], "seed,slow_fraction,checks_passed,checks_total");
    for (std::size_t i : {1u, 2u}) {
        const auto row = cells(rows[i]);
        ASSERT_EQ(row.size(), 4u);
        EXPECT_EQ(row[0], std::to_string(i));
        EXPECT_LT(std::stoi(row[2]), std::stoi(row[3])) << rows[i];
    }
    EXPECT_NE(o.err.find("point seed=1: check failed: slow_fraction"), std::string::npos) << o.err;
}

TEST_F(SweepCli, ProgressLinesOnStderrUnlessQuiet) {
    const std::string args = "sweep " + kHedge + " --vary params.hedge_delay_ms=10,30 --jobs 1";
    auto o = runCli(args);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.err.find("[1/2] params.hedge_delay_ms=10 done in "), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("[2/2] params.hedge_delay_ms=30 done in "), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("done in"), std::string::npos);
    o = runCli(args + " --quiet");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.err.find("done in"), std::string::npos) << o.err;
}

TEST_F(SweepCli, HelpMentionsSweep) {
    const auto o = runCli("--help");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_NE(o.out.find("taillab-cli sweep SCENARIO --vary"), std::string::npos) << o.out;
}

}  // namespace
