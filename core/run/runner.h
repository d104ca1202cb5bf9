// Runs a validated scenario on its lab. The one place the CLI, the GUI's worker and the tests go
// through, so all three produce the same result for the same scenario and seed.
#pragma once

#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab {

LabResult runScenario(const Scenario& scenario, RunControl& control,
                      const PartialSink& partial = {});
// Adds one check per scenario expectation, comparing it with the lab's named figure. Throws
// ScenarioError when the lab produces no such figure (a typo never passes silently).
void appendExpectationChecks(const Scenario& scenario, LabResult& result);
// Convenience for tests and tools: no pause, no cancel.
LabResult runScenario(const Scenario& scenario);

}  // namespace taillab
