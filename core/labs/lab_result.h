// What a lab run produces: effective parameters, named latency distributions (HDR histograms),
// charts (simulated series beside their closed-form curves), scalar figures, and checks of
// simulation against closed form or published figure. Plain data: the GUI draws it, the CLI
// writes it as JSON, tests assert on it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/hdr_histogram.h"

namespace taillab {

// What a series is: a run's own figures, a model's prediction, a published figure, or a fixed line
// to read the data against that no model predicts (a deadline, a normal level).
enum class SeriesRole { Simulated, ClosedForm, Published, Reference };

struct Series {
    std::string name;
    SeriesRole role = SeriesRole::Simulated;
    std::vector<double> x;
    std::vector<double> y;
};

enum class ChartKind {
    Percentile,  // x: percentile as a fraction in [0, 1), drawn on a log "nines" axis; y: ms
    XY,          // ordinary x/y
    Time,        // x: simulated time in seconds; one point per window
};

// Something that happened during a run, drawn on every time chart: a knob change (an instant) or
// a fault (a span), in the time charts' x units.
struct Annotation {
    double x0 = 0;
    std::optional<double> x1;  // the end of a span; nullopt for an instant
    std::string kind;          // "knob", "fault", "phase"
    std::string label;
    bool operator==(const Annotation&) const = default;
};

struct Chart {
    std::string id;     // stable, file-name safe: "distribution", "slow_vs_n"
    std::string title;
    ChartKind kind = ChartKind::XY;
    std::string x_label;  // with unit, e.g. "Backends per request (N)"
    std::string y_label;  // with unit, e.g. "Requests slower than 500 ms (%)"
    bool log_x = false;
    bool log_y = false;
    std::vector<Series> series;
};

// A knob setting that a check's text names as (part of) the run that would decide it: "run at
// least 39,401,752 requests" is {"requests", 39401752}. The runner says when it lies above what
// the knob allows (noteAdviceBeyondKnobs, lab.h).
struct KnobAdvice {
    std::string knob;  // the knob's key, as in a scenario's params
    double value = 0;
    bool operator==(const KnobAdvice&) const = default;
};

// How a check's simulated value must stand to its expected one: within its tolerance (a
// two-sided check, makeCheck) or on one side of it (a claim, makeClaim: "hedges within the
// budget" is at most the budget). Tables show a claim's expected value with its sign ("<= 15,785"),
// so that a bound is not read as the value the run should have had.
enum class Bound : std::uint8_t { Within, AtLeast, AtMost, Above, Below, Equal };
// "±", "≥", "≤", ">", "<", "=" (UTF-8), for tables and messages.
const char* boundSymbol(Bound b);
// "within", "at_least", "at_most", "above", "below", "equal": as result files write it.
const char* boundName(Bound b);

// A simulated value beside its expected value. Passes when |simulated - expected| <= tolerance
// (absolute) or <= tolerance * |expected| (relative); a claim passes as its `bound` says.
struct Check {
    std::string name;
    double simulated = 0;
    double closed_form = 0;  // the formula's value or the published figure
    double tolerance = 0;
    bool relative = false;
    std::string source;  // "closed form: 1-(1-p)^N" or "published: lab_001.hedge_idle_p95..."
    bool pass = false;
    // Why the check does not apply to this run; "" when it does. A figure a scenario quotes
    // holds for the scenario's own knobs: once they move, the check neither passes nor fails
    // (`pass` still says how the numbers compare; a result file writes it as null).
    std::string not_applicable;
    // Why this run cannot decide the check; "" when it can. A simulation too short for its
    // transient to die out, or whose tolerance is too wide to fail, is neither right nor wrong:
    // the reason names the run that would decide, one that settles and brings the tolerance
    // within kMaxToleranceShare ("the queues need about 1,900 service times to settle; run at
    // least 1,200,000 requests").
    std::string inconclusive;
    // The knob settings of the run that `inconclusive` names as the one that would decide the
    // check (or, for a claim that decides and leaves some points out, that `source` names as the
    // one that would check them too); empty when it names none.
    std::vector<KnobAdvice> advice;
    Bound bound = Bound::Within;  // a claim's side of `closed_form`; Within for makeCheck's

    bool applies() const { return not_applicable.empty() && inconclusive.empty(); }
    // The reason the check does not apply, whichever it is ("" when it applies).
    const std::string& whyNotApplied() const {
        return not_applicable.empty() ? inconclusive : not_applicable;
    }
    bool passed() const { return applies() && pass; }
    bool failed() const { return applies() && !pass; }
};

Check makeCheck(std::string name, double simulated, double expected, double tolerance,
                bool relative, std::string source);

// What a check says about a run, each check exactly one: it passes or fails when it applies;
// otherwise it is not applicable (checked first: the figure is for other knobs) or inconclusive.
enum class Verdict { Pass, Fail, Inconclusive, NotApplicable };
Verdict verdictOf(const Check& c);
// "pass", "fail", "inconclusive", "not applicable": as result files write it.
const char* verdictName(Verdict v);
// The checks of a run by verdict.
struct CheckTally {
    std::size_t passed = 0, failed = 0, inconclusive = 0, not_applicable = 0;
    std::size_t total() const { return passed + failed + inconclusive + not_applicable; }
};
CheckTally tallyChecks(const std::vector<Check>& checks);
// A tolerance so wide it bounds nothing: more than kUnboundedToleranceShare times the expected
// value (a quantile where the model has next to no density gets one of 10^13), or not finite.
// Shown as "unbounded" and written as null, not as a number nobody can read.
constexpr double kUnboundedToleranceShare = 100;
bool toleranceUnbounded(const Check& c);

// The widest tolerance a check may allow, as a share of its expected value, and still decide
// anything: at ±25% a check tells a figure from one a third off; wider, it would pass a run whose
// figure is half the expected one (or no run at all), so it cannot fail.
constexpr double kMaxToleranceShare = 0.25;
// A check's tolerance over its expected value (infinite when that is 0 and the tolerance is not).
double toleranceShare(const Check& c);
// Marks `c` inconclusive when its tolerance exceeds kMaxToleranceShare of its expected value,
// with `whatWouldDecide` ("run at least 700,000 requests") in the reason and `advice`, the knob
// settings it names, in c.advice. A check whose expected value is 0, or that is already
// inconclusive or not applicable, is left as it is.
void requireResolution(Check& c, const std::string& whatWouldDecide,
                       std::vector<KnobAdvice> advice = {});
// The knob a "run at least N ..." raises, and how the advice says it.
struct RunKnob {
    std::string key = "requests";
    std::string words = "requests";  // "calibration samples (calibration_samples)"
};
// The advice "run at least 39,401,752 requests" and the knob setting it names.
struct RunAdvice {
    std::string text;
    std::vector<KnobAdvice> knobs;
};
RunAdvice runAtLeast(std::int64_t n, const RunKnob& knob = {});
inline void requireResolution(Check& c, const RunAdvice& advice) {
    requireResolution(c, advice.text, advice.knobs);
}
// The sample size at which `c` decides. `sePart` is the part of its tolerance that `n` samples
// gave and that shrinks like 1/√n; the rest of the tolerance does not shrink. Returns the n at
// which the whole comes down to kMaxToleranceShare of the expected value (below `n` when it
// already has); nullopt when the part that does not shrink is that wide already, or the
// expected value is 0 or the sampling part not finite: no sample size decides the check.
std::optional<std::int64_t> samplesToDecide(const Check& c, std::int64_t n, double sePart);
// The `whatWouldDecide` of a check for which samplesToDecide finds no sample size.
inline constexpr const char* kNoSampleSizeDecides =
    "no run length decides it: more samples do not bring the tolerance within a quarter of the "
    "value";
// requireResolution with the samples that would decide `c` (samplesToDecide: `n` gave `sePart`,
// the part of its tolerance that shrinks like 1/√n), or kNoSampleSizeDecides when none would.
// `knob` is what to raise.
void requireSampleResolution(Check& c, std::int64_t n, double sePart, const RunKnob& knob = {});
// A one-sided claim (e.g. "open-loop p99 >= closed-loop p99"): `simulated` stands to `threshold`
// as `bound` says (never Within) when `holds`, which the caller decides (with its own slack).
Check makeClaim(std::string name, double simulated, Bound bound, double threshold, bool holds,
                std::string source);

struct NamedHistogram {
    std::string name;      // "request", "backend", ...
    HdrHistogram histogram;  // in microseconds
};

struct LabResult {
    std::string lab;
    std::string scenario;
    std::uint64_t seed = 0;
    nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
    std::vector<NamedHistogram> distributions;
    std::vector<std::pair<std::string, double>> figures;  // named scalars (units in the name)
    std::vector<Chart> charts;
    std::vector<Check> checks;
    std::vector<Annotation> annotations;  // the run's timeline, for every time chart
    // The timeline the run applied, in the scenario schema (timelineToJson) and its file's order,
    // so that a result can be read back event by event (compare diffs two runs' events, which
    // annotations name only by their labels); null for a lab that applies no timeline.
    nlohmann::ordered_json timeline;
    // What a reader must know before reading the numbers, in plain words ("Unstable: utilisation
    // R·s = 10,000, at or above 1. ..."): the CLI prints them, result files write them as
    // "notes", the GUI shows them in a banner above the charts. Empty for most runs.
    std::vector<std::string> notes;
    double progress = 1.0;  // < 1 for a partial (streamed) result
    bool cancelled = false;

    bool allChecksPass() const;  // no check that applies fails
    const Chart* chart(const std::string& id) const;
    const HdrHistogram* distribution(const std::string& name) const;
    std::optional<double> figure(const std::string& name) const;
};

// A failed invariant when `outOfRange` samples fell outside the histograms they were recorded
// into (the histogram refused them, so every percentile read from it is wrong); nothing when none
// did. `what` names the histograms ("request, backend and hedged latencies").
void checkRecordedInRange(LabResult& r, std::int64_t outOfRange, const std::string& what);

// Points on the "nines" axis: percentiles 0, 0.5, ... up to 1 - 10^-max_nines, dense in the tail.
std::vector<double> ninesGrid(double max_nines = 5.0, int points_per_nine = 10);
// The simulated percentile curve of a histogram (µs in, ms out), up to the last percentile its
// count can resolve.
Series percentileSeries(std::string name, const HdrHistogram& h, double max_nines = 5.0);
// A closed-form percentile curve from a quantile function (probability -> ms).
Series closedFormPercentileSeries(std::string name, const std::function<double(double)>& quantile,
                                  double max_nines = 5.0);

// The result file: deterministic bytes for the same inputs.
nlohmann::ordered_json toJson(const LabResult& r);
// A run's annotations as they appear in the result file (and in the GUI's chart export).
nlohmann::ordered_json toJson(const std::vector<Annotation>& annotations);
// One chart as it appears in the result file (and in the GUI's chart export).
nlohmann::ordered_json toJson(const Chart& c);
const char* seriesRoleName(SeriesRole role);  // "simulated", "closed_form", "published"
const char* chartKindName(ChartKind kind);    // "percentile", "xy", "time"
nlohmann::ordered_json summarize(const HdrHistogram& h);

}  // namespace taillab
