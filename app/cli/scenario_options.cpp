#include "scenario_options.h"

#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"

namespace taillab::cli {

const std::string& optionValue(const std::vector<std::string>& args, std::size_t& i) {
    if (i + 1 >= args.size()) throw UsageError{args[i] + " needs a value"};
    return args[++i];
}

std::vector<std::string> splitList(const std::string& option, const std::string& list) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        const std::string item =
            list.substr(start, comma == std::string::npos ? comma : comma - start);
        if (item.empty()) throw UsageError{option + ": empty item in '" + list + "'"};
        items.push_back(item);
        if (comma == std::string::npos) return items;
        start = comma + 1;
    }
}

unsigned parseJobs(const std::string& text) {
    unsigned n = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || n == 0)
        throw UsageError{"--jobs expects an integer >= 1, found '" + text + "'"};
    return n;
}

bool takeOverrideOption(const std::vector<std::string>& args, std::size_t& i,
                        std::vector<std::string>& overrides) {
    const std::string& a = args[i];
    if (a == "--seed") {
        const std::string& v = optionValue(args, i);
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError{"--seed expects a non-negative integer, found '" + v + "'"};
        overrides.push_back("seed=" + v);
        return true;
    }
    if (a == "--set") {
        overrides.push_back(optionValue(args, i));
        return true;
    }
    return false;
}

void takeScenarioArgument(const std::string& arg, std::string& scenarioArg) {
    if (arg.rfind("--", 0) == 0) throw UsageError{"unknown option '" + arg + "'"};
    if (!scenarioArg.empty())
        throw UsageError{"more than one scenario given ('" + scenarioArg + "', '" + arg + "')"};
    scenarioArg = arg;
}

Scenario loadScenarioArgument(const std::string& scenarioArg,
                              const std::vector<std::string>& overrides) {
    if (scenarioArg.empty()) throw UsageError{"missing SCENARIO (try taillab-cli list)"};
    const std::string path = resolveScenarioPath(scenarioArg);
    try {
        return loadScenarioFile(path, overrides);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
}

void writeOutput(const std::string& text, const std::string& path) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        return;
    }
    std::ofstream out(path, std::ios::binary);
    if (!out) throw UsageError{"cannot write '" + path + "'"};
    out << text;
    if (!out.flush()) throw UsageError{"failed writing '" + path + "'"};
}

std::string failedCheckMessage(const Check& c) {
    std::ostringstream s;
    s << "check failed: " << c.name << ": simulated " << c.simulated << ", expected "
      << c.closed_form << " ± " << c.tolerance << (c.relative ? " (relative)" : "") << " ["
      << c.source << "]";
    return s.str();
}

}  // namespace taillab::cli
