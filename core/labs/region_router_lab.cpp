// Lab "region_router": routing inference requests across regions by a score built from live
// health records (round trip + queue depth x cost + penalties), against "nearest region" with a
// healthy/unhealthy switch, on a fleet of up to 24 regions; and the fra incident, where fra loses
// accelerator nodes and the score router ramps its traffic down while the switch dumps it on a
// neighbour in one step.
//
// Model: region_router_sim.h. Figures, charts and checks: region_router_report.h.
//
// Closed form: with one region, no fault and exponential service (service_shape = 1), the region
// is an M/M/c queue at utilisation `load`; the mean wait in queue is C(c, a)/(cμ - λ) (Erlang C),
// checked with a tolerance of four batch-means standard errors over the windows. The fleet-level
// figures have no closed form: the scenarios in scenarios/incidents/ hold them against the
// published ones of seed 002 (routing_002).
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "labs/labs.h"
#include "labs/region_router_report.h"
#include "labs/region_router_sim.h"

// The lab's own helpers live in its model's namespace: that brings the model's names in
// without a using-directive, which a unity build would spread to the other labs' files.
namespace taillab::region_router {
namespace {

class RegionRouterLab final : public Lab {
  public:
    std::string id() const override { return "region_router"; }
    std::string title() const override { return "Region-aware routing and ramped failover"; }
    std::string summary() const override {
        return "Score routing (rtt + queue x cost + penalties) vs nearest region with a failover "
               "switch, on a 24-region fleet with a node loss in fra";
    }
    std::string explanation() const override;
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "hardware_penalty_ms"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;
    std::vector<std::string> figureNames(const Params& params) const override;
    std::vector<std::string> timeChartIds(const Params& params) const override;

  private:
    static ReportSetup setupFrom(const Params& params);
    // Knobs in range each but contradictory together, refused before a run (not when only the
    // figure names are asked for, which any knob values have).
    static void refuseNothingMeasured(const FleetConfig& f);
};

std::vector<KnobSpec> RegionRouterLab::knobs() const {
    return {
        KnobSpec::choice("router", "Router", {"score", "switch"}, 0,
                         "score: lowest rtt + queue x cost + penalties wins, failover is a ramp; "
                         "switch: nearest healthy region, failover moves all traffic at once"),
        KnobSpec::boolean("compare", "Run the other router beside it", true,
                          "Also run the other router on the same requests (common random "
                          "numbers), for before/after figures"),
        KnobSpec::integer("regions", "Regions", "regions", 1, 24, 24,
                          "How many regions of the fleet table (fra, ams, lhr first)"),
        KnobSpec::integer("nodes", "Nodes per region", "nodes", 1, 32, 4,
                          "Accelerator nodes per region, each a server of the region's queue"),
        KnobSpec::real("load", "Load", "fraction", 0.05, 0.95, 0.6,
                       "Fleet demand over the fleet's nominal capacity", 0.01),
        KnobSpec::real("skew", "Demand skew", "x", 0, 3, 1.85,
                       "Scales how far each city's demand departs from its region's capacity "
                       "(0: every region at the same load)",
                       0.05),
        KnobSpec::boolean("throttle", "Throttled nodes", true,
                          "mil, dfw and hkg each run one node at a third of its rate (their "
                          "health records say so; nearest routing does not look)"),
        KnobSpec::real("service_ms", "Service time", "ms", 1, 500, 35,
                       "Mean service time of one request on a healthy node", 1)
            .log(),
        KnobSpec::integer("service_shape", "Service-time phases", "phases", 1, 16, 16,
                          "Erlang phases of the service time (1: exponential, the M/M/c case; "
                          "more: less variable)"),
        KnobSpec::real("health_interval_ms", "Health interval", "ms", 10, 5000, 250,
                       "How often every region publishes its health record", 10),
        KnobSpec::integer("candidates", "Candidate regions", "regions", 1, 24, 3,
                          "Score: how many regions nearest the edge the router weighs"),
        KnobSpec::real("per_request_cost_ms", "Cost per queued request", "ms", 0, 100, 9,
                       "Score: ms added per request in the region's queue", 0.5),
        KnobSpec::real("hardware_penalty_ms", "Hardware penalty", "ms", 0, 500, 30,
                       "Score: ms added for a region that has lost all its capacity, in "
                       "proportion to the share lost (failed or throttled nodes)",
                       1),
        KnobSpec::real("error_penalty_ms", "Error penalty", "ms per %", 0, 100, 5,
                       "Score: ms added per percent of recent errors", 0.5),
        KnobSpec::real("error_window_s", "Error window", "s", 0.25, 120, 10,
                       "Time constant over which the recent error rate is smoothed", 0.25),
        KnobSpec::real("unhealthy_lost_share", "Switch: unhealthy at capacity lost", "fraction",
                       0.05, 1, 0.5,
                       "Switch router: a region is unhealthy once it has lost this "
                       "share of its capacity",
                       0.05),
        KnobSpec::real("unhealthy_error_rate", "Switch: unhealthy at error rate", "fraction", 0.01,
                       1, 0.2, "Switch router: ... or once its recent error rate reaches this",
                       0.01),
        KnobSpec::real("queue_timeout_ms", "Queue timeout", "ms", 10, 10000, 250,
                       "An attempt waiting longer in a queue is dropped and retried elsewhere", 10)
            .log(),
        KnobSpec::integer("queue_limit", "Queue limit", "requests", 1, 100000, 17,
                          "An attempt finding this many waiting is rejected and retried elsewhere")
            .log(),
        KnobSpec::integer("max_retries", "Cross-region retries", "retries", 0, 3, 1,
                          "Retries in another region after a timeout, rejection or lost node"),
        KnobSpec::real("error_share", "Transient errors", "fraction", 0, 0.1, 0.0009,
                       "Share of requests whose first attempt fails after its service (a runtime "
                       "error, not load), retried in another region",
                       0.0001),
        KnobSpec::integer("fault_nodes", "Nodes lost in fra", "nodes", 0, 32, 2,
                          "How many of fra's nodes fail (0: no fault)"),
        KnobSpec::real("fault_at_s", "First loss at", "s", 0, 1800, 60,
                       "When the first fra node fails", 1),
        KnobSpec::real("fault_spread_s", "Losses spread over", "s", 0, 600, 40,
                       "The failures are spread evenly over this long", 1),
        KnobSpec::real("duration_s", "Duration", "s", 10, 3600, 240, "Simulated time", 10).log(),
        KnobSpec::real("warmup_s", "Warm-up", "s", 0, 600, 30,
                       "Simulated but not measured, so queues start near steady state", 1),
        KnobSpec::real("window_s", "Window", "s", 1, 60, 5,
                       "Width of the time charts' windows (p99 and traffic per window)", 1),
        KnobSpec::real("recovery_margin", "Recovered within", "fraction", 0.01, 1, 0.15,
                       "Recovered once the window p99 stays within this of its pre-fault value",
                       0.01)
            .hidden(),
    };
}

void RegionRouterLab::refuseNothingMeasured(const FleetConfig& f) {
    if (f.warmupS < f.durationS) return;
    char why[160];
    std::snprintf(why, sizeof why,
                  "warmup_s (%g s) is not less than duration_s (%g s): nothing would be measured",
                  f.warmupS, f.durationS);
    throw std::invalid_argument(why);
}

ReportSetup RegionRouterLab::setupFrom(const Params& p) {
    ReportSetup s;
    FleetConfig& f = s.fleet;
    f.router = p.choiceIndex("router") == 0 ? Router::Score : Router::Switch;
    f.regions = p.integer("regions");
    f.nodes = p.integer("nodes");
    f.load = p.real("load");
    f.skew = p.real("skew");
    f.throttle = p.flag("throttle");
    f.serviceMs = p.real("service_ms");
    f.serviceShape = p.integer("service_shape");
    f.healthIntervalMs = p.real("health_interval_ms");
    f.candidates = p.integer("candidates");
    f.perRequestCostMs = p.real("per_request_cost_ms");
    f.hardwarePenaltyMs = p.real("hardware_penalty_ms");
    f.errorPenaltyMs = p.real("error_penalty_ms");
    f.errorWindowS = p.real("error_window_s");
    f.unhealthyLostShare = p.real("unhealthy_lost_share");
    f.unhealthyErrorRate = p.real("unhealthy_error_rate");
    f.queueTimeoutMs = p.real("queue_timeout_ms");
    f.queueLimit = p.integer("queue_limit");
    f.maxRetries = p.integer("max_retries");
    f.errorShare = p.real("error_share");
    f.faultNodes = p.integer("fault_nodes");
    f.faultAtS = p.real("fault_at_s");
    f.faultSpreadS = p.real("fault_spread_s");
    f.durationS = p.real("duration_s");
    f.warmupS = p.real("warmup_s");
    f.windowS = p.real("window_s");
    if (f.faultNodes > f.nodes)
        throw std::invalid_argument("fault_nodes (" + std::to_string(f.faultNodes) +
                                    ") exceeds nodes (" + std::to_string(f.nodes) +
                                    "): fra cannot lose more nodes than it has");
    s.recoveryMargin = p.real("recovery_margin");
    s.routers = {f.router};
    if (p.flag("compare"))
        s.routers.push_back(f.router == Router::Score ? Router::Switch : Router::Score);
    return s;
}

std::vector<std::string> RegionRouterLab::figureNames(const Params& params) const {
    const ReportSetup setup = setupFrom(params);
    std::vector<RouterSummary> runs;
    for (Router r : setup.routers) {
        RouterSummary s;
        s.router = r;
        runs.push_back(std::move(s));
    }
    LabResult r;
    addFigures(r, setup, runs);
    return figureNamesOf(r);
}

std::vector<std::string> RegionRouterLab::timeChartIds(const Params& params) const {
    const ReportSetup setup = setupFrom(params);
    std::vector<RouterSummary> runs(setup.routers.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        runs[i].router = setup.routers[i];
        runs[i].share.resize(kTracked);  // a run has one (empty here) series per tracked region
    }
    LabResult r;
    addCharts(r, setup, runs);
    return timeChartIdsOf(r);
}

LabResult RegionRouterLab::run(const Params& params, std::uint64_t seed, RunControl& control,
                               const PartialSink& partial) const {
    const ReportSetup setup = setupFrom(params);
    refuseNothingMeasured(setup.fleet);
    LabResult result;
    result.lab = id();
    result.seed = seed;
    result.parameters = params.toJson();
    std::vector<RouterSummary> runs;
    const double span = 1.0 / static_cast<double>(setup.routers.size());
    for (std::size_t i = 0; i < setup.routers.size(); ++i) {
        FleetConfig cfg = setup.fleet;
        cfg.router = setup.routers[i];
        const double base = span * static_cast<double>(i);
        FleetRun run = control.checkpoint()
                           ? runFleet(cfg, fleetStreams(seed), {&control, base, span})
                           : FleetRun(latencyHdrConfig());
        if (run.cancelled || control.cancelRequested()) {
            result.cancelled = true;
            result.progress = base;
            return result;
        }
        runs.push_back(summarize(setup, cfg.router, run));
        result.distributions.push_back({routerKey(cfg.router), runs.back().global});
        control.reportProgress(span * static_cast<double>(i + 1));
        if (partial && i + 1 < setup.routers.size()) {
            LabResult snapshot = result;
            snapshot.progress = span * static_cast<double>(i + 1);
            addCharts(snapshot, setup, runs);
            partial(snapshot);
        }
    }
    addFigures(result, setup, runs);
    addCharts(result, setup, runs);
    addChecks(result, setup, runs);
    return result;
}

std::string RegionRouterLab::explanation() const {
    // The incident as the defaults run it, its numbers read from the knobs so the text cannot
    // drift from them (the losses are spread evenly from the first to the last).
    auto knobDefault = [&](std::string_view key) {
        for (const KnobSpec& k : knobs())
            if (k.key == key) return k.defaultValue;
        throw std::logic_error("region_router: no knob " + std::string(key));
    };
    auto number = [](double v) { return std::to_string(static_cast<long long>(std::lround(v))); };
    const std::string incident =
        "<p>In the fra incident, " + number(knobDefault("fault_nodes")) + " of fra's " +
        number(knobDefault("nodes")) + " nodes fail by default, the first at " +
        number(knobDefault("fault_at_s")) + " s and the last " + number(knobDefault("fault_spread_s")) +
        " s later (<i>First loss at</i> and <i>Losses spread over</i>). ";
    return R"(<p>Sending every request to the closest region is simple and often wrong: a close region
can be saturated, a region can be up while one of its accelerators runs at a third of its speed,
and a switch that declares a region dead moves all of its traffic at once onto a neighbour that
was sized for its own.</p>
<p>The lab runs a fleet of up to 24 regions, each a queue served by a few accelerator nodes, with
an edge beside each region. Every region publishes a health record at a fixed interval (250 ms by
default): its queue depth, the requests it completed per second, the share of its capacity that
is lost, and its recent error rate. The <b>score</b> router sends each request where
<i>rtt + depth × cost + hardware penalty + error penalty</i> is lowest, counting the requests it
has sent since the last record, so a region that degrades gets proportionally less traffic: a
ramp. The <b>switch</b> router sends each request to the nearest region that is healthy, and
moves a region's whole traffic to the next nearest the moment its record crosses a threshold.
Both retry a timed-out or rejected attempt once in another region.</p>
)" + incident + R"(Watch the traffic chart: under the score router fra's share slides down while ams, lhr and the rest of Europe take a
little each; under the switch it stays at 100% until the second loss, while fra's queue times out
and retries pile up, then drops to zero and ams carries twice its load. Latency is measured
from arrival at the edge, retries included, and a request that fails for good counts at the
latency it failed at. Global percentiles come from merged histograms, never from averaging
per-region percentiles.</p>
<p>With one region, no fault and exponential service, the region is an M/M/c queue: its mean wait
is checked against Erlang C.</p>)";
}

}  // namespace
}  // namespace taillab::region_router

namespace taillab {

std::unique_ptr<Lab> makeRegionRouterLab() {
    return std::make_unique<region_router::RegionRouterLab>();
}

}  // namespace taillab
