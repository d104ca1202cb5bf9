#include "fleet/fleet.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace taillab::fleet {
namespace {

using gateway::CallFailure;
using gateway::PageKind;
using gateway::ResultBody;
using gateway::ResultItem;

constexpr std::array<double, gateway::kClasses> kClassSlowness{0.6, 0.8, 1.0, 1.0, 1.5};
constexpr std::array<int, 3> kBuckets{10, 20, 50};
constexpr int kPagesPerBucket = 16;
constexpr std::uint64_t kSharedPurpose = 0x736861726564ULL;  // "shared"

int bucketIndex(int fetchCount) { return fetchCount <= 10 ? 0 : fetchCount <= 20 ? 1 : 2; }

std::shared_ptr<ResultBody> syntheticPage(const std::string& engine, int variant, int count) {
    std::vector<ResultItem> items;
    items.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(variant) + "-" + std::to_string(i);
        items.push_back(ResultItem{"Result " + n + " from " + engine,
                                   "https://" + engine + ".example/r/" + n,
                                   "A synthetic result: page " + std::to_string(variant) +
                                       ", rank " + std::to_string(i + 1) + ".",
                                   1.0 - 0.01 * i});
    }
    return std::make_shared<ResultBody>(std::move(items));
}

std::shared_ptr<ResultBody> blockPage(PageKind kind) {
    return std::make_shared<ResultBody>(std::vector<ResultItem>{}, kind);
}

}  // namespace

Fleet::Fleet(const FleetConfig& config, std::uint64_t seed) : cfg_(config), seed_(seed) {
    for (const EngineModel& e : cfg_.engines) {
        pages_.emplace_back();
        for (std::size_t b = 0; b < kBuckets.size(); ++b)
            for (int v = 0; v < kPagesPerBucket; ++v)
                pages_.back()[b].push_back(syntheticPage(e.name, v, kBuckets[b]));
    }
    empty_ = std::make_shared<ResultBody>(std::vector<ResultItem>{});
    blockPage_ = blockPage(PageKind::BlockPage);
    captcha_ = blockPage(PageKind::Captcha);
    consentWall_ = blockPage(PageKind::ConsentWall);
    ips_.assign(static_cast<std::size_t>(gateway::kRegions * cfg_.egress_ips) * cfg_.engines.size(),
                IpState{gateway::TokenBucket(cfg_.ip_burst, cfg_.ip_rate_per_s, kZero), nullptr, 0});
}

void Fleet::setConfig(const FleetConfig& config) {
    const int ips = cfg_.egress_ips;
    cfg_ = config;
    cfg_.egress_ips = ips;  // the IP pool is structural
}

void Fleet::addFault(std::uint32_t id, const CallFault& fault) {
    faults_.push_back(ActiveFault{id, fault});
}

void Fleet::removeFault(std::uint32_t id) {
    faults_.erase(std::remove_if(faults_.begin(), faults_.end(),
                                 [&](const ActiveFault& f) { return f.id == id; }),
                  faults_.end());
}

const ResultBody* Fleet::pageFor(int engine, int fetchCount, std::uint64_t key) const {
    const auto& pool = pages_[static_cast<std::size_t>(engine)][static_cast<std::size_t>(bucketIndex(fetchCount))];
    return pool[mix64(key) % pool.size()].get();
}

FleetAnswer Fleet::answer(const gateway::UpstreamCall& call, Time at) {
    const EngineModel& m = cfg_.engines[static_cast<std::size_t>(call.engine)];
    Rng rng(streamKey(seed_, call.trace,
                      static_cast<std::uint64_t>(call.engine) * 8 + static_cast<std::uint64_t>(call.role)));
    // The faults in force on this call.
    double slowFactor = 1, addMs = 0, faultInvalid = 0, faultResets = 0;
    bool down = false;
    const LognormalParams* replaced = nullptr;
    for (const ActiveFault& a : faults_) {
        const CallFault& f = a.fault;
        if (f.engine >= 0 && f.engine != call.engine) continue;
        if (f.region && *f.region != call.region) continue;
        if (f.egress_ip && *f.egress_ip != call.egress_ip) continue;
        switch (f.effect) {
            case CallFault::Effect::Down: down = true; break;
            case CallFault::Effect::Slow:
                if (f.distribution) replaced = &*f.distribution;
                slowFactor *= f.factor;
                break;
            case CallFault::Effect::Invalid: faultInvalid = 1 - (1 - faultInvalid) * (1 - f.share); break;
            case CallFault::Effect::Resets: faultResets = 1 - (1 - faultResets) * (1 - f.share); break;
            case CallFault::Effect::Latency: addMs += f.add_ms; break;
        }
    }
    FleetAnswer d;
    d.echo = call.cache_key;  // the upstream echoes the query it answered
    double ms;
    const double invalid =
        1 - (1 - std::min(1.0, m.invalid_rate * cfg_.fault_multiplier)) * (1 - faultInvalid);
    if (down) {
        // Refused: comes back within a round trip.
        d.failure = CallFailure::Reset;
        ms = 0.1 * lognormalSample(m.latency.body, rng);
    } else if (faultResets > 0 && rng.bernoulli(faultResets)) {
        d.failure = CallFailure::Reset;
        ms = 0.3 * lognormalSample(m.latency.body, rng);
    } else if (rng.bernoulli(invalid)) {
        const double u = rng.uniform();
        const double body = lognormalSample(m.latency.body, rng);
        ms = 0.6 * body;
        if (u < 0.38) {
            d.page = empty_.get();
        } else if (u < 0.62) {
            d.page = blockPage_.get();
        } else if (u < 0.76) {
            d.page = captcha_.get();
        } else if (u < 0.86) {
            d.page = consentWall_.get();
        } else if (u < 0.95) {
            d.failure = CallFailure::Reset;
            ms = 0.3 * body;
        } else {
            d.failure = CallFailure::Timeout;
            ms = kHangMs;
        }
    } else {
        const double classFactor =
            1 + cfg_.class_variability * (kClassSlowness[static_cast<std::size_t>(call.query_class)] - 1);
        const double p = std::min(0.95, m.latency.slow_probability * cfg_.slow_multiplier * classFactor);
        const double f = cfg_.correlation;
        const double q = (p - f * p) / (1 - f * p);
        const double shared = uniformAt(streamKey(seed_, call.trace, kSharedPurpose), 0);
        const bool slow = shared < f * p || rng.bernoulli(q);
        ms = replaced ? lognormalSample(*replaced, rng)
                      : lognormalSample(slow ? m.latency.slow : m.latency.body, rng);
        ms *= slowFactor;
        d.page = pageFor(call.engine, call.fetch_count, call.cache_key);
    }
    if (cfg_.cold_egress || call.cold_connection) ms += lognormalSample(cfg_.cold_connect, rng);
    ms += addMs;
    // The engine's limit for this egress IP: over it, the IP's previous page again.
    IpState& ip = ips_[static_cast<std::size_t>(
        (static_cast<int>(call.region) * cfg_.egress_ips + call.egress_ip) *
            static_cast<int>(cfg_.engines.size()) + call.engine)];
    const bool results = d.failure == CallFailure::None && d.page && d.page->kind() == PageKind::Results &&
                         !d.page->items().empty();
    if (!ip.bucket.take(at) && results) {
        if (ip.lastPage) {
            d.page = ip.lastPage;
            d.echo = ip.lastEcho;
        } else {
            d.page = blockPage_.get();
        }
        ms /= 3;
    }
    if (d.failure == CallFailure::None && d.page && d.page->kind() == PageKind::Results &&
        !d.page->items().empty()) {
        ip.lastPage = d.page;
        ip.lastEcho = d.echo;
    }
    // A draw from the far tail of a slow fault's lognormal (factor 100, sigma 3) can pass what
    // 64-bit nanoseconds hold; a month is beyond any deadline and any run.
    constexpr double kLongestCallMs = 30 * 86400e3;
    d.latency = fromMs(std::min(ms, kLongestCallMs));
    return d;
}

}  // namespace taillab::fleet
