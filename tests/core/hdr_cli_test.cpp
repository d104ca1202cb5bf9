// taillab-cli hdr, run as a real process on temporary files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.h"
#include "io/latency_files.h"
#include "base/rng.h"
#include "metrics/hdr_histogram.h"
#include "metrics/hdr_log.h"

namespace {

namespace fs = std::filesystem;

const std::string kDataDir = std::string(TAILLAB_SOURCE_DIR) + "/tests/data/hdr/";

using taillab::test::readFile;

void writeFile(const fs::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
}

struct Result {
    int exitCode = -1;
    std::string out;
    std::string err;
};

class HdrCli : public taillab::test::ScratchDirTest {
  protected:
    // Runs `taillab-cli hdr ARGS...`, optionally with standard input from a file. (Strings are
    // built with += : GCC 12 raises a false -Wrestrict on long operator+ chains.)
    Result run(const std::vector<std::string>& args, const std::string& stdinFile = "") {
        const fs::path errPath = dir_ / "stderr.txt";
        std::string command = quoted(TAILLAB_CLI_PATH);
        command += " hdr";
        for (const auto& a : args) {
            command += ' ';
            command += quoted(a);
        }
        command += " 2>";
        command += quoted(errPath.string());
        if (!stdinFile.empty()) {
            command += " <";
            command += quoted(stdinFile);
        }
        const auto shell = taillab::test::runShell(command);
        Result r;
        r.exitCode = shell.exit_code;
        r.out = shell.out;
        r.err = readFile(errPath);
        return r;
    }
    static std::string quoted(const std::string& s) {
        std::string q = "'";
        q += s;
        q += '\'';
        return q;
    }
};

TEST_F(HdrCli, SummaryMatchesSortedSamples) {
    taillab::Rng rng(31, "hdr-cli-summary");
    std::vector<long long> values;
    std::string log = "# latency in microseconds\n";
    for (int i = 0; i < 50'000; ++i) {
        values.push_back(static_cast<long long>(800.0 * std::exp(1.5 * rng.normal())));
        log += std::to_string(values.back()) + "\n";
    }
    log += "-3\n99999999999\n";  // two values the default range cannot hold
    writeFile(path("log.txt"), log);
    const Result r = run({path("log.txt")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(j.at("count").get<long long>(), 50'000);
    EXPECT_EQ(j.at("out_of_range").get<long long>(), 2);
    EXPECT_NE(r.err.find("2 values"), std::string::npos) << r.err;
    EXPECT_EQ(j.at("max_exact").get<long long>(), values.back());
    EXPECT_EQ(j.at("histogram").at("significant_digits").get<int>(), 3);
    EXPECT_EQ(j.at("histogram").at("highest_trackable").get<long long>(), 60'000'000);
    auto near = [](long long got, long long exact) {
        return got >= exact &&
               static_cast<double>(got - exact) <= 0.001 * static_cast<double>(exact) + 1;
    };
    const auto min = j.at("min").get<long long>();
    EXPECT_LE(min, values.front());
    EXPECT_GE(static_cast<double>(min) + 0.001 * static_cast<double>(values.front()) + 1,
              static_cast<double>(values.front()));
    EXPECT_TRUE(near(j.at("max").get<long long>(), values.back()));
    const std::vector<std::pair<const char*, double>> percentiles = {
        {"p50", 50.0}, {"p90", 90.0}, {"p99", 99.0}, {"p99_9", 99.9}, {"p99_99", 99.99}};
    for (const auto& [key, p] : percentiles) {
        const auto rank = static_cast<std::size_t>(std::llround(p / 100.0 * 50'000));
        EXPECT_TRUE(near(j.at(key).get<long long>(), values[rank - 1]))
            << key << " " << j.at(key) << " vs " << values[rank - 1];
    }
    double sum = 0;
    for (auto v : values) sum += static_cast<double>(v);
    EXPECT_NEAR(j.at("mean").get<double>(), sum / 50'000, 0.001 * sum / 50'000);
    EXPECT_GT(j.at("stddev").get<double>(), 0.0);
}

TEST_F(HdrCli, HgrmOfReferenceValuesEqualsTheReferenceFile) {
    const std::string expected = readFile(kDataDir + "lognormal_seed42_n100k.hgrm");
    const Result binary = run({kDataDir + "lognormal_seed42_n100k.u64le", "--input", "u64le",
                               "--hgrm", path("bin.hgrm")});
    ASSERT_EQ(binary.exitCode, 0) << binary.err;
    EXPECT_EQ(readFile(path("bin.hgrm")), expected);
    EXPECT_EQ(nlohmann::json::parse(binary.out).at("max").get<long long>(), 10'158'079);

    // The same values as text, through standard input.
    const std::string bytes = readFile(kDataDir + "lognormal_seed42_n100k.u64le");
    std::string text;
    for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        unsigned long long v = 0;
        for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(bytes[i + b]);
        text += std::to_string(v) + "\n";
    }
    writeFile(path("values.txt"), text);
    const Result fromStdin = run({"-", "--hgrm", path("text.hgrm")}, path("values.txt"));
    ASSERT_EQ(fromStdin.exitCode, 0) << fromStdin.err;
    EXPECT_EQ(readFile(path("text.hgrm")), expected);
    auto expectedSummary = nlohmann::json::parse(binary.out);
    expectedSummary.merge_patch({{"input", "-"}, {"format", "text"}});
    EXPECT_EQ(nlohmann::json::parse(fromStdin.out), expectedSummary);
}

TEST_F(HdrCli, BadLineExitsTwoNamingFileAndLine) {
    writeFile(path("bad.txt"), "100\n200\n# ok\n\n3O0\n400\n");
    const Result r = run({path("bad.txt")});
    EXPECT_EQ(r.exitCode, 2);
    std::string where = path("bad.txt");
    where += ":5:";
    EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("3O0"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(HdrCli, U64leOfWrongSizeExitsTwo) {
    writeFile(path("odd.u64le"), std::string(8 * 5 + 3, '\1'));
    const Result r = run({path("odd.u64le"), "--input", "u64le"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("multiple of 8"), std::string::npos) << r.err;
    const Result piped = run({"--input", "u64le", "-"}, path("odd.u64le"));
    EXPECT_EQ(piped.exitCode, 2);
    EXPECT_NE(piped.err.find("multiple of 8"), std::string::npos) << piped.err;
}

// Interval logs merged: the intervals of several logs (untagged, or one tag) read as one
// histogram, the same as recording every value into one.
TEST_F(HdrCli, IntervalLogsMergeIntoOneHistogram) {
    const taillab::HdrConfig config{1, 3'600'000'000LL, 3};
    taillab::HdrHistogram all(config), tagged(config);
    taillab::Rng rng(17);
    const taillab::HdrLogWriter writer(1'700'000'000'000LL);
    for (const std::string name : {"a.hlog", "b.hlog"}) {
        std::string text = writer.header();
        for (int interval = 0; interval < 3; ++interval) {
            taillab::HdrHistogram h(config), t(config);
            for (int k = 0; k < 500; ++k) {
                const auto v = static_cast<std::int64_t>(100 + rng.below(200'000));
                h.record(v);
                all.record(v);
                t.record(v * 2);
                tagged.record(v * 2);
            }
            text += writer.interval(interval, 1, h);
            text += writer.interval(interval, 1, t, "uncorrected");
        }
        writeFile(path(name), text);
    }
    const Result merged = run({path("a.hlog"), path("b.hlog")});
    ASSERT_EQ(merged.exitCode, 0) << merged.err;
    const auto j = nlohmann::json::parse(merged.out);
    EXPECT_EQ(j.at("format"), "hlog");
    EXPECT_EQ(j.at("count"), all.totalCount());
    for (const auto& [key, p] : std::vector<std::pair<std::string, double>>{{"p50", 50}, {"p99", 99}, {"p99_9", 99.9}})
        EXPECT_EQ(j.at(key), all.valueAtPercentile(p)) << key;
    const Result t = run({path("a.hlog"), path("b.hlog"), "--tag", "uncorrected"});
    ASSERT_EQ(t.exitCode, 0) << t.err;
    EXPECT_EQ(nlohmann::json::parse(t.out).at("p99"), tagged.valueAtPercentile(99));

    EXPECT_EQ(run({path("a.hlog"), "--tag", "none"}).exitCode, 2);
    writeFile(path("bad.hlog"), writer.header() + "0.000,1.000,1.0,not-base64!\n");
    const Result bad = run({path("bad.hlog")});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("bad.hlog:5"), std::string::npos) << bad.err;
    EXPECT_EQ(run({path("a.hlog"), path("b.hlog"), "--input", "text"}).exitCode, 2);  // only logs merge
}

// Logs from an auto-resizing recorder name a larger range as values grow: the merge covers every
// interval's range whatever order the logs come in (merged into the first interval's, the
// tail was counted out of range and lost: count 99, max 100).
TEST_F(HdrCli, IntervalsOfOtherRangesMergeIntoOneThatCoversThemInAnyOrder) {
    const taillab::HdrLogWriter writer(1'700'000'000'000LL);
    taillab::HdrHistogram small(taillab::HdrConfig{1, 2'047, 3}), large(taillab::HdrConfig{1, 1'048'575, 3});
    for (int k = 0; k < 99; ++k) small.record(100);
    large.record(1'000'000);
    writeFile(path("small.hlog"), writer.header() + writer.interval(0, 1, small));
    writeFile(path("large.hlog"), writer.header() + writer.interval(1, 1, large));
    writeFile(path("both.hlog"), writer.header() + writer.interval(0, 1, small) + writer.interval(1, 1, large));
    for (const std::vector<std::string>& inputs :
         {std::vector<std::string>{path("small.hlog"), path("large.hlog")},
          std::vector<std::string>{path("large.hlog"), path("small.hlog")},
          std::vector<std::string>{path("both.hlog")}}) {
        const Result r = run(inputs);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j.at("count"), 100) << inputs.front();
        EXPECT_EQ(j.at("out_of_range"), 0) << inputs.front();
        EXPECT_GE(j.at("max").get<std::int64_t>(), 1'000'000) << inputs.front();
    }
    // A log's histograms carry their layout: options that would set one are refused, as is an
    // option given twice (the first --input used to win).
    EXPECT_EQ(run({path("both.hlog"), "--digits", "2"}).exitCode, 2);
    writeFile(path("ok.txt"), "1\n2\n");
    const Result twice = run({path("ok.txt"), "--input", "hlog", "--input", "text"});
    EXPECT_EQ(twice.exitCode, 2);
    EXPECT_NE(twice.err.find("--input given twice ('hlog', then 'text')"), std::string::npos) << twice.err;
}

// An interval log is read whole, so its size is checked before a byte is read (a sparse file
// stands for a real one). Just over 1 GiB, the error read "is 1024 MiB; a log of intervals may be
// at most 1024 MiB", as if the two were the same: it names the size exactly.
TEST_F(HdrCli, AnIntervalLogOverTheLimitIsRefusedNamingItsSize) {
    const std::string big = path("big.hlog");
    writeFile(big, "");
    fs::resize_file(big, taillab::kMaxHlogBytes + 1);
    const Result r = run({big});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(big + ": is 1073741825 bytes; a log of intervals may be at most 1 GiB"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    // Far over, the size reads in the limit's unit.
    fs::resize_file(big, 3 * taillab::kMaxHlogBytes);
    const Result far = run({big});
    EXPECT_NE(far.err.find(big + ": is 3 GiB; a log of intervals may be at most 1 GiB"), std::string::npos)
        << far.err;
}

TEST_F(HdrCli, BadArgumentsExitTwo) {
    writeFile(path("ok.txt"), "1\n2\n");
    EXPECT_EQ(run({path("ok.txt"), "--input", "csv"}).exitCode, 2);
    EXPECT_EQ(run({path("ok.txt"), "--digits", "7"}).exitCode, 2);
    EXPECT_EQ(run({path("ok.txt"), "--highest", "1"}).exitCode, 2);
    EXPECT_EQ(run({path("ok.txt"), "--frobnicate"}).exitCode, 2);
    EXPECT_EQ(run({path("missing.txt")}).exitCode, 2);
    const Result ok = run({path("ok.txt"), "--highest", "1000", "--digits", "2"});
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_EQ(nlohmann::json::parse(ok.out).at("histogram").at("highest_trackable"), 1000);
}

}  // namespace
