// Tail attribution: where the time of a window's requests went, and the waterfalls of its slowest
// requests. GatewaySim is deterministic (same params, seed and timeline: same run), so a window
// seen on a chart can be run again to its end with the Observer hooks on, collecting only the
// requests accepted in it: every stage's work (including any wait for a CPU), every upstream call
// (its wait in the engine's queue when the engine was at engine_capacity, then from when it left
// for the engine, for the latency the fleet drew; or until it was given up in the queue), and
// every response (its outcome, status, error and message: which limit, budget or breaker refused
// it).
//
// A request's life, accept to response, is split into consecutive segments that add up to its
// latency exactly: the stages' own work (edge, gateway, compiler, cache, router, merge), and
// between them, moment by moment, "engines" (one of its calls was in the air), else "queued"
// (one of its calls waited in an engine's queue for a slot: see CallSpan::queued_ms for which
// engine), else "waiting" (queued in the batch lane, waiting on another request's flight,
// waiting for a timer). Synthetic probes (trace with the top bit set) and background refreshes
// are left out. Plain C++, no Qt; the GUI runs it on a worker thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gateway/contract.h"
#include "gateway/gateway_types.h"
#include "knobs/knob.h"
#include "scenario/timeline.h"
#include "sim/run_control.h"

namespace taillab::gateway {

// The segments a request's latency splits into: the seven stages, then "waiting", then "queued"
// (at an engine, for a slot).
constexpr int kSegments = kStages + 2;
constexpr int kWaitingSegment = kStages;
constexpr int kQueuedSegment = kStages + 1;
std::string_view segmentName(int segment);  // "edge" ... "merge", "waiting", "queued"

struct StageSpan {
    Stage stage = Stage::Edge;
    double start_ms = 0, end_ms = 0;  // since the request was accepted
    bool spilled = false;             // the work ran in another region than the request's home
    bool shared_answer = false;       // cache: a coalesced waiter reading the leader's answer
    // The work had started but not ended when the request was answered (its host had not
    // answered: a pool with no CPU left, a host that accepts and never answers, does it an hour
    // later): end_ms is cut at the response.
    bool unfinished = false;
    // False: the request was answered before the stage's work could start (a stage before it
    // never ended, or the request failed before the path got there). start_ms == end_ms ==
    // latency_ms; the stage had no part in its latency and no deadline left to speak of.
    bool reached = true;
    // Not reached: where the request still was when it was answered, the stage that kept it from
    // getting here: a stage whose host had not answered (unfinished), or Engines (a call still in
    // the air or in an engine's queue). nullopt: nothing was under way, the request had been
    // answered (refused, failed) before the path got here.
    std::optional<Stage> waiting_at{};
};

struct CallSpan {
    int engine = 0;
    std::string engine_name;
    CallRole role = CallRole::Primary;
    Region region = Region::EU;
    double start_ms = 0;  // left for the engine (after any wait for an engine slot)
    double end_ms = 0;    // start + the latency the fleet drew (the answer's arrival, if awaited)
    double budget_ms = 0; // the call's own timeout, what the deadline left it
    double queued_ms = 0; // how long it waited in the engine's queue for a slot, up to start_ms
    // False: it never left the engine's queue (given up there, or still waiting at the response):
    // start_ms == end_ms == when its wait ended, and the fleet drew nothing for it.
    bool launched = true;
    CallFailure failure = CallFailure::None;  // what the fleet drew: a page, a reset, ...
    // When the gateway gave up on it while it was in the air or in the queue (its own timeout,
    // the request answered, another call won); nullopt: its answer arrived.
    std::optional<double> cancelled_ms;
    // When it asked for an engine slot: the start of its wait in the queue.
    double queued_from_ms() const { return start_ms - queued_ms; }
    // Until when the request waited on it: the answer's arrival or the cancellation.
    double until_ms() const { return cancelled_ms ? std::min(end_ms, *cancelled_ms) : end_ms; }
};

// A decision the gateway noted about the request (see RequestNote): a spill refused by a
// breaker, a hedge the budget denied, a hedge too late to send or with no engine to go to.
struct NoteSpan {
    double at_ms = 0;  // since accept
    NoteKind kind = NoteKind::HedgeDenied;
};
std::string_view noteName(NoteKind kind);  // "hedge_denied"
std::string_view callFailureName(CallFailure failure);  // "none", "reset", "timeout", ...

struct RequestWaterfall {
    std::uint64_t trace = 0;
    double accepted_s = 0;  // simulated seconds since the run started
    double latency_ms = 0;
    double deadline_ms = 0;  // the deadline in force, from accept
    Outcome outcome = Outcome::Ok;
    int status = 200;
    // The failure's name ("deadline_missed") and the response's human sentence. A failure
    // answered as an empty 200 (disguised) told the client nothing: its error is the truth's.
    std::string error, message;
    Region region = Region::EU;  // where it was served
    QueryClass query_class = QueryClass::Evergreen;
    bool disguised = false;  // a failure answered as an empty 200 (what clients saw: success)
    bool cache_hit = false, coalesced = false;
    // In start order, as the stages reported their work; a failed request's stages of the path
    // after the last one it reached follow (reached = false), so the path reads whole.
    std::vector<StageSpan> stages;
    std::vector<CallSpan> calls;    // in launch order
    std::vector<NoteSpan> notes;    // in time order
    // The latency split into kSegments; sums to latency_ms.
    std::array<double, kSegments> segment_ms{};
    // The deadline left when a stage's work ended (deadline_ms - end_ms; negative: past it).
    double deadlineLeftAt(const StageSpan& s) const { return deadline_ms - s.end_ms; }
};

// Fills w.segment_ms from w.stages and w.calls: [0, latency_ms] split into the stages' work and
// the gaps between them, each gap cut where a call asked for a slot, left for its engine or
// ended, and each piece given to "engines", "queued" or "waiting" (see the top of this file).
// The pieces partition the latency, so their sum differs from it only by rounding; that
// difference is added to the largest segment and returned (a split that lost or counted twice
// any time would return it).
double splitSegments(RequestWaterfall& w);

// Marks the stages whose work started at or after the response as not reached and, for a failed
// request that was not waiting on another's flight, appends the stages of the path after the
// last one reached (calls count as reaching "engines") as not reached; each says where the
// request was still waiting at the response, if anywhere (StageSpan::waiting_at).
void markUnreachedStages(RequestWaterfall& w);

struct WindowAttribution {
    double t0_s = 0, t1_s = 0;  // the window: accepted in [t0_s, t1_s)
    std::uint64_t requests = 0;  // accepted in the window (probes left out)
    std::uint64_t failed = 0, rejected = 0, disguised = 0;
    double latency_ms_total = 0;
    std::array<double, kSegments> segment_ms_total{};  // sums to latency_ms_total
    std::array<std::uint64_t, kOutcomes> outcomes{};
    std::vector<RequestWaterfall> slowest;  // slowest first; ties by accept time, then trace
    double deadline_ms = 0;
};

struct AttributionQuery {
    double t0_s = 0, t1_s = 0;  // the window, simulated seconds since the run started
    int slowest = 10;           // how many waterfalls to keep
    std::optional<Region> region;  // only requests served there
};

// Runs GatewaySim(params, seed, timeline) to the end of the window and on until every request
// accepted in it has been answered. Throws what GatewaySim throws, and std::invalid_argument for
// an empty or inverted window. Returns nullopt when `control` cancelled it.
std::optional<WindowAttribution> attributeWindow(const Params& params, std::uint64_t seed,
                                                 const Timeline& timeline,
                                                 const AttributionQuery& query,
                                                 RunControl* control = nullptr);

}  // namespace taillab::gateway
