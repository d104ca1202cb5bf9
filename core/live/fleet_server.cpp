#include "live/fleet_server.h"

#include <algorithm>
#include <cmath>
#include <list>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "fleet/fleet.h"
#include "gateway_sim/sim_config.h"
#include "live/fleet_admin.h"
#include "live/fleet_wire.h"
#include "live/serve_setup.h"

namespace taillab::live {
namespace {

using nlohmann::json;

constexpr std::uint32_t kFirstAdminFault = 0x8000'0000;  // timeline faults use their event index
constexpr std::string_view kEnginePrefix = "/engines/", kEngineSuffix = "/search";
constexpr std::string_view kFaultsPath = "/admin/faults";

HttpReply okJson(const json& body) { return HttpReply{200, {}, body.dump()}; }

}  // namespace

struct FleetServer::Impl final : HttpHandler {
    struct ActiveFault {
        std::uint32_t fleetId;
        std::string id, source, label;
        FleetFault effect;
        std::optional<Loop::TimerId> expiry;
    };

    Impl(Loop& l, const Scenario& s, Duration hang)
        : loop(l), params(s.params), seed(s.seed), timeline(s.timeline),
          fleet(gateway::fleetConfigFromParams(s.params), s.seed), hangClose(hang),
          capacity(s.params.integer("engine_capacity")) {
        busy.assign(static_cast<std::size_t>(gateway::kRegions) * fleet.config().engines.size(), 0);
        waiting.resize(busy.size());
    }

    struct Queued {
        gateway::UpstreamCall call;
        Responder responder;
        Loop::TimerId expiry = 0;
        Time since{};  // when it was queued: the hang bound counts from there
    };

    Loop& loop;
    Params params;
    std::uint64_t seed;
    Timeline timeline;
    fleet::Fleet fleet;
    Duration hangClose;
    int capacity;                              // calls an engine serves at once per region
    std::vector<int> busy;                     // [region * engines + engine]
    std::vector<std::list<Queued>> waiting;    // same index: calls waiting for a slot
    std::unique_ptr<HttpServer> server;
    Time origin{};       // Loop time at which the fleet's clock reads 0
    Duration startAt{};  // the fleet's clock at start()
    bool stopped = false;
    std::uint64_t nextTrace = 1;
    std::uint32_t nextAdminFault = kFirstAdminFault;
    std::unordered_set<Loop::TimerId> timers;  // every pending one, cancelled on stop
    std::unordered_map<const gateway::ResultBody*, std::string> itemsJson;  // pages are the fleet's
    std::vector<ActiveFault> faults;
    std::vector<std::string> notes;
    FleetCounters counters;

    Loop::TimerId after(Duration delay, std::function<void()> fn) {
        auto id = std::make_shared<Loop::TimerId>();
        *id = loop.runAfter(std::max(kZero, delay), [this, id, fn = std::move(fn)] {
            timers.erase(*id);
            fn();
        });
        timers.insert(*id);
        return *id;
    }

    void handle(const ServerRequest& req, Responder responder) override {
        const std::string_view path = req.path();
        if (path.size() != req.target.size()) {
            ++counters.bad_requests;
            return responder.respond(jsonError(loop, req.accepted, 400, "bad_request",
                                               "the fleet's paths take no query string: send its values in the body"));
        }
        const auto allow = [&](std::string_view method) {
            if (req.method == method) return true;
            HttpReply r = jsonError(loop, req.accepted, 405, "method_not_allowed",
                                    std::string(path) + " takes " + std::string(method) + ", not " + req.method);
            r.headers.emplace_back("Allow", std::string(method));
            responder.respond(std::move(r));
            return false;
        };
        if (path.starts_with(kEnginePrefix) && path.ends_with(kEngineSuffix) &&
            path.size() > kEnginePrefix.size() + kEngineSuffix.size()) {
            const std::string_view name =
                path.substr(kEnginePrefix.size(), path.size() - kEnginePrefix.size() - kEngineSuffix.size());
            const auto& engines = fleet.config().engines;
            const auto e = std::find_if(engines.begin(), engines.end(), [&](const auto& m) { return m.name == name; });
            if (e != engines.end()) {
                if (allow("POST")) search(static_cast<int>(e - engines.begin()), req, std::move(responder));
                return;
            }
        } else if (path == "/admin/knobs") {
            if (allow("POST")) responder.respond(changeKnobs(req));
            return;
        } else if (path == kFaultsPath) {
            if (allow("POST")) responder.respond(addFault(req));
            return;
        } else if (path.starts_with(std::string(kFaultsPath) + "/")) {
            if (allow("DELETE")) responder.respond(removeFault(req, path.substr(kFaultsPath.size() + 1)));
            return;
        } else if (path == "/admin/state") {
            if (allow("GET")) responder.respond(okJson(state()));
            return;
        }
        responder.respond(jsonError(loop, req.accepted, 404, "not_found",
                                    "no such path: " + std::string(path) + " (POST /engines/NAME/search, " +
                                        "/admin/knobs, /admin/faults; GET /admin/state)"));
    }

    void search(int engine, const ServerRequest& req, Responder responder) {
        auto read = readFleetCall(req, engine, fleet.config().egress_ips);
        if (const auto* error = std::get_if<WireError>(&read)) {
            ++counters.bad_requests;
            return responder.respond(wireErrorReply(loop, req.accepted, *error));
        }
        FleetCall& fc = std::get<FleetCall>(read);
        if (!fc.traced) fc.call.trace = nextTrace++;
        ++counters.requests;
        const std::size_t s = slotOf(fc.call);
        if (busy[s] >= capacityOf(s)) {
            ++counters.queued;
            queue(s, fc.call, std::move(responder));
            return;
        }
        ++busy[s];
        launch(fc.call, std::move(responder), req.accepted, req.accepted + hangClose);
    }

    // A call waits for a slot at most the hang bound (an engine that lost its capacity for an hour
    // holds no caller that long), and leaves the queue, counted as abandoned, when its caller goes.
    void queue(std::size_t s, const gateway::UpstreamCall& call, Responder responder) {
        auto& w = waiting[s];
        const auto it = w.insert(w.end(), Queued{call, responder, 0, loop.now()});
        it->expiry = after(hangClose, [this, s, it] {
            ++counters.hangs;
            Responder r = std::move(it->responder);
            waiting[s].erase(it);
            r.close();
        });
        responder.onGone([this, s, it] {
            if (stopped) return;
            if (loop.cancel(it->expiry)) timers.erase(it->expiry);
            ++counters.abandoned;
            waiting[s].erase(it);
        });
    }

    std::size_t slotOf(const gateway::UpstreamCall& c) const {
        return static_cast<std::size_t>(static_cast<int>(c.region)) * fleet.config().engines.size() +
               static_cast<std::size_t>(c.engine);
    }

    // The call holds one of its engine's slots in its region from `from` until its answer goes
    // out, as in the simulation, where the drawn latency also starts when a slot is free.
    // `hangUntil`: the hang bound from when the call arrived (a call that waited in the queue has
    // used some of it).
    void launch(const gateway::UpstreamCall& call, Responder responder, Time from, Time hangUntil) {
        fleet::FleetAnswer a = fleet.answer(call, from - origin);
        // No answer holds its connection past the hang bound: one drawn slower (the far tail of a
        // slow fault) ends as a hang does.
        if (from + a.latency > hangUntil) a.failure = gateway::CallFailure::Timeout;
        const Duration wait = from + a.latency - loop.now();
        const std::size_t s = slotOf(call);
        Loop::TimerId done = 0;
        switch (a.failure) {
            case gateway::CallFailure::Timeout:
                ++counters.hangs;
                done = after(hangUntil - loop.now(), [this, responder, s]() mutable {
                    responder.close();
                    release(s);
                });
                break;
            case gateway::CallFailure::Reset:
                ++counters.resets;
                done = after(wait, [this, responder, s]() mutable {
                    responder.reset();
                    release(s);
                });
                break;
            default: done = answerPage(a, wait, responder, s); break;
        }
        // A caller that gives up (the gateway's cancel) frees the slot at once, as in the
        // simulation, rather than when the drawn latency or the hang would have ended.
        responder.onGone([this, done, s] {
            if (stopped || !loop.cancel(done)) return;
            timers.erase(done);
            ++counters.abandoned;
            release(s);
        });
    }

    Loop::TimerId answerPage(const fleet::FleetAnswer& a, Duration wait, Responder responder, std::size_t s) {
        const gateway::ResultBody& page = *a.page;
        switch (page.kind()) {
            case gateway::PageKind::Results: ++(page.items().empty() ? counters.empty : counters.results); break;
            case gateway::PageKind::BlockPage: ++counters.block; break;
            case gateway::PageKind::Captcha: ++counters.captcha; break;
            case gateway::PageKind::ConsentWall: ++counters.consent; break;
        }
        auto items = itemsJson.find(&page);
        if (items == itemsJson.end()) items = itemsJson.emplace(&page, resultItemsJson(page)).first;
        return after(wait,
                     [this, responder, s, body = pageJson(page.kind(), a.echo, items->second)]() mutable {
                         responder.respond(HttpReply{200, {}, std::move(body)});
                         release(s);
                     });
    }

    void release(std::size_t s) {
        --busy[s];
        drain(s);
    }

    // Starts waiting calls while the engine has free slots (a call whose caller left has left the
    // queue already).
    void drain(std::size_t s) {
        auto& w = waiting[s];
        while (busy[s] < capacityOf(s) && !w.empty()) {
            Queued q = std::move(w.front());
            w.pop_front();
            if (loop.cancel(q.expiry)) timers.erase(q.expiry);
            if (!q.responder.open()) continue;
            ++busy[s];
            launch(q.call, std::move(q.responder), loop.now(), q.since + hangClose);
        }
    }

    // The engine's slots in the region after any capacity it has lost (floored, as simulated).
    int capacityOf(std::size_t s) const {
        double c = capacity;
        const std::size_t engines = fleet.config().engines.size();
        const int engine = static_cast<int>(s % engines);
        const auto region = static_cast<gateway::Region>(s / engines);
        for (const ActiveFault& f : faults) {
            const FleetFault& e = f.effect;
            if (e.capacity_lost && (e.scope.engine < 0 || e.scope.engine == engine) &&
                (!e.scope.region || *e.scope.region == region))
                c *= 1 - *e.capacity_lost;
        }
        return static_cast<int>(std::floor(c + 1e-9));
    }

    void drainAll() {
        for (std::size_t s = 0; s < waiting.size(); ++s) drain(s);
    }

    void applyFault(ActiveFault f) {
        if (f.effect.call) fleet.addFault(f.fleetId, *f.effect.call);
        faults.push_back(std::move(f));
    }

    void setParams(const Params& p) {
        fleet.setConfig(gateway::fleetConfigFromParams(p));
        params = p;
        capacity = p.integer("engine_capacity");
        drainAll();
    }

    HttpReply adminError(const ServerRequest& req, const AdminError& e) {
        return jsonError(loop, req.accepted, 400, "bad_request", e.what());
    }

    HttpReply changeKnobs(const ServerRequest& req) {
        try {
            setParams(applyFleetKnobs(params, readAdminBody(req.body)));
        } catch (const AdminError& e) {
            return adminError(req, e);
        }
        return okJson(state());
    }

    HttpReply addFault(const ServerRequest& req) {
        AdminFault f;
        try {
            f = readAdminFault(readAdminBody(req.body), params);
        } catch (const AdminError& e) {
            return adminError(req, e);
        }
        if (inForce(f.id)) return adminError(req, AdminError("$.id", "a fault named '" + f.id + "' is already in force"));
        addAdminFault(f.id, f.fault, f.label, f.duration_s ? std::optional(fromSeconds(*f.duration_s)) : std::nullopt);
        return okJson(state());
    }

    bool inForce(const std::string& id) const {
        return std::any_of(faults.begin(), faults.end(), [&](const ActiveFault& a) { return a.id == id; });
    }

    void addAdminFault(const std::string& id, const FleetFault& f, const std::string& label,
                       std::optional<Duration> duration) {
        ActiveFault active{nextAdminFault++, id, "admin", label, f, std::nullopt};
        if (duration) {
            active.expiry = loop.runAfter(*duration, [this, id] { dropFault(id); });
            timers.insert(*active.expiry);
        }
        applyFault(std::move(active));
    }

    HttpReply removeFault(const ServerRequest& req, std::string_view id) {
        if (!dropFault(std::string(id)))
            return jsonError(loop, req.accepted, 404, "not_found",
                             "no fault named '" + std::string(id) + "' is in force");
        return okJson(state());
    }

    bool dropFault(const std::string& id) {
        return dropFaultWhere([&](const ActiveFault& a) { return a.id == id; });
    }

    bool dropFaultWhere(const std::function<bool(const ActiveFault&)>& which) {
        const auto it = std::find_if(faults.begin(), faults.end(), which);
        if (it == faults.end()) return false;
        if (it->effect.call) fleet.removeFault(it->fleetId);
        if (it->expiry) {
            loop.cancel(*it->expiry);
            timers.erase(*it->expiry);
        }
        faults.erase(it);
        drainAll();  // a lost capacity may have come back
        return true;
    }

    json state() const {
        json j;
        j["fleet_time_s"] = toSeconds(loop.now() - origin);
        j["seed"] = seed;
        j["knobs"] = json::parse(fleetKnobsJson(fleet.config()).dump());
        j["knobs"]["engine_capacity"] = capacity;
        json fs = json::array();
        for (const auto& f : faults) fs.push_back({{"id", f.id}, {"source", f.source}, {"label", f.label}});
        j["faults"] = std::move(fs);
        const FleetCounters& c = counters;
        j["counters"] = {{"requests", c.requests}, {"results", c.results}, {"empty", c.empty},
                         {"block", c.block},       {"captcha", c.captcha}, {"consent", c.consent},
                         {"resets", c.resets},     {"hangs", c.hangs},     {"queued", c.queued},
                         {"abandoned", c.abandoned}, {"bad_requests", c.bad_requests}};
        return j;
    }

    // The timeline, in the fleet's terms: every event checked before the fleet listens.
    void checkTimeline() {
        for (std::size_t i = 0; i < timeline.events.size(); ++i) {
            const TimelineEvent& e = timeline.events[i];
            if (!e.fault) continue;
            const std::string where = e.path.empty() ? "timeline event " + std::to_string(i) : e.path;
            try {
                if (!fleetFaultOf(*e.fault, params.integer("egress_ips")))
                    notes.push_back(where + " (" + e.label + "): " + notTheFleets(*e.fault) + "; not applied here");
            } catch (const std::invalid_argument& x) {
                throw std::invalid_argument(where + ": " + x.what());
            }
        }
    }

    // Events before the fleet's start time apply at once, in order; the rest at their times.
    void scheduleTimeline() {
        const Duration now = loop.now() - origin;
        const auto at = [&](Duration t, std::function<void()> fn) {
            if (t <= now) return fn();
            after(t - now, std::move(fn));
        };
        for (std::size_t i = 0; i < timeline.events.size(); ++i) {
            const TimelineEvent& e = timeline.events[i];
            if (!e.set.empty()) {
                at(fromSeconds(e.at_s), [this, i] {
                    Params next = params;
                    for (const KnobSetting& k : timeline.events[i].set) next.set(k.key, k.value);
                    setParams(next);
                });
            }
            if (!e.fault || (e.until_s && fromSeconds(*e.until_s) <= now)) continue;
            const auto f = fleetFaultOf(*e.fault, params.integer("egress_ips"));
            if (!f) continue;
            const std::string id = "timeline-" + std::to_string(i);
            at(fromSeconds(e.at_s), [this, active = ActiveFault{static_cast<std::uint32_t>(i), id, "timeline",
                                                               e.label, *f, std::nullopt}] { applyFault(active); });
            // Ended by what it is, not by its id: an admin may have ended it early, and a later
            // fault (any source) may reuse nothing of it.
            if (e.until_s)
                at(fromSeconds(*e.until_s), [this, i] {
                    dropFaultWhere([&](const ActiveFault& a) { return a.source == "timeline" && a.fleetId == i; });
                });
        }
    }
};

FleetServer::FleetServer(Loop& loop, const Scenario& scenario, FleetServerOptions options)
    : loop_(loop) {
    if (scenario.lab != "gateway")
        throw std::invalid_argument("the fleet runs a gateway scenario (lab \"gateway\"), not one of lab \"" +
                                    scenario.lab + "\"");
    checkStartAt(scenario.params, options.start_at, "the fleet");
    impl_ = std::make_unique<Impl>(loop, scenario, options.hang_close);
    impl_->startAt = options.start_at;
    impl_->checkTimeline();
    impl_->server = std::make_unique<HttpServer>(loop, options.listen, *impl_, options.limits);
}

FleetServer::~FleetServer() { stop(); }

void FleetServer::start() {
    loop_.invoke([&] {
        impl_->origin = loop_.now() - impl_->startAt;
        impl_->scheduleTimeline();
        impl_->server->start();
    });
}

void FleetServer::stop() {
    loop_.invoke([&] {
        if (impl_->stopped) return;
        impl_->stopped = true;
        for (const Loop::TimerId id : impl_->timers) loop_.cancel(id);
        impl_->timers.clear();
        impl_->server->stop();
    });
}

HostPort FleetServer::bound() const { return impl_->server->bound(); }

std::vector<std::pair<std::string, std::string>> FleetServer::engineUrls() const {
    std::vector<std::pair<std::string, std::string>> out;
    const HostPort at = bound();
    // On the loop: a knob change there replaces the fleet's config, engine names and all.
    loop_.invoke([&] {
        for (const auto& e : impl_->fleet.config().engines)
            out.emplace_back(e.name, "http://" + toString(at) + std::string(kEnginePrefix) + e.name +
                                         std::string(kEngineSuffix));
    });
    return out;
}

const std::vector<std::string>& FleetServer::notes() const { return impl_->notes; }

void FleetServer::applyParams(const Params& params) {
    (void)gateway::fleetConfigFromParams(params);  // checks, off the loop
    if (params.integer("engine_capacity") < 1) throw std::invalid_argument("engine_capacity must be at least 1");
    loop_.invoke([&] { impl_->setParams(params); });
}

Params FleetServer::params() const {
    Params p;
    loop_.invoke([&] { p = impl_->params; });
    return p;
}

void FleetServer::addFault(const std::string& id, const Fault& fault, const std::string& label,
                           std::optional<Duration> duration) {
    if (duration && (*duration <= kZero || *duration > fromSeconds(kLongestAdminFault_s)))
        throw std::invalid_argument("a fault's duration must be above 0 and at most a week");
    loop_.invoke([&] {
        if (impl_->inForce(id)) throw std::invalid_argument("a fault named '" + id + "' is already in force");
        const auto f = fleetFaultOf(fault, impl_->params.integer("egress_ips"));
        if (!f) throw std::invalid_argument(notTheFleets(fault));
        impl_->addAdminFault(id, *f, label, duration);
    });
}

bool FleetServer::removeFault(const std::string& id) {
    bool removed = false;
    loop_.invoke([&] { removed = impl_->dropFault(id); });
    return removed;
}

FleetCounters FleetServer::counters() const {
    FleetCounters c;
    loop_.invoke([&] { c = impl_->counters; });
    return c;
}

}  // namespace taillab::live
