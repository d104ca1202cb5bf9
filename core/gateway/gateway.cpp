#include "gateway/gateway.h"

#include <algorithm>
#include <stdexcept>

#include "gateway/edge.h"
#include "gateway/merge.h"
#include "gateway/pool.h"
#include "gateway/validation.h"

namespace taillab::gateway {
namespace {

constexpr std::uint32_t kNone = 0xffffffffu;
constexpr int kMaxCalls = 6;
constexpr Duration kRetryAfter503 = std::chrono::seconds(1);
constexpr std::uint64_t kRouterPurpose = 0x726f75746572ULL;  // "router"

// A request's state but its strings: plain data, reset by one assignment when a slot is reused.
struct ReqFields {
    std::uint32_t generation = 0;
    bool live = false, done = false, background = false, holdsSlot = false, queued = false;
    bool pinned = false, leader = false, probe = false, zeroOk = false, hasRate = false;
    // How the answer was found, for the response: from the cache (fresh or stale), or from
    // another request's upstream call (a coalesced waiter).
    bool cacheHit = false, staleHit = false, coalesced = false;
    // The compiler classified the query (`cls` holds its class). A request refused before that
    // (401, 429, shed, a bad max_results or query, a deadline while queued) has no class.
    bool classified = false;
    Lane lane = Lane::Interactive;
    Endpoint endpoint = Endpoint::Lite;
    Region region = Region::EU;
    QueryClass cls = QueryClass::Evergreen;
    std::uint8_t instance = 0, maxResults = 10, fetchCount = 10;
    std::uint8_t ncalls = 0, outstanding = 0;
    std::uint32_t key = GatewayMetrics::kNoKey;
    std::uint32_t flight = kNone;
    std::uint32_t tried = 0;
    std::uint64_t trace = 0, cacheKey = 0, draws = 0;
    // deadline: what every stage works to; hard: the promise to the client. Both are set once,
    // at accept, from the deadline knobs then in force: a later change does not move them.
    Time accepted{}, deadline{}, hard{}, engineStart{}, resumeAt{};
    std::array<std::uint32_t, kMaxCalls> calls{};
    std::array<std::uint64_t, kTimerKinds> timers{};  // armed sequence number per kind, 0: none
    RateLimitFields rate;
    CompilerMemo::Ref analysis;  // from prefetch(), when there was one
};

}  // namespace

struct Gateway::Req : ReqFields {
    std::string query;  // raw while waiting in the batch lane; normalized once it misses the cache
    std::string lang;   // the client's language tag, sent upstream with the query
};

struct Gateway::Call {
    std::uint32_t generation = 0;
    std::uint32_t request = kNone;
    std::uint8_t engine = 0, ip = 0;
    CallRole role = CallRole::Primary;
    Time start{};
    bool live = false;
};

struct Gateway::Busy {
    explicit Busy(bool& flag) : flag_(flag) {
        if (flag_)
            throw std::logic_error(
                "Gateway re-entered from inside one of its outputs (a Port call): queue the input "
                "and deliver it after the current one returns");
        flag_ = true;
    }
    ~Busy() { flag_ = false; }
    bool& flag_;
};

namespace {
std::vector<std::string> engineNames(const GatewayConfig& c) {
    std::vector<std::string> out;
    for (const EngineSpec& e : c.engines) out.push_back(e.name);
    return out;
}
std::vector<std::string> keyNames(const GatewayConfig& c) {
    std::vector<std::string> out;
    for (const ApiKey& k : c.keys) out.push_back(k.name);
    return out;
}
std::vector<bool> probeKeys(const GatewayConfig& c) {
    std::vector<bool> out;
    for (const ApiKey& k : c.keys) out.push_back(k.probe);
    return out;
}
const GatewayConfig& validated(const GatewayConfig& c) {
    c.validate();
    return c;
}
}  // namespace

Gateway::Gateway(const GatewayConfig& config, std::uint64_t seed, Port& port)
    : cfg_(validated(config)), seed_(seed), port_(port), deadline_(Deadline::from(cfg_)),
      keys_(cfg_.keys), rateLimits_(keys_), admission_(cfg_), memo_(cfg_.compile_memo_entries),
      cache_(cfg_), router_(cfg_), hedging_(cfg_), egress_(cfg_),
      metrics_(engineNames(cfg_), keyNames(cfg_), probeKeys(cfg_)) {
    flights_.setMode(cfg_.coalescing);
    standbyWarm_.assign(static_cast<std::size_t>(kRegions) * static_cast<std::size_t>(cfg_.standby_instances) *
                            cfg_.engines.size() * static_cast<std::size_t>(cfg_.egress_ips),
                        false);
    for (int s = 0; s < kStages; ++s) {
        static constexpr std::array<double, kStages> kBudgetMs{8, 4, 3, 2, 1, 520, 12};
        metrics_.totals.stages[static_cast<std::size_t>(s)].budget_ms = kBudgetMs[static_cast<std::size_t>(s)];
    }
    metrics_.totals.hedge_allowance = cfg_.hedge_burst;
}

Gateway::~Gateway() = default;

void Gateway::reconfigure(Time now, const GatewayConfig& config) {
    Busy busy(busy_);
    config.validate();
    auto same = [&](auto GatewayConfig::*field, const char* name) {
        if (!(config.*field == cfg_.*field))
            throw std::invalid_argument(std::string(name) + " cannot change while the gateway runs");
    };
    same(&GatewayConfig::instances, "instances");
    same(&GatewayConfig::standby_instances, "standby_instances");
    same(&GatewayConfig::l1_entries, "l1_entries");
    same(&GatewayConfig::egress_ips, "egress_ips");
    same(&GatewayConfig::compile_memo_entries, "compile_memo_entries");
    if (config.engines.size() != cfg_.engines.size() || config.keys.size() != cfg_.keys.size())
        throw std::invalid_argument("the engines and API keys cannot change while the gateway runs");
    cfg_ = config;
    deadline_ = Deadline::from(cfg_);
    admission_.reconfigure(cfg_);
    cache_.reconfigure(cfg_);
    flights_.setMode(cfg_.coalescing);
    router_.reconfigure(now, cfg_);
    noteBreakers();  // breakers switched off: the open ones close now
    hedging_.reconfigure(cfg_);
}

std::uint32_t Gateway::newRequest() {
    const std::uint32_t r = acquireSlot(reqs_, freeReqs_);
    Req& q = reqs_[r];
    const std::uint32_t generation = q.generation + 1;
    // Every field back to its default; the strings keep their capacity.
    static_cast<ReqFields&>(q) = ReqFields{};
    q.query.clear();
    q.lang.clear();
    q.generation = generation == 0 ? 1 : generation;
    q.live = true;
    ++live_;
    return r;
}

// Runs a stage's accounting around the driver's clock: the stage's work started at `start` and
// ended when the driver says.
Time Gateway::stage(Stage s, Time start, const Req& q, StageWork work) {
    work.stage = s;
    work.trace = q.trace;
    work.region = q.region;
    work.background = q.background;
    const Time end = std::max(start, port_.stageEnd(start, work));
    // Work that would end past the deadline (on a host that never answers) is charged up to it:
    // the request ends there.
    metrics_.charge(s, std::max(start, std::min(end, q.hard)) - start);
    return end;
}

int Gateway::instanceFor(std::uint64_t trace, Region region) const {
    // The region's load balancer spreads requests over its instances with no regard to content;
    // a cold standby's instances take their share of them.
    const std::uint64_t h = mix64(trace ^ 0x5bd1e9955bd1e995ULL);
    const double standby = standbyShare_[static_cast<std::size_t>(region)];
    if (standby > 0) {
        const double u = static_cast<double>(mix64(trace ^ 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
        if (u < standby)
            return cfg_.instances + static_cast<int>(h % static_cast<std::uint64_t>(cfg_.standby_instances));
    }
    return static_cast<int>(h % static_cast<std::uint64_t>(cfg_.instances));
}

void Gateway::setStandbyShare(Region region, double share) {
    if (cfg_.standby_instances == 0) return;
    const auto g = static_cast<std::size_t>(region);
    const double s = std::clamp(share, 0.0, 1.0);
    if (s == 0 && standbyShare_[g] > 0) {
        // Gone: the next standby opens its connections again.
        const std::size_t per = static_cast<std::size_t>(cfg_.standby_instances) * cfg_.engines.size() *
                                static_cast<std::size_t>(cfg_.egress_ips);
        std::fill(standbyWarm_.begin() + static_cast<std::ptrdiff_t>(g * per),
                  standbyWarm_.begin() + static_cast<std::ptrdiff_t>((g + 1) * per), false);
    }
    standbyShare_[g] = s;
}

CacheKeyPrefix Gateway::keyPrefix(Endpoint endpoint, Region region, std::string_view lang) {
    // Most requests name one of a few languages: a small table by the lang's first bytes.
    const std::size_t slot =
        ((lang.empty() ? 0u : static_cast<unsigned char>(lang[0]) * 31u +
                                  static_cast<unsigned char>(lang.back())) * 7u +
         static_cast<std::size_t>(endpoint) * 3u + static_cast<std::size_t>(region)) %
        recentPrefixes_.size();
    PrefixEntry& recent = recentPrefixes_[slot];
    if (recent.endpoint == endpoint && recent.region == region && recent.lang == lang &&
        recent.prefix.state != 0)
        return recent.prefix;
    const std::uint64_t id = mix64(hashRawText(lang) ^ (static_cast<std::uint64_t>(endpoint) << 8 |
                                                     static_cast<std::uint64_t>(region)));
    CacheKeyPrefix p;
    if (const CacheKeyPrefix* known = prefixes_.find(id)) {
        p = *known;
    } else {
        p = cacheKeyPrefix(kEndpointPaths[static_cast<std::size_t>(endpoint)],
                           kRegionNames[static_cast<std::size_t>(region)], lang, "web", false);
        prefixes_.put(id, p);
    }
    // The entry keeps its own copy of the lang (compared by content).
    langCopies_[slot].assign(lang);
    recent = PrefixEntry{langCopies_[slot], endpoint, region, p};
    return p;
}

RequestId Gateway::onRequest(Time now, const Request& in) {
    Busy busy(busy_);
    const std::uint32_t r = newRequest();
    Req& q = reqs_[r];
    q.trace = in.trace;
    q.draws = streamKey(seed_, in.trace, kRouterPurpose);
    q.endpoint = in.endpoint;
    q.accepted = in.accepted.value_or(now);
    q.deadline = deadline_.of(q.accepted);
    q.hard = deadline_.hard(q.accepted);
    const Prefetched& hint = prefetched_[in.trace % prefetched_.size()];
    const bool hinted = hint.trace == in.trace && hint.query.data() == in.query.data() &&
                        hint.query.size() == in.query.size() &&
                        hint.apiKey.data() == in.api_key.data() &&
                        hint.apiKey.size() == in.api_key.size();
    const std::optional<std::uint32_t> key =
        hinted ? std::optional<std::uint32_t>(hint.key) : keys_.find(in.api_key);
    if (key) q.key = *key;
    q.probe = key && keys_[*key].probe;
    if (q.probe) {
        ++metrics_.totals.probes;
    } else {
        ++metrics_.totals.accepted;
        ++metrics_.totals.in_flight;
    }
    const RequestId id{r, q.generation};
    // Edge: the region from the pin, else the key's home.
    q.pinned = in.region_pin.has_value();
    const Region home = key ? keys_[*key].home : Region::EU;
    q.region = Edge::route(in.region_pin, home, cfg_.reroute, cfg_.reroute_share, in.trace);
    if (q.region != home && !q.pinned && admission_.isOpen(q.region)) {
        if (!q.probe) {
            ++metrics_.totals.spill_refused;
            port_.note({in.trace, now, NoteKind::SpillRefused, home});
        }
        q.region = home;  // the reroute's target has its breaker open
    }
    metrics_.enter(Stage::Edge, q.probe);
    StageWork edge;
    if (q.region != home && !q.pinned) {
        edge.spilled_from = home;  // the trip to the other region is the edge's
        if (!q.probe) ++metrics_.totals.rerouted;
    }
    Time t = stage(Stage::Edge, now, q, edge);
    metrics_.pass(Stage::Edge, q.probe);
    // Gateway: API key, token bucket, admission.
    metrics_.enter(Stage::Gateway, q.probe);
    if (!key) {
        finish(now, r, Outcome::Unauthorized, stage(Stage::Gateway, t, q), nullptr, {},
               "unknown API key");
        return id;
    }
    const RateLimits::Verdict v =
        rateLimits_.take(now, *key, in.endpoint, cfg_.rate_limits && !q.probe);
    q.rate = v.fields;
    q.hasRate = true;
    if (!v.allowed) {
        finish(now, r, Outcome::RateLimited, stage(Stage::Gateway, t, q), nullptr, v.retry_after,
               "the key's token bucket for this endpoint is empty");
        return id;
    }
    q.lane = keys_[*key].lane;
    if (hinted) {
        q.analysis = hint.ref;
    } else if (in.analysis) {
        q.analysis = memo_.find(in.query, in.query_hash != 0 ? in.query_hash : CompilerMemo::hashOf(in.query),
                                in.analysis);
    }
    // 0 for a value out of range: a 400 in the compiler.
    static_assert(kMaxResultsLowest > 0 && kMaxResultsHighest <= 255, "a byte holds max_results");
    q.maxResults = maxResultsInRange(in.max_results) ? static_cast<std::uint8_t>(in.max_results) : 0;
    StageWork work;
    if (!q.probe && q.lane == Lane::Batch) {
        const Admission::Decision d = admission_.admitBatch(now, q.region, r);
        if (d.verdict == Admission::Verdict::Shed) {
            finish(now, r, Outcome::Shed, stage(Stage::Gateway, t, q), nullptr, kRetryAfter503,
                   "the batch lane's queue is full");
            return id;
        }
        if (d.verdict == Admission::Verdict::Queued) {
            // Waits in the batch lane, its deadline running: a 503 at the deadline if still queued.
            q.queued = true;
            q.query.assign(in.query);
            q.lang.assign(in.lang);
            q.resumeAt = stage(Stage::Gateway, t, q);
            arm(r, TimerKind::Deadline, q.deadline);
            return id;
        }
        q.holdsSlot = true;
    } else if (!q.probe) {
        const Admission::Decision d = admission_.admitInteractive(now, q.region, q.pinned);
        if (d.refused) {
            ++metrics_.totals.spill_refused;
            port_.note({q.trace, now, NoteKind::SpillRefused, q.region});
        }
        if (d.verdict == Admission::Verdict::Shed) {
            finish(now, r, Outcome::Shed, stage(Stage::Gateway, t, q), nullptr, kRetryAfter503,
                   d.refused ? "the region is at its concurrency limit and the region it would "
                               "spill to has its breaker open"
                             : "the region is at its concurrency limit");
            return id;
        }
        if (d.verdict == Admission::Verdict::Spilled) {
            work.spilled_from = q.region;
            q.region = d.region;
            ++metrics_.totals.spilled;
        }
        q.holdsSlot = true;
    }
    t = stage(Stage::Gateway, t, q, work);
    q.lang.assign(in.lang);
    admitted(now, r, t, in.query);
    return id;
}

// Compiler and cache, for a request that holds its admission slot (or needs none).
void Gateway::admitted(Time now, std::uint32_t r, Time t, std::string_view raw) {
    metrics_.pass(Stage::Gateway, reqs_[r].probe);
    Req& q = reqs_[r];
    metrics_.enter(Stage::Compiler, q.probe);
    std::string_view problem;
    std::string detail;
    std::string_view normalized;
    if (q.maxResults == 0) {
        static const std::string kOutOfRange = "$.max_results " + maxResultsRangeText();
        problem = kOutOfRange;
    } else {
        try {
            const CompilerMemo::Ref f = q.analysis.raw_hash != 0 ? q.analysis : memo_.find(raw);
            q.cls = f.query_class;
            q.classified = true;
            q.zeroOk = f.zero_results_allowed;
            q.fetchCount = static_cast<std::uint8_t>(maxResultsBucketInRange(q.maxResults));  // checked at entry
            q.cacheKey = foldCacheKey(keyPrefix(q.endpoint, q.region, q.lang), f.normalized_hash,
                                      q.fetchCount);
            normalized = memo_.normalized(f, raw);
        } catch (const std::invalid_argument& e) {
            detail = std::string("$.query: ") + e.what();  // as the search API names the field
            problem = detail;
        }
    }
    t = stage(Stage::Compiler, t, q);
    if (!problem.empty()) return finish(now, r, Outcome::BadRequest, t, nullptr, {}, problem);
    metrics_.pass(Stage::Compiler, q.probe);
    lookup(now, r, t, normalized);
}

// `normalized` is the query's text, valid until the memo next changes: the request keeps a copy
// only when it goes upstream (or a refresh does), not when the cache answers it.
void Gateway::lookup(Time now, std::uint32_t r, Time t, std::string_view normalized) {
    Req& q = reqs_[r];
    metrics_.enter(Stage::Cache, q.probe);
    q.instance = static_cast<std::uint8_t>(instanceFor(q.trace, q.region));
    const Cache::Lookup found = cache_.lookup(t, q.region, q.instance, q.cacheKey, q.cls);
    StageWork work;
    work.l2 = found.consulted_l2;
    t = stage(Stage::Cache, t, q, work);
    // With the cache off nothing is looked up: no lookups, and no hit rate (not a rate of 0).
    if (!q.probe && cache_.tiers() != CacheTiers::Off) metrics_.onLookup(q.cls, found.hit);
    if (found.hit) {
        metrics_.pass(Stage::Cache, q.probe);
        // Stale-while-revalidate: answer now, refresh in the background (one per key).
        if (found.stale && cache_.startRefresh(q.region, q.cacheKey))
            spawnRefresh(now, r, t, normalized);
        return serve(now, r, t, &cache_.answer(found.answer), true, found.stale);
    }
    // A miss: join the flight in the air for this key, or lead one.
    q.query.assign(normalized);
    if (flights_.enabled()) {
        const std::uint64_t fk = flights_.flightKey(q.cacheKey, q.instance);
        if (const std::optional<std::uint32_t> f = flights_.join(q.region, fk, r)) {
            q.flight = *f;
            ++metrics_.totals.coalesced;
            // A waiter stays in the cache stage until it leaves the flight (completeFlight, the
            // Detach timer): passed on then, to merge or to the router, or ended here when its
            // deadline passes first. It detaches near its deadline; one that joins past that
            // point waits for the leader up to its own cutoff, as a detached waiter with no time
            // to call does.
            const Time detachAt = deadline_.detachAt(q.deadline);
            if (detachAt > t)
                arm(r, TimerKind::Detach, detachAt);
            else
                arm(r, TimerKind::Deadline, deadline_.callCutoff(q.deadline));
            return;
        }
        q.flight = flights_.lead(q.region, fk, r);
        q.leader = true;
    }
    metrics_.pass(Stage::Cache, q.probe);
    startEngines(now, r, t);
}

void Gateway::spawnRefresh(Time now, std::uint32_t r, Time t, std::string_view normalized) {
    const std::uint32_t b = newRequest();
    Req& bg = reqs_[b];
    const Req& q = reqs_[r];
    bg.background = true;
    bg.trace = q.trace;
    bg.draws = streamKey(seed_, q.trace, kRouterPurpose + 1);
    bg.key = q.key;
    bg.probe = q.probe;
    bg.region = q.region;
    bg.instance = q.instance;
    bg.cls = q.cls;
    bg.classified = q.classified;
    bg.zeroOk = q.zeroOk;
    bg.endpoint = q.endpoint;
    bg.maxResults = q.maxResults;
    bg.fetchCount = q.fetchCount;
    bg.cacheKey = q.cacheKey;
    bg.query.assign(normalized);
    bg.lang.assign(q.lang);
    bg.accepted = t;
    bg.deadline = t + deadline_.total;
    bg.hard = bg.deadline;
    ++metrics_.totals.refresh_calls;
    startEngines(now, b, t);
}

void Gateway::serve(Time now, std::uint32_t r, Time t, const RankedResults* results, bool cached,
                    bool stale) {
    metrics_.enter(Stage::Merge, reqs_[r].probe);
    Req& q = reqs_[r];
    q.cacheHit = cached;
    q.staleHit = stale;
    if (t > q.deadline)  // the stages before merge used up what the deadline left
        return finish(now, r, Outcome::DeadlineMissed, t, nullptr, kRetryAfter503,
                      "the deadline passed before the answer could be merged");
    const Time end = stage(Stage::Merge, t, q);
    if (end > q.hard) {
        ++metrics_.totals.late_merges;
        return finish(now, r, Outcome::DeadlineMissed, end, nullptr, kRetryAfter503,
                      "the deadline passed while the answer was merged");
    }
    metrics_.pass(Stage::Merge, q.probe);
    finish(now, r, Outcome::Ok, end, results);
}

void Gateway::startEngines(Time now, std::uint32_t r, Time t) {
    Req& q = reqs_[r];
    metrics_.enter(Stage::Router, q.probe, q.background);
    t = stage(Stage::Router, t, q);
    Router::Draws draws{q.draws, 0};
    const std::optional<int> primary =
        router_.pick(now, q.region, q.instance, q.cls, 0, false, draws);
    q.draws = mix64(q.draws + draws.next);
    noteBreakers();
    if (!primary) {
        return finish(now, r, Outcome::NoEngine, t, nullptr, kRetryAfter503,
                      "every engine's breaker is open");
    }
    metrics_.pass(Stage::Router, q.probe, q.background);
    metrics_.enter(Stage::Engines, q.probe, q.background);
    if (!deadline_.worthCalling(q.deadline, t)) {
        return finish(now, r, Outcome::DeadlineMissed, t, nullptr, kRetryAfter503,
                      "too little time left to call an engine");
    }
    q.engineStart = t;
    startCall(t, r, *primary, q.background ? CallRole::Refresh : CallRole::Primary);
    if (q.background) return arm(r, TimerKind::Deadline, deadline_.callCutoff(q.deadline));
    hedging_.onPrimary();
    metrics_.totals.hedge_allowance += hedging_.fraction();
    if (const std::optional<Duration> d = hedging_.delay(now, q.region, *primary, q.cls))
        arm(r, TimerKind::Hedge, t + *d);
    arm(r, TimerKind::Deadline, deadline_.callCutoff(q.deadline));
}

bool Gateway::startCall(Time at, std::uint32_t r, int engine, CallRole role) {
    Req& q = reqs_[r];
    if (q.ncalls >= kMaxCalls) return false;
    const std::uint32_t c = acquireSlot(calls_, freeCalls_);
    Call& call = calls_[c];
    const std::uint32_t generation = call.generation + 1 == 0 ? 1 : call.generation + 1;
    const int ip = egress_.pick(at, q.region, engine);
    call = Call{generation, r, static_cast<std::uint8_t>(engine), static_cast<std::uint8_t>(ip),
                role, at, true};
    ++liveCalls_;
    q.calls[q.ncalls++] = c;
    ++q.outstanding;
    q.tried |= 1u << engine;
    router_.onCallStart(q.region, q.instance, engine);
    // A stale-while-revalidate refresh's calls are refresh work, its retry included: counted in
    // refresh_calls (spawnRefresh counts its first), never as foreground calls (retry_calls, the
    // window's extra load), so that extra_upstream_load is the foreground's extra calls alone.
    metrics_.onCall(role == CallRole::Primary, role == CallRole::Hedge, !q.background);
    switch (role) {
        case CallRole::Primary: ++metrics_.totals.primary_calls; break;
        case CallRole::Hedge: ++metrics_.totals.hedge_calls; break;
        case CallRole::LastChance: ++metrics_.totals.last_chance_calls; break;
        case CallRole::Retry:
            ++(q.background ? metrics_.totals.refresh_calls : metrics_.totals.retry_calls);
            break;
        case CallRole::Refresh: break;
    }
    UpstreamCall out;
    out.id = CallId{c, generation};
    out.request = RequestId{r, q.generation};
    out.trace = q.trace;
    out.engine = engine;
    out.region = q.region;
    out.egress_ip = ip;
    out.role = role;
    out.query_class = q.cls;
    out.query = q.query;
    out.lang = q.lang;
    out.cache_key = q.cacheKey;
    out.fetch_count = q.fetchCount;
    out.at = at;
    out.budget = deadline_.callBudget(q.deadline, at);
    if (q.instance >= cfg_.instances) {
        // A cold standby instance: its first call to this engine through this IP connects.
        const std::size_t i =
            ((static_cast<std::size_t>(q.region) * static_cast<std::size_t>(cfg_.standby_instances) +
              static_cast<std::size_t>(q.instance - cfg_.instances)) * cfg_.engines.size() +
             static_cast<std::size_t>(engine)) * static_cast<std::size_t>(cfg_.egress_ips) +
            static_cast<std::size_t>(ip);
        out.cold_connection = !standbyWarm_[i];
        standbyWarm_[i] = true;
    }
    port_.startCall(out);
    return true;
}

void Gateway::arm(std::uint32_t r, TimerKind kind, Time at) {
    reqs_[r].timers[static_cast<std::size_t>(kind)] = timers_.arm(at, r, kind);
}

void Gateway::disarm(std::uint32_t r, TimerKind kind) {
    std::uint64_t& armed = reqs_[r].timers[static_cast<std::size_t>(kind)];
    if (armed == liveTop_) liveTop_ = 0;
    armed = 0;
}

// The earliest armed timer. The heap's top is checked against its request once and remembered
// (liveTop_) until it is popped or disarmed: a driver asks after every event, and the check reads
// the request's record, which is rarely in cache.
Time Gateway::nextTimeoutOr(Time none) {
    while (!timers_.empty()) {
        const TimerQueue::Entry& e = timers_.top();
        if (e.seq == liveTop_) return e.at;
        if (reqs_[e.request].timers[static_cast<std::size_t>(e.kind)] == e.seq) {
            liveTop_ = e.seq;
            return e.at;
        }
        timers_.pop();  // cancelled
    }
    return none;
}

std::optional<Time> Gateway::pollTimeout() {
    const Time at = nextTimeoutOr(Time{});
    if (timers_.empty()) return std::nullopt;  // else its top is armed, at `at`
    return at;
}

void Gateway::onTimeout(Time now) {
    Busy busy(busy_);
    while (!timers_.empty() && timers_.top().at <= now) {
        const TimerQueue::Entry e = timers_.pop();
        if (e.seq == liveTop_) liveTop_ = 0;
        Req& q = reqs_[e.request];
        if (q.timers[static_cast<std::size_t>(e.kind)] != e.seq) continue;  // cancelled
        q.timers[static_cast<std::size_t>(e.kind)] = 0;
        onTimer(now, e.request, e.kind);
    }
}

void Gateway::onTimer(Time now, std::uint32_t r, TimerKind kind) {
    Req& q = reqs_[r];
    if (!q.live || q.done) return;
    switch (kind) {
        case TimerKind::Hedge: {
            if (!deadline_.worthCalling(q.deadline, now)) {
                if (!q.probe) port_.note({q.trace, now, NoteKind::HedgeTooLate, q.region});
                return;
            }
            if (!hedging_.takeHedge()) {
                ++metrics_.totals.hedges_denied;
                if (!q.probe) port_.note({q.trace, now, NoteKind::HedgeDenied, q.region});
                return;
            }
            Router::Draws draws{q.draws, 0};
            const std::optional<int> backup =
                router_.pick(now, q.region, q.instance, q.cls, q.tried, true, draws);
            q.draws = mix64(q.draws + draws.next);
            noteBreakers();
            if (!backup) {
                hedging_.returnHedge();  // the budget pays for hedges sent, not hedges meant
                if (!q.probe) port_.note({q.trace, now, NoteKind::HedgeNoEngine, q.region});
                return;
            }
            startCall(now, r, *backup, CallRole::Hedge);
            if (const std::optional<Duration> d = hedging_.lastChanceDelay())
                arm(r, TimerKind::LastChance, now + *d);
            return;
        }
        case TimerKind::LastChance: {
            const std::optional<int> third = hedging_.lastChanceEngine();
            if (!third || (q.tried >> *third & 1u)) return;
            if (!deadline_.worthCalling(q.deadline, now)) return;
            Router::Draws draws{q.draws, 0};
            const bool admitted = router_.admits(now, q.region, *third, draws);
            q.draws = mix64(q.draws + draws.next);
            noteBreakers();
            if (!admitted || !hedging_.takeLastChance()) return;
            startCall(now, r, *third, CallRole::LastChance);
            return;
        }
        case TimerKind::Deadline:
            if (q.queued) {
                admission_.dropQueued(q.region, r);
                q.queued = false;
            }
            cancelOutstanding(now, r);
            if (q.background) return retire(r);
            return finish(now, r, Outcome::DeadlineMissed, now, nullptr, kRetryAfter503,
                          "no valid answer before the deadline");
        case TimerKind::Detach:
            // A waiter whose leader is still in the air goes on its own, with what it has left.
            if (q.flight == kNone || q.leader) return;
            if (!deadline_.worthCalling(q.deadline, now)) {
                // Too late for a call of its own: the leader's answer is still its best chance.
                return arm(r, TimerKind::Deadline, deadline_.callCutoff(q.deadline));
            }
            flights_.leave(q.flight, r);
            q.flight = kNone;
            metrics_.pass(Stage::Cache, q.probe);
            return startEngines(now, r, now);
    }
}

void Gateway::endInFlight(Time now, std::string_view message) {
    Busy busy(busy_);
    endingAll_ = true;
    // Ending one request can start another (a slot freed admits a batch request from its queue; a
    // leader ending without an answer sends its waiters on alone): the requests waiting in a
    // queue go first, then the waiters of a flight, then the rest, and again until none is left.
    const auto endWhere = [&](auto&& which) {
        for (std::uint32_t r = 0; r < reqs_.size(); ++r) {
            Req& q = reqs_[r];
            if (!q.live || q.done || !which(q)) continue;
            cancelOutstanding(now, r);
            if (q.background) {
                retire(r);
                continue;
            }
            finish(now, r, Outcome::DeadlineMissed, now, nullptr, kRetryAfter503, message);
        }
    };
    for (int pass = 0; live_ > 0 && pass < 4; ++pass) {
        endWhere([](const Req& q) { return q.queued; });
        endWhere([](const Req& q) { return q.flight != kNone && !q.leader; });
        endWhere([](const Req&) { return true; });
    }
    endingAll_ = false;
}

void Gateway::cancelOutstanding(Time now, std::uint32_t r) {
    Req& q = reqs_[r];
    for (int i = 0; i < q.ncalls; ++i) {
        Call& c = calls_[q.calls[i]];
        // A call of this request that ended gave its slot back; another request's call may
        // hold it now, and is not this request's to cancel.
        if (!c.live || c.request != r) continue;
        port_.cancelCall(CallId{q.calls[i], c.generation});
        c.live = false;
        --liveCalls_;
        ++metrics_.totals.cancelled_calls;
        router_.onCallEnd(q.region, q.instance, c.engine);
        // What the loser already took is a lower bound on its latency: keep it in the rolling
        // delay, so cancelled slow calls do not vanish from it.
        if (c.role == CallRole::Primary)
            hedging_.recordPrimary(now, q.region, c.engine, q.cls, toMs(now - c.start));
        freeCalls_.push_back(q.calls[i]);
    }
    q.outstanding = 0;
    for (TimerKind k : {TimerKind::Hedge, TimerKind::LastChance, TimerKind::Deadline}) disarm(r, k);
}

void Gateway::onAnswer(Time now, CallId id, const UpstreamAnswer& answer) {
    Busy busy(busy_);
    if (id.slot >= calls_.size() || calls_[id.slot].generation != id.generation ||
        !calls_[id.slot].live) {
        ++metrics_.totals.stale_answers;
        return;
    }
    calls_[id.slot].live = false;
    const Call c = calls_[id.slot];  // a copy: a retry below may reuse the slot
    --liveCalls_;
    freeCalls_.push_back(id.slot);
    const std::uint32_t r = c.request;
    Req& q = reqs_[r];
    --q.outstanding;
    router_.onCallEnd(q.region, q.instance, c.engine);
    const Validity v = validateAnswer(answer, q.zeroOk,
                                      egress_.previousOtherQuery(q.region, c.ip, c.engine, q.cacheKey));
    const bool valid = v == Validity::Valid;
    if (v == Validity::DuplicateOfOtherQuery) ++metrics_.totals.duplicate_answers;
    const bool results = answer.page && answer.page->kind() == PageKind::Results;
    const bool blocked = v == Validity::DuplicateOfOtherQuery ||
                         (answer.page && (answer.page->kind() == PageKind::BlockPage ||
                                          answer.page->kind() == PageKind::Captcha));
    const std::uint64_t fingerprint =
        results && !answer.page->items().empty() ? answer.fingerprint() : 0;
    if (egress_.onAnswer(now, q.region, c.ip, c.engine, q.cacheKey, fingerprint, blocked))
        ++metrics_.totals.egress_rests;
    const double ms = toMs(now - c.start);
    router_.onAnswer(now, q.region, c.engine, q.cls, ms, valid);
    noteBreakers();
    if (c.role == CallRole::Primary) hedging_.recordPrimary(now, q.region, c.engine, q.cls, ms);
    if (!valid) {
        ++metrics_.totals.invalid_answers;
        if (!q.probe && !q.background && !q.done) port_.note({q.trace, now, NoteKind::AnswerInvalid, q.region});
    }
    if (q.done) return;
    if (valid) {
        cancelOutstanding(now, r);
        metrics_.charge(Stage::Engines, now - q.engineStart);
        metrics_.pass(Stage::Engines, q.probe, q.background);
        const std::shared_ptr<const RankedResults>& merged = mergeAnswer(*answer.page);
        cache_.write(now, q.region, q.instance, q.cacheKey, q.cls, merged);
        if (q.background) return retire(r);
        if (answer.page->items().empty() && !q.zeroOk) ++metrics_.totals.empty_ok;
        completeFlight(now, r, merged);
        return serve(now, r, now, merged.get(), false, false);
    }
    if (q.outstanding > 0) return;  // the hedge may still answer
    // Nothing left in the air: retry on the best untried engine if the deadline allows.
    if (deadline_.worthCalling(q.deadline, now)) {
        Router::Draws draws{q.draws, 0};
        const std::optional<int> next =
            router_.pick(now, q.region, q.instance, q.cls, q.tried, true, draws);
        q.draws = mix64(q.draws + draws.next);
        noteBreakers();
        if (next && startCall(now, r, *next, CallRole::Retry)) return;
    }
    cancelOutstanding(now, r);
    if (q.background) return retire(r);
    completeFlight(now, r, nullptr);
    finish(now, r, Outcome::NoEngine, now, nullptr, kRetryAfter503,
           "every engine called failed to give a valid answer");
}

// The leader's flight has landed: its waiters get the answer (through L2 when they sit on another
// instance), or go on alone when the leader has none.
void Gateway::completeFlight(Time now, std::uint32_t r,
                             const std::shared_ptr<const RankedResults>& answer) {
    Req& q = reqs_[r];
    if (q.flight == kNone) return;
    const std::uint32_t fi = q.flight;
    q.flight = kNone;
    if (!q.leader) return;
    const int leaderInstance = q.instance;
    // Landing never nests (serving a waiter never completes another flight), but a local buffer
    // keeps that an assumption about speed, not about correctness.
    std::vector<std::uint32_t> local;
    std::vector<std::uint32_t>& waiters = landing_.empty() ? landing_ : local;
    flights_.land(fi, waiters);
    for (std::size_t i = 0; i < waiters.size(); ++i) {
        const std::uint32_t w = waiters[i];
        Req& x = reqs_[w];
        x.flight = kNone;
        disarm(w, TimerKind::Detach);
        if (x.done) continue;
        metrics_.pass(Stage::Cache, x.probe);  // to merge with the answer, or to the router alone
        if (answer) {
            Time at = now;
            if (x.instance != leaderInstance && flights_.regionWide()) {
                StageWork work;
                work.shared_answer = true;
                at = stage(Stage::Cache, now, x, work);
            }
            x.coalesced = true;
            serve(now, w, at, answer.get(), false, false);
        } else {
            startEngines(now, w, now);  // the leader failed: go on alone
        }
    }
    waiters.clear();
}

void Gateway::release(Time now, std::uint32_t r) {
    Req& q = reqs_[r];
    if (q.queued) {  // still waiting in the batch lane: take it out
        admission_.dropQueued(q.region, r);
        q.queued = false;
        return;
    }
    if (!q.holdsSlot) return;
    q.holdsSlot = false;
    admission_.release(now, q.region, q.lane);
    // A slot came free (and limits move over time): start what the batch lanes can take.
    for (int g = 0; g < kRegions; ++g) {
        while (const std::optional<std::uint32_t> next = admission_.nextQueued(static_cast<Region>(g))) {
            Req& b = reqs_[*next];
            b.queued = false;
            b.holdsSlot = true;
            disarm(*next, TimerKind::Deadline);
            admitted(now, *next, std::max(now, b.resumeAt), b.query);
        }
    }
}

// A stale-while-revalidate refresh is over (answered or failed): nobody waits on it, so it only
// lets the next stale hit start another.
void Gateway::retire(std::uint32_t r) {
    Req& q = reqs_[r];
    cache_.endRefresh(q.region, q.cacheKey);
    q.done = true;
    q.live = false;
    for (TimerKind k : {TimerKind::Hedge, TimerKind::LastChance, TimerKind::Deadline, TimerKind::Detach})
        disarm(r, k);
    --live_;
    freeReqs_.push_back(r);
}

void Gateway::finish(Time now, std::uint32_t r, Outcome o, Time at, const RankedResults* results,
                     std::optional<Duration> retryAfter, std::string_view message) {
    Req& q = reqs_[r];
    if (q.done) {
        ++metrics_.totals.double_answers;
        return;
    }
    if (q.background) return retire(r);
    if (q.leader && q.flight != kNone) completeFlight(now, r, nullptr);
    q.done = true;
    disarm(r, TimerKind::Detach);
    if (q.flight != kNone && !q.leader) {
        flights_.leave(q.flight, r);
        q.flight = kNone;
    }
    // A request whose work ran past its deadline (waiting for a CPU, or on a host that never
    // answers) was answered when its time ran out, by the deadline, not when the work would have
    // ended: a refusal too (a 401 or 429 decided on such a host never reached the client). Never
    // before `now`, though: a request whose deadline had passed when it reached the gateway (a
    // live client slow to send its body: its latency runs from its first byte) is answered now,
    // and its latency is the time it really took.
    if (o != Outcome::Ok && at > q.hard) {
        if (o != Outcome::DeadlineMissed) message = "the deadline passed before the work was done";
        o = Outcome::DeadlineMissed;
        at = std::max(q.hard, now);
    }
    const Duration latency = at - q.accepted;
    const bool disguised =
        o == Outcome::DeadlineMissed && cfg_.timeout_reply == TimeoutReply::EmptyOk && !endingAll_;
    Response out;
    out.request = RequestId{r, q.generation};
    out.trace = q.trace;
    out.outcome = o;
    out.status = kOutcomeStatus[static_cast<std::size_t>(o)];
    if (o == Outcome::Ok && results) {
        out.results = results;
        out.result_count = std::min<int>(q.maxResults, static_cast<int>(results->size()));
    }
    if (disguised) {  // v3's bug: 200, no results, nothing to tell the client it failed
        out.status = 200;
        out.disguised = true;
    } else {
        out.retry_after = retryAfter;
        out.error = o == Outcome::Ok ? std::string_view{} : kOutcomeNames[static_cast<std::size_t>(o)];
        out.message = message;
    }
    if (q.hasRate) out.rate_limit = q.rate;
    out.region = q.region;
    out.query_class = q.cls;
    out.probe = q.probe;
    out.cache_hit = q.cacheHit;
    out.stale = q.staleHit;
    out.coalesced = q.coalesced;
    out.accepted = q.accepted;
    out.at = at;
    out.latency = latency;
    // The answer goes out first; the bookkeeping it leaves (the slot, the figures, the admission
    // limit's sample) does not delay it. The slot is freed before the request's record is (what
    // the slot lets in may start now).
    port_.respond(out);
    if (o == Outcome::Ok && at > q.hard) ++metrics_.totals.over_deadline;
    if (q.probe) {
        if (o != Outcome::Ok) ++metrics_.totals.probe_failures;
    } else {
        metrics_.onOutcome(o, latency, q.key,
                           q.classified ? std::optional<QueryClass>(q.cls) : std::nullopt, q.region,
                           disguised);
        // The admission limit learns from interactive requests that reached the upstream path.
        if (q.engineStart > kZero && q.lane == Lane::Interactive)
            admission_.onSample(now, q.region, latency);
    }
    q.live = false;
    --live_;
    release(now, r);
    freeReqs_.push_back(r);
}

void Gateway::noteBreakers() {
    if (!router_.hasChanges()) return;
    for (const BreakerChange& c : router_.takeChanges())
        metrics_.onBreaker(c.at, c.region, c.engine, c.state, c.switched_off);
}

void Gateway::prefetchQuery(std::string_view query, std::uint64_t hash) {
    Hashed& h = hashed_[(reinterpret_cast<std::uintptr_t>(query.data()) >> 4) % hashed_.size()];
    h = Hashed{query, hash != 0 ? hash : CompilerMemo::hashOf(query)};
    memo_.prefetch(h.hash);
}

void Gateway::prefetch(const Request& in) {
    const std::optional<std::uint32_t> key = keys_.find(in.api_key);
    if (!key || !maxResultsInRange(in.max_results)) return;
    try {
        const Hashed& h =
            hashed_[(reinterpret_cast<std::uintptr_t>(in.query.data()) >> 4) % hashed_.size()];
        const bool known = h.query.data() == in.query.data() && h.query.size() == in.query.size();
        const std::uint64_t hash = in.query_hash != 0 ? in.query_hash
                                   : known            ? h.hash
                                                      : CompilerMemo::hashOf(in.query);
        const CompilerMemo::Ref ref = memo_.find(in.query, hash, in.analysis);
        prefetched_[in.trace % prefetched_.size()] = Prefetched{in.trace, in.query, in.api_key, ref, *key};
        if (cache_.tiers() == CacheTiers::Off) return;
        const Region region =
            Edge::route(in.region_pin, keys_[*key].home, cfg_.reroute, cfg_.reroute_share, in.trace);
        const std::uint64_t cacheKey = foldCacheKey(keyPrefix(in.endpoint, region, in.lang),
                                                    ref.normalized_hash, maxResultsBucketInRange(in.max_results));
        cache_.prefetch(region, instanceFor(in.trace, region), cacheKey);
    } catch (const std::invalid_argument&) {
        // A request that will be a 400: nothing to load.
    }
}

void Gateway::closeWindow(Time now) {
    GatewayMetrics::WindowState w;
    for (int g = 0; g < kRegions; ++g) {
        w.inflightPeak[static_cast<std::size_t>(g)] = admission_.takePeak(static_cast<Region>(g));
        w.limit[static_cast<std::size_t>(g)] = admission_.limit(static_cast<Region>(g));
    }
    w.hedgeBudgetLevel = hedging_.budgetLevel();
    metrics_.closeWindow(now, w);
}

void Gateway::fillSnapshot(GatewaySnapshot& s, Time now) {
    metrics_.fill(s, now);
    s.hedge_budget_level = hedging_.budgetLevel();
    for (int g = 0; g < kRegions; ++g) {
        const auto i = static_cast<std::size_t>(g);
        s.admission_limit[i] = admission_.limit(static_cast<Region>(g));
        s.inflight[i] = admission_.inflight(static_cast<Region>(g));
        s.batch_queue[i] = admission_.batchQueued(static_cast<Region>(g));
    }
}

}  // namespace taillab::gateway
