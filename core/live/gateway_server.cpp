#include "live/gateway_server.h"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "gateway/flat_map.h"
#include "gateway_sim/sim_config.h"
#include "live/fleet_admin.h"
#include "live/http_client.h"
#include "live/live_driver.h"

namespace taillab::live {
namespace {

// How an HTTP exchange that failed looks to the gateway.
gateway::CallFailure callFailure(HttpFailure f) {
    switch (f) {
        case HttpFailure::Timeout: return gateway::CallFailure::Timeout;
        case HttpFailure::Protocol: return gateway::CallFailure::BadPayload;
        case HttpFailure::None:
        case HttpFailure::Refused:
        case HttpFailure::Reset:
        case HttpFailure::Other: break;
    }
    return gateway::CallFailure::Reset;
}

// One knob change of the setup's timeline, checked and built before the gateway listens. It
// sets its own knobs only: applied to the knobs in force when it comes (an edit made in between
// stays), with the config built ahead for the knobs the timeline alone would have led to.
struct PlannedChange {
    Duration at{};
    TimelineEvent event;
    Params from;  // the knobs before, had nothing else changed them
    gateway::GatewayConfig config;  // for `from` with the event's settings
};

// The config for `next`, checked as a change from `from`: throws std::invalid_argument naming
// the knob.
gateway::GatewayConfig changedConfig(const Params& from, const Params& next, std::uint64_t seed) {
    gateway::checkRunChange(from, next);
    return gatewaySetup(next, seed).config;
}

}  // namespace

struct GatewayServer::Impl final : HttpHandler, LiveIo {
    Impl(Loop& l, const HostPort& listen, const GatewaySetup& setup, std::vector<Url> urls, std::uint64_t seed,
         HttpServerLimits limits)
        : loop(l), upstreams(std::move(urls)), client(l), params(setup.params), seed(setup.seed),
          startAt(setup.start_at), driver(setup.config, seed, *this, setup.window),
          server(l, listen, *this, limits), wake(l, [this] {
              driver.onWake();
              rearm();
          }) {
        for (const Url& u : upstreams) upstreamHosts.push_back(toString(u.at));
        driver.setKnobs(params);
    }

    // Checks and builds the timeline's knob changes; collects its faults' marks.
    void planTimeline(const GatewaySetup& setup) {
        Params p = setup.params;
        for (std::size_t i = 0; i < setup.timeline.events.size(); ++i) {
            const TimelineEvent& e = setup.timeline.events[i];
            const std::string where = e.path.empty() ? "timeline event " + std::to_string(i) : e.path;
            if (e.fault) faultMarks.push_back(e);
            if (e.set.empty()) continue;
            Params next = p;
            try {
                for (const KnobSetting& k : e.set) next.set(k.key, k.value);
                PlannedChange c{fromSeconds(e.at_s), e, p, changedConfig(setup.params, next, setup.seed)};
                planned.push_back(std::move(c));
            } catch (const std::invalid_argument& x) {
                throw std::invalid_argument(where + " (" + e.label + "): " + x.what());
            }
            p = std::move(next);
        }
    }

    // On the loop at start(): the timeline from `startAt` on its clock.
    void scheduleTimeline() {
        started = loop.now();
        driver.openWindows(started);
        const double origin = toSeconds(started) - toSeconds(startAt);
        for (const TimelineEvent& e : faultMarks) {
            if (e.until_s && fromSeconds(*e.until_s) <= startAt) continue;
            driver.addMark(gateway::TimelineMark{origin + e.at_s, e.until_s ? std::optional(origin + *e.until_s)
                                                                              : std::nullopt,
                                                 gateway::MarkKind::Fault, e.label, {}, {}});
        }
        for (std::size_t i = 0; i < planned.size(); ++i) {
            if (planned[i].at <= startAt) {
                applyPlanned(planned[i]);
                continue;
            }
            timelineTimers.push_back(loop.runAfter(planned[i].at - startAt, [this, i] { applyPlanned(planned[i]); }));
        }
    }

    // On the loop: a timeline change over the knobs in force, marked as the simulator marks it
    // (its label, else each knob it sets, old -> new, even one it leaves as it was). When an edit
    // came in between, the config is built here (checked again: the edit may make the change one
    // that cannot be made; then it is marked as not applied and the knobs stay).
    void applyPlanned(const PlannedChange& c) {
        Params next = params;
        for (const KnobSetting& k : c.event.set) next.set(k.key, k.value);
        const std::string what = gateway::knobChangeText(params, next, c.event);
        gateway::GatewayConfig config;
        try {
            config = params == c.from ? c.config : changedConfig(params, next, seed);
        } catch (const std::invalid_argument& x) {
            driver.addMark(gateway::TimelineMark{toSeconds(loop.now()), std::nullopt, gateway::MarkKind::Knob,
                                                 "not applied: " + what + " (" + x.what() + ")", {}, {}});
            return;
        }
        apply(next, config, what, true, gateway::knobSteps(params, next, c.event));
    }

    // On the loop: new knobs from now on, marked (an edit that changes nothing is not, unless
    // `markUnchanged`: a timeline change is drawn where it fired either way).
    void apply(const Params& next, const gateway::GatewayConfig& config, std::string what,
               bool markUnchanged = false, std::vector<gateway::KnobStep> steps = {}) {
        const std::vector<std::string> keys = gateway::changedKnobs(params, next);
        if (keys.empty() && !markUnchanged) return;
        if (what.empty()) {
            what = gateway::knobChangeText(params, next, keys);
            steps = gateway::knobSteps(params, next, keys);
        }
        driver.addMark(gateway::TimelineMark{toSeconds(loop.now()), std::nullopt, gateway::MarkKind::Knob, what,
                                             {}, std::move(steps)});
        if (keys.empty()) return;
        driver.reconfigure(config);
        params = next;
        driver.setKnobs(params);
        rearm();
    }

    // POST /admin/knobs {"hedge_delay_ms": 300, "hedge_mode": "fixed", ...} and GET /admin/state.
    void admin(const ServerRequest& r, Responder& responder) {
        using nlohmann::json;
        const std::string_view path = r.path();
        // A refusal is counted on /metrics as the HTTP layer's other refusals are.
        const auto refuse = [&](HttpReply reply) {
            driver.countRefused(reply.status);
            responder.respond(std::move(reply));
        };
        const auto fail = [&](int status, std::string_view error, const std::string& message) {
            refuse(jsonError(loop, r.accepted, status, error, message));
        };
        const auto wrongMethod = [&](std::string_view allow) {
            HttpReply reply = jsonError(loop, r.accepted, 405, "method_not_allowed",
                                        std::string(path) + " takes " + std::string(allow) + ", not " + r.method);
            reply.headers.emplace_back("Allow", allow);
            refuse(std::move(reply));
        };
        const auto state = [&] {
            json j;
            j["now_s"] = toSeconds(loop.now());
            j["started_at_s"] = toSeconds(started);
            j["knobs"] = json::parse(params.toJson().dump());
            j["latency_ms"] = latencyMs(loop.now() - r.accepted);
            responder.respond(HttpReply{200, {{"Content-Type", "application/json"}}, j.dump()});
        };
        if (path == "/admin/state") {
            if (r.method != "GET") return wrongMethod("GET");
            return state();
        }
        if (path != "/admin/knobs")
            return fail(404, "not_found", "no admin path " + std::string(path) + " (POST /admin/knobs, GET /admin/state)");
        if (r.method != "POST") return wrongMethod("POST");
        if (const auto twice = r.repeatedHeader(std::array{std::string_view("Content-Type")}))
            return fail(400, "bad_request", std::string(*twice) + " is sent more than once: it takes one value");
        if (auto notJson = refuseNonJson(r.header("Content-Type").value_or(""), loop.now() - r.accepted))
            return refuse(std::move(*notJson));
        json body;
        try {
            body = readAdminBody(r.body);
        } catch (const AdminError& e) {
            return fail(400, "bad_request", e.what());
        }
        if (!body.is_object()) return fail(400, "bad_request", "$: expected an object of knob names and values");
        if (body.empty()) return fail(400, "bad_request", "$: names no knob to change");
        Params next = params;
        for (const auto& [key, value] : body.items()) {
            try {
                next.setJson(key, value);
                // A knob that shapes the whole run is named by its own path, as any other bad
                // member is (the check of the whole change below could only say "$").
                Params one = params;
                one.setJson(key, value);
                gateway::checkRunChange(params, one);
            } catch (const std::exception& e) {
                return fail(400, "bad_request", "$." + key + ": " + e.what());
            }
        }
        gateway::GatewayConfig config;
        try {
            config = changedConfig(params, next, seed);
        } catch (const std::invalid_argument& e) {
            return fail(400, "bad_request", std::string("$: ") + e.what());
        }
        apply(next, config, {});
        state();
    }

    // HttpHandler
    void handle(const ServerRequest& r, Responder responder) override {
        ++stats.requests;
        if (adminEnabled && r.path().starts_with("/admin/")) return admin(r, responder);
        const std::uint64_t ticket = nextTicket++;
        responders.emplace(ticket, std::move(responder));
        HttpRequestParts parts;
        parts.method = r.method;
        parts.target = r.target;
        parts.authorization = r.header("Authorization");
        parts.region = r.header("X-Region");
        parts.request_id = r.header("X-Request-Id");
        parts.content_type = r.header("Content-Type").value_or("");
        parts.repeated_header = r.repeatedHeader(kSingleValueHeaders).value_or("");
        parts.body = r.body;
        driver.onHttp(ticket, parts, r.accepted);
        rearm();
    }

    void refused(int status) override { driver.countRefused(status); }

    // LiveIo
    Time now() const override { return loop.now(); }
    void reply(std::uint64_t ticket, HttpReply r) override {
        const auto it = responders.find(ticket);
        if (it == responders.end()) return;
        it->second.respond(std::move(r));  // does nothing if the client has gone
        responders.erase(it);
    }
    void callUpstream(gateway::CallId call, int engine, UpstreamRequest r, Duration timeout) override {
        ++stats.upstream_calls;
        const std::size_t e = static_cast<std::size_t>(engine);
        const Url& url = upstreams[e];
        WireRequest req;
        writeUpstreamRequest(req.wire, r, url.target, upstreamHosts[e]);
        req.timeout = std::max(timeout, Duration{std::chrono::milliseconds(1)});
        const HttpClient::RequestId id = client.request(url.at, std::move(req), [this, call](HttpResponse&& res) {
            inFlight.erase(call.key());
            UpstreamReply reply = res.ok() ? readUpstreamReply(res.status, std::move(res.body)) : upstreamFailure(callFailure(res.failure));
            if (reply.failure != gateway::CallFailure::None) ++stats.upstream_failures;
            driver.onUpstream(call, std::move(reply));
            rearm();
        });
        inFlight.put(call.key(), id);
    }
    void cancelUpstream(gateway::CallId call) override {
        const HttpClient::RequestId* id = inFlight.find(call.key());
        if (!id) return;
        client.cancel(*id);
        inFlight.erase(call.key());
    }

    // One timer for the driver, at its next wake-up (Loop::Timer: most inputs only push the
    // next wake-up later, and those add nothing to the loop's heap).
    void rearm() { wake.setAt(driver.nextWake()); }

    Loop& loop;
    std::vector<Url> upstreams;
    std::vector<std::string> upstreamHosts;  // each one's Host header ("127.0.0.1:8081")
    HttpClient client;
    Params params;  // in force
    std::uint64_t seed;
    Duration startAt;
    Time started{};
    std::vector<PlannedChange> planned;
    std::vector<TimelineEvent> faultMarks;
    std::vector<Loop::TimerId> timelineTimers;
    bool adminEnabled = false;
    bool stopping = false;       // stop() has begun
    bool windowsClosed = false;  // stop() closed the last window
    LiveDriver driver;
    HttpServer server;
    std::unordered_map<std::uint64_t, Responder> responders;
    gateway::FlatMap<HttpClient::RequestId> inFlight;  // by CallId::key(), no allocation per call
    std::uint64_t nextTicket = 1;
    Loop::Timer wake;  // for the driver: after it, so that it stops first
    GatewayServerStats stats;
};

GatewayServer::GatewayServer(Loop& loop, const HostPort& listen, const GatewaySetup& setup, std::vector<Url> upstreams,
                             std::uint64_t seed, HttpServerLimits limits)
    : loop_(loop) {
    if (upstreams.size() != setup.config.engines.size())
        throw std::invalid_argument("one upstream URL per engine is needed");
    checkStartAt(setup.params, setup.start_at, "the gateway");
    loop_.invoke([&] {
        auto impl = std::make_unique<Impl>(loop, listen, setup, std::move(upstreams), seed, limits);
        impl->planTimeline(setup);
        impl_ = std::move(impl);
    });
}

GatewayServer::~GatewayServer() {
    stop();
    loop_.invoke([&] { impl_.reset(); });
}

HostPort GatewayServer::bound() const { return impl_->server.bound(); }

void GatewayServer::enableAdmin() {
    loop_.invoke([&] { impl_->adminEnabled = true; });
}

void GatewayServer::start() {
    loop_.invoke([&] { impl_->scheduleTimeline(); });
    impl_->server.start();
    loop_.invoke([&] { impl_->rearm(); });
}

void GatewayServer::stop(Duration drain) {
    bool first = false;
    loop_.invoke([&] {
        first = !impl_->stopping;
        impl_->stopping = true;
        // No knob change while it stops: what is in flight ends under the knobs it began with.
        for (const Loop::TimerId id : impl_->timelineTimers) loop_.cancel(id);
        impl_->timelineTimers.clear();
    });
    if (first && loop_.running() && !loop_.onLoopThread()) drainRequests(drain);
    impl_->server.stop();
    loop_.invoke([&] {
        impl_->wake.clear();
        if (impl_->started != Time{} && !impl_->windowsClosed) {
            impl_->windowsClosed = true;
            impl_->driver.closeLastWindow();  // the run's last window, however short
        }
    });
}

void GatewayServer::drainRequests(Duration drain) {
    impl_->server.drain();
    // The searches in flight end on the loop (answers, the gateway's deadlines); this thread
    // looks in now and then until none is left and every connection has closed after its answer.
    const auto settled = [&] {
        bool done = false;
        loop_.invoke([&] { done = impl_->responders.empty() && impl_->server.connections() == 0; });
        return done;
    };
    const auto waitUntil = [&](Time until) {
        while (!settled() && loop_.now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    waitUntil(loop_.now() + drain);
    loop_.invoke([&] {
        if (impl_->driver.inFlight() == 0) return;
        impl_->driver.endInFlight("the gateway stopped before an answer came (its drain time was up)");
        impl_->rearm();
    });
    // Those answers, and any still being written, get a moment to leave before stop() closes.
    waitUntil(loop_.now() + kDrainFlush);
}

gateway::GatewaySnapshot GatewayServer::snapshot() {
    gateway::GatewaySnapshot s;
    loop_.invoke([&] { s = impl_->driver.snapshot(); });
    return s;
}

void GatewayServer::applyParams(const Params& params, const std::string& label) {
    const Params from = this->params();
    const gateway::GatewayConfig config = changedConfig(from, params, impl_->seed);  // off the loop
    loop_.invoke([&] {
        // A change that raced this one in (the admin endpoint, the timeline) must not be undone
        // by a config built against older knobs: build again from what is in force now.
        if (impl_->params == from) return impl_->apply(params, config, label);
        impl_->apply(params, changedConfig(impl_->params, params, impl_->seed), label);
    });
}

std::pair<Params, Params> GatewayServer::applyChanges(const std::vector<KnobSetting>& changes,
                                                      const std::string& label) {
    std::pair<Params, Params> fromTo;
    loop_.invoke([&] {
        fromTo.first = impl_->params;
        fromTo.second = impl_->params;
        for (const KnobSetting& c : changes) fromTo.second.set(c.key, c.value);
        if (fromTo.second == fromTo.first) return;
        impl_->apply(fromTo.second, changedConfig(fromTo.first, fromTo.second, impl_->seed), label);
    });
    return fromTo;
}

Params GatewayServer::params() {
    Params p;
    loop_.invoke([&] { p = impl_->params; });
    return p;
}

void GatewayServer::addMark(gateway::TimelineMark mark) {
    loop_.invoke([&] { impl_->driver.addMark(std::move(mark)); });
}

double GatewayServer::nowSeconds() { return toSeconds(loop_.now()); }

double GatewayServer::startedAt() {
    double t = 0;
    loop_.invoke([&] { t = toSeconds(impl_->started); });
    return t;
}

GatewayServerStats GatewayServer::stats() {
    GatewayServerStats s;
    loop_.invoke([&] { s = impl_->stats; });
    return s;
}

}  // namespace taillab::live
