#include "live/workload_plan.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "base/format.h"
#include "gateway_sim/surges.h"
#include "live/json_text.h"
#include "scenario/timeline.h"
#include "workload/workload.h"

namespace taillab::live {

struct WorkloadPlan::Impl {
    Scenario scenario;
    LoadScaling scaling;
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

WorkloadPlan::WorkloadPlan(const Scenario& scenario, double rate_per_s, Duration start_at, Duration run_length)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.scaling = scaleLoad(scenario, rate_per_s, start_at, run_length);
    m.scenario = scenario;
    m.start = start_at;
    Params& p = m.scenario.params;
    if (!m.scaling.reachable()) {
        const LoadScaling& sc = m.scaling;
        std::string note = unreachableRateText(scenario, sc) + ": this run offers about " +
                           formatNumbers("%.3g requests a second, not %.3g; ", sc.offered_rate_per_s,
                                         sc.asked_rate_per_s);
        note += sc.reachable_from ? "from " +
                                        formatRunTime(toSeconds(*sc.reachable_from),
                                                      static_cast<int>(p.choiceIndex("start_day"))) +
                                        " on, the scenario reaches the rate asked"
                                  : "no hour of the scenario reaches the rate asked";
        m.notes.push_back(std::move(note));
    }
    p.set("load_multiplier", m.scaling.multiplier);
    m.workload = std::make_unique<gateway::Workload>(p, scenario.seed);
    m.surges = gateway::Surges(m.scenario.timeline, scenario.seed, static_cast<int>(p.integer("egress_ips")),
                               m.workload->end());
}

WorkloadPlan::~WorkloadPlan() = default;
WorkloadPlan::WorkloadPlan(WorkloadPlan&&) noexcept = default;

const Scenario& WorkloadPlan::scenario() const { return impl_->scenario; }
const LoadScaling& WorkloadPlan::scaling() const { return impl_->scaling; }
double WorkloadPlan::loadMultiplier() const { return impl_->scaling.multiplier; }
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
