#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "scenario_options.h"

namespace taillab::cli {

std::string scenarioDirectory() {
    if (const char* env = std::getenv("TAILLAB_SCENARIOS")) return env;
    return TAILLAB_SCENARIO_DIR;
}

std::string resolveScenarioPath(const std::string& arg) {
    namespace fs = std::filesystem;
    // Something at that path, even a directory or a symlink loop, is what the user meant: the
    // loader says what is wrong with it, instead of a search elsewhere.
    std::error_code ec;
    if (fs::exists(fs::symlink_status(arg, ec))) return arg;
    const fs::path dir = scenarioDirectory();
    for (const fs::path& candidate : {dir / arg, dir / (arg + ".json"), dir / "labs" / (arg + ".json")}) {
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    throw UsageError{"no scenario file '" + arg + "' (not a file, nor a name under " +
                     dir.string() + "; try taillab-cli list)"};
}

int cmdRun(const std::vector<std::string>& args) {
    std::string scenarioArg, outPath;
    std::vector<std::string> overrides;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (takeOverrideOption(args, i, overrides)) continue;
        if (args[i] == "--out") {
            outPath = outputPathValue(args, i);
        } else {
            takeScenarioArgument(args[i], scenarioArg);
        }
    }
    const Scenario scenario = loadScenarioArgument(scenarioArg, overrides);
    checkOutputPath(outPath, "--out", {resolveScenarioPath(scenarioArg)});
    noteUnusedOverrides("run", scenario, overrides);
    LabResult result;
    try {
        result = runScenario(scenario);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
    writeOutput(toJson(result).dump(2) + "\n", outPath);
    int passed = 0, failed = 0, notApplicable = 0, inconclusive = 0;
    const Check* firstNotApplicable = nullptr;
    const Check* firstInconclusive = nullptr;
    for (const auto& c : result.checks) {
        switch (verdictOf(c)) {
            case Verdict::NotApplicable:
                if (!firstNotApplicable) firstNotApplicable = &c;
                ++notApplicable;
                break;
            case Verdict::Inconclusive:
                if (!firstInconclusive) firstInconclusive = &c;
                ++inconclusive;
                break;
            case Verdict::Pass: ++passed; break;
            case Verdict::Fail:
                ++failed;
                std::cerr << failedCheckMessage(c) << "\n";
                break;
        }
    }
    for (const std::string& note : result.notes) std::cerr << "note: " << note << "\n";
    std::cerr << passed << " checks passed, " << failed << " failed";
    if (notApplicable > 0)
        std::cerr << ", " << notApplicable << " " << firstNotApplicable->not_applicable;
    if (inconclusive > 0)
        std::cerr << ", " << inconclusive << " inconclusive (" << firstInconclusive->name << ": "
                  << firstInconclusive->inconclusive << ")";
    std::cerr << "\n";
    return failed == 0 ? kExitOk : kExitChecksFailed;
}

int cmdList(const std::vector<std::string>& args) {
    if (!args.empty()) throw UsageError{"list takes no arguments"};
    namespace fs = std::filesystem;
    const fs::path dir = scenarioDirectory();
    // An empty list from a mistyped directory would read as "no scenarios".
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw UsageError{"the scenario directory '" + dir.string() + "' " +
                         (fs::exists(dir, ec) ? "is not a directory" : "does not exist") +
                         (std::getenv("TAILLAB_SCENARIOS") ? " (TAILLAB_SCENARIOS)" : "")};
    for (const auto& file : findScenarioFiles(dir.string())) {
        std::string rel = fs::relative(file, dir).string();
        if (rel.size() > 5) rel = rel.substr(0, rel.size() - 5);
        try {
            const Scenario s = loadScenarioFile(file);
            std::cout << rel << "\t" << s.lab << "\t" << s.title << "\n";
        } catch (const ScenarioError& e) {
            std::cout << rel << "\tINVALID\t" << e.what() << "\n";
        }
    }
    return kExitOk;
}

}  // namespace taillab::cli
