#include "live/live_driver.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "live/json_text.h"
#include "live/prometheus.h"

namespace taillab::live {

LiveDriver::LiveDriver(const gateway::GatewayConfig& config, std::uint64_t seed, LiveIo& io, Duration window)
    : io_(io), gateway_(config, seed, *this), window_(window), windowEnd_(io.now() + window) {}

LiveDriver::~LiveDriver() = default;

void LiveDriver::onHttp(std::uint64_t ticket, const HttpRequestParts& in, Time accepted) {
    const std::string_view path = in.target.substr(0, in.target.find('?'));
    if (path == "/healthz" || path == "/metrics") {
        if (in.method != "GET" && in.method != "HEAD") {
            HttpReply r = errorReply(405, "method_not_allowed",
                                     std::string(path) + " takes GET or HEAD, not " + std::string(in.method),
                                     io_.now() - accepted);
            r.headers.emplace_back("Allow", "GET, HEAD");
            countRefused(405);
            return io_.reply(ticket, std::move(r));
        }
        HttpReply r;
        if (path == "/healthz") {
            JsonObjectWriter(r.body).field("status", "serving").field("latency_ms", latencyMs(io_.now() - accepted)).close();
        } else {
            r.body = prometheusText(snapshot(), refused_, knobs_ ? &*knobs_ : nullptr);
            r.headers.emplace_back("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        }
        return io_.reply(ticket, std::move(r));
    }
    auto read = readSearch(in, io_.now() - accepted);
    if (auto* reply = std::get_if<HttpReply>(&read)) {
        countRefused(reply->status);
        return io_.reply(ticket, std::move(*reply));
    }
    const SearchRequest& search = std::get<SearchRequest>(read);
    const std::uint64_t trace = search.request_id ? *search.request_id : nextTrace_++;
    ++requests_;
    inInput_ = true;
    currentTicket_ = ticket;
    currentTrace_ = trace;
    const gateway::RequestId id = gateway_.onRequest(io_.now(), search.view(trace, accepted));
    // Answered at once (401, 429, a cache hit) or still in the gateway?
    if (currentTicket_) tickets_.insert(id.key(), ticket);
    currentTicket_.reset();
    inInput_ = false;
    drainQueued();
}

void LiveDriver::onUpstream(gateway::CallId call, UpstreamReply reply) {
    if (inInput_) {
        queued_.emplace_back(call, std::move(reply));
        return;
    }
    inInput_ = true;
    gateway_.onAnswer(io_.now(), call, reply.answer());
    inInput_ = false;
    drainQueued();
}

void LiveDriver::drainQueued() {
    while (!queued_.empty() && !inInput_) {
        auto [call, reply] = std::move(queued_.front());
        queued_.pop_front();
        onUpstream(call, std::move(reply));
    }
}

void LiveDriver::onWake() {
    const Time now = io_.now();
    inInput_ = true;
    while (const std::optional<Time> due = gateway_.pollTimeout()) {
        if (*due > now) break;
        gateway_.onTimeout(now);
    }
    while (windowEnd_ <= now) {
        gateway_.closeWindow(windowEnd_);
        windowEnd_ += window_;
    }
    inInput_ = false;
    drainQueued();
}

Time LiveDriver::nextWake() {
    const std::optional<Time> timer = gateway_.pollTimeout();
    return timer ? std::min(*timer, windowEnd_) : windowEnd_;
}

void LiveDriver::openWindows(Time at) {
    windowEnd_ = at + window_;
    gateway_.metrics().openFirstWindow(at);
}

void LiveDriver::closeLastWindow() {
    const Time now = io_.now();
    while (windowEnd_ <= now) {  // the windows that have ended close at their ends first
        gateway_.closeWindow(windowEnd_);
        windowEnd_ += window_;
    }
    if (gateway_.metrics().windowEmpty() || windowEnd_ - window_ >= now) return;
    gateway_.closeWindow(now);
    windowEnd_ = now + window_;
}

void LiveDriver::endInFlight(std::string_view message) {
    inInput_ = true;
    gateway_.endInFlight(io_.now(), message);
    inInput_ = false;
    drainQueued();
}

void LiveDriver::reconfigure(const gateway::GatewayConfig& config) {
    gateway_.reconfigure(io_.now(), config);
}

void LiveDriver::addMark(gateway::TimelineMark mark) { gateway_.metrics().addMark(std::move(mark)); }

gateway::GatewaySnapshot LiveDriver::snapshot() {
    gateway::GatewaySnapshot s;
    gateway_.fillSnapshot(s, io_.now());
    return s;
}

Time LiveDriver::stageEnd(Time start, const gateway::StageWork&) { return std::max(start, io_.now()); }

void LiveDriver::startCall(const gateway::UpstreamCall& call) {
    io_.callUpstream(call.id, call.engine, upstreamRequest(call), call.budget);
}

void LiveDriver::cancelCall(gateway::CallId call) { io_.cancelUpstream(call); }

void LiveDriver::respond(const gateway::Response& response) {
    std::uint64_t ticket = 0;
    if (const std::uint64_t* waiting = tickets_.find(response.request.key())) {
        ticket = *waiting;
        tickets_.erase(response.request.key());
    } else if (currentTicket_ && response.trace == currentTrace_) {
        ticket = *currentTicket_;  // the request inside onRequest, answered before it returned
        currentTicket_.reset();
    } else {
        return;  // a probe or background request: no client waits on it
    }
    io_.reply(ticket, writeResponse(response));
}

}  // namespace taillab::live
