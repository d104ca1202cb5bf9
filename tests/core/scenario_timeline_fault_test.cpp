// Scenario timelines: faults (targets and effects), order, labels, overrides, and which labs
// take a timeline.
#include <gtest/gtest.h>

#include "labs/lab.h"
#include "run/runner.h"
#include "timeline_support.h"

namespace taillab {
namespace {

using namespace test;

Fault faultOf(const std::string& fault, const std::string& params = "{}") {
    const TimelineEvent ev = only(R"({"at": 0, "fault": )" + fault + "}", params);
    EXPECT_TRUE(ev.fault);
    EXPECT_TRUE(ev.set.empty());
    return ev.fault.value_or(Fault{});
}

TEST(TimelineFault, EachEffectKeepsItsNumbers) {
    Fault f = faultOf(
        R"({"target": {"engine": "atlas", "region": "EU"}, "effect": "slow", "factor": 3})");
    EXPECT_EQ(f.target.engine, "atlas");
    EXPECT_EQ(f.target.region, "EU");
    EXPECT_EQ(f.effect, FaultEffect::Slow);
    EXPECT_EQ(f.factor, 3);
    EXPECT_FALSE(f.median_ms);
    f = faultOf(R"({"effect": "slow", "median_ms": 900, "sigma": 0.5})");
    EXPECT_EQ(f.median_ms, 900);
    EXPECT_EQ(f.sigma, 0.5);
    EXPECT_EQ(f.factor, 1);
    EXPECT_EQ(faultOf(R"({"effect": "invalid", "share": 0.2})").share, 0.2);
    EXPECT_EQ(faultOf(R"({"effect": "resets", "share": 0})").share, 0);
    EXPECT_EQ(faultOf(R"({"effect": "latency", "add_ms": 60000})").add_ms, 60000);
    EXPECT_EQ(faultOf(R"({"effect": "capacity_lost", "share": 1})").share, 1);
    f = faultOf(R"({"target": {"region": "APAC"}, "effect": "surge", "factor": 0.5})");
    EXPECT_EQ(f.effect, FaultEffect::Surge);
    EXPECT_EQ(f.factor, 0.5);
    EXPECT_EQ(f.target.region, "APAC");
}

TEST(TimelineFault, NoTargetOrAnEmptyOneIsTheWholeFleet) {
    EXPECT_TRUE(faultOf(R"({"effect": "down"})").target.wholeFleet());
    EXPECT_TRUE(faultOf(R"({"target": {}, "effect": "down"})").target.wholeFleet());
    EXPECT_FALSE(
        faultOf(R"({"target": {"engine": "cirrus"}, "effect": "down"})").target.wholeFleet());
}

TEST(TimelineFault, NumbersOutsideTheirEffectsRangeAreErrors) {
    struct Case {
        const char* fault;
        const char* marker;
        const char* key;
        const char* detail;
    };
    for (const Case& c : std::vector<Case>{
             {R"({"effect": "slow", "factor": 0.5})", "0.5", "factor",
              "expected a number in (1, 100], found 0.5"},
             {R"({"effect": "slow", "factor": 1})", "1}", "factor", "in (1, 100], found 1"},
             {R"({"effect": "slow", "factor": 101})", "101", "factor", "in (1, 100], found 101"},
             {R"({"effect": "slow", "median_ms": 0, "sigma": 1})", "0, \"sigma", "median_ms",
              "expected a number in (0, 600000], found 0"},
             {R"({"effect": "slow", "median_ms": 1e300, "sigma": 1})", "1e300", "median_ms",
              "expected a number in (0, 600000], found 1e+300"},
             {R"({"effect": "slow", "median_ms": 50, "sigma": 5})", "5}", "sigma",
              "in [0.01, 3], found 5"},
             {R"({"effect": "slow", "factor": "x"})", "\"x\"", "factor", "found string \"x\""},
             {R"({"effect": "invalid", "share": 1.5})", "1.5", "share", "in [0, 1], found 1.5"},
             {R"({"effect": "resets", "share": -0.1})", "-0.1", "share", "in [0, 1], found -0.1"},
             {R"({"effect": "latency", "add_ms": 0})", "0}", "add_ms", "in (0, 60000], found 0"},
             {R"({"effect": "latency", "add_ms": 60001})", "60001", "add_ms",
              "in (0, 60000], found 60001"},
             {R"({"effect": "capacity_lost", "share": 0})", "0}", "share", "in (0, 1], found 0"},
             {R"({"effect": "surge", "factor": 0})", "0}", "factor", "in (0, 100], found 0"},
             {R"({"effect": "surge", "factor": 100.5})", "100.5", "factor",
              "in (0, 100], found 100.5"},
         }) {
        SCOPED_TRACE(c.fault);
        expectError(R"({"at": 0, "fault": )" + std::string(c.fault) + "}", c.marker,
                    "/timeline/0/fault/" + std::string(c.key), c.detail);
    }
}

TEST(TimelineFault, EffectsNeedTheirKeysAndNoOthers) {
    const std::string at = R"({"at": 0, "fault": )";
    expectError(
        at + R"({"effect": "slow"})" + "}", "{\"effect", "/timeline/0/fault",
        "effect \"slow\" needs \"factor\" (a number in (1, 100]), or \"median_ms\" and \"sigma\"");
    expectError(at + R"({"effect": "slow", "factor": 2, "sigma": 1})" + "}", "{\"effect",
                "/timeline/0/fault",
                "either \"factor\", or \"median_ms\" with \"sigma\", not both");
    expectError(at + R"({"effect": "slow", "median_ms": 200})" + "}", "{\"effect",
                "/timeline/0/fault", "missing required key 'sigma' (a number in [0.01, 3])");
    expectError(at + R"({"effect": "invalid"})" + "}", "{\"effect", "/timeline/0/fault",
                "missing required key 'share' (a number in [0, 1])");
    expectError(at + R"({"effect": "down", "factor": 2})" + "}", "\"factor\"",
                "/timeline/0/fault/factor",
                "\"factor\" does not apply to effect \"down\" (it takes no further keys)");
    expectError(at + R"({"effect": "latency", "share": 0.1})" + "}", "\"share\"",
                "/timeline/0/fault/share",
                "\"share\" does not apply to effect \"latency\" (it takes \"add_ms\")");
    expectError(at + R"({"effect": "slowly"})" + "}", "\"slowly\"", "/timeline/0/fault/effect",
                "expected one of \"down\", \"slow\", \"invalid\", \"resets\", \"latency\", "
                "\"capacity_lost\", \"surge\", found string \"slowly\"");
    expectError(at + R"({"target": {}})" + "}", "{\"target", "/timeline/0/fault",
                "missing required key 'effect'");
    expectError(at + R"({"effect": "down", "facter": 2})" + "}", "\"facter\"",
                "/timeline/0/fault/facter", "unknown key 'facter'");
}

TEST(TimelineFault, TargetsNameWhatTheLabHas) {
    const std::string at = R"({"at": 0, "fault": )";
    expectError(at + R"({"target": {"engine": "atlantis"}, "effect": "down"})" + "}",
                "\"atlantis\"", "/timeline/0/fault/target/engine",
                "expected one of \"atlas\", \"borealis\", \"cirrus\", found string \"atlantis\"");
    expectError(at + R"({"target": {"region": "eu"}, "effect": "down"})" + "}", "\"eu\"",
                "/timeline/0/fault/target/region", "expected one of \"EU\", \"US\", \"APAC\"");
    // Providers and zones hold the gateway's CPUs: capacity_lost is the one effect they take.
    expectError(at + R"({"target": {"provider": "A"}, "effect": "down"})" + "}", "\"provider\"",
                "/timeline/0/fault/target/provider",
                "\"provider\" names where the gateway's CPUs run: only effect \"capacity_lost\" "
                "applies to it");
    expectError(at + R"({"target": {"zone": "a"}, "effect": "slow", "factor": 2})" + "}",
                "\"zone\"", "/timeline/0/fault/target/zone",
                "only effect \"capacity_lost\" applies to it");
    const std::string lost = R"(, "effect": "capacity_lost", "share": 0.5})";
    const std::string compute = R"({"gateway_compute": true})";
    expectError(at + R"({"target": {"provider": "aws"})" + lost + "}", "\"aws\"",
                "/timeline/0/fault/target/provider",
                "expected one of \"A\", \"B\", \"C\", found string \"aws\"", compute);
    expectError(at + R"({"target": {"zone": "d"})" + lost + "}", "\"d\"",
                "/timeline/0/fault/target/zone", "expected one of \"a\", \"b\", \"c\"", compute);
    // Without gateway CPUs a provider or zone fault would change nothing: an error, not a no-op.
    expectError(at + R"({"target": {"provider": "A"})" + lost + "}", "\"A\"",
                "/timeline/0/fault/target/provider", "this run models no gateway CPUs (gateway_compute is off)");
    expectError(at + R"({"target": {"engine": "atlas", "zone": "a"})" + lost + "}", "\"zone\"",
                "/timeline/0/fault/target/zone",
                "a target names the gateway's CPUs (\"provider\", \"zone\") or an \"engine\", not "
                "both");
    // v3's layout runs on A; B is there for its standby; there is no C.
    expectError(at + R"({"target": {"provider": "C"})" + lost + "}", "\"C\"",
                "/timeline/0/fault/target/provider", "expected one of \"A\", \"B\", found",
                R"j({"gateway_compute": true, "providers": "one (A)"})j");
    expectError(at + R"({"target": {"engine": 3}, "effect": "down"})" + "}", "3}",
                "/timeline/0/fault/target/engine", "found number 3");
    expectError(at + R"({"target": "atlas", "effect": "down"})" + "}", "\"atlas\"",
                "/timeline/0/fault/target", "expected an object");
}

TEST(TimelineFault, EgressIpTargetsNeedARegionAndAnIpTheRegionHas) {
    const Fault f = faultOf(
        R"({"target": {"region": "US", "egress_ip": 3}, "effect": "resets", "share": 0.3})");
    EXPECT_EQ(f.target.egress_ip, 3);
    const std::string at = R"({"at": 0, "fault": )";
    expectError(at + R"({"target": {"egress_ip": 0}, "effect": "down"})" + "}", "\"egress_ip\"",
                "/timeline/0/fault/target/egress_ip", "\"egress_ip\" needs \"region\"");
    expectError(at + R"({"target": {"region": "EU", "egress_ip": 4}, "effect": "down"})" + "}",
                "4}", "/timeline/0/fault/target/egress_ip",
                "expected an integer in [0, 3] (the fleet has 4 egress IPs per region), found 4");
    expectError(at + R"({"target": {"region": "EU", "egress_ip": 2}, "effect": "down"})" + "}",
                "2}", "/timeline/0/fault/target/egress_ip", "expected an integer in [0, 1]",
                R"({"egress_ips": 2})");
    expectError(at + R"({"target": {"region": "EU", "egress_ip": 0.5}, "effect": "down"})" + "}",
                "0.5", "/timeline/0/fault/target/egress_ip", "found 0.5");
    expectError(
        at +
            R"({"target": {"region": "EU", "egress_ip": 1}, "effect": "capacity_lost", "share": 0.5})" +
            "}",
        "\"egress_ip\"", "/timeline/0/fault/target/egress_ip",
        "effect \"capacity_lost\" cannot target one egress IP");
    for (const char* effect :
         {R"("effect": "down")", R"("effect": "slow", "factor": 2)",
          R"("effect": "invalid", "share": 1)", R"("effect": "latency", "add_ms": 5)"}) {
        SCOPED_TRACE(effect);
        EXPECT_EQ(
            faultOf(R"({"target": {"region": "EU", "egress_ip": 1}, )" + std::string(effect) + "}")
                .target.egress_ip,
            1);
    }
}

TEST(TimelineFault, ASurgeTargetsOnlyARegion) {
    const std::string at = R"({"at": 0, "fault": )";
    expectError(at + R"({"target": {"engine": "atlas"}, "effect": "surge", "factor": 2})" + "}",
                "\"engine\"", "/timeline/0/fault/target/engine",
                "its target takes only \"region\"");
    expectError(
        at + R"({"target": {"region": "EU", "egress_ip": 1}, "effect": "surge", "factor": 2})" +
            "}",
        "\"egress_ip\"", "/timeline/0/fault/target/egress_ip", "its target takes only \"region\"");
    EXPECT_TRUE(faultOf(R"({"effect": "surge", "factor": 2})").target.wholeFleet());
}

TEST(TimelineOrder, EventsAreSortedByTimeStablyAndKeepTheirPaths) {
    const Timeline t = timeline({R"({"at": 7200, "label": "A", )" + kDown + "}",
                                 R"({"at": 3600, "label": "B", )" + kDown + "}",
                                 R"({"at": "Mon 02:00", "label": "C", "set": {"breakers": false}})",
                                 R"({"at": "Mon 01:00", "label": "D", )" + kDown + "}",
                                 R"({"at": 0, "label": "E", )" + kDown + "}"});
    std::string order, paths;
    for (const auto& e : t.events) {
        order += e.label;
        paths += e.path + " ";
    }
    EXPECT_EQ(order, "EBDAC");
    EXPECT_EQ(paths, "/timeline/4 /timeline/1 /timeline/3 /timeline/0 /timeline/2 ");
}

TEST(TimelineLabels, WrittenLabelsAreKeptAndMissingOnesAreReadable) {
    EXPECT_EQ(
        only(R"({"at": 0, "label": "operator lowers the delay", "set": {"hedge_delay_ms": 300}})")
            .label,
        "operator lowers the delay");
    EXPECT_EQ(only(R"({"at": 0, "set": {"hedge_delay_ms": 300, "hedge_mode": "fixed"}})").label,
              "hedge_delay_ms 300, hedge_mode fixed");
    EXPECT_EQ(only(R"({"at": 0, "set": {"breakers": false, "hedge_budget": 0.05}})").label,
              "breakers off, hedge_budget 0.05");
    auto label = [](const std::string& fault) {
        return only(R"({"at": 0, "fault": )" + fault + "}").label;
    };
    EXPECT_EQ(
        label(R"({"target": {"engine": "atlas", "region": "EU"}, "effect": "slow", "factor": 3})"),
        "atlas slow ×3 (EU)");
    EXPECT_EQ(label(R"({"effect": "down"})"), "all engines down");
    EXPECT_EQ(
        label(
            R"({"target": {"engine": "borealis", "region": "US", "egress_ip": 2}, "effect": "invalid", "share": 0.2})"),
        "borealis invalid answers 20% (US, egress IP 2)");
    EXPECT_EQ(label(R"({"target": {"engine": "cirrus"}, "effect": "resets", "share": 0.05})"),
              "cirrus resets 5%");
    EXPECT_EQ(label(R"({"target": {"engine": "atlas"}, "effect": "latency", "add_ms": 200})"),
              "atlas +200 ms");
    EXPECT_EQ(
        label(
            R"({"target": {"engine": "atlas"}, "effect": "slow", "median_ms": 900, "sigma": 0.5})"),
        "atlas slow, lognormal median 900 ms σ 0.5");
    EXPECT_EQ(label(R"({"target": {"region": "APAC"}, "effect": "capacity_lost", "share": 0.5})"),
              "all engines capacity lost 50% (APAC)");
    EXPECT_EQ(label(R"({"target": {"region": "APAC"}, "effect": "surge", "factor": 2.5})"),
              "traffic surge ×2.5 (APAC)");
    expectError(R"({"at": 0, "label": "", )" + kDown + "}", "\"\"", "/timeline/0/label",
                "expected a non-empty string");
    expectError(R"({"at": 0, "label": 5, )" + kDown + "}", "5,", "/timeline/0/label",
                "expected a string, found number 5");
}

TEST(TimelineOverrides, SetOverridesReachTimelineEntries) {
    const std::string text = gateway({R"({"at": 3600, "fault": {"effect": "slow", "factor": 3}})"});
    nlohmann::json doc = nlohmann::json::parse(text);
    applyOverride(doc, "timeline.0.at=7200");
    EXPECT_EQ(doc["timeline"][0]["at"], 7200);
    EXPECT_EQ(parseScenario(text, "week.json", {"timeline.0.at=7200"}).timeline.events[0].at_s,
              7200);
    EXPECT_EQ(parseScenario(text, "week.json", {"timeline.0.at=Tue 01:00"}).timeline.events[0].at_s,
              90000);
    EXPECT_EQ(parseScenario(text, "week.json", {"timeline.0.fault.target.region=US"})
                  .timeline.events[0]
                  .fault->target.region,
              "US");
    try {
        parseScenario(text, "week.json", {"timeline.0.fault.factor=0.5"});
        ADD_FAILURE();
    } catch (const ScenarioError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "week.json (--set timeline.0.fault.factor): /timeline/0/fault/factor: expected a "
                  "number in (1, 100], found 0.5");
    }
}

TEST(TimelineOverrides, AnOverrideCannotAddAnEntry) {
    const std::string text = gateway({R"({"at": 3600, )" + kDown + "}"});
    try {
        parseScenario(text, "week.json", {"timeline.1.at=7200"});
        ADD_FAILURE();
    } catch (const ScenarioError& e) {
        EXPECT_NE(std::string(e.what()).find("'timeline' has 1 entries"), std::string::npos)
            << e.what();
    }
}

TEST(TimelineLabs, LabsThatApplyNoTimelineRejectTheKey) {
    try {
        parseScenario(
            "{\"schema_version\": 1, \"name\": \"x\", \"lab\": \"fanout\",\n \"timeline\": []}",
            "f.json");
        ADD_FAILURE();
    } catch (const ScenarioError& e) {
        EXPECT_EQ(
            std::string(e.what()),
            "f.json:2:2: /timeline: lab 'fanout' applies no timeline (labs that do: gateway)");
    }
}

TEST(TimelineLabs, TheDefaultRunTakesOnlyAnEmptyTimeline) {
    const Lab* fanout = findLab("fanout");
    ASSERT_NE(fanout, nullptr);
    Params p = fanout->defaultParams();
    p.set("requests", 20000);
    RunControl control;
    EXPECT_EQ(toJson(fanout->run(p, Timeline{}, 3, control, {})).dump(),
              toJson(fanout->run(p, 3, control, {})).dump());
    Timeline t;
    t.events.push_back(TimelineEvent{});
    EXPECT_THROW(fanout->run(p, t, 3, control, {}), TimelineError);
}

TEST(TimelineLabs, TheGatewayNamesItsFleetAndCalendar) {
    const Lab* lab = findLab("gateway");
    ASSERT_NE(lab, nullptr);
    Params p = lab->defaultParams();
    p.setJson("start_day", "Wed");
    p.setJson("days", 3);
    p.setJson("egress_ips", 2);
    p.setJson("gateway_compute", true);
    const auto v = lab->timelineVocabulary(p);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->engines, (std::vector<std::string>{"atlas", "borealis", "cirrus"}));
    EXPECT_EQ(v->regions, (std::vector<std::string>{"EU", "US", "APAC"}));
    EXPECT_EQ(v->providers, (std::vector<std::string>{"A", "B", "C"}));
    EXPECT_EQ(v->zones, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(v->egress_ips, 2);
    EXPECT_EQ(v->start_weekday, 2);
    EXPECT_EQ(v->run_length_s, 3 * 86400);
    EXPECT_EQ(v->fixed_knobs.size(), 15u);
    // Without gateway CPUs there are no providers or zones to name, and events are told why.
    p.setJson("gateway_compute", false);
    const auto off = lab->timelineVocabulary(p);
    EXPECT_TRUE(off->providers.empty());
    EXPECT_TRUE(off->zones.empty());
    EXPECT_NE(off->no_compute.find("gateway_compute is off"), std::string::npos);
    EXPECT_EQ(v->knobs.size(), lab->knobs().size());
}

}  // namespace
}  // namespace taillab
