// Runs a validated scenario on its lab. The one place the CLI, the GUI's worker and the tests go
// through, so all three produce the same result for the same scenario and seed.
#pragma once

#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab {

// A check's advice that asks more of a knob than it allows says so (noteAdviceBeyondKnobs), in
// the result and in each partial one.
LabResult runScenario(const Scenario& scenario, RunControl& control,
                      const PartialSink& partial = {});
// Adds one check per scenario expectation, comparing it with the lab's named figure. When the
// run's knobs or timeline differ from the ones the expectations were written for
// (Scenario::expect_setup; Scenario::expect_timeline by what its events do, sameEffect: a label
// changes nothing), the checks are marked not applicable, naming the knobs or the event that
// moved: a what-if run passes when its own checks do. parseScenario has already refused names the lab does not declare for that
// setup (Lab::figureNames), so a figure missing from a run with it is the lab's bug:
// std::logic_error.
void appendExpectationChecks(const Scenario& scenario, LabResult& result);
// What a result records of the timeline a run of `scenario` applies (LabResult::timeline): its
// events in the scenario schema and its file's order; null for a lab that applies none. Set by
// runScenario, and by the live runs, which build their results themselves.
nlohmann::ordered_json recordedTimeline(const Scenario& scenario);
// Convenience for tests and tools: no pause, no cancel.
LabResult runScenario(const Scenario& scenario);

}  // namespace taillab
