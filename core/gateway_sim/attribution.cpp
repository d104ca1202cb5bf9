#include "gateway_sim/attribution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "gateway_sim/gateway_sim.h"

namespace taillab::gateway {
namespace {

constexpr std::uint64_t kProbeBit = std::uint64_t{1} << 63;
// How far past the window's end the run goes for the last requests accepted in it, at most: any
// request ends by its deadline (60 s at most), plus what it takes to write the answer.
constexpr double kTailMargin_s = 120;
constexpr double kTailStep_s = 1;

// A request accepted in the window, while it is in flight: what the hooks saw, in absolute time.
struct Pending {
    Time accepted{};
    double deadline_ms = 0;  // in force at accept (a timeline may move it)
    std::vector<std::pair<StageWork, std::pair<Time, Time>>> stages;
    struct Call {
        int engine;
        CallRole role;
        Region region;
        Time asked;       // left the gateway: a free slot, or the engine's queue
        Time start, end;  // left for the engine, and the answer's arrival (when launched)
        Duration budget;
        std::uint32_t slot, generation;  // the call's id, to match its launch, answer, cancellation
        bool launched = false;
        CallFailure failure = CallFailure::None;
        std::optional<Time> cancelled;
    };
    std::vector<Call> calls;
    std::vector<std::pair<Time, NoteKind>> notes;
    Call* find(CallId id) {
        for (Call& c : calls)
            if (c.slot == id.slot && c.generation == id.generation) return &c;
        return nullptr;
    }
};

bool slower(const RequestWaterfall& a, const RequestWaterfall& b) {
    if (a.latency_ms != b.latency_ms) return a.latency_ms > b.latency_ms;
    if (a.accepted_s != b.accepted_s) return a.accepted_s < b.accepted_s;
    return a.trace < b.trace;
}

double msSince(Time t, Time origin) { return toMs(t - origin); }

}  // namespace

double splitSegments(RequestWaterfall& w) {
    w.segment_ms.fill(0);
    double cursor = 0;
    std::vector<double> cuts;
    auto gap = [&](double from, double to) {
        if (!(to > from)) return;
        cuts.assign({from, to});
        for (const CallSpan& c : w.calls)
            for (double v : {c.queued_from_ms(), c.start_ms, c.until_ms()})
                if (v > from && v < to) cuts.push_back(v);
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
            const double a = cuts[i], b = cuts[i + 1];
            if (!(b > a)) continue;
            bool inAir = false, inQueue = false;
            for (const CallSpan& c : w.calls) {
                inAir = inAir || (c.launched && c.start_ms < b && c.until_ms() > a);
                inQueue = inQueue || (c.queued_ms > 0 && c.queued_from_ms() < b && c.start_ms > a);
            }
            const int segment = inAir     ? static_cast<int>(Stage::Engines)
                                : inQueue ? kQueuedSegment
                                          : kWaitingSegment;
            w.segment_ms[static_cast<std::size_t>(segment)] += b - a;
        }
    };
    for (const StageSpan& s : w.stages) {
        const double start = std::clamp(s.start_ms, cursor, w.latency_ms);
        const double end = std::clamp(s.end_ms, start, w.latency_ms);
        gap(cursor, start);
        w.segment_ms[static_cast<std::size_t>(s.stage)] += end - start;
        cursor = std::max(cursor, end);
    }
    gap(cursor, w.latency_ms);
    // The parts are computed one by one: put the rounding left over where the time was largest,
    // so the sum is the latency to the last bit a double can say.
    double sum = 0;
    for (double v : w.segment_ms) sum += v;
    const auto largest = std::max_element(w.segment_ms.begin(), w.segment_ms.end());
    const double residual = w.latency_ms - sum;
    *largest += residual;
    return residual;
}

void markUnreachedStages(RequestWaterfall& w) {
    int last = -1;  // the furthest stage of the path the request got to
    std::array<bool, kStages> listed{};
    for (StageSpan& s : w.stages) {
        listed[static_cast<std::size_t>(s.stage)] = true;
        // Its work was to start after the response (start_ms is cut at it): it never began.
        if (s.unfinished && s.start_ms >= w.latency_ms) {
            s.reached = false;
            s.unfinished = false;
            continue;
        }
        last = std::max(last, static_cast<int>(s.stage));
    }
    if (!w.calls.empty()) last = std::max(last, static_cast<int>(Stage::Engines));
    // Where it still was at the response: the furthest stage whose host had not answered, else
    // the engines if a call was in the air or in a queue until then; else nowhere (answered
    // before the path went on).
    std::optional<Stage> waitingAt;
    for (const StageSpan& s : w.stages)
        if (s.reached && s.unfinished && (!waitingAt || s.stage > *waitingAt)) waitingAt = s.stage;
    if (!waitingAt)
        for (const CallSpan& c : w.calls)
            if (c.until_ms() >= w.latency_ms && (c.cancelled_ms || c.end_ms > w.latency_ms))
                waitingAt = Stage::Engines;  // given up by the response, not answered at it
    for (StageSpan& s : w.stages)
        if (!s.reached) s.waiting_at = waitingAt;
    if (!isFailed(w.outcome) || w.coalesced) return;
    for (int s = last + 1; s < kStages; ++s) {
        if (listed[static_cast<std::size_t>(s)]) continue;
        StageSpan span;
        span.stage = static_cast<Stage>(s);
        span.start_ms = span.end_ms = w.latency_ms;
        span.reached = false;
        span.waiting_at = waitingAt;
        w.stages.push_back(span);
    }
}

std::string_view noteName(NoteKind kind) { return kNoteKindNames[static_cast<std::size_t>(kind)]; }

std::string_view callFailureName(CallFailure failure) {
    switch (failure) {
        case CallFailure::None: return "none";
        case CallFailure::Reset: return "reset";
        case CallFailure::Timeout: return "timeout";
        case CallFailure::HttpError: return "http_error";
        case CallFailure::BadPayload: return "bad_payload";
    }
    return "none";
}

std::string_view segmentName(int segment) {
    if (segment >= 0 && segment < kStages) return kStageNames[static_cast<std::size_t>(segment)];
    return segment == kQueuedSegment ? "queued" : "waiting";
}

std::optional<WindowAttribution> attributeWindow(const Params& params, std::uint64_t seed,
                                                 const Timeline& timeline,
                                                 const AttributionQuery& query,
                                                 RunControl* control) {
    if (!(query.t1_s > query.t0_s) || !std::isfinite(query.t0_s) || !std::isfinite(query.t1_s))
        throw std::invalid_argument("the window to attribute must end after it starts");
    GatewaySim sim(params, seed, timeline);
    const Time t0 = fromSeconds(query.t0_s), t1 = fromSeconds(query.t1_s);
    const std::size_t keep = static_cast<std::size_t>(std::max(0, query.slowest));

    WindowAttribution out;
    out.t0_s = query.t0_s;
    out.t1_s = query.t1_s;
    std::unordered_map<std::uint64_t, Pending> pending;
    std::vector<RequestWaterfall> slowest;  // a heap: the fastest of the kept on top
    auto fasterFirst = [](const RequestWaterfall& a, const RequestWaterfall& b) { return slower(a, b); };

    const bool hasDeadline = params.spec("deadline_ms") != nullptr;
    auto deadlineNow = [&] { return hasDeadline ? sim.params().real("deadline_ms") : 0.0; };
    GatewaySim::Observer o;
    o.stage = [&](const StageWork& w, Time start, Time end) {
        if ((w.trace & kProbeBit) || w.background) return;
        auto it = pending.find(w.trace);
        if (it == pending.end()) {
            // A request's first work is the edge's, at its accept.
            if (w.stage != Stage::Edge || start < t0 || start >= t1) return;
            it = pending.emplace(w.trace, Pending{}).first;
            it->second.accepted = start;
            it->second.deadline_ms = deadlineNow();
        }
        it->second.stages.push_back({w, {start, end}});
    };
    // A stale hit's background refresh carries its request's trace but is not its work: the
    // request was answered from the cache before the refresh went out.
    auto callOf = [&](const UpstreamCall& c) -> Pending* {
        if ((c.trace & kProbeBit) || c.role == CallRole::Refresh) return nullptr;
        const auto it = pending.find(c.trace);
        return it == pending.end() ? nullptr : &it->second;
    };
    o.queued = [&](const UpstreamCall& c, Time at) {
        if (Pending* p = callOf(c))
            p->calls.push_back({c.engine, c.role, c.region, at, at, at, c.budget, c.id.slot,
                                c.id.generation, false, CallFailure::None, std::nullopt});
    };
    o.launched = [&](const UpstreamCall& c, Time at, Duration latency) {
        Pending* p = callOf(c);
        if (!p) return;
        Pending::Call* call = p->find(c.id);  // queued before: it leaves the queue now
        if (!call) {
            p->calls.push_back({c.engine, c.role, c.region, c.at, at, at, c.budget, c.id.slot,
                                c.id.generation, false, CallFailure::None, std::nullopt});
            call = &p->calls.back();
        }
        call->start = at;
        call->end = at + latency;
        call->launched = true;
    };
    o.answer = [&](const UpstreamCall& c, CallFailure failure) {
        const auto it = pending.find(c.trace);
        if (it == pending.end()) return;
        if (Pending::Call* p = it->second.find(c.id)) p->failure = failure;
    };
    o.cancelled = [&](const UpstreamCall& c, Time at) {
        const auto it = pending.find(c.trace);
        if (it == pending.end()) return;
        if (Pending::Call* p = it->second.find(c.id)) p->cancelled = at;
    };
    o.note = [&](const RequestNote& n) {
        const auto it = pending.find(n.trace);
        if (it != pending.end()) it->second.notes.emplace_back(n.at, n.kind);
    };
    std::vector<std::string> engines;
    o.response = [&](const Response& r) {
        if (r.probe || (r.trace & kProbeBit)) return;
        const auto it = pending.find(r.trace);
        if (it == pending.end()) {
            // Answered without any stage work seen (cannot happen today): still counted.
            if (r.accepted < t0 || r.accepted >= t1) return;
        }
        if (query.region && r.region != *query.region) {
            if (it != pending.end()) pending.erase(it);
            return;
        }
        RequestWaterfall w;
        w.trace = r.trace;
        w.accepted_s = toSeconds(r.accepted);
        w.latency_ms = toMs(r.at - r.accepted);
        w.deadline_ms = it != pending.end() ? it->second.deadline_ms : deadlineNow();
        w.outcome = r.outcome;
        w.status = r.status;
        w.error = r.disguised && r.error.empty() ? std::string(kOutcomeNames[static_cast<std::size_t>(r.outcome)])
                                                 : std::string(r.error);
        w.message = std::string(r.message);
        w.region = r.region;
        w.query_class = r.query_class;
        w.disguised = r.disguised;
        w.cache_hit = r.cache_hit;
        w.coalesced = r.coalesced;
        if (it != pending.end()) {
            auto& stages = it->second.stages;
            std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) {
                return a.second.first < b.second.first;
            });
            for (const auto& [work, span] : stages) {
                const double start = std::min(msSince(span.first, r.accepted), w.latency_ms);
                const double end = msSince(span.second, r.accepted);
                w.stages.push_back({work.stage, start, std::clamp(end, start, w.latency_ms),
                                    work.spilled_from.has_value(), work.shared_answer,
                                    end > w.latency_ms});
            }
            for (const Pending::Call& c : it->second.calls) {
                // A call that never left the queue waited until it was given up, or (never
                // today) until the response.
                const Time start =
                    c.launched ? c.start : std::max(c.asked, c.cancelled.value_or(r.at));
                const Time end = c.launched ? c.end : start;
                const Duration queued = std::max(start - c.asked, Duration{});
                CallSpan span{c.engine, {}, c.role, c.region, msSince(start, r.accepted),
                              msSince(end, r.accepted), toMs(c.budget), toMs(queued),
                              c.launched, c.failure, std::nullopt};
                // Given up in the queue: when its wait ended (start_ms).
                if (c.cancelled)
                    span.cancelled_ms = msSince(std::max(*c.cancelled, start), r.accepted);
                w.calls.push_back(std::move(span));
            }
            for (const auto& [at, kind] : it->second.notes) w.notes.push_back({msSince(at, r.accepted), kind});
            pending.erase(it);
        }
        markUnreachedStages(w);
        splitSegments(w);
        ++out.requests;
        ++out.outcomes[static_cast<std::size_t>(w.outcome)];
        if (isFailed(w.outcome)) ++out.failed;
        if (isRejected(w.outcome)) ++out.rejected;
        if (w.disguised) ++out.disguised;
        out.latency_ms_total += w.latency_ms;
        for (int s = 0; s < kSegments; ++s)
            out.segment_ms_total[static_cast<std::size_t>(s)] += w.segment_ms[static_cast<std::size_t>(s)];
        if (keep == 0) return;
        if (slowest.size() < keep) {
            slowest.push_back(std::move(w));
            std::push_heap(slowest.begin(), slowest.end(), fasterFirst);
        } else if (slower(w, slowest.front())) {
            std::pop_heap(slowest.begin(), slowest.end(), fasterFirst);
            slowest.back() = std::move(w);
            std::push_heap(slowest.begin(), slowest.end(), fasterFirst);
        }
    };
    sim.setObserver(std::move(o));

    if (!sim.advanceTo(query.t1_s, control)) return std::nullopt;
    // The window's deadline: the one in force at its end (each request keeps its own).
    const double deadline_ms = deadlineNow();
    // On until the requests accepted in the window have all been answered.
    const double limit = query.t1_s + kTailMargin_s;
    while (!pending.empty() && !sim.finished() && sim.now_s() < limit)
        if (!sim.advanceTo(std::min(limit, sim.now_s() + kTailStep_s), control)) return std::nullopt;
    if (!pending.empty() && sim.finished() && !sim.drain(control)) return std::nullopt;

    engines = sim.snapshot().engines;
    std::sort(slowest.begin(), slowest.end(), slower);
    for (RequestWaterfall& w : slowest)
        for (CallSpan& c : w.calls)
            if (c.engine >= 0 && static_cast<std::size_t>(c.engine) < engines.size())
                c.engine_name = engines[static_cast<std::size_t>(c.engine)];
    out.slowest = std::move(slowest);
    out.deadline_ms = deadline_ms;
    return out;
}

}  // namespace taillab::gateway
