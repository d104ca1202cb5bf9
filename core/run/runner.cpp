#include "run/runner.h"

#include <stdexcept>

namespace taillab {

void appendExpectationChecks(const Scenario& scenario, LabResult& result) {
    for (const auto& e : scenario.expect) {
        const auto figure = result.figure(e.figure);
        if (!figure)  // parseScenario checked the name against the lab's figureNames()
            throw std::logic_error("lab '" + scenario.lab + "' declares figure '" + e.figure +
                                   "' but its run did not report it");
        const std::string source = e.source.empty() ? "scenario expectation" : e.source;
        if (e.value) {
            result.checks.push_back(makeCheck(e.figure + " (expected)", *figure, *e.value,
                                              e.tolerance, e.relative, source));
        }
        if (e.at_least) {
            result.checks.push_back(makeClaim(e.figure + " >= " + std::to_string(*e.at_least),
                                              *figure, *e.at_least, *figure >= *e.at_least, source));
        }
        if (e.at_most) {
            result.checks.push_back(makeClaim(e.figure + " <= " + std::to_string(*e.at_most),
                                              *figure, *e.at_most, *figure <= *e.at_most, source));
        }
    }
}

LabResult runScenario(const Scenario& scenario, RunControl& control, const PartialSink& partial) {
    const Lab* lab = findLab(scenario.lab);
    if (!lab) throw std::invalid_argument("unknown lab '" + scenario.lab + "'");
    PartialSink named;
    if (partial) {
        named = [&](const LabResult& r) {
            LabResult copy = r;
            copy.scenario = scenario.name;
            partial(copy);
        };
    }
    LabResult result;
    try {
        result = lab->run(scenario.params, scenario.timeline, scenario.seed, control, named);
    } catch (const TimelineError& e) {
        throw ScenarioError(scenario.file, std::nullopt, std::nullopt, e.path(), e.what());
    } catch (const std::invalid_argument& e) {
        // Knob values that are each in range but contradict one another: bad input, reported
        // against the scenario's params like any other mistake in them.
        throw ScenarioError(scenario.file, std::nullopt, std::nullopt, "/params", e.what());
    }
    result.lab = lab->id();
    result.scenario = scenario.name;
    result.seed = scenario.seed;
    result.parameters = scenario.params.toJson();
    if (!result.cancelled) appendExpectationChecks(scenario, result);
    return result;
}

LabResult runScenario(const Scenario& scenario) {
    RunControl control;
    return runScenario(scenario, control);
}

}  // namespace taillab
