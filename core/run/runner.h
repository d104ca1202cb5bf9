// Runs a validated scenario on its lab. The one place the CLI, the GUI's worker and the tests go
// through, so all three produce the same result for the same scenario and seed.
#pragma once

#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab {

LabResult runScenario(const Scenario& scenario, RunControl& control,
                      const PartialSink& partial = {});
// Adds one check per scenario expectation, comparing it with the lab's named figure.
// parseScenario has already refused names the lab does not declare (Lab::figureNames), so a
// figure missing here is the lab's bug: std::logic_error.
void appendExpectationChecks(const Scenario& scenario, LabResult& result);
// Convenience for tests and tools: no pause, no cancel.
LabResult runScenario(const Scenario& scenario);

}  // namespace taillab
