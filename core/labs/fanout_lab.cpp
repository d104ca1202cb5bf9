// Fan-out amplification (essay 003, Dean and Barroso's "The Tail at Scale", seed 000's agent loop).
//
// Model: a request calls N backends in parallel and waits for all (latency = max of the calls), or
// walks a sequential chain (latency = sum). Each call is a lognormal body or, with probability p, a
// lognormal slow mode; a fraction f of slow events is a shared cause that slows every call of the
// request (CorrelatedSlowness), the rest are independent with q chosen to keep each backend at p.
// The optional immediate hedge sends every call to two replicas and keeps the faster; a shared
// cause slows both. The delayed hedge sends the backup only when the first replica has not
// answered after d ms, so a call takes min(X1, d + X2) and costs S(d) extra requests per call.
// The closed forms are in fanout_model.h; the headline ones:
//   P(request slow) = 1 - (1-p)^N                       independent slow calls
//                   = 1 - (1 - p f)(1 - q)^N            shared fraction f (a ceiling at f = 0)
//   hedged          = 1 - (1 - p f)(1 - q^2)^N
//   budget          b_backend = 1 - (1 - b)^(1/N)
//   hedged after d  P(call > t) = S(t)·S(t-d) (t >= d), request 1 - (1 - that)^N, extra S(d)
// Regimes: with f = 0 the request tail climbs to 1 - (1-p)^N; as f -> 1 it falls to p, whatever
// N; hedging removes only the independent part.
// A check decides only when its tolerance is within 25% of its value (lab_result.h); otherwise
// it is inconclusive and names the requests that would decide it, or says that none would.
//
// Published figures it reproduces (scenarios/labs/fanout*.json): essay_003's 0.634 at N = 100,
// p = 1%, its healthy-looking backend (p = 0.9%: p50 10.0 ms, p99 25.3 ms, p99.9 1,132 ms,
// fan-out 100 slow 59.7% vs 59.5%), its idealised-hedge table under f = 0, 0.5, 1, its per-backend
// budget (0.0001005, 1.01% simulated), gateway_000's agent loop (30 calls, 1% slow -> 26%), and
// Dean and Barroso's benchmark (1,000 keys: p99.9 1,800 -> 74 ms hedging after 10 ms, 2% extra)
// with a fitted model (scenarios/labs/fanout-tail-at-scale.json).
#include <algorithm>
#include <cmath>

#include "labs/fanout_lab_report.h"
#include "labs/lab_common.h"
#include "labs/labs.h"

namespace taillab {
namespace {

class FanoutLab final : public Lab {
  public:
    std::string id() const override { return "fanout"; }
    std::string title() const override { return "Fan-out amplification"; }
    std::string summary() const override {
        return "A request waiting on N backends is slow when any of them is: 1-(1-p)^N, less "
               "under shared stalls, and what hedging and per-backend budgets do about it";
    }
    std::string explanation() const override { return fanoutExplanation(); }
    std::vector<KnobSpec> knobs() const override;
    std::string mainKnob() const override { return "backends"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl& control,
                  const PartialSink& partial) const override;
    std::vector<std::string> figureNames(const Params& params) const override;
};

std::vector<KnobSpec> FanoutLab::knobs() const {
    return {
        KnobSpec::integer("backends", "Backends per request", "backends", 1, 1000, 100,
                          "How many calls one request makes (N)")
            .log(),
        KnobSpec::real("slow_probability", "Per-call slow probability", "fraction", 0, 0.5, 0.01,
                       "Chance that one call comes from the slow mode (p)", 0.000001),
        KnobSpec::real("shared_fraction", "Shared (correlated) fraction", "fraction", 0, 1, 0,
                       "Share of slow events that hit every call of the request at once (f)", 0.01),
        KnobSpec::choice(
            "chain", "Calls", {"parallel", "sequential"}, 0,
            "Parallel fan-out waits for the slowest call; a sequential chain adds them"),
        KnobSpec::choice("hedge_mode", "Hedge", {"none", "immediate", "delayed"}, 0,
                         "Also run each call on a second replica: at once, or only when the first "
                         "has not answered after the hedge delay; keep the faster"),
        KnobSpec::real("hedge_delay_ms", "Hedge delay", "ms", 0.1, 10000, 10,
                       "Delayed hedge: how long a call may take before its backup is sent")
            .log()
            .usedWhen("hedge_mode", {"delayed"}),
        KnobSpec::real("threshold_ms", "Slow threshold", "ms", 1, 10000, 500,
                       "A request or call at or over this latency counts as slow")
            .log(),
        KnobSpec::real("body_median_ms", "Body median", "ms", 0.1, 1000, 10,
                       "Median of the lognormal fast body of one call")
            .log()
            .hidden(),
        KnobSpec::real("body_sigma", "Body sigma", "σ (log)", 0.01, 2, 0.3,
                       "Log-space spread of the fast body", 0.01)
            .hidden(),
        KnobSpec::real("slow_median_ms", "Slow-mode median", "ms", 1, 30000, 1000,
                       "Median of the lognormal slow mode (the hiccup)")
            .log()
            .hidden(),
        KnobSpec::real("slow_sigma", "Slow-mode sigma", "σ (log)", 0.01, 2, 0.1,
                       "Log-space spread of the slow mode", 0.01)
            .hidden(),
        KnobSpec::real("request_budget", "Request slow budget", "fraction", 0.0001, 0.5, 0.01,
                       "Share of requests allowed to be slow; sets the per-backend budget", 0.0001)
            .hidden(),
        KnobSpec::integer("requests", "Requests", "requests", 1000, 10000000, 100000,
                          "How many requests to simulate")
            .log(),
    };
}

FanoutConfig fanoutConfigFrom(const Params& params) {
    FanoutConfig c;
    c.backends = params.integer("backends");
    c.slowness = {params.real("slow_probability"), params.real("shared_fraction")};
    c.body = {params.real("body_median_ms"), params.real("body_sigma")};
    c.slow = {params.real("slow_median_ms"), params.real("slow_sigma")};
    c.threshold_ms = params.real("threshold_ms");
    c.sequential = params.choice("chain") == "sequential";
    const std::string& hedge = params.choice("hedge_mode");
    c.hedge = hedge == "immediate" ? FanoutHedge::Immediate
              : hedge == "delayed" ? FanoutHedge::Delayed
                                   : FanoutHedge::None;
    c.hedge_delay_ms = params.real("hedge_delay_ms");
    return c;
}

std::vector<std::string> FanoutLab::figureNames(const Params& params) const {
    return fanoutFigureNames(fanoutConfigFrom(params));
}

LabResult FanoutLab::run(const Params& params, std::uint64_t seed, RunControl& control,
                         const PartialSink& partial) const {
    const FanoutConfig config = fanoutConfigFrom(params);
    const std::int64_t requests = params.integer64("requests");
    FanoutTally tally(config);
    FanoutStreams streams(seed);
    const FanoutRequestSampler sampler(config);

    LabResult result;
    result.lab = id();
    result.seed = seed;
    result.parameters = params.toJson();
    const std::int64_t partialEvery = std::max<std::int64_t>(requests / kPartials, kChunk);
    std::int64_t nextPartial = partialEvery;
    while (tally.requests < requests) {
        const std::int64_t end = std::min(requests, tally.requests + kChunk);
        for (std::int64_t i = tally.requests; i < end; ++i)
            tally.add(sampler.draw(streams.requests, streams.hedged));
        tally.requests = end;
        const double progress = 0.8 * static_cast<double>(end) / static_cast<double>(requests);
        control.reportProgress(progress);
        if (!control.checkpoint()) {
            fillDistributions(result, tally);
            result.progress = progress;
            result.cancelled = true;
            return result;
        }
        if (partial && end >= nextPartial && end < requests) {
            nextPartial += partialEvery;
            LabResult p = result;
            fillDistributions(p, tally);
            p.progress = progress;
            partial(p);
        }
    }
    FanoutSweeps sweeps;
    const double budget = params.real("request_budget");
    if (!runFanoutSweeps(config, budget, requests, seed, control, sweeps)) {
        fillDistributions(result, tally);
        result.progress = 0.8;
        result.cancelled = true;
        return result;
    }
    fillDistributions(result, tally);
    fillFanoutReport(result, tally, sweeps);
    control.reportProgress(1.0);
    return result;
}

}  // namespace

std::unique_ptr<Lab> makeFanoutLab() { return std::make_unique<FanoutLab>(); }

}  // namespace taillab
