// Shared by the lab tests: a result whose checks must all pass, and a lab scenario file of the
// repository run whole.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace taillab::test
