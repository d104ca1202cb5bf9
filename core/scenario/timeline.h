// Timelines: typed events at simulated times, carried by a scenario file under "timeline". A
// driver applies them during the run (knob changes and faults); charts draw them as labelled
// annotations; the GUI's mid-run edits become timeline events that can be saved back to a file.
// This file holds the types, the parser and the writer; applying them is each lab's business.
//
//   "timeline": [
//     {"at": "Tue 14:22", "set": {"hedge_delay_ms": 300, "hedge_mode": "fixed"},
//      "label": "operator lowers the delay"},
//     {"at": 3600, "until": "Mon 02:30:15",
//      "fault": {"target": {"engine": "atlas", "region": "EU"}, "effect": "slow", "factor": 3}}
//   ]
//
// Times. "at" (required) and "until" (faults only, optional, after "at") are either a number of
// seconds since the run's start (finite, >= 0), or "Ddd HH:MM", "Ddd HH:MM:SS" or
// "Ddd HH:MM:SS.fff" with Ddd one of Mon..Sun: that weekday's first day within the run, which
// starts at 00:00 of the lab's first weekday (the gateway's `start_day`) and lasts its `days`. A
// time at or past the run's end is an error, and so is a weekday the run does not cover, and so
// is a fraction of more than 3 digits (milliseconds; a finer time is written in seconds). A fault
// without "until" lasts to the end of the run.
//
// Each event has exactly one of:
//   "set": {knob: value, ...}  at least one knob, each validated exactly as under "params"
//          (choices by name, booleans as true/false); knobs that shape the run from its start
//          (the lab's fixed knobs, e.g. the gateway's days, customers, load_multiplier) cannot
//          change during it and are errors.
//   "phase": "id"  a named stretch of an incident (seed 000's timeline rows), from "at" to its
//          "until" (optional; else to the next phase, or the end of the run): it changes nothing,
//          is drawn on the charts, and labs that report per-phase figures name them after the
//          id (lower-case letters, digits and '_', 1 to 32 characters, unique in the timeline).
//   "fault": {"target": {...}, "effect": "...", ...effect's keys}
//          target (optional; absent or {} = the whole fleet): "engine", "region", "provider",
//          "zone" (each one of the lab's names), "egress_ip" (0..n-1; needs "region").
//          effect         keys                                        egress_ip target
//          down           none                                        yes
//          slow           factor in (1, 100], or median_ms > 0 with   yes
//                         sigma in [0.01, 3] (a lognormal that
//                         replaces the latency), not both
//          invalid        share in [0, 1] of answers failing          yes
//                         validation
//          resets         share in [0, 1] of calls reset              yes
//          latency        add_ms in (0, 60000]                        yes
//          capacity_lost  share in (0, 1]; with "provider" and/or     no
//                         "zone" in the target, of the gateway's
//                         CPUs there (the only effect that takes
//                         them, never with "engine"); else of the
//                         engines' call capacity
//          surge          factor in (0, 100], traffic multiplier;     no (only "region")
//                         target: "region" only
// and optionally "label", a non-empty string; without one a readable label is generated
// ("hedge_delay_ms 300, hedge_mode fixed", "atlas slow ×3 (EU)"; a phase: its id).
//
// Unknown keys anywhere are errors. Events may come in any order: the parsed timeline is sorted by
// "at", stably (file order among equal times), and each event keeps the JSON pointer it was read
// from ("/timeline/3") for later messages. Labs that apply no timeline reject the key.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "knobs/knob.h"

namespace taillab {

class JsonValidator;

// Weekdays as timeline times write them; index 0 is Monday, as TimelineVocabulary counts.
inline constexpr std::array<const char*, 7> kWeekdayNames{"Mon", "Tue", "Wed", "Thu",
                                                          "Fri", "Sat", "Sun"};

enum class FaultEffect { Down, Slow, Invalid, Resets, Latency, CapacityLost, Surge };

// "down", "slow", "invalid", "resets", "latency", "capacity_lost", "surge".
std::string_view faultEffectName(FaultEffect effect);
std::optional<FaultEffect> faultEffectFromName(std::string_view name);

// What a fault hits; an empty target is the whole fleet.
struct FaultTarget {
    std::optional<std::string> engine, region, provider, zone;
    std::optional<int> egress_ip;  // index within `region`'s egress IPs

    bool wholeFleet() const { return !engine && !region && !provider && !zone && !egress_ip; }
    bool operator==(const FaultTarget&) const = default;
};

// One fault. Which numbers mean something depends on the effect (see the table above); the
// others keep their defaults.
struct Fault {
    FaultTarget target;
    FaultEffect effect = FaultEffect::Down;
    double factor = 1;                // slow: latency multiplier; surge: traffic multiplier
    std::optional<double> median_ms;  // slow: lognormal replacing the latency (with sigma)
    std::optional<double> sigma;
    double share = 0;   // invalid, resets, capacity_lost
    double add_ms = 0;  // latency

    bool operator==(const Fault&) const = default;
};

// One knob's new value, stored as Params stores it (a choice as its index, a boolean as 0/1).
struct KnobSetting {
    std::string key;
    double value = 0;

    bool operator==(const KnobSetting&) const = default;
};

struct TimelineEvent {
    double at_s = 0;                // seconds since the run's start
    std::optional<double> until_s;  // faults only; none = to the end of the run
    std::string label;              // as written, or generated
    std::vector<KnobSetting> set;   // a knob change (in key order), or empty for a fault
    std::optional<Fault> fault;
    std::string phase;              // a phase's id; empty for a knob change or a fault
    std::string path;  // where it was read from ("/timeline/3"); "" when made in code

    // Two events are equal when a file writes them alike: `path` is where one was read from,
    // not part of what it is (a timeline written and read back renumbers them). Whether they
    // make the same run is sameEffect's question.
    bool operator==(const TimelineEvent& o) const {
        return at_s == o.at_s && until_s == o.until_s && label == o.label && set == o.set &&
               fault == o.fault && phase == o.phase;
    }
};

struct Timeline {
    std::vector<TimelineEvent> events;  // sorted by at_s, stably

    bool empty() const { return events.empty(); }
    // When phase event `index` ends: its "until", else the next phase's start, else `end_s`.
    double phaseEnd(std::size_t index, double end_s) const;
    bool operator==(const Timeline&) const = default;
};

// Whether two events do the same thing at the same time, so that a run with one is the run with
// the other: their times, knob settings, fault and phase id. The label only names the event on
// the charts, and the path where it was read from; neither changes what runs.
bool sameEffect(const TimelineEvent& a, const TimelineEvent& b);
// Whether two timelines make the same run: as many events, each with the same effect as the
// other's at its place (both are sorted by time, stably).
bool sameEffect(const Timeline& a, const Timeline& b);

// The event's index in the "timeline" array it was read from ("/timeline/3" -> 3); nullopt for
// an event made in code.
std::optional<std::size_t> fileIndex(const TimelineEvent& event);

// What a lab offers a timeline, given the run's params: the knobs it may change, the names a
// fault may target, and the run's calendar (for "Ddd HH:MM" times).
struct TimelineVocabulary {
    std::vector<KnobSpec> knobs;
    std::vector<std::string> fixed_knobs;  // cannot change during a run
    std::vector<std::string> engines, regions, providers, zones;
    // Why `providers` and `zones` are empty, when they are (a run that models no gateway CPUs):
    // what an event that names one is told.
    std::string no_compute;
    int egress_ips = 0;       // per region
    int start_weekday = 0;    // 0 = Mon
    double run_length_s = 0;  // the run covers [0, run_length_s)
};

// Thrown by a lab's run when it cannot apply a timeline or one of its events. `path` is the
// event's JSON pointer ("/timeline/3"), or "/timeline" for the whole; runScenario reports it
// against the scenario there.
class TimelineError : public std::invalid_argument {
public:
    TimelineError(std::string path, const std::string& message)
        : std::invalid_argument(message), path_(std::move(path)) {}
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Validates the value of a scenario's "timeline" (at pointer `at` in the document the validator
// checks) against a lab's vocabulary; throws ScenarioError naming file, line, column and path.
Timeline parseTimeline(const nlohmann::json& value, const nlohmann::json::json_pointer& at,
                       const TimelineVocabulary& vocabulary, const JsonValidator& validator);

// The timeline in the schema above, ready to be parsed back: times as seconds at full precision,
// choices by name, booleans as true/false, every label written. Throws std::invalid_argument for
// a setting of a knob not in `knobs`.
nlohmann::ordered_json timelineToJson(const Timeline& timeline, const std::vector<KnobSpec>& knobs);

// A knob change of a timeline event that leaves the run as it would be without it: the knob
// already has that value when the event comes, or the knob is unused (KnobSpec::usedWhen) under
// every value the other knobs take from then until it is next set or the run ends. A command
// line notes each, as it notes a --set of a knob the run does not use: the file would otherwise
// draw a change ("hedge_delay_ms 420 -> 100") that changes nothing.
struct IneffectiveSetting {
    std::string path;  // "/timeline/3/set/hedge_delay_ms"; for an event made in code, its label
    std::string why;   // "hedge_delay_ms is not used while Hedge delay is rolling p90"
};
// Those of `timeline`, in time order, for a run that starts with `params`.
std::vector<IneffectiveSetting> ineffectiveSettings(const Params& params, const Timeline& timeline);

// The label an event gets when its file gives none.
std::string defaultLabel(const TimelineEvent& event, const std::vector<KnobSpec>& knobs);

// "Tue 14:22", "Tue 14:22:05" or "Tue 14:22:05.250": seconds since the start of a run that
// begins at 00:00 of `start_weekday` (0 = Mon), as an annotation or a message shows it.
std::string formatRunTime(double seconds, int start_weekday);

}  // namespace taillab
