// The gateway's compute in the simulation (issue 10's topology): each region's CPUs on providers
// and zones, stage work first come first served on them, capacity lost by provider or zone,
// standby CPUs on provider B, and v3's reroute of a region's unpinned traffic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gateway_sim/gateway_lab.h"
#include "gateway_sim/gateway_sim.h"
#include "labs/lab.h"
#include "labs/lab_result.h"
#include "run/runner.h"
#include "gateway_day.h"
#include "timeline_support.h"

namespace taillab::gateway {
namespace {

Params dayParams(double load) { return test::gatewayDay(load); }

// The result without the figure only a run with compute has (its providers' shares).
std::string resultBytes(const GatewaySnapshot& s, const Params& p) {
    auto j = toJson(gatewayResult(s, p, 1));
    j["figures"].erase("max_provider_share");
    return j.dump();
}

GatewaySnapshot runCompute(const Params& p, const Timeline& t = {}) {
    GatewaySim sim(p, 6, t);
    EXPECT_TRUE(sim.drain());
    return sim.snapshot();
}

// With far more CPUs than work, no stage ever waits: the run is the one without compute, request
// for request (the gateway's own figures, byte for byte).
TEST(GatewayCompute, CpusThatNeverRunOutChangeNothing) {
    Params off = dayParams(0.5);
    Params on = off;
    on.set("gateway_compute", 1);
    on.set("gateway_cpus", 4096);
    const GatewaySnapshot a = runCompute(off), b = runCompute(on);
    EXPECT_EQ(resultBytes(a, off), resultBytes(b, off));
}

// Few CPUs: work queues, so the same arrivals take longer, and a busier run longer still. The
// queueing is the CPUs', so a second CPU per region takes most of it away.
TEST(GatewayCompute, FewCpusMakeStageWorkWait) {
    Params p = dayParams(8);
    p.set("gateway_compute", 1);
    p.set("admission", 0);
    p.set("gateway_cpus", 1);
    const GatewaySnapshot one = runCompute(p);
    p.set("gateway_cpus", 2);
    const GatewaySnapshot two = runCompute(p);
    p.set("gateway_compute", 0);
    const GatewaySnapshot none = runCompute(p);
    EXPECT_EQ(one.accepted, none.accepted);
    const double p50One = one.latency_us.valueAtPercentile(50) / 1000.0;
    const double p50Two = two.latency_us.valueAtPercentile(50) / 1000.0;
    const double p50None = none.latency_us.valueAtPercentile(50) / 1000.0;
    EXPECT_GT(p50One, p50Two);
    EXPECT_GE(p50Two, p50None);
    // Stage time includes the wait for a CPU: the edge, first in line, shows it most.
    const auto edge = static_cast<std::size_t>(Stage::Edge);
    EXPECT_GT(one.stages[edge].time_ms_total, 1.05 * none.stages[edge].time_ms_total);
}

// Provider A losing every zone leaves a one-provider layout with no CPU: nothing is answered, and
// every accepted request that was not turned away fails at its deadline, not later. Standby CPUs
// on provider B carry the load through the same fault once probed balancing has seen A fail
// (static balancing keeps sending A its share: TCP checks pass on hosts that never answer).
TEST(GatewayCompute, LosingEveryCpuFailsRequestsAtTheirDeadlineAndStandbyCarriesThem) {
    Params p = dayParams(0.3);
    p.set("gateway_compute", 1);
    p.set("providers", 0);  // one (A)
    p.set("gateway_cpus", 4);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 06:00", "until": "Mon 07:00", "fault": {"target": {"provider": "A"}, "effect": "capacity_lost", "share": 1}})"},
        R"j({"gateway_compute": true, "providers": "one (A)"})j");
    const GatewaySnapshot down = runCompute(p, t);
    std::uint64_t failedInHour = 0, okInHour = 0;
    for (const WindowPoint& w : down.windows) {
        if (w.t_s <= 6.1 * 3600 || w.t_s > 7 * 3600) continue;  // the fault's windows, once queued work is out
        failedInHour += w.failed;
        okInHour += w.ok;
    }
    EXPECT_GT(failedInHour, 50u);
    EXPECT_EQ(okInHour, 0u);
    EXPECT_EQ(down.over_deadline, 0u);
    // Failures count at their latency, which is the deadline (600 ms), never past it.
    EXPECT_LE(down.latency_us.max(), 601'000);
    EXPECT_EQ(down.accepted, down.answered + down.rejected + down.failed);

    p.set("standby_cpus", 4);
    const GatewaySnapshot blind = runCompute(p, t);
    p.set("balancing", 1);  // probed
    const GatewaySnapshot standby = runCompute(p, t);
    const GatewaySnapshot clean = runCompute(p);
    auto okBetween = [](const GatewaySnapshot& s) {
        std::uint64_t n = 0;
        for (const WindowPoint& w : s.windows)
            if (w.t_s > 6.1 * 3600 && w.t_s <= 7 * 3600) n += w.ok;
        return n;
    };
    EXPECT_GE(okBetween(standby), okBetween(clean) * 99 / 100);
    EXPECT_GT(okBetween(clean), 50u);
    // Blind: A keeps its half of the weights (4 of 8 CPUs), so about half of it fails.
    EXPECT_LT(okBetween(blind), okBetween(clean) * 6 / 10);
    EXPECT_GT(okBetween(blind), okBetween(clean) * 4 / 10);
}

// A zone is a third of its provider's CPUs in the region: losing zone a of A in EU under v3's
// layout (all on A) slows EU, where losing it under v4's (A holds 40%) slows EU less.
TEST(GatewayCompute, AZoneIsAThirdOfItsProvidersCpus) {
    Params p = dayParams(8);
    p.set("gateway_compute", 1);
    p.set("admission", 0);
    p.set("gateway_cpus", 15);  // v3: A 5 + 5 + 5; v4: A 2 + 2 + 2, B and C the rest
    const Timeline t = test::timeline(
        {R"({"at": "Mon 00:00", "fault": {"target": {"region": "EU", "provider": "A", "zone": "a"}, "effect": "capacity_lost", "share": 1}})"},
        R"j({"gateway_compute": true})j");
    p.set("providers", 0);
    const GatewaySnapshot v3 = runCompute(p, t);
    const GatewaySnapshot v3Clean = runCompute(p);
    p.set("providers", 1);
    const GatewaySnapshot v4 = runCompute(p, t);
    const GatewaySnapshot v4Clean = runCompute(p);
    const auto edge = static_cast<std::size_t>(Stage::Edge);
    const double v3Cost = v3.stages[edge].time_ms_total / v3Clean.stages[edge].time_ms_total;
    const double v4Cost = v4.stages[edge].time_ms_total / v4Clean.stages[edge].time_ms_total;
    EXPECT_GT(v3Cost, 1.0);
    EXPECT_GT(v3Cost, v4Cost);
}

// v3's failover: US's unpinned traffic goes to EU, with no limit (admission off, as in v3: with
// it on, a full EU would spill the excess back). Pinned requests (the probes, and customers who
// pin) stay; turning it off mid-run ends it.
TEST(GatewayCompute, RerouteSendsARegionsUnpinnedTrafficElsewhere) {
    Params p = dayParams(1);
    p.set("admission", 0);
    const GatewaySnapshot home = runCompute(p);
    EXPECT_EQ(home.rerouted, 0u);
    const Timeline t = test::timeline(
        {R"({"at": "Mon 06:00", "set": {"reroute_US": "to EU"}})",
         R"({"at": "Mon 12:00", "set": {"reroute_US": "no"}})"});
    const GatewaySnapshot moved = runCompute(p, t);
    EXPECT_GT(moved.rerouted, 100u);
    EXPECT_EQ(moved.accepted, home.accepted);
    double usPeakHome = 0, usPeakMoved = 0, euPeakHome = 0, euPeakMoved = 0;
    for (std::size_t i = 0; i < moved.windows.size(); ++i) {
        const double h = moved.windows[i].t_s / 3600;
        if (h <= 6.5 || h > 12) continue;
        usPeakHome += home.windows[i].inflight_peak[static_cast<int>(Region::US)];
        usPeakMoved += moved.windows[i].inflight_peak[static_cast<int>(Region::US)];
        euPeakHome += home.windows[i].inflight_peak[static_cast<int>(Region::EU)];
        euPeakMoved += moved.windows[i].inflight_peak[static_cast<int>(Region::EU)];
    }
    EXPECT_LT(usPeakMoved, 0.7 * usPeakHome);  // what stays: pinned customers, the batch job
    EXPECT_GT(euPeakMoved, euPeakHome);
    // Where requests were served moves with them; the regions split every window exactly.
    std::uint64_t usServedHome = 0, usServedMoved = 0, euServedHome = 0, euServedMoved = 0;
    for (std::size_t i = 0; i < moved.windows.size(); ++i) {
        const WindowPoint& w = moved.windows[i];
        std::uint32_t requests = 0, failed = 0, invisible = 0;
        for (const RegionWindow& r : w.regions) {
            requests += r.requests;
            failed += r.failed;
            invisible += r.invisible;
        }
        EXPECT_EQ(requests, w.requests) << i;
        EXPECT_EQ(failed, w.failed) << i;
        EXPECT_EQ(invisible, w.invisible) << i;
        const double h = w.t_s / 3600;
        if (h <= 6 || h > 12) continue;
        usServedHome += home.windows[i].regions[static_cast<int>(Region::US)].requests;
        usServedMoved += w.regions[static_cast<int>(Region::US)].requests;
        euServedHome += home.windows[i].regions[static_cast<int>(Region::EU)].requests;
        euServedMoved += w.regions[static_cast<int>(Region::EU)].requests;
    }
    EXPECT_LT(usServedMoved, usServedHome / 2);
    EXPECT_EQ(euServedMoved - euServedHome, usServedHome - usServedMoved);  // APAC untouched
    // A share of the traffic moves, chosen per request: half the share, about half the requests.
    Params half = p;
    half.set("reroute_share", 0.5);
    const GatewaySnapshot some = runCompute(half, t);
    EXPECT_GT(some.rerouted, moved.rerouted * 4 / 10);
    EXPECT_LT(some.rerouted, moved.rerouted * 6 / 10);
    // Before 06:00 nothing moved: the first windows are the same.
    for (std::size_t i = 0; i < 36; ++i)
        EXPECT_EQ(moved.windows[i].requests, home.windows[i].requests) << i;
}

}  // namespace
}  // namespace taillab::gateway
