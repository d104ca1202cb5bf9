#include "scenario_options.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <system_error>

#include "commands.h"
#include "io/atomic_file.h"
#include "scenario/json_locate.h"
#include "scenario/json_validator.h"

namespace taillab::cli {

const std::string& optionValue(const std::vector<std::string>& args, std::size_t& i) {
    if (i + 1 >= args.size()) throw UsageError{args[i] + " needs a value"};
    return args[++i];
}

const std::string& outputPathValue(const std::vector<std::string>& args, std::size_t& i) {
    const std::string& path = optionValue(args, i);
    if (path.empty()) throw UsageError{args[i - 1] + " needs a file path, found ''"};
    return path;
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

namespace {

// --seed N and --set seed=N set one value, and the second would win without a word. (Two --set
// of any one path are refused by parseScenario, which would name a --seed as "--set seed=N".)
void refuseSecondSeed(const std::vector<std::string>& overrides, const std::string& seed) {
    for (const std::string& o : overrides)
        if (o.starts_with("seed="))
            throw UsageError{"the seed is given twice ('" + elideText(o.substr(5)) + "', then '" +
                             elideText(seed) +
                             "'): --seed N and --set seed=N set the same value; give it once"};
}

}  // namespace

bool takeOverrideOption(const std::vector<std::string>& args, std::size_t& i,
                        std::vector<std::string>& overrides) {
    const std::string& a = args[i];
    if (a == "--seed") {
        const std::string& v = optionValue(args, i);
        std::uint64_t seed = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
        // Without leading zeros, as JSON writes a number: the seed becomes "seed=N" in the
        // scenario, where "007" would not read.
        const bool leadingZero = v.size() > 1 && v[0] == '0';
        if (v.empty() || ec != std::errc() || end != v.data() + v.size() || leadingZero)
            throw UsageError{"--seed expects an integer in [0, 2^64), found '" + elideText(v) + "'" +
                             (leadingZero ? " (write it without leading zeros)" : "")};
        refuseSecondSeed(overrides, v);
        overrides.push_back("seed=" + v);
        return true;
    }
    if (a == "--set") {
        const std::string& assignment = optionValue(args, i);
        if (assignment.starts_with("seed=")) refuseSecondSeed(overrides, assignment.substr(5));
        overrides.push_back(assignment);
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
                              const std::vector<std::string>& overrides,
                              const std::vector<std::string>& overrideOptions) {
    if (scenarioArg.empty()) throw UsageError{"missing SCENARIO (try taillab-cli list)"};
    const std::string path = resolveScenarioPath(scenarioArg);
    try {
        return loadScenarioFile(path, overrides, overrideOptions);
    } catch (const ScenarioError& e) {
        throw UsageError{e.what()};
    }
}

void checkOutputPath(const std::string& path, const std::string& flag,
                     const std::vector<std::string>& inputs) {
    if (path.empty() || path == "-") return;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        for (const std::string& input : inputs)
            if (!input.empty() && input != "-" && fs::equivalent(path, input, ec) && !ec)
                throw UsageError{flag + " " + path + ": is also an input ('" + input +
                                 "'); writing it would destroy what is being read"};
    if (const std::optional<std::string> why = writeProblem(path))
        throw UsageError{flag + " " + path + ": " + *why};
}

void writeOutput(const std::string& text, const std::string& path) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;  // a failed write is caught in main (withOutputChecked)
        return;
    }
    try {
        writeFileAtomically(path, text);
    } catch (const std::system_error& e) {
        throw UsageError{e.what()};
    }
}

std::string overriddenKnob(const std::string& override) {
    constexpr std::string_view kParams = "params.";
    if (!override.starts_with(kParams)) return "";
    const std::size_t eq = override.find('=');
    if (eq == std::string::npos) return "";
    return override.substr(kParams.size(), eq - kParams.size());
}

std::string unusedOverrideReason(const Params& params, const std::string& override) {
    const std::string key = overriddenKnob(override);
    std::string why;
    if (key.empty() || !params.spec(key) || params.used(key, &why)) return "";
    return key + " is " + why;
}

std::string givenIn(const Scenario& scenario, const std::string& pointer,
                    const std::vector<std::string>& overrides,
                    const std::vector<std::string>& options) {
    const std::string file = scenario.file.empty() ? "<scenario>" : scenario.file;
    const std::string dotted = pointerToDotted(pointer);
    for (std::size_t i = overrides.size(); i-- > 0;) {
        const std::string path = overrides[i].substr(0, overrides[i].find('='));
        if (dotted == path || dotted.starts_with(path + "."))
            return file + " (" + (i < options.size() ? options[i] : "--set") + " " + path + ")";
    }
    return file;
}

void noteUnusedOverrides(const std::string& command, const Scenario& scenario,
                         const std::vector<std::string>& overrides,
                         const std::vector<std::string>& options) {
    for (std::size_t i = 0; i < overrides.size(); ++i)
        if (const std::string why = unusedOverrideReason(scenario.params, overrides[i]);
            !why.empty())
            std::cerr << "taillab-cli " << command << ": note: "
                      << (i < options.size() ? options[i] : "--set") << " " << overrides[i]
                      << " has no effect: " << why << "\n";
    // compare notes each of its sides, which may share the file and its timeline: a line once.
    static std::set<std::string> noted;
    for (const IneffectiveSetting& s : ineffectiveSettings(scenario.params, scenario.timeline)) {
        const std::string line = "taillab-cli " + command + ": note: " +
                                 givenIn(scenario, s.path, overrides, options) + ": " + s.path +
                                 " has no effect: " + s.why + "\n";
        if (noted.insert(line).second) std::cerr << line;
    }
}

std::string failedCheckMessage(const Check& c) {
    std::ostringstream s;
    s << "check failed: " << c.name << ": simulated " << c.simulated << ", expected ";
    if (c.bound == Bound::Within) {
        s << c.closed_form << " ± " << c.tolerance << (c.relative ? " (relative)" : "");
    } else {
        s << boundSymbol(c.bound) << " " << c.closed_form;
    }
    s << " [" << c.source << "]";
    return s.str();
}

}  // namespace taillab::cli
