#include "gateway_sim/surges.h"

#include <algorithm>

#include "base/rng.h"
#include "gateway_sim/sim_config.h"

namespace taillab::gateway {

Surges::Surges(const Timeline& timeline, std::uint64_t seed, int egressIps, Time end) : seed_(seed) {
    for (std::uint32_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (!e.fault || e.fault->effect != FaultEffect::Surge) continue;
        events_.push_back(Event{i, fromSeconds(e.at_s), e.until_s ? fromSeconds(*e.until_s) : end, e.fault->factor,
                                faultScope(e.fault->target, egressIps).region});
    }
}

void Surges::addArrivals(Workload& workload, int h, std::vector<RequestSpec>& hour) const {
    const Time h0 = fromSeconds(3600.0 * h), h1 = h0 + fromSeconds(3600);
    bool added = false;
    for (const Event& e : events_) {
        const Time from = std::max(h0, e.from), to = std::min(h1, e.to);
        if (to <= from || e.factor <= 1) continue;
        const std::size_t before = hour.size();
        workload.generateSurge(h, e.factor - 1, from, to, e.region, e.index + 1, hour);
        added = added || hour.size() > before;
    }
    if (added)
        std::stable_sort(hour.begin(), hour.end(), [](const RequestSpec& a, const RequestSpec& b) { return a.at < b.at; });
}

bool Surges::thinnedOut(const Workload& workload, const RequestSpec& spec) const {
    for (const Event& e : events_) {
        if (e.factor >= 1 || spec.at < e.from || spec.at >= e.to) continue;
        if (e.region && (spec.customer >= workload.customers().size() ||
                         workload.customers()[spec.customer].home != *e.region))
            continue;
        const double u = uniformAt(streamKey(seed_, spec.trace, 0x7468696eULL + e.index), 0);  // "thin"
        if (u >= e.factor) return true;
    }
    return false;
}

}  // namespace taillab::gateway
