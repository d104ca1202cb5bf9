// Fuzz target: the scenario parser and validator on arbitrary text.
//
// A ScenarioError is the expected answer to bad input; any other exception escapes and aborts,
// as do ASan and UBSan reports. A scenario that parses is written back with writeScenarioJson and
// must read back equal (the contract in scenario.h). Nothing here runs a lab.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace taillab;
    const std::string text = fuzz::inputText(data, size);
    try {
        const Scenario s = parseScenario(text, "fuzz.json");
        const std::string written = writeScenarioJson(s);
        const Scenario again = parseScenario(written, "fuzz.json");
        fuzz::check(again == s, "a parsed scenario written back reads back different", written);
    } catch (const ScenarioError&) {
    } catch (const std::exception& e) {
        if (!fuzz::knownScenarioFinding(e)) throw;
    }
    return 0;
}
