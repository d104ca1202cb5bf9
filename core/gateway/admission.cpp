#include "gateway/admission.h"

#include <algorithm>

#include "gateway/edge.h"

namespace taillab::gateway {
namespace {
constexpr std::size_t kBatchQueueBound = 20000;
}

Admission::Admission(const GatewayConfig& config) {
    AdaptiveLimit::Config lc;
    lc.min_limit = config.min_limit;
    lc.max_limit = config.max_limit;
    lc.initial = config.max_limit / 2;
    lc.tolerance = config.admission_tolerance;
    for (PerRegion& p : regions_) p.limit = AdaptiveLimit(lc);
    reconfigure(config);
}

void Admission::reconfigure(const GatewayConfig& config) {
    enabled_ = config.admission;
    batchLimit_ = config.batch_limit;
    for (PerRegion& p : regions_) {
        p.limit.setBounds(config.min_limit, config.max_limit);
        p.limit.setTolerance(config.admission_tolerance);
    }
}

Admission::Decision Admission::admitInteractive(Time now, Region region, bool pinned) {
    Decision d{Verdict::Admitted, region};
    if (enabled_) {
        PerRegion& home = at(region);
        home.limit.advance(now);
        if (home.inflight >= home.limit.limit()) {
            std::optional<Region> to;
            bool refused = false;
            if (!pinned) {
                for (Region other : Edge::spillOrder(region)) {
                    PerRegion& o = at(other);
                    o.limit.advance(now);
                    if (o.inflight < o.limit.limit()) {
                        if (o.open) {
                            refused = true;
                            continue;
                        }
                        to = other;
                        break;
                    }
                }
            }
            if (!to) return Decision{Verdict::Shed, region, refused};
            d = Decision{Verdict::Spilled, *to, refused};
        }
    }
    PerRegion& p = at(d.region);
    ++p.inflight;
    p.peak = std::max(p.peak, p.inflight);
    return d;
}

bool Admission::batchRoom(const PerRegion& p) const {
    return p.batchInflight < batchLimit_ && p.inflight <= 0.8 * p.limit.limit();
}

Admission::Decision Admission::admitBatch(Time now, Region region, std::uint32_t ticket) {
    PerRegion& p = at(region);
    if (enabled_) {
        p.limit.advance(now);
        if (!batchRoom(p) || !p.queue.empty()) {
            if (p.queue.size() >= kBatchQueueBound) return Decision{Verdict::Shed, region};
            p.queue.push_back(ticket);
            return Decision{Verdict::Queued, region};
        }
    }
    ++p.batchInflight;
    return Decision{Verdict::Admitted, region};
}

void Admission::release(Time, Region region, Lane lane) {
    PerRegion& p = at(region);
    if (lane == Lane::Batch) {
        --p.batchInflight;
    } else {
        --p.inflight;
    }
}

std::optional<std::uint32_t> Admission::popQueued(Region region) {
    PerRegion& p = at(region);
    if (p.queue.empty() || !batchRoom(p)) return std::nullopt;
    const std::uint32_t ticket = p.queue.front();
    p.queue.pop_front();
    ++p.batchInflight;
    return ticket;
}

void Admission::dropQueued(Region region, std::uint32_t ticket) {
    auto& q = at(region).queue;
    const auto it = std::find(q.begin(), q.end(), ticket);
    if (it != q.end()) q.erase(it);
}

void Admission::onSample(Time now, Region region, Duration latency) {
    at(region).limit.onSample(now, latency);
}

int Admission::takePeak(Region r) {
    PerRegion& p = at(r);
    const int peak = p.peak + static_cast<int>(p.queue.size());
    p.peak = p.inflight;
    return peak;
}

}  // namespace taillab::gateway
