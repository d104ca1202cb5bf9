// Lab "power_of_d": the supermarket model (Mitzenmacher, IEEE TPDS 2001), random routing
// against best-of-d.
//
// Model (power_of_d_sim.h): n FIFO servers of rate 1, Poisson arrivals at rate λn, each arrival
// joins the shortest of d uniformly sampled queues. Swept over λ = 0.1..0.9 (plus the chosen load)
// for d = 1..max_d. Each run first leaves out five M/M/1 relaxation times of simulated time (the
// queues start empty), at most half its arrivals; a run too short for that cannot decide the
// d = 1 checks, which then say inconclusive and name the run length that would decide them. So
// does any check whose tolerance exceeds 25% of its value (lab_result.h, kMaxToleranceShare).
//
// Closed forms (queueing.h): d = 1 is n independent M/M/1 queues, mean time in system 1/(1-λ),
// response time Exp(1-λ). For d ≥ 2 the n → ∞ fixed point gives
// T_d(λ) = Σ_{i≥1} λ^((d^i - d)/(d - 1)): the tail of the queue-length distribution falls
// doubly exponentially instead of geometrically, which is why two choices do so much better than
// one and three only a little better than two.
//
// Regimes: at low load every policy finds idle servers (T ≈ 1); the gap opens as λ → 1, where
// T_1 = 1/(1-λ) diverges and T_d grows only like log(1/(1-λ))/log d. A finite n sits slightly
// above the fixed point (at n = 100, λ = 0.9: about +1.9% for d = 2, +2.5% for d = 3); below 50
// servers the excess outgrows any allowance (+9% to +26% at n = 10-20) and the d ≥ 2 checks are
// inconclusive: the fixed point is the n → ∞ limit, not a reference for that fleet.
//
// Published figure reproduced (lab_001.supermarket_load_0_9, power-of-d-published.json): at 90%
// load random routing averages 10.0 and best of two 2.63, against 2.61 predicted.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "labs/labs.h"
#include "labs/load_sweep.h"
#include "labs/power_of_d_report.h"
#include "labs/power_of_d_sim.h"

// The lab's own helpers live in its model's namespace: that brings the model's names in
// without a using-directive, which a unity build would spread to the other labs' files.
namespace taillab::power_of_d {
namespace {

SupermarketStreams streamsFor(std::uint64_t seed, double load, int d) {
    const std::string at = "load_" + loadKey(load);
    return SupermarketStreams{Rng(seed, "power_of_d/arrivals").fork(at),
                              Rng(seed, "power_of_d/sampling").fork(at + "/" + distributionName(d)),
                              Rng(seed, "power_of_d/service").fork(at)};
}


class PowerOfDLab final : public Lab {
  public:
    std::string id() const override { return "power_of_d"; }
    std::string title() const override { return "Power of d choices"; }
    std::string summary() const override {
        return "Supermarket model: random routing vs best of d queues, against the fixed point";
    }
    std::string explanation() const override;
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "load"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;
    std::vector<std::string> figureNames(const Params& params) const override;
};

std::vector<KnobSpec> PowerOfDLab::knobs() const {
    return {
        KnobSpec::real("load", "Load", "fraction", 0.05, 0.99, 0.9,
                       "Arrival rate per server λ of the distribution chart (the sweep always "
                       "runs 0.1 to 0.9)",
                       0.01),
        KnobSpec::integer("max_d", "Largest d", "choices", 2, 6, 3,
                          "The sweep compares d = 1 (random) up to this many sampled queues"),
        KnobSpec::integer("servers", "Servers", "servers", 2, 10000, 100,
                          "Number of FIFO servers n (the fixed point is the n → ∞ limit)")
            .log(),
        KnobSpec::integer("requests", "Requests", "requests", 1000, 10'000'000, 20'000,
                          "Arrivals simulated per load and per d; each load first leaves out the "
                          "arrivals of five M/M/1 relaxation times (the queues start empty)"),
    };
}

std::vector<std::string> PowerOfDLab::figureNames(const Params& params) const {
    LabResult r;
    for (double load : sweepLoads(params.real("load"))) {
        LoadPoint point;
        point.load = load;
        point.byD.resize(static_cast<std::size_t>(params.integer("max_d")));
        point.warmup = warmupFor(load, params.integer("servers"), params.integer64("requests"));
        addLoadFigures(r, point);
    }
    return figureNamesOf(r);
}

LabResult PowerOfDLab::run(const Params& params, std::uint64_t seed, RunControl& control,
                           const PartialSink& partial) const {
    LabResult result;
    result.lab = id();
    result.seed = seed;
    result.parameters = params.toJson();
    ReportSetup setup;
    setup.servers = params.integer("servers");
    setup.maxD = params.integer("max_d");
    setup.chosenLoad = params.real("load");
    SupermarketConfig cfg;
    cfg.servers = setup.servers;
    cfg.requests = params.integer64("requests");

    const std::vector<double> loads = sweepLoads(setup.chosenLoad);
    const double span = 1.0 / static_cast<double>(loads.size() * setup.maxD);
    std::vector<LoadPoint> slots(loads.size());
    std::vector<bool> ran(loads.size(), false);
    HdrHistogram response(supermarketHdrConfig());
    const std::vector<std::size_t> order = chosenFirst(loads, setup.chosenLoad);
    for (std::size_t n = 0; n < order.size(); ++n) {
        const std::size_t i = order[n];
        LoadPoint point;
        point.load = cfg.load = loads[i];
        point.warmup = warmupFor(cfg.load, cfg.servers, cfg.requests);
        cfg.warmup = point.warmup.arrivals;
        for (int d = 1; d <= setup.maxD; ++d) {
            cfg.choices = d;
            const double base = span * static_cast<double>(n * setup.maxD + d - 1);
            SupermarketStats stats;
            stats.cancelled = !control.checkpoint();
            if (!stats.cancelled)
                stats = runSupermarket(cfg, streamsFor(seed, loads[i], d), response,
                                       {&control, base, span});
            if (stats.cancelled) {
                result.cancelled = true;
                result.progress = base;
                return result;
            }
            point.byD.push_back(summarizeRun(stats, response));
            if (sameLoad(loads[i], setup.chosenLoad))
                result.distributions.push_back({distributionName(d), response});
        }
        slots[i] = std::move(point);
        ran[i] = true;
        const double done = span * static_cast<double>((n + 1) * setup.maxD);
        control.reportProgress(done);
        if (partial && n + 1 < loads.size()) {
            LabResult snapshot = result;
            snapshot.progress = done;
            std::vector<LoadPoint> sofar;
            for (std::size_t k = 0; k < slots.size(); ++k)
                if (ran[k]) sofar.push_back(slots[k]);
            addCharts(snapshot, sofar, setup);
            partial(snapshot);
        }
    }
    const std::vector<LoadPoint>& points = slots;
    for (const auto& p : points) addLoadFigures(result, p);
    addCharts(result, points, setup);
    addChecks(result, points, setup);
    return result;
}

std::string PowerOfDLab::explanation() const {
    return R"(<p>A load balancer that sends each request to a random server leaves some servers with long
queues while others sit idle. Asking just two random servers for their queue length and picking
the shorter one changes the picture completely: this is the "power of two choices".</p>
<p>The lab runs Mitzenmacher's supermarket model: <i>n</i> FIFO servers with exponential service,
Poisson arrivals at rate λ per server, and each arrival joining the shortest of <i>d</i> queues
sampled at random. With <i>d</i> = 1 every server is an M/M/1 queue and the mean time in system is
1/(1−λ), which is 10 service times at 90% load. For <i>d</i> ≥ 2, as <i>n</i> grows the fraction
of queues holding at least <i>i</i> jobs tends to λ<sup>(d<sup>i</sup>−1)/(d−1)</sup>, which falls
doubly exponentially, and the mean time in system to
T<sub>d</sub>(λ) = Σ<sub>i≥1</sub> λ<sup>(d<sup>i</sup>−d)/(d−1)</sup>: 2.61 at 90% load for two
choices.</p>
<p>Most of the gain comes from the second choice; a third helps much less. The queues start
empty, so each run first leaves out five relaxation times of an M/M/1 queue, 1/(1−√λ)² service
times each (about 1,900 service times at 90% load, 7,800 at 95%), and then checks each simulated
mean against the formula, with a tolerance from the run's sample size plus a small allowance for
a finite number of servers, since the formula is the limit of infinitely many. A run too short
to settle, or whose tolerance is wider than a quarter of the value, says so: those checks are
<i>inconclusive</i>, with the number of requests that would decide them.</p>)";
}

}  // namespace
}  // namespace taillab::power_of_d

namespace taillab {

std::unique_ptr<Lab> makePowerOfDLab() { return std::make_unique<power_of_d::PowerOfDLab>(); }

}  // namespace taillab
