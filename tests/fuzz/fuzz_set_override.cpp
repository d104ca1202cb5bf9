// Fuzz target: `--set dotted.path=value` overrides on a fixed valid scenario.
//
// The input is one or more assignments, one a line (at most four, so the target stays fast).
// Each is applied to the parsed document with applyOverride, then all of them go through
// parseScenario as the CLI passes them. A ScenarioError is the expected answer to a bad override;
// anything else escaping aborts. A scenario that validates must survive writeScenarioJson and read
// back equal (without its expectations when the overrides moved the knobs they quote).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "scenario/scenario.h"

namespace {

constexpr std::size_t kMaxOverrides = 4;

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (out.size() < kMaxOverrides && start <= text.size()) {
        const std::size_t nl = text.find('\n', start);
        out.push_back(text.substr(start, nl == std::string::npos ? nl : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace taillab;
    const std::vector<std::string> overrides = lines(fuzz::inputText(data, size));
    for (const auto& o : overrides)
        if (fuzz::knownOverrideFinding(o)) return 0;
    try {
        nlohmann::json doc = nlohmann::json::parse(fuzz::kBaseScenario);
        for (const auto& o : overrides) {
            try {
                applyOverride(doc, o);
            } catch (const ScenarioError&) {
            }
        }
        const Scenario s = parseScenario(fuzz::kBaseScenario, "fuzz.json", overrides);
        const std::string written = writeScenarioJson(s);
        const Scenario again = parseScenario(written, "fuzz.json");
        // Written with knobs or a timeline other than the ones its expectations quote figures
        // for, a scenario leaves the expectations out (scenario.h); everything else reads back
        // as it was.
        Scenario expected = s;
        if (!(s.params == s.expect_setup) || !sameEffect(s.timeline, s.expect_timeline))
            expected.expect.clear();
        fuzz::check(again == expected, "an overridden scenario written back reads back different",
                    written);
    } catch (const ScenarioError&) {
    } catch (const std::exception& e) {
        if (!fuzz::knownScenarioFinding(e)) throw;
    }
    return 0;
}
