// The scenario seeds of the fuzz corpus (tests/fuzz/corpus/scenario) are scenarios that pass the
// parser, so that libFuzzer starts from valid inputs and mutates them into the parser's deeper
// paths rather than spending its runs on the first error. Most are copies of the shipped
// scenarios (named "<directory>-<file>"): renamed knobs and figures go stale in them silently
// (hedge_idle's extra_work, and its hedge_percentile as a fraction, were refused at read), so
// each must still read, and a copy must be of the lab its scenario is.
#include <gtest/gtest.h>

#include <filesystem>

#include "scenario/scenario.h"

namespace taillab {
namespace {

namespace fs = std::filesystem;

TEST(FuzzCorpus, EveryScenarioSeedReads) {
    const fs::path corpus = fs::path(TAILLAB_SOURCE_DIR) / "tests/fuzz/corpus/scenario";
    const fs::path shipped = fs::path(TAILLAB_SOURCE_DIR) / "scenarios";
    int seeds = 0, copies = 0;
    for (const auto& entry : fs::directory_iterator(corpus)) {
        if (entry.path().extension() != ".json") continue;
        ++seeds;
        const std::string name = entry.path().filename().string();
        Scenario seed;
        try {
            seed = loadScenarioFile(entry.path().string());
        } catch (const ScenarioError& e) {
            ADD_FAILURE() << name << ": " << e.what();
            continue;
        }
        const std::size_t dash = name.find('-');
        if (dash == std::string::npos) continue;
        const fs::path original = shipped / name.substr(0, dash) / name.substr(dash + 1);
        if (!fs::exists(original)) continue;
        ++copies;
        EXPECT_EQ(seed.lab, loadScenarioFile(original.string()).lab) << name;
    }
    EXPECT_GT(seeds, 0);
    EXPECT_GT(copies, 0);
}

}  // namespace
}  // namespace taillab
