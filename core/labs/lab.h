// A teaching lab: a small experiment with a closed form, its knobs and its explanation.
//
// run() is a pure function of (params, seed): it draws only from RNG streams derived from the
// seed, never reads a clock, and polls `control` between units of work so a driver can pause or
// cancel it. When `partial` is set, it is called a few times during the run with a partial result
// (progress < 1) so a GUI can draw as the run goes. Knob values that are each in range but
// contradict one another make run() throw std::invalid_argument naming the knobs.
//
// A lab that simulates a run over time may also take a timeline (scenario/timeline.h): knob
// changes and faults at simulated times. It says so by returning the names and knobs a timeline
// may use from timelineVocabulary(), and applies one in the run overload that takes it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "knobs/knob.h"
#include "labs/lab_result.h"
#include "scenario/timeline.h"
#include "sim/run_control.h"

namespace taillab {

using PartialSink = std::function<void(const LabResult&)>;

class Lab {
public:
    virtual ~Lab() = default;
    virtual std::string id() const = 0;            // "fanout"
    virtual std::string title() const = 0;         // "Fan-out amplification"
    virtual std::string summary() const = 0;       // one line for `taillab-cli list`
    virtual std::string explanation() const = 0;   // a few paragraphs, simple HTML allowed
    virtual std::vector<KnobSpec> knobs() const = 0;
    // The knob the lab's key chart is drawn against (for the GUI's emphasis).
    virtual std::string mainKnob() const = 0;
    virtual LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                          const PartialSink& partial) const = 0;
    // What a timeline may name in a run with these params; nullopt: the lab applies none.
    virtual std::optional<TimelineVocabulary> timelineVocabulary(const Params&) const {
        return std::nullopt;
    }
    // The run with a timeline's events applied. This default applies none: an empty timeline
    // runs as above, any other throws TimelineError.
    virtual LabResult run(const Params& params, const Timeline& timeline, std::uint64_t seed,
                          RunControl& control, const PartialSink& partial) const;
    // Throws std::invalid_argument, naming the knobs, for values that are each in range but
    // contradict one another, as run() would at its start: parseScenario calls it, so that such
    // a mistake is reported before any work (a sweep's later points included). This default
    // finds none.
    virtual void checkParams(const Params&) const {}
    // Throws TimelineError, naming the event, for a knob change that, applied over the knobs in
    // force when it comes, makes knobs run() would refuse (as it would when it reached it):
    // parseScenario calls it after checkParams, so that such a change is reported before any
    // work (a sweep's later points included). This default finds none.
    virtual void checkTimeline(const Params&, const Timeline&) const {}

    // The names of the figures run() reports for these params, in its order, without running
    // it: what `expect` entries and `sweep --figures` are checked against before any work
    // starts. Each lab passes empty tallies through the report code its runs use, so the list
    // and the runs cannot drift apart (tests/core/figure_names_test.cpp holds them equal over
    // every shipped scenario).
    virtual std::vector<std::string> figureNames(const Params& params) const = 0;
    // The same for a run with this timeline: a lab whose figures follow the timeline (the
    // gateway's per-phase figures) overrides it.
    virtual std::vector<std::string> figureNamesWith(const Params& params, const Timeline&) const {
        return figureNames(params);
    }

    // The ids of the time charts (ChartKind::Time) run() draws for these params, in its order,
    // without running it: what `compare --series` is checked against before any work starts. A
    // lab that draws any passes empty tallies through its chart code, as for figureNames
    // (tests/core/figure_names_test.cpp holds the two equal); this default is for the labs
    // that draw none.
    virtual std::vector<std::string> timeChartIds(const Params&) const { return {}; }

    Params defaultParams() const { return Params(knobs()); }
};

// The names of r's figures, in order.
std::vector<std::string> figureNamesOf(const LabResult& r);
// The ids of r's time charts (ChartKind::Time), in order.
std::vector<std::string> timeChartIdsOf(const LabResult& r);
// "lab 'L' reports no figure 'name'", the closest known names as suggestions, and the known
// names, at most a dozen of them (a lab may report hundreds), so the message stays short.
// `where` says which params the names are for.
std::string unknownFigureMessage(const std::string& lab, const std::string& name,
                                 const std::vector<std::string>& known,
                                 const std::string& where = "with these params");

// Says, in each check of `r` whose text names a run that would decide it (Check::advice), when
// that run asks more of a knob than `knobs` allows: "run at least 39,401,752 requests — above
// the 10,000,000 the requests knob allows, so no run here decides it". The labs name the run
// that decides; this, the one place that knows the knobs' ranges, says whether one can be made.
// Throws std::logic_error for advice on a knob the lab does not have.
void noteAdviceBeyondKnobs(LabResult& r, const std::vector<KnobSpec>& knobs);

// All labs, in the order the GUI lists them.
const std::vector<std::unique_ptr<Lab>>& allLabs();
const Lab* findLab(const std::string& id);

}  // namespace taillab
