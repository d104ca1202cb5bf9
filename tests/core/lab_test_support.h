// Shared by the lab tests: a result whose checks must all pass, and a lab scenario file of the
// repository run whole.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <regex>
#include <string>

#include "labs/lab_result.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "test_support.h"

namespace taillab::test {

inline void expectAllChecksPass(const LabResult& r) {
    EXPECT_FALSE(r.checks.empty());
    for (const auto& c : r.checks)
        EXPECT_TRUE(c.pass) << c.name << ": " << c.simulated << " vs " << c.closed_form << " ± "
                            << c.tolerance;
}

// scenarios/labs/NAME.json, run as `taillab-cli run` would.
inline LabResult runLabFile(const std::string& name) {
    return runScenario(loadScenarioFile(labScenarioPath(name)));
}

// The check of `r` called `name`; nullptr when there is none.
inline const Check* checkNamed(const LabResult& r, const std::string& name) {
    for (const Check& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

// The first group of `pattern` in `text`; nullopt when it does not match.
inline std::optional<std::string> firstMatch(const std::string& text, const std::string& pattern) {
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(pattern))) return std::nullopt;
    return m.str(1);
}

// N of an inconclusive check's "run at least N requests"; nullopt when it names no such run.
inline std::optional<std::int64_t> advisedRequests(const Check& c) {
    std::optional<std::string> digits =
        firstMatch(c.inconclusive, R"(run at least ([0-9,]+) requests)");
    if (!digits) return std::nullopt;
    std::erase(*digits, ',');
    return std::stoll(*digits);
}

// scenarios/labs/NAME.json run with params.requests = `requests`.
inline LabResult runLabFileWithRequests(const std::string& name, std::int64_t requests) {
    return runScenario(
        loadScenarioFile(labScenarioPath(name), {"params.requests=" + std::to_string(requests)}));
}

// `check`, inconclusive in a run of scenarios/labs/SCENARIO.json, names a run of N requests: a
// run of that length decides it, and passes; one a tenth shorter still cannot decide it.
inline void expectAdvisedRunDecides(const std::string& scenario, const Check& check) {
    EXPECT_FALSE(check.applies()) << check.name;
    const std::optional<std::int64_t> n = advisedRequests(check);
    ASSERT_TRUE(n.has_value()) << check.name << ": " << check.inconclusive;
    const LabResult atAdvice = runLabFileWithRequests(scenario, *n);
    const Check* decided = checkNamed(atAdvice, check.name);
    ASSERT_NE(decided, nullptr) << check.name;
    EXPECT_TRUE(decided->applies()) << check.name << ": " << decided->inconclusive;
    EXPECT_TRUE(decided->pass) << check.name << ": " << decided->simulated << " vs "
                               << decided->closed_form << " ± " << decided->tolerance;
    const LabResult shorter = runLabFileWithRequests(scenario, *n * 9 / 10);
    const Check* undecided = checkNamed(shorter, check.name);
    ASSERT_NE(undecided, nullptr) << check.name;
    EXPECT_FALSE(undecided->applies()) << check.name;
}

}  // namespace taillab::test
