// Lab "hedge_loaded": hedged requests on loaded FIFO replicas.
//
// Model (hedge_loaded_sim.h): c FIFO servers with their own queues, Poisson arrivals at
// per-server load ρ, a random server per primary, a backup on a different random server that
// queues and holds its server until one copy answers. Four policies are run on common random
// numbers at every load of a 0.1..0.9 sweep (plus the chosen load): no hedging, a hedge after a
// fixed delay, a hedge at the pXX of unhedged response time (calibrated per load on its own RNG
// streams), and duplicate-all. The cancel rule (both / backup only / nothing) says which losing
// copy is removed from its queue or stopped mid-service.
//
// Closed form: without hedging, random routing of a Poisson stream makes c independent M/M/1
// queues, so with exponential service the response time is Exp(μ(1-ρ)): mean 1/(μ-λ),
// pXX = -ln(1-XX)/(μ(1-ρ)). The lab checks the simulated mean and p99 against it at every load,
// with ±4 standard errors from the sample size (queueing.h gives the correlated-sample SE).
// Each run first leaves out five M/M/1 relaxation times of simulated time (warmup.h), at most
// half its requests; a check is inconclusive, naming the run that would decide it, when the run
// is too short to settle or its tolerance exceeds a quarter of the closed form's value.
//
// Published figures reproduced (lab_001.hedge_loaded, checked by the scenario files): a p95
// hedge costs about 3% of capacity at every load; duplicate-all beats no hedging on the median
// at 20% load and multiplies the median many times at 70% (published 26x). These hold when only
// a backup can be cancelled (cancel = backup_only, the default); see explanation().
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "labs/hedge_loaded_report.h"
#include "labs/hedge_loaded_sim.h"
#include "labs/lab_common.h"
#include "labs/labs.h"
#include "labs/load_sweep.h"

// The lab's own helpers live in its model's namespace: that brings the model's names in
// without a using-directive, which a unity build would spread to the other labs' files.
namespace taillab::hedge_loaded {
namespace {

constexpr const char* kLabId = "hedge_loaded";
const std::vector<std::string> kServiceChoices = {"exponential", "lognormal_slow", "constant"};
const std::vector<std::string> kCancelChoices = {"both", "backup_only", "nothing"};

ServiceModel serviceFrom(const Params& params) {
    const double scale = params.real("service_ms");
    switch (params.choiceIndex("service")) {
        case 1: {
            LognormalWithSlowMode m;
            m.body = {scale, params.real("sigma")};
            m.slow_probability = params.real("slow_probability");
            m.slow = {scale * params.real("slow_multiplier"), 0.1};
            return m;
        }
        case 2:
            return ConstantModel{scale};
        default:
            return ExponentialModel{scale};
    }
}

CancelRule cancelFrom(const Params& params) {
    switch (params.choiceIndex("cancel")) {
        case 0:
            return CancelRule::Both;
        case 1:
            return CancelRule::BackupOnly;
        default:
            return CancelRule::Nothing;
    }
}

HedgeSimStreams streamsFor(std::uint64_t seed, const std::string& prefix, double load) {
    const std::string at = "load_" + loadKey(load);
    auto stream = [&](const char* name) { return Rng(seed, prefix + name).fork(at); };
    return HedgeSimStreams{stream("arrivals"), stream("routing"), stream("service"),
                           stream("backup_routing"), stream("backup_service")};
}

// Whether a load is one of the sweep's 0.1 .. 0.9 grid (the chosen load may not be).
bool onGrid(double load) { return std::abs(load * 10 - std::round(load * 10)) < 1e-9; }


PolicyPoint summarizeRun(const HedgeSimStats& s, const HdrHistogram& response) {
    PolicyPoint q;
    q.meanMs = response.mean() / 1000.0;
    q.medianMs = percentileMs(response, 50);
    q.p99Ms = percentileMs(response, 99);
    q.p999Ms = percentileMs(response, 99.9);
    q.extraRequests = s.measured > 0 ? static_cast<double>(s.measuredBackups) / s.measured : 0;
    q.capacityCost = s.demandMs > 0 ? s.busyMs / s.demandMs - 1.0 : 0;
    return q;
}

bool conserved(const HedgeSimStats& s) {
    return s.arrived == s.answered &&
           s.copiesCreated == s.copiesFinished + s.copiesDropped + s.copiesStopped &&
           s.copiesCreated == s.arrived + s.backupsSent;
}

class HedgeLoadedLab final : public Lab {
  public:
    std::string id() const override { return kLabId; }
    std::string title() const override { return "Hedging on loaded FIFO replicas"; }
    std::string summary() const override {
        return "Hedges and duplicates on c busy FIFO servers: latency and capacity cost vs load, "
               "against M/M/1";
    }
    std::string explanation() const override;
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "load"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;
    std::vector<std::string> figureNames(const Params& params) const override;

  private:
    struct Setup {
        HedgeSimConfig base;
        ReportSetup report;
    };
    static Setup setupFrom(const Params& params);
    static bool runLoad(const Setup& setup, std::uint64_t seed, double load, LoadPoint& point,
                        LabResult& result, HdrHistogram& response, RunControl& control, double base,
                        double span);
};

std::vector<KnobSpec> HedgeLoadedLab::knobs() const {
    return {
        KnobSpec::real("load", "Load", "fraction", 0.05, 0.95, 0.5,
                       "Per-server utilisation of the distribution chart (the sweep always runs "
                       "0.1 to 0.9)",
                       0.05),
        KnobSpec::real("hedge_percentile", "Hedge percentile", "%", 50, 99.9, 95,
                       "The pXX hedge fires at this percentile of unhedged response time, "
                       "calibrated at each load",
                       0.1),
        KnobSpec::real("hedge_delay_ms", "Fixed hedge delay", "ms", 0, 1000, 20,
                       "Delay of the fixed-delay hedge policy", 1),
        KnobSpec::choice("cancel", "Cancel on answer", kCancelChoices, 1,
                         "What is stopped when one copy answers: both copies, only a backup, or "
                         "nothing"),
        KnobSpec::integer("servers", "Servers", "servers", 2, 256, 10,
                          "Number of FIFO replicas, each with its own queue"),
        KnobSpec::choice("service", "Service time", kServiceChoices, 0,
                         "Service-time model; exponential makes the M/M/1 closed form apply"),
        KnobSpec::real("service_ms", "Service time scale", "ms", 0.1, 1000, 10,
                       "Mean (exponential), body median (lognormal) or value (constant)")
            .log(),
        KnobSpec::real("sigma", "Lognormal sigma", "σ of ln(ms)", 0.05, 2, 0.3,
                       "Shape of the lognormal body", 0.05)
            .hidden(),
        KnobSpec::real("slow_probability", "Slow-mode probability", "fraction", 0, 0.2, 0.01,
                       "Chance that a lognormal draw comes from the slow mode", 0.001)
            .hidden(),
        KnobSpec::real("slow_multiplier", "Slow-mode multiplier", "x", 1, 1000, 10,
                       "Slow-mode median as a multiple of the body median", 1)
            .hidden(),
        KnobSpec::integer("requests", "Requests", "requests", 1000, 4'000'000, 6'000,
                          "Requests per simulation; a run is 5 simulations at each of 9-10 loads"),
    };
}

HedgeLoadedLab::Setup HedgeLoadedLab::setupFrom(const Params& params) {
    Setup s;
    s.base.servers = params.integer("servers");
    s.base.service = serviceFrom(params);
    s.base.requests = params.integer64("requests");
    s.base.cancel = cancelFrom(params);
    s.report.service = s.base.service;
    s.report.exponential = params.choiceIndex("service") == 0;
    s.report.percentile = params.real("hedge_percentile");
    s.report.fixedDelayMs = params.real("hedge_delay_ms");
    s.report.chosenLoad = params.real("load");
    s.report.cancelName = params.choice("cancel");
    return s;
}

// Runs the calibration and the four policies at one load. Returns false when cancelled.
bool HedgeLoadedLab::runLoad(const Setup& setup, std::uint64_t seed, double load, LoadPoint& point,
                             LabResult& result, HdrHistogram& response, RunControl& control,
                             double base, double span) {
    const double step = span / (kPolicyCount + 1);
    HedgeSimConfig cfg = setup.base;
    cfg.load = load;
    point.load = load;
    point.warmup = warmupFor(load, cfg.servers, cfg.requests);
    cfg.warmup = point.warmup.arrivals;

    HedgeSimStats calibration = runHedgeSim(
        cfg, streamsFor(seed, "hedge_loaded/calibration/", load), response, {&control, base, step});
    if (calibration.cancelled) return false;
    const std::int64_t delayUs = response.valueAtPercentile(setup.report.percentile);
    point.percentileDelayMs = static_cast<double>(delayUs) / 1000.0;
    point.calibrationCount = calibration.measured;
    point.conserved = conserved(calibration);

    for (int k = 0; k < kPolicyCount; ++k) {
        cfg.mode = k == kNone        ? HedgeMode::None
                   : k == kDuplicate ? HedgeMode::Immediate
                                     : HedgeMode::Delayed;
        cfg.hedgeDelay = k == kFixed ? fromMs(setup.report.fixedDelayMs) : fromUs(delayUs);
        HedgeSimStats stats = runHedgeSim(cfg, streamsFor(seed, "hedge_loaded/", load), response,
                                          {&control, base + step * (k + 1), step});
        if (stats.cancelled) return false;
        point.policy[k] = summarizeRun(stats, response);
        point.measured = stats.measured;
        point.conserved = point.conserved && conserved(stats);
        if (sameLoad(load, setup.report.chosenLoad))
            result.distributions.push_back({policyKey(k), response});
    }
    return true;
}

std::vector<std::string> HedgeLoadedLab::figureNames(const Params& params) const {
    LabResult r;
    std::vector<LoadPoint> points;
    for (double load : sweepLoads(params.real("load"))) {
        LoadPoint point;
        point.load = load;
        point.onGrid = onGrid(load);
        addLoadFigures(r, point);
        points.push_back(point);
    }
    addSummaryFigures(r, points);
    return figureNamesOf(r);
}

LabResult HedgeLoadedLab::run(const Params& params, std::uint64_t seed, RunControl& control,
                              const PartialSink& partial) const {
    const Setup setup = setupFrom(params);
    LabResult result;
    result.lab = id();
    result.seed = seed;
    result.parameters = params.toJson();

    const std::vector<double> loads = sweepLoads(setup.report.chosenLoad);
    std::vector<LoadPoint> points(loads.size());
    std::vector<bool> ran(loads.size(), false);
    HdrHistogram response(hedgeResponseHdrConfig());
    const double span = 1.0 / static_cast<double>(loads.size());
    const std::vector<std::size_t> order = chosenFirst(loads, setup.report.chosenLoad);
    for (std::size_t n = 0; n < order.size(); ++n) {
        const std::size_t i = order[n];
        LoadPoint& point = points[i];
        point.onGrid = onGrid(loads[i]);
        if (!control.checkpoint() ||
            !runLoad(setup, seed, loads[i], point, result, response, control, span * n, span)) {
            result.cancelled = true;
            result.progress = span * n;
            return result;
        }
        ran[i] = true;
        control.reportProgress(span * (n + 1));
        if (partial && n + 1 < loads.size()) {
            LabResult snapshot = result;
            snapshot.progress = span * (n + 1);
            std::vector<LoadPoint> sofar;
            for (std::size_t k = 0; k < points.size(); ++k)
                if (ran[k]) sofar.push_back(points[k]);
            addCharts(snapshot, sofar, setup.report);
            partial(snapshot);
        }
    }
    for (const auto& p : points) addLoadFigures(result, p);
    addSummaryFigures(result, points);
    addCharts(result, points, setup.report);
    addChecks(result, points, setup.report);
    return result;
}

std::string HedgeLoadedLab::explanation() const {
    return R"(<p>A hedge sends a second copy of a slow request to another replica and keeps the first
answer. On idle replicas the backup starts at once, so it is cheap insurance against a rare slow
call. Here the replicas are busy FIFO queues: a backup waits in another server's queue like any
request and, once it starts, occupies that server until one copy answers. Every backup therefore
delays the requests queued behind it.</p>
<p>The lab runs <i>c</i> servers with Poisson arrivals at per-server load ρ and compares four
policies on identical arrivals and service times: no hedging, a hedge after a fixed delay, a hedge
at the pXX of unhedged response time (measured at each load on a separate random stream), and
duplicating every request. Without hedging, random routing turns the cluster into <i>c</i>
independent M/M/1 queues, so the response time is exponential with rate μ(1−ρ); the simulated mean
and p99 are checked against that at every load.</p>
<p>What is cancelled when a copy answers decides the verdict. If either losing copy can be
stopped and service is exponential, two copies in service together finish at twice the rate, so
hedging costs no server time at all and duplicate-all wins at every load (with lognormal service
it still wins up to about 80% load). If nothing is cancelled, every backup runs in full:
duplicate-all doubles the offered load and diverges past ρ = 0.5, and even the p95 hedge tips the
queues over from about 60% load, because hedges make responses slower, which triggers more hedges.
The published picture (a p95 hedge costs about 3% of capacity at every load, duplicate-all wins at
20% load and multiplies the median many times at 70%) appears when only a queued or running backup
is stopped and a losing primary runs to completion (<code>backup_only</code>, the default). Then
duplicate-all costs half a service per request, so at 70% load the servers are asked for 105% of
their capacity: the median grows with the length of the run, which is why the published 26x is
noisy and swings with seed, run length and server count.</p>
<p>Capacity cost is the extra server time hedging spends: the busy time of all copies of a request
minus its primary's service time (what it would have cost unhedged), over the latter.</p>)";
}

}  // namespace
}  // namespace taillab::hedge_loaded

namespace taillab {

std::unique_ptr<Lab> makeHedgeLoadedLab() {
    return std::make_unique<hedge_loaded::HedgeLoadedLab>();
}

}  // namespace taillab
