// The bad-input catalogue (tests/data/bad_inputs.json) run against the real taillab-cli: every
// case must end with its exit code and a message holding its fragment, in a bounded number of
// bytes, without touching the files it was told to keep and without leaving a temporary file.
// A crash shows up as exit -1 (a signal), an internal error as exit 1, a hang as the timeout's
// exit 124: each fails the expected exit code.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxMessageBytes = 4096;  // what any error may print
constexpr const char* kOldContents = "old contents, to be kept\n";

json catalogue() {
    std::ifstream in(std::string(TAILLAB_SOURCE_DIR) + "/tests/data/bad_inputs.json");
    return json::parse(in);
}

std::string substitute(std::string s, const fs::path& dir) {
    const std::vector<std::pair<std::string, std::string>> names{
        {"{dir}", dir.string()}, {"{scenarios}", std::string(TAILLAB_SOURCE_DIR) + "/scenarios"}};
    for (const auto& [from, to] : names)
        for (std::size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    return s;
}

// A file's text: a string, or {"parts": [[text, repeat], ...]} for inputs too large to write out.
std::string fileText(const json& spec) {
    if (spec.is_string()) return spec.get<std::string>();
    std::string out;
    for (const auto& part : spec.at("parts"))
        for (int i = 0; i < part.at(1).get<int>(); ++i) out += part.at(0).get<std::string>();
    return out;
}

std::string quoted(const std::string& arg) {
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

class BadInputCatalogue : public taillab::test::ScratchDirTest,
                          public ::testing::WithParamInterface<std::size_t> {};

TEST(BadInputCatalogueFile, HoldsAtLeastSixtyCasesWithDistinctNames) {
    const json cases = catalogue().at("cases");
    EXPECT_GE(cases.size(), 60u);
    std::set<std::string> names;
    for (const auto& c : cases) EXPECT_TRUE(names.insert(c.at("name")).second) << c.at("name");
}

TEST_P(BadInputCatalogue, AnswersWithItsExitCodeAndMessageAndKeepsFiles) {
    const json c = catalogue().at("cases").at(GetParam());
    SCOPED_TRACE(c.at("name").get<std::string>());
    // value() returns a copy, and items() is a view: each list is held for its loop.
    const json files = c.value("files", json::object()), links = c.value("links", json::object()),
               keep = c.value("keep", json::array());
    for (const auto& [name, spec] : files.items()) {
        fs::create_directories((dir_ / name).parent_path());
        std::ofstream(dir_ / name, std::ios::binary) << substitute(fileText(spec), dir_);
    }
    for (const auto& [name, target] : links.items())
        fs::create_symlink(target.get<std::string>(), dir_ / name);
    for (const auto& name : keep)
        std::ofstream(dir_ / name.get<std::string>(), std::ios::binary) << kOldContents;

    std::string command = c.value("shell", "") + " timeout 120 " + TAILLAB_CLI_PATH;
    for (const auto& a : c.at("args")) {
        command += ' ';  // appended apart: GCC 12 warns (-Wrestrict, a false positive) on " " + string&&
        command += quoted(substitute(a, dir_));
    }
    const auto outcome = taillab::test::runShell("cd " + quoted(dir_.string()) + " && " + command +
                                                 " 2>&1 >/dev/null");

    EXPECT_EQ(outcome.exit_code, c.at("exit").get<int>()) << outcome.out;
    const std::string fragment = substitute(c.at("message"), dir_);
    EXPECT_NE(outcome.out.find(fragment), std::string::npos)
        << "expected \"" << fragment << "\" in:\n" << outcome.out;
    if (c.contains("absent")) {
        EXPECT_EQ(outcome.out.find(c.at("absent").get<std::string>()), std::string::npos)
            << outcome.out;
    }
    EXPECT_LE(outcome.out.size(), kMaxMessageBytes) << outcome.out.substr(0, 400);
    for (const auto& name : keep)
        EXPECT_EQ(taillab::test::readFile(dir_ / name.get<std::string>()), kOldContents) << name;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
        EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
            << "left behind: " << entry.path();
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputCatalogue,
                         ::testing::Range<std::size_t>(0, catalogue().at("cases").size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                             std::string name;
                             for (const char ch : catalogue().at("cases").at(info.param).at("name").get<std::string>())
                                 name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             return std::to_string(info.param) + "_" + name;
                         });

}  // namespace
