#include "run/runner.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace taillab {

namespace {

// "backends is 50 here, 20 in the scenario; ..." for the knobs that differ (at most three named).
std::string knobDifferences(const Params& setup, const Params& params) {
    const nlohmann::ordered_json was = setup.toJson(), now = params.toJson();
    std::string out;
    std::size_t n = 0;
    for (const auto& [key, value] : now.items()) {
        if (was.contains(key) && was.at(key) == value) continue;
        if (++n <= 3)
            out += (n == 1 ? "" : "; ") + key + " is " + value.dump() + " here, " +
                   (was.contains(key) ? was.at(key).dump() : std::string("unset")) +
                   " in the scenario";
    }
    if (n > 3) out += "; and " + std::to_string(n - 3) + " more";
    return out;
}

// Events read from a file in the file's order (they run in time order), those made in code after
// them: then /timeline/3 in a result is the scenario's /timeline/3, the event that
// `--set timeline.3...` changes.
Timeline inFileOrder(Timeline timeline) {
    auto index = [](const TimelineEvent& e) {
        return fileIndex(e).value_or(std::numeric_limits<std::size_t>::max());
    };
    std::stable_sort(
        timeline.events.begin(), timeline.events.end(),
        [&](const TimelineEvent& a, const TimelineEvent& b) { return index(a) < index(b); });
    return timeline;
}

// "the event at /timeline/7 differs", or "3 events here, 12 in the scenario".
std::string timelineDifference(const Timeline& setup, const Timeline& timeline) {
    const std::size_t n = timeline.events.size(), was = setup.events.size();
    if (n != was)
        return std::to_string(n) + (n == 1 ? " event" : " events") + " here, " +
               std::to_string(was) + " in the scenario";
    std::size_t i = 0;
    while (i < n && sameEffect(timeline.events[i], setup.events[i])) ++i;
    const std::string& path = timeline.events[i].path;
    return (path.empty() ? "event " + std::to_string(i) : "the event at " + path) + " differs";
}

}  // namespace

void appendExpectationChecks(const Scenario& scenario, LabResult& result) {
    // The scenario's expectations quote figures for its own knobs; a run with other knobs is a
    // what-if, which they say nothing about.
    std::string notApplicable;
    if (!scenario.expect.empty() && !(scenario.params == scenario.expect_setup))
        notApplicable = "not applicable: the knobs differ from the setup these figures are for (" +
                        knobDifferences(scenario.expect_setup, scenario.params) + ")";
    // A label only names an event on the charts: one changed alone leaves the run as it was.
    if (!scenario.expect.empty() && !sameEffect(scenario.timeline, scenario.expect_timeline))
        notApplicable += (notApplicable.empty() ? "not applicable: " : "; and ") +
                         std::string("the timeline differs from the one these figures are for (") +
                         timelineDifference(scenario.expect_timeline, scenario.timeline) + ")";
    for (const auto& e : scenario.expect) {
        const std::string source = e.source.empty() ? "scenario expectation" : e.source;
        const auto reported = result.figure(e.figure);
        if (!reported && notApplicable.empty())  // parseScenario checked the name
            throw std::logic_error("lab '" + scenario.lab + "' declares figure '" + e.figure +
                                   "' but its run did not report it");
        const double figure = reported.value_or(std::numeric_limits<double>::quiet_NaN());
        const std::size_t first = result.checks.size();
        if (e.value) {
            result.checks.push_back(makeCheck(e.figure + " (expected)", figure, *e.value,
                                              e.tolerance, e.relative, source));
        }
        if (e.at_least) {
            result.checks.push_back(makeClaim(e.figure + " >= " + std::to_string(*e.at_least),
                                              figure, Bound::AtLeast, *e.at_least,
                                              figure >= *e.at_least, source));
        }
        if (e.at_most) {
            result.checks.push_back(makeClaim(e.figure + " <= " + std::to_string(*e.at_most),
                                              figure, Bound::AtMost, *e.at_most,
                                              figure <= *e.at_most, source));
        }
        for (std::size_t i = first; i < result.checks.size(); ++i)
            result.checks[i].not_applicable = notApplicable;
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
            noteAdviceBeyondKnobs(copy, lab->knobs());
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
    noteAdviceBeyondKnobs(result, lab->knobs());
    result.lab = lab->id();
    result.scenario = scenario.name;
    result.seed = scenario.seed;
    result.parameters = scenario.params.toJson();
    result.timeline = recordedTimeline(scenario);
    if (!result.cancelled) appendExpectationChecks(scenario, result);
    return result;
}

nlohmann::ordered_json recordedTimeline(const Scenario& scenario) {
    const Lab* lab = findLab(scenario.lab);
    if (!lab || !lab->timelineVocabulary(scenario.params)) return nullptr;
    return timelineToJson(inFileOrder(scenario.timeline), scenario.params.specs());
}

LabResult runScenario(const Scenario& scenario) {
    RunControl control;
    return runScenario(scenario, control);
}

}  // namespace taillab
