#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/scenario.h"

namespace taillab::cli {

std::string scenarioDirectory() {
    if (const char* env = std::getenv("TAILLAB_SCENARIOS")) return env;
    return TAILLAB_SCENARIO_DIR;
}

std::string resolveScenarioPath(const std::string& arg) {
    namespace fs = std::filesystem;
    if (fs::is_regular_file(arg)) return arg;
    const fs::path dir = scenarioDirectory();
    for (const fs::path& candidate : {dir / arg, dir / (arg + ".json"), dir / "labs" / (arg + ".json")}) {
        if (fs::is_regular_file(candidate)) return candidate.string();
    }
    throw UsageError{"no scenario file '" + arg + "' (not a file, nor a name under " +
                     dir.string() + "; try taillab-cli list)"};
}

int cmdRun(const std::vector<std::string>& args) {
    std::string scenarioArg, outPath;
    std::vector<std::string> overrides;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
            return args[++i];
        };
        if (a == "--seed") {
            const std::string& v = value();
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
                throw UsageError{"--seed expects a non-negative integer, found '" + v + "'"};
            overrides.push_back("seed=" + v);
        } else if (a == "--set") {
            overrides.push_back(value());
        } else if (a == "--out") {
            outPath = value();
        } else if (a.rfind("--", 0) == 0) {
            throw UsageError{"unknown option '" + a + "'"};
        } else if (scenarioArg.empty()) {
            scenarioArg = a;
        } else {
            throw UsageError{"more than one scenario given ('" + scenarioArg + "', '" + a + "')"};
        }
    }
    if (scenarioArg.empty()) throw UsageError{"missing SCENARIO (try taillab-cli list)"};

    Scenario scenario;
    try {
        scenario = loadScenarioFile(resolveScenarioPath(scenarioArg), overrides);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
    LabResult result;
    try {
        result = runScenario(scenario);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
    const std::string text = toJson(result).dump(2) + "\n";
    if (outPath.empty() || outPath == "-") {
        std::cout << text;
    } else {
        std::ofstream out(outPath, std::ios::binary);
        if (!out) throw UsageError{"cannot write '" + outPath + "'"};
        out << text;
        if (!out.flush()) throw UsageError{"failed writing '" + outPath + "'"};
    }
    int failed = 0;
    for (const auto& c : result.checks) {
        if (!c.pass) {
            ++failed;
            std::cerr << "check failed: " << c.name << ": simulated " << c.simulated
                      << ", expected " << c.closed_form << " ± " << c.tolerance
                      << (c.relative ? " (relative)" : "") << " [" << c.source << "]\n";
        }
    }
    std::cerr << result.checks.size() - failed << " checks passed, " << failed << " failed\n";
    return failed == 0 ? kExitOk : 3;
}

int cmdList(const std::vector<std::string>& args) {
    if (!args.empty()) throw UsageError{"list takes no arguments"};
    namespace fs = std::filesystem;
    const fs::path dir = scenarioDirectory();
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
