// Fuzz target: the `--vary dotted.path=v1,v2,...` parser of `taillab-cli sweep`, then each value
// as the sweep checks it: an override of the path on a fixed valid scenario.
//
// parseVary must either throw UsageError or return a non-empty path without '=' and values; for a
// comma list, non-empty values without ',' that join back to the text after the first '='. Each
// value (the first few) then goes through parseScenario, where a ScenarioError is the expected
// answer.
#include <cstddef>
#include <cstdint>
#include <string>

#include "commands.h"
#include "fuzz_support.h"
#include "scenario/scenario.h"
#include "vary_parse.h"

namespace {

constexpr std::size_t kMaxValuesParsed = 4;

void checkShape(const std::string& text, const taillab::cli::Vary& v) {
    using taillab::fuzz::check;
    check(!v.path.empty() && v.path.find('=') == std::string::npos, "bad --vary path", v.path);
    check(!v.values.empty(), "--vary gave no values", text);
    if (text[text.find('=') + 1] == '[') return;  // a JSON array: its elements, re-written
    std::string joined;
    for (const auto& value : v.values) {
        check(!value.empty() && value.find(',') == std::string::npos, "bad --vary value", value);
        joined += (joined.empty() ? "" : ",") + value;
    }
    check(v.path + "=" + joined == text, "--vary values do not join back to the text", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace taillab;
    const std::string text = fuzz::inputText(data, size);
    cli::Vary v;
    try {
        v = cli::parseVary(text);
    } catch (const cli::UsageError&) {
        return 0;
    }
    checkShape(text, v);
    if (fuzz::knownOverrideFinding(v.path + "=")) return 0;
    for (std::size_t i = 0; i < v.values.size() && i < kMaxValuesParsed; ++i) {
        try {
            parseScenario(fuzz::kBaseScenario, "fuzz.json", {v.path + "=" + v.values[i]});
        } catch (const ScenarioError&) {
        } catch (const std::exception& e) {
            if (!fuzz::knownScenarioFinding(e)) throw;
        }
    }
    return 0;
}
