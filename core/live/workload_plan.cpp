#include "live/workload_plan.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "base/format.h"
#include "gateway_sim/surges.h"
#include "live/json_text.h"
#include "workload/workload.h"

namespace taillab::live {
namespace {

constexpr double kMinMultiplier = 0.1, kMaxMultiplier = 50;

// The workload's regular arrivals in [from, to).
std::uint64_t arrivalsIn(const Params& params, std::uint64_t seed, Time from, Time to) {
    gateway::Workload w(params, seed);
    std::vector<gateway::RequestSpec> hour;
    std::uint64_t n = 0;
    for (int h = static_cast<int>(toSeconds(from) / 3600); h < w.hours() && fromSeconds(3600.0 * h) < to; ++h) {
        hour.clear();
        w.generateHour(h, hour);
        for (const gateway::RequestSpec& r : hour) n += r.at >= from && r.at < to;
    }
    return n;
}

}  // namespace

struct WorkloadPlan::Impl {
    Scenario scenario;
    double multiplier = 1;
    std::vector<std::string> notes;
    Time start{};
    std::unique_ptr<gateway::Workload> workload;
    gateway::Surges surges;
    int hour = -1;  // the hour in `specs`
    std::vector<gateway::RequestSpec> specs;
    std::size_t next = 0;

    PlannedRequest planned(const gateway::RequestSpec& r) const {
        PlannedRequest q;
        q.at = std::chrono::nanoseconds((r.at - start).count());
        q.target = r.endpoint == 1 ? "/search/fast" : "/search/lite";
        q.request_id = std::to_string(r.trace);
        std::string_view lang = "en";
        if (r.customer == gateway::kUnknownCustomer) {
            q.key = std::string(gateway::kUnknownKey);
        } else {
            const gateway::Customer& c = workload->customers()[r.customer];
            q.key = c.key;
            lang = gateway::kLanguages[c.lang];
            if (c.pins) q.region = std::string(gateway::kRegionNames[static_cast<std::size_t>(c.home)]);
        }
        JsonObjectWriter(q.body)
            .field("query", r.query())
            .field("language", lang)
            .field("max_results", static_cast<int>(r.max_results))
            .close();
        return q;
    }

    void load(int h) {
        hour = h;
        specs.clear();
        next = 0;
        workload->generateHour(h, specs);
        if (!surges.empty()) surges.addArrivals(*workload, h, specs);
    }
};

WorkloadPlan::WorkloadPlan(const Scenario& scenario, double rate_per_s, Duration start_at, Duration calibrate)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    if (scenario.lab != "gateway")
        throw std::invalid_argument("the workload's arrivals need a gateway scenario, not a '" + scenario.lab + "' lab");
    if (!(rate_per_s > 0)) throw std::invalid_argument("the rate must be above 0 requests per second");
    const Duration runLength = fromSeconds(scenario.params.integer("days") * 86400.0);
    if (start_at < kZero || start_at >= runLength || calibrate <= kZero)
        throw std::invalid_argument("the start must lie within the scenario's run (" +
                                    std::to_string(scenario.params.integer("days")) + " days)");
    m.scenario = scenario;
    m.start = start_at;
    Params& p = m.scenario.params;
    const Time calibrateEnd = std::min(start_at + calibrate, runLength);
    const std::uint64_t count = arrivalsIn(p, scenario.seed, start_at, calibrateEnd);
    if (count == 0) throw std::invalid_argument("the scenario's workload has no arrivals in that window");
    const double base = p.real("load_multiplier");
    const double wanted = rate_per_s * toSeconds(calibrateEnd - start_at) / static_cast<double>(count) * base;
    m.multiplier = std::clamp(wanted, kMinMultiplier, kMaxMultiplier);
    if (m.multiplier != wanted)
        m.notes.push_back(formatNumbers(
            "load_multiplier %.3g is as far as the knob goes (%.3g asked)", m.multiplier, wanted));
    p.set("load_multiplier", m.multiplier);
    m.workload = std::make_unique<gateway::Workload>(p, scenario.seed);
    m.surges = gateway::Surges(m.scenario.timeline, scenario.seed, static_cast<int>(p.integer("egress_ips")),
                               m.workload->end());
}

WorkloadPlan::~WorkloadPlan() = default;
WorkloadPlan::WorkloadPlan(WorkloadPlan&&) noexcept = default;

const Scenario& WorkloadPlan::scenario() const { return impl_->scenario; }
double WorkloadPlan::loadMultiplier() const { return impl_->multiplier; }
const std::vector<std::string>& WorkloadPlan::notes() const { return impl_->notes; }
Duration WorkloadPlan::remaining() const { return impl_->workload->end() - impl_->start; }

void WorkloadPlan::fill(Duration from, Duration to, std::vector<PlannedRequest>& out) {
    Impl& m = *impl_;
    const Time a = m.start + from, b = std::min(m.start + to, m.workload->end());
    if (b <= a) return;
    if (m.hour < 0) m.load(static_cast<int>(toSeconds(a) / 3600));
    for (;;) {
        while (m.next < m.specs.size() && m.specs[m.next].at < b) {
            const gateway::RequestSpec& r = m.specs[m.next++];
            if (r.at < a || (!m.surges.empty() && m.surges.thinnedOut(*m.workload, r))) continue;
            out.push_back(m.planned(r));
        }
        if (m.next < m.specs.size() || m.hour + 1 >= m.workload->hours() || fromSeconds(3600.0 * (m.hour + 1)) >= b)
            return;
        m.load(m.hour + 1);
    }
}

PlanSource WorkloadPlan::source(std::shared_ptr<WorkloadPlan> plan) {
    return [plan = std::move(plan)](std::chrono::nanoseconds from, std::chrono::nanoseconds to,
                                    std::vector<PlannedRequest>& out) {
        plan->fill(Duration{from.count()}, Duration{to.count()}, out);
    };
}

}  // namespace taillab::live
