// Lab "coordinated_omission": the same server and the same stall, measured by an open-loop load
// generator (timed from the intended send), a closed-loop one (one request in flight, timed from
// the actual send) and the closed loop corrected with HdrHistogram's recordCorrected.
//
// Model, closed form and regimes: see labs/coordinated_omission_model.h. In short, for constant
// service s on a fixed schedule at rate R with one stall of S seconds, the open loop sees a linear
// ramp of about S R / (1 - R s) latencies from S + s down to s; the closed loop sees one sample of
// about S + s; the corrected closed loop sees a ramp of step 1/R, which restores the stall's hidden
// samples but not the queue that drains after it. Random service or Poisson sends have no closed
// form here; the lab then only checks conservation and that the open loop sees at least the
// closed loop's tail.
//
// Reproduces essay_003.coordinated_omission (scenarios/labs/coordinated-omission.json) and
// essay_003.hdrhistogram_doc_example (scenarios/labs/coordinated-omission-hdr-doc.json).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/format.h"
#include "labs/coordinated_omission_model.h"
#include "labs/lab_common.h"
#include "labs/labs.h"

namespace taillab {
namespace {

using co::Loop;
using co::LoopSimulation;
using co::RampDistribution;

constexpr double kMaxWindows = 2000;  // the time series never has more points than this

ServiceModel serviceModel(const std::string& kind, double mean_ms) {
    if (kind == "exponential") return ExponentialModel{mean_ms};
    if (kind == "lognormal") {
        constexpr double kSigma = 1.0;
        return LognormalWithSlowMode{{mean_ms * std::exp(-kSigma * kSigma / 2), kSigma}, 0.0, {}};
    }
    return ConstantModel{mean_ms};
}

co::Config coConfigFrom(const Params& p) {
    co::Config c;
    c.rate_per_s = p.real("rate_per_s");
    c.duration = fromSeconds(p.real("duration_s"));
    c.poisson = p.choice("schedule") == "poisson";
    c.service = serviceModel(p.choice("service_model"), p.real("service_ms"));
    c.stall_at = fromSeconds(p.real("stall_at_s"));
    c.stall = fromSeconds(p.real("stall_s"));
    c.send_late = p.choice("closed_loop_missed") == "send_late";
    c.window = fromSeconds(std::max(p.real("window_s"), p.real("duration_s") / kMaxWindows));
    return c;
}

double fractionAtOrBelowMs(const HdrHistogram& h, double limit_ms) {
    if (h.empty()) return 0.0;
    return static_cast<double>(h.countAtOrBelow(std::llround(limit_ms * 1000.0))) /
           static_cast<double>(h.totalCount());
}

// 10,000 as "10,000", 1.25 as "1.25".
std::string utilisationText(double u) {
    if (u >= 100) return groupedCount(std::llround(u));
    return formatNumbers("%.3g", u);
}

// What a run must say before its numbers are read: at utilisation R·s >= 1 the server cannot keep
// up, so the open loop's queue never drains and no percentile it reports settles; nothing else
// about the run says so (the checks that remain, conservation, all pass).
std::optional<std::string> instabilityNote(const co::Config& c) {
    const double u = c.utilisation();
    if (u < 1.0) return std::nullopt;
    const double perSecond = 1000.0 / c.service.mean();
    return "Unstable: utilisation R·s = " + utilisationText(u) + ", at or above 1. The server " +
           "can finish " + utilisationText(perSecond) + " requests a second and is sent " +
           utilisationText(c.rate_per_s) + ", so the open loop's queue grows for the whole run: " +
           "its latencies have no steady state (they grow with the duration) and the closed " +
           "forms, which need R·s < 1, do not exist. The closed loop, one request in flight, " +
           "never queues: it reports the service time (and the stall once).";
}

// The closed forms of one run (all three, or none).
struct ClosedForms {
    std::optional<RampDistribution> open, closed, corrected;
    double toleranceSlackMs = 0;  // one ramp step when slot times are rounded to whole ns
    // Why there are none when the run is the deterministic case the closed forms cover but the
    // server cannot keep up ("no steady state at utilisation 10,000"); "" otherwise.
    std::string missing;
};

ClosedForms closedForms(const co::Config& c) {
    ClosedForms f{co::openLoopClosedForm(c), co::closedLoopClosedForm(c),
                  co::correctedClosedForm(c), 0.0, {}};
    const double nsPerSlot = 1e9 / c.rate_per_s;
    if (f.open && nsPerSlot != std::floor(nsPerSlot)) f.toleranceSlackMs = f.open->rampStepMs;
    const bool deterministic =
        !c.poisson && std::holds_alternative<ConstantModel>(c.service.variant());
    if (!f.open && deterministic && c.utilisation() >= 1.0)
        f.missing = "no steady state at utilisation " + utilisationText(c.utilisation());
    return f;
}

// Simulated HDR value against the exact one: HDR's bucket width, the µs rounding of latencies.
Check versusClosedForm(const std::string& name, double simulated, double exact, double slack) {
    return makeCheck(name, simulated, exact, exact * kHdrResolution + 0.001 + slack, false,
                     "closed form, deterministic case (see coordinated_omission_model.h); "
                     "tolerance = HDR 3 digits (value/1024) + 1 µs");
}

// A loop's per-window p99 and max, under names that stay the same whatever the run (a compare
// and a pinned run pair series by name). A window of fewer than 100 latencies has no p99 apart
// from its max (the closed loop's stall window holds one sample, whose "p99" rose to the max), so
// the p99 leaves it out; a loop with no window of 100 has no p99 series. The p99 is drawn over
// the max: where they coincide the p99 shows and the max rises above it where they part. Returns
// what the chart's title must add for the reader, naming the loop as `shortName` ("open"):
// "open p99 ≈ max" when the p99 is within 10% of the max in every window (a line under a line on
// a chart of many decades), "closed: too few for a p99" when there is no p99 line at all; ""
// otherwise.
constexpr double kWindowP99NearMax = 0.9;

std::string windowSeries(const std::vector<co::WindowPoint>& windows, const std::string& loop,
                         const std::string& shortName, std::vector<Series>& out) {
    Series p99{loop + " p99", SeriesRole::Simulated, {}, {}};
    Series max{loop + " max", SeriesRole::Simulated, {}, {}};
    bool near = true;
    for (const co::WindowPoint& w : windows) {
        max.x.push_back(w.start_s);
        max.y.push_back(w.max_ms);
        if (!w.hasP99()) continue;
        p99.x.push_back(w.start_s);
        p99.y.push_back(w.p99_ms);
        near = near && w.p99_ms >= kWindowP99NearMax * w.max_ms;
    }
    const bool noP99 = !windows.empty() && p99.x.empty();
    out.push_back(std::move(max));
    if (noP99) return shortName + ": too few for a p99";
    const bool underMax = !windows.empty() && near && p99.x.size() == windows.size();
    out.push_back(std::move(p99));
    return underMax ? shortName + " p99 ≈ max" : "";
}

class CoordinatedOmissionLab final : public Lab {
  public:
    std::string id() const override { return "coordinated_omission"; }
    std::string title() const override { return "Coordinated omission"; }
    std::string summary() const override {
        return "A closed-loop load generator hides a stall that an open-loop one charges to every "
               "request it delays";
    }
    std::string explanation() const override;
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "stall_s"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;

    std::vector<std::string> figureNames(const Params& params) const override;
    std::vector<std::string> timeChartIds(const Params& params) const override;

  private:
    void fillCharts(LabResult& r, const LoopSimulation& open, const LoopSimulation& closed,
                    const ClosedForms& forms, bool corrected) const;
    void fillFigures(LabResult& r, const LoopSimulation& open, const LoopSimulation& closed,
                     bool corrected) const;
    void fillChecks(LabResult& r, const co::Config& c, const LoopSimulation& open,
                    const LoopSimulation& closed, const ClosedForms& forms, bool corrected) const;
    static void addMissingFormChecks(LabResult& r, const LoopSimulation& open,
                                     const LoopSimulation& closed, const ClosedForms& forms,
                                     bool corrected);
};

std::vector<KnobSpec> CoordinatedOmissionLab::knobs() const {
    return {
        KnobSpec::real("rate_per_s", "Target rate", "req/s", 1, 100000, 1000,
                       "Requests the load generator intends to send per second (R)")
            .log(),
        KnobSpec::real("duration_s", "Duration", "s", 1, 3600, 100,
                       "How long the generator sends (D); it intends R x D requests")
            .log(),
        KnobSpec::real("service_ms", "Service time", "ms", 0.01, 100, 0.5,
                       "Mean time the server takes per request (s)")
            .log(),
        KnobSpec::choice("service_model", "Service model", {"constant", "exponential", "lognormal"},
                         0, "Constant has a closed form; the others draw each service time"),
        KnobSpec::real("stall_at_s", "Stall at", "s", 0, 3600, 30,
                       "When the server stops working (T)"),
        KnobSpec::real("stall_s", "Stall length", "s", 0, 1000, 2,
                       "How long the server does no work (S)"),
        KnobSpec::choice("schedule", "Send schedule", {"fixed", "poisson"}, 0,
                         "Intended sends every 1/R, or at Poisson times with rate R"),
        KnobSpec::choice("closed_loop_missed", "Closed loop after a stall", {"skip", "send_late"},
                         0, "Skip the slots a stall made the closed loop miss, or send them late")
            .hidden(),
        KnobSpec::boolean("corrected", "Corrected curve", true,
                          "Also record the closed loop with HdrHistogram's recordCorrected(1/R)"),
        KnobSpec::real("window_s", "Window", "s", 0.01, 1000, 1,
                       "Time-series window for p99 and max (at least D/2000)")
            .log()
            .hidden(),
    };
}

std::vector<std::string> CoordinatedOmissionLab::figureNames(const Params& params) const {
    const co::Config config = coConfigFrom(params);
    const bool corrected = params.flag("corrected");
    const LoopSimulation open(config, Loop::Open, 0, false);
    const LoopSimulation closed(config, Loop::Closed, 0, corrected);
    LabResult r;
    fillFigures(r, open, closed, corrected);
    return figureNamesOf(r);
}

std::vector<std::string> CoordinatedOmissionLab::timeChartIds(const Params& params) const {
    const co::Config config = coConfigFrom(params);
    const bool corrected = params.flag("corrected");
    const LoopSimulation open(config, Loop::Open, 0, false);
    const LoopSimulation closed(config, Loop::Closed, 0, corrected);
    LabResult r;
    fillCharts(r, open, closed, {}, corrected);
    return timeChartIdsOf(r);
}

LabResult CoordinatedOmissionLab::run(const Params& params, std::uint64_t seed, RunControl& control,
                                      const PartialSink& partial) const {
    const co::Config config = coConfigFrom(params);
    const bool corrected = params.flag("corrected");
    LabResult r;
    r.lab = id();
    r.seed = seed;
    r.parameters = params.toJson();
    const ClosedForms forms = closedForms(config);

    if (std::optional<std::string> note = instabilityNote(config)) r.notes.push_back(*note);

    LoopSimulation open(config, Loop::Open, seed, false);
    LoopSimulation closed(config, Loop::Closed, seed, corrected);
    double nextPartial = 1.0 / kPartials;
    int phase = 0;
    for (LoopSimulation* sim : {&open, &closed}) {
        bool more = true;
        while (more) {
            more = sim->advance(kChunk);
            const double progress = 0.5 * (phase + sim->progress());
            if (!control.checkpoint()) {
                r.cancelled = true;
                r.progress = progress;
                return r;
            }
            control.reportProgress(progress);
            if (partial && progress >= nextPartial && progress < 1.0) {
                LabResult p = r;
                p.progress = progress;
                fillCharts(p, open, closed, {}, corrected);
                partial(p);
                while (nextPartial <= progress) nextPartial += 1.0 / kPartials;
            }
        }
        ++phase;
    }
    r.distributions.push_back({"open_loop", open.latencies()});
    r.distributions.push_back({"closed_loop", closed.latencies()});
    if (corrected) r.distributions.push_back({"closed_loop_corrected", closed.corrected()});
    fillCharts(r, open, closed, forms, corrected);
    fillFigures(r, open, closed, corrected);
    fillChecks(r, config, open, closed, forms, corrected);
    return r;
}

void CoordinatedOmissionLab::fillCharts(LabResult& r, const LoopSimulation& open,
                                        const LoopSimulation& closed, const ClosedForms& forms,
                                        bool corrected) const {
    const double nines = std::clamp(
        std::log10(static_cast<double>(std::max<std::int64_t>(open.sent(), 10))), 1.0, 5.0);
    Chart pc{"percentiles",
             "Same stall, three ways of measuring it",
             ChartKind::Percentile,
             "Percentile",
             "Latency (ms)",
             false,
             true,
             {}};
    pc.series.push_back(
        percentileSeries("open loop (from intended send)", open.latencies(), nines));
    pc.series.push_back(
        percentileSeries("closed loop (from actual send)", closed.latencies(), nines));
    if (corrected)
        pc.series.push_back(
            percentileSeries("closed loop + recordCorrected(1/R)", closed.corrected(), nines));
    auto addForm = [&](const std::optional<RampDistribution>& d, const std::string& name) {
        if (d) {
            pc.series.push_back(closedFormPercentileSeries(
                name, [&](double p) { return d->quantile(p); }, nines));
        } else if (!forms.missing.empty()) {
            // Listed, with no curve, so the legend says why the curve is not there ("open loop,
            // closed form: no steady state at utilisation 10,000").
            const std::string base = name.substr(0, name.find(" ("));
            pc.series.push_back({base + ": " + forms.missing, SeriesRole::ClosedForm, {}, {}});
        }
    };
    addForm(forms.open, "open loop, closed form (ramp)");
    addForm(forms.closed, "closed loop, closed form");
    if (corrected) addForm(forms.corrected, "corrected, closed form");
    r.charts.push_back(std::move(pc));

    Chart tc{"windows",
             "Per-window p99 and max",
             ChartKind::Time,
             "Send time (s)",
             "Latency (ms)",
             false,
             true,
             {}};
    const std::string openSaid = windowSeries(open.windows(), "open loop", "open", tc.series);
    const std::string closedSaid =
        windowSeries(closed.windows(), "closed loop", "closed", tc.series);
    std::string said = openSaid.empty() || closedSaid.empty() ? openSaid + closedSaid
                                                              : openSaid + "; " + closedSaid;
    if (openSaid == "open p99 ≈ max" && closedSaid == "closed p99 ≈ max")
        said = "p99 ≈ max in both loops";
    if (!said.empty()) tc.title += " (" + said + ")";
    r.charts.push_back(std::move(tc));
}

void CoordinatedOmissionLab::fillFigures(LabResult& r, const LoopSimulation& open,
                                         const LoopSimulation& closed, bool corrected) const {
    const HdrHistogram& o = open.latencies();
    const HdrHistogram& c = closed.latencies();
    r.figures = {
        {"open_loop_requests", static_cast<double>(open.sent())},
        {"open_loop_p50_ms", percentileMs(o, 50)},
        {"open_loop_p99_ms", percentileMs(o, 99)},
        {"open_loop_p999_ms", percentileMs(o, 99.9)},
        {"open_loop_max_ms", usToMs(o.max())},
        {"closed_loop_requests", static_cast<double>(closed.sent())},
        {"closed_loop_skipped_slots", static_cast<double>(closed.skippedSlots())},
        {"closed_loop_p50_ms", percentileMs(c, 50)},
        {"closed_loop_p99_ms", percentileMs(c, 99)},
        {"closed_loop_p999_ms", percentileMs(c, 99.9)},
        {"closed_loop_max_ms", usToMs(c.max())},
        {"raw_fraction_at_or_below_1ms", fractionAtOrBelowMs(c, 1.0)},
    };
    if (corrected) {
        const HdrHistogram& k = closed.corrected();
        r.figures.emplace_back("corrected_samples", static_cast<double>(k.totalCount()));
        r.figures.emplace_back("corrected_p99_ms", percentileMs(k, 99));
        r.figures.emplace_back("corrected_p999_ms", percentileMs(k, 99.9));
        r.figures.emplace_back("corrected_fraction_at_or_below_1ms", fractionAtOrBelowMs(k, 1.0));
    }
}

void CoordinatedOmissionLab::fillChecks(LabResult& r, const co::Config& config,
                                        const LoopSimulation& open, const LoopSimulation& closed,
                                        const ClosedForms& forms, bool corrected) const {
    const HdrHistogram& o = open.latencies();
    const HdrHistogram& c = closed.latencies();
    auto& checks = r.checks;
    checks.push_back(makeCheck("open loop: every request recorded once",
                               static_cast<double>(o.totalCount() + o.outOfRangeCount()),
                               static_cast<double>(open.sent()), 0, false, "conservation"));
    checks.push_back(makeCheck("closed loop: every request recorded once",
                               static_cast<double>(c.totalCount() + c.outOfRangeCount()),
                               static_cast<double>(closed.sent()), 0, false, "conservation"));
    if (!config.poisson) {
        const double slots =
            static_cast<double>(co::FixedSchedule(config.rate_per_s, config.duration).slotCount());
        checks.push_back(makeCheck("open loop: one request per slot",
                                   static_cast<double>(open.sent()), slots, 0, false,
                                   "conservation: one slot every 1/R in [0, D)"));
        checks.push_back(makeCheck("closed loop: slots sent + skipped",
                                   static_cast<double>(closed.sent() + closed.skippedSlots()),
                                   slots, 0, false, "conservation: every slot is sent or skipped"));
    }
    checks.push_back(makeClaim("open-loop p99 >= closed-loop p99", percentileMs(o, 99),
                               Bound::AtLeast, percentileMs(c, 99), percentileMs(o, 99) >= percentileMs(c, 99),
                               "the closed loop never times the queue the stall builds"));
    if (!forms.open) {
        if (!forms.missing.empty()) addMissingFormChecks(r, open, closed, forms, corrected);
        return;
    }
    const double slack = forms.toleranceSlackMs;
    checks.push_back(versusClosedForm("open-loop p99 (ms)", percentileMs(o, 99),
                                      forms.open->quantile(0.99), slack));
    checks.push_back(versusClosedForm("open-loop p99.9 (ms)", percentileMs(o, 99.9),
                                      forms.open->quantile(0.999), slack));
    checks.push_back(
        versusClosedForm("open-loop max (ms)", usToMs(o.max()), forms.open->max(), slack));
    checks.push_back(versusClosedForm("closed-loop p99 (ms)", percentileMs(c, 99),
                                      forms.closed->quantile(0.99), slack));
    checks.push_back(
        versusClosedForm("closed-loop max (ms)", usToMs(c.max()), forms.closed->max(), slack));
    checks.push_back(makeCheck("closed-loop samples", static_cast<double>(closed.sent()),
                               static_cast<double>(forms.closed->total()), 0, false,
                               "closed form: slots before the stall + 1 + slots after it returns"));
    checks.push_back(makeCheck("raw fraction at or below 1 ms", fractionAtOrBelowMs(c, 1.0),
                               static_cast<double>(forms.closed->countAtOrBelow(1.0)) /
                                   static_cast<double>(forms.closed->total()),
                               1e-9, false, "closed form: all but the stalled sample take s"));
    if (!corrected) return;
    const HdrHistogram& k = closed.corrected();
    checks.push_back(versusClosedForm("corrected p99 (ms)", percentileMs(k, 99),
                                      forms.corrected->quantile(0.99), slack));
    checks.push_back(makeCheck("corrected fraction at or below 1 ms", fractionAtOrBelowMs(k, 1.0),
                               static_cast<double>(forms.corrected->countAtOrBelow(1.0)) /
                                   static_cast<double>(forms.corrected->total()),
                               1e-9, false,
                               "closed form: the stalled sample plus its ramp of 1/R"));
}

// The closed-form checks of a deterministic run whose server cannot keep up: listed under the
// names they have when the closed forms exist, not applicable, with nothing to compare against
// (written as null, shown as "—"), rather than left out so the checks that remain read "pass".
void CoordinatedOmissionLab::addMissingFormChecks(LabResult& r, const LoopSimulation& open,
                                                  const LoopSimulation& closed,
                                                  const ClosedForms& forms, bool corrected) {
    const HdrHistogram& o = open.latencies();
    const HdrHistogram& c = closed.latencies();
    std::vector<std::pair<std::string, double>> simulated = {
        {"open-loop p99 (ms)", percentileMs(o, 99)},
        {"open-loop p99.9 (ms)", percentileMs(o, 99.9)},
        {"open-loop max (ms)", usToMs(o.max())},
        {"closed-loop p99 (ms)", percentileMs(c, 99)},
        {"closed-loop max (ms)", usToMs(c.max())},
        {"closed-loop samples", static_cast<double>(closed.sent())},
        {"raw fraction at or below 1 ms", fractionAtOrBelowMs(c, 1.0)},
    };
    if (corrected) {
        simulated.emplace_back("corrected p99 (ms)", percentileMs(closed.corrected(), 99));
        simulated.emplace_back("corrected fraction at or below 1 ms",
                               fractionAtOrBelowMs(closed.corrected(), 1.0));
    }
    for (const auto& [name, value] : simulated) {
        r.checks.push_back(makeCheck(name, value, std::numeric_limits<double>::quiet_NaN(), 0,
                                     false, "closed form, deterministic case (needs R·s < 1)"));
        r.checks.back().not_applicable =
            "not applicable: " + forms.missing +
            " (R·s >= 1: the server cannot keep up, and the closed form needs R·s < 1)";
    }
}

std::string CoordinatedOmissionLab::explanation() const {
    return R"(<p>A server normally answers in <i>s</i>, a fraction of a millisecond. At some moment
it stops for <i>S</i>, seconds or more, far longer than any answer. How bad was that? It depends on
who is asking, and how.</p>
<p>An <b>open-loop</b> load generator keeps its schedule: it sends a request every 1/R whatever the
server is doing, and times each one from when it <i>should</i> have gone out. Every request that
arrives during the stall waits for it, and the queue left behind drains only at 1/s &minus; R per
second. Latencies fall along a straight ramp from about S + s down to s, over roughly
S&middot;R/(1 &minus; R&middot;s) requests: at 1,000/s, 0.5 ms and a 2 s stall (the
<i>coordinated-omission</i> scenario) that is 4,000 requests, 4% of a 100-second run, so the p99
is 1,500.5 ms and the p99.9 1,950.5 ms.</p>
<p>A <b>closed-loop</b> generator keeps one request in flight and sends the next only when the last
returns, timing it from the actual send. The stall holds back every request that should have gone
out during it, and none of those is ever timed. One sample of about <i>S</i> remains, among
about R&middot;D (in that scenario one of about 100,000): the p99 stays at <i>s</i> and only the max
gives the stall away. That is
<i>coordinated omission</i>: the measuring tool slows down together with the system it
measures.</p>
<p>HdrHistogram's <code>recordCorrected(value, 1/R)</code> puts the hidden samples back
(value &minus; 1/R, value &minus; 2/R, ...). It recovers the stall, not the queue: its ramp falls
by 1/R per sample, the open loop's by only 1/R &minus; s, so the corrected tail sits below the
open-loop one.
The honest fix is to test open-loop: send on the schedule and time from the schedule.</p>
<p>The closed-form curves are the exact distributions for constant service on a fixed
schedule. With exponential or lognormal service, or Poisson sends, there is no closed form here:
the lab then checks that every request is counted once and that the open loop's p99 is at least
the closed loop's.</p>
<p>All of this needs a server that keeps up: R&middot;s &lt; 1. At a utilisation R&middot;s of 1
or more the open loop's queue grows for the whole run and never drains, so its percentiles have no
steady state and grow with the duration; the closed loop, one request in flight, still reports
the service time. The lab says so above the charts, lists the closed-form curves as having no
steady state, and marks the checks against them not applicable.</p>)";
}

}  // namespace

std::unique_ptr<Lab> makeCoordinatedOmissionLab() {
    return std::make_unique<CoordinatedOmissionLab>();
}

}  // namespace taillab
