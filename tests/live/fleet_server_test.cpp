// The emulated fleet against real sockets: answers drawn from the simulation's own model (the same
// page and latency as Fleet::answer gives in-process), the timeline, and the admin endpoints.
// Latency bounds are lower bounds (a timer never fires early) or generous upper ones.
#include "live/fleet_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "../test_slowdown.h"
#include "fleet/fleet.h"
#include "gateway/compiler.h"
#include "gateway_sim/sim_config.h"
#include "http_test_client.h"
#include "live/fleet_admin.h"
#include "live/fleet_wire.h"
#include "live/loop.h"

namespace taillab::live {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::Ending;
using test::TestConnection;

// A one-day gateway scenario with the given params and timeline (JSON text).
Scenario fleetScenario(const std::string& params, const std::string& timeline = "[]") {
    return parseScenario(R"({"schema_version": 1, "name": "fleet-test", "title": "t", "lab": "gateway",
        "seed": 7, "params": {"days": 1)" + (params.empty() ? "" : ", " + params) + R"(},
        "timeline": )" + timeline + "}",
                         "fleet-test.json");
}

// Every engine answers valid pages only, from its usual (fast) latency.
const std::string kQuiet = R"("fault_multiplier": 0, "slow_multiplier": 0)";

class FleetServerTest : public ::testing::Test {
protected:
    void start(const Scenario& s, FleetServerOptions options = {}) {
        fleet = std::make_unique<FleetServer>(loop, s, options);
        loop.start();
        fleet->start();
    }
    void TearDown() override {
        if (fleet) fleet->stop();
        loop.stop();
    }
    HostPort at() const { return fleet->bound(); }
    test::TestResult search(TestConnection& c, const std::string& engine, const std::string& query,
                            const std::vector<std::pair<std::string, std::string>>& headers = {}) {
        return c.request("POST", "/engines/" + engine + "/search",
                         json{{"query", query}, {"language", "en"}, {"max_results", 10}}.dump(), headers);
    }
    json admin(const std::string& method, const std::string& path, const std::string& body, int status) {
        const auto r = test::requestOnce(at(), method, path, body);
        EXPECT_EQ(r.ending, Ending::Response) << r.error;
        if (!r.response) return json();
        EXPECT_EQ(r.response->status, status) << r.response->body;
        return json::parse(r.response->body);
    }

    Loop loop;
    std::unique_ptr<FleetServer> fleet;
};

// A search for atlas as bytes, to send on a connection the test then leaves or keeps.
std::string rawAtlasSearch() {
    const std::string body = json{{"query", "q"}}.dump();
    return "POST /engines/atlas/search HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

double ms(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

TEST_F(FleetServerTest, PrintsOneUrlPerEngine) {
    start(fleetScenario(kQuiet));
    const auto urls = fleet->engineUrls();
    ASSERT_EQ(urls.size(), 3u);
    EXPECT_EQ(urls[0].first, "atlas");
    EXPECT_EQ(urls[0].second, "http://127.0.0.1:" + std::to_string(at().port) + "/engines/atlas/search");
    EXPECT_EQ(urls[2].first, "cirrus");
}

// A narrow latency distribution (median 40 ms, sigma 0.01): 40 calls, spread over regions and
// egress IPs so that no IP's rate limit is reached, each take at least the model's latency and
// their median lies within 40 ms .. 40 ms + 25 ms (loopback and a loaded machine's scheduling).
TEST_F(FleetServerTest, AnswersAfterTheModelsLatency) {
    start(fleetScenario(kQuiet + R"(, "atlas_median_ms": 40, "atlas_sigma": 0.01)"));
    TestConnection c(at());
    std::vector<double> observed;
    for (int i = 0; i < 40; ++i) {
        const auto r = search(c, "atlas", "query " + std::to_string(i),
                              {{"X-TailLab-Region", std::string(gateway::kRegionNames[i % 3])},
                               {"X-TailLab-Egress", std::to_string(i / 3 % 4)}});
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        ASSERT_EQ(r.response->status, 200) << r.response->body;
        const json body = json::parse(r.response->body);
        EXPECT_EQ(body.at("page"), "results");
        EXPECT_EQ(body.at("results").size(), 10u);
        observed.push_back(ms(r.elapsed));
    }
    std::sort(observed.begin(), observed.end());
    const double median = observed[observed.size() / 2];
    RecordProperty("observed_median_ms", std::to_string(median));
    EXPECT_GE(observed.front(), 40 * 0.97);  // 3 sigma below the median, less than 1 ms
    EXPECT_LE(median, 40 + 25 * test::kSlowdown);
    std::cout << "[fleet latency] 40 calls, model median 40 ms (sigma 0.01): observed median " << median
              << " ms, min " << observed.front() << " ms, max " << observed.back() << " ms\n";
}

// With the X-TailLab-* headers, a call draws what Fleet::answer draws in-process for the same
// call: the same page, the same echo, and a latency at least the drawn one.
TEST_F(FleetServerTest, SameCallSameLuckAsTheModelInProcess) {
    const Scenario s = fleetScenario(kQuiet + R"(, "atlas_median_ms": 30, "atlas_sigma": 0.6,
        "borealis_median_ms": 30, "borealis_sigma": 0.6)");
    start(s);
    fleet::Fleet model(gateway::fleetConfigFromParams(s.params), s.seed);
    TestConnection c(at());
    double worstOvershoot = 0;
    for (int i = 0; i < 12; ++i) {
        gateway::UpstreamCall call;
        call.trace = 1000 + static_cast<std::uint64_t>(i) * 7919;
        call.engine = i % 2;
        call.role = static_cast<gateway::CallRole>(i % 5);
        call.region = static_cast<gateway::Region>(i % 3);
        call.egress_ip = i % 4;
        call.query_class = static_cast<gateway::QueryClass>(i % 5);
        call.cache_key = 0x0123456789abcdefULL + static_cast<std::uint64_t>(i);
        call.fetch_count = 10;
        const fleet::FleetAnswer expected = model.answer(call, kZero);
        char key[17];
        std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(call.cache_key));
        const auto r = search(c, i % 2 ? "borealis" : "atlas", "anything",
                              {{"X-TailLab-Trace", std::to_string(call.trace)},
                               {"X-TailLab-Role", std::string(gateway::kCallRoleNames[i % 5])},
                               {"X-TailLab-Region", std::string(gateway::kRegionNames[i % 3])},
                               {"X-TailLab-Egress", std::to_string(i % 4)},
                               {"X-TailLab-Class", std::string(gateway::kClassNames[i % 5])},
                               {"X-TailLab-Cache-Key", key}});
        ASSERT_EQ(r.ending, Ending::Response) << r.error;
        ASSERT_EQ(expected.failure, gateway::CallFailure::None);
        EXPECT_EQ(r.response->body, pageJson(expected.page->kind(), expected.echo, resultItemsJson(*expected.page)));
        EXPECT_EQ(json::parse(r.response->body).at("echo"), key);
        EXPECT_GE(ms(r.elapsed), toMs(expected.latency) - 0.01) << "call " << i;
        EXPECT_LE(ms(r.elapsed), toMs(expected.latency) + 250 * test::kSlowdown) << "call " << i;
        worstOvershoot = std::max(worstOvershoot, ms(r.elapsed) - toMs(expected.latency));
    }
    std::cout << "[fleet luck] 12 traced calls: observed minus drawn latency at most " << worstOvershoot << " ms\n";
}

// Every failure kind the model draws, on the wire: the traces that draw each are found in-process,
// then sent with their headers. A hang is closed at hang_close (shortened from kHangMs here).
TEST_F(FleetServerTest, EveryFailureKindAsTheModelDrawsIt) {
    const Scenario s =
        fleetScenario(R"("slow_multiplier": 0, "atlas_invalid_rate": 1, "atlas_median_ms": 20)");
    FleetServerOptions options;
    options.hang_close = 300ms;
    start(s, options);
    fleet::Fleet model(gateway::fleetConfigFromParams(s.params), s.seed);
    enum Kind { Empty, Block, Captcha, Consent, Reset, Hang, kKinds };
    std::array<std::optional<std::pair<std::uint64_t, fleet::FleetAnswer>>, kKinds> found;
    gateway::UpstreamCall call;
    call.cache_key = 0xfeedfacecafebeefULL;
    for (std::uint64_t trace = 1; trace < 5000; ++trace) {
        call.trace = trace;
        const fleet::FleetAnswer a = model.answer(call, kZero);
        Kind k = a.failure == gateway::CallFailure::Reset     ? Reset
                 : a.failure == gateway::CallFailure::Timeout ? Hang
                 : a.page->kind() == gateway::PageKind::BlockPage   ? Block
                 : a.page->kind() == gateway::PageKind::Captcha     ? Captcha
                 : a.page->kind() == gateway::PageKind::ConsentWall ? Consent
                                                                    : Empty;
        if (!found[k]) found[k] = std::make_pair(trace, a);
    }
    const std::array<std::string, 4> pages{"results", "block", "captcha", "consent"};
    for (int k = 0; k < kKinds; ++k) {
        ASSERT_TRUE(found[static_cast<std::size_t>(k)]) << "kind " << k;
        const auto& [trace, expected] = *found[static_cast<std::size_t>(k)];
        TestConnection c(at());
        const auto r = search(c, "atlas", "anything",
                              {{"X-TailLab-Trace", std::to_string(trace)}, {"X-TailLab-Cache-Key", "feedfacecafebeef"},
                               {"X-TailLab-Class", "evergreen_reference"}});
        if (k == Reset) {
            EXPECT_EQ(r.ending, Ending::Reset) << r.error;
            EXPECT_GE(ms(r.elapsed), toMs(expected.latency) - 0.01);
        } else if (k == Hang) {
            EXPECT_EQ(r.ending, Ending::Closed) << r.error;
            EXPECT_GE(r.elapsed, 300ms);
        } else {
            ASSERT_EQ(r.ending, Ending::Response) << r.error;
            const json body = json::parse(r.response->body);
            EXPECT_EQ(body.at("page"), pages[static_cast<std::size_t>(k)]);
            EXPECT_TRUE(body.at("results").empty());
            EXPECT_GE(ms(r.elapsed), toMs(expected.latency) - 0.01);
        }
    }
    const FleetCounters n = fleet->counters();
    EXPECT_EQ(n.empty + n.block + n.captcha + n.consent + n.resets + n.hangs, 6u);
    EXPECT_EQ(n.hangs, 1u);
    EXPECT_EQ(n.resets, 1u);
}

// Sends n calls to atlas at once, each on its own connection; their completion times, sorted.
std::vector<double> atOnce(const HostPort& at, int n) {
    std::vector<std::unique_ptr<TestConnection>> cs;
    for (int i = 0; i < n; ++i) cs.push_back(std::make_unique<TestConnection>(at));
    const std::string body = json{{"query", "same engine"}}.dump();
    const auto begin = std::chrono::steady_clock::now();
    for (auto& c : cs)
        c->sendRaw("POST /engines/atlas/search HTTP/1.1\r\nHost: a\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\n\r\n" + body);
    std::vector<double> done;
    for (auto& c : cs) {
        const auto r = c->readResponse();
        EXPECT_EQ(r.ending, Ending::Response) << r.error;
        done.push_back(ms(std::chrono::steady_clock::now() - begin));
    }
    std::sort(done.begin(), done.end());
    return done;
}

// engine_capacity 1: three calls sent at once to one engine in one region are served one after
// the other, each for its 200 ms.
TEST_F(FleetServerTest, CallsOverAnEnginesCapacityWaitTheirTurn) {
    start(fleetScenario(kQuiet +
                        R"(, "engine_capacity": 1, "atlas_median_ms": 200, "atlas_sigma": 0.01)"));
    EXPECT_GE(atOnce(at(), 3)[2], 3 * 200 * 0.97);
    EXPECT_EQ(fleet->counters().queued, 2u);
    // The capacity is an admin knob too.
    EXPECT_EQ(admin("POST", "/admin/knobs", R"({"engine_capacity": 3})", 200).at("knobs").at("engine_capacity"), 3);
}

// A caller that gives up frees its slot at once: with capacity 1 and 2 s calls, a call sent
// just after one whose caller leaves at 50 ms is done near 2,050 ms, well before the 4 s it
// would otherwise take.
TEST_F(FleetServerTest, ACallerThatGivesUpFreesItsSlot) {
    start(fleetScenario(kQuiet +
                        R"(, "engine_capacity": 1, "atlas_median_ms": 2000, "atlas_sigma": 0.01)"));
    const std::string request = rawAtlasSearch();
    const auto begin = std::chrono::steady_clock::now();
    TestConnection leaver(at()), next(at());
    leaver.sendRaw(request);
    next.sendRaw(request);
    std::this_thread::sleep_for(50ms);
    leaver.close();
    const auto r = next.readResponse();
    ASSERT_EQ(r.ending, Ending::Response) << r.error;
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 3000ms);
    EXPECT_EQ(fleet->counters().abandoned, 1u);
    EXPECT_EQ(fleet->counters().queued, 1u);
}

// capacity_lost halves atlas's 2 slots: of two calls at once, one waits; removed, none does.
TEST_F(FleetServerTest, ALostCapacityQueuesCallsUntilItIsBack) {
    start(fleetScenario(kQuiet +
                        R"(, "engine_capacity": 2, "atlas_median_ms": 100, "atlas_sigma": 0.01)"));
    admin("POST", "/admin/faults",
          R"({"id": "half", "target": {"engine": "atlas"}, "effect": "capacity_lost", "share": 0.5})", 200);
    EXPECT_GE(atOnce(at(), 2)[1], 2 * 100 * 0.97);
    EXPECT_EQ(fleet->counters().queued, 1u);
    admin("DELETE", "/admin/faults/half", "", 200);
    atOnce(at(), 2);
    EXPECT_EQ(fleet->counters().queued, 1u);
}

TEST_F(FleetServerTest, ATimelineFaultTakesEffectAtItsTime) {
    start(fleetScenario(
        kQuiet + R"(, "atlas_median_ms": 5, "atlas_sigma": 0.01)",
        R"([{"at": 1.5, "until": 3, "fault": {"target": {"engine": "atlas"}, "effect": "down"}}])"));
    const auto begin = std::chrono::steady_clock::now();
    auto call = [&](int i) {
        return test::requestOnce(at(), "POST", "/engines/atlas/search",
                                 json{{"query", "q" + std::to_string(i)}}.dump(),
                                 {{"X-TailLab-Egress", std::to_string(i % 4)}, {"X-TailLab-Region", std::string(gateway::kRegionNames[i / 4 % 3])}});
    };
    const auto first = call(0);
    const bool early = std::chrono::steady_clock::now() - begin < 1200ms;
    if (early) {
        EXPECT_EQ(first.ending, Ending::Response) << first.error;
    }
    std::this_thread::sleep_for(1500ms - (std::chrono::steady_clock::now() - begin) + 100ms);
    const auto during = call(1);
    if (std::chrono::steady_clock::now() - begin < 2900ms) {
        EXPECT_EQ(during.ending, Ending::Reset) << during.error;
        const json state = admin("GET", "/admin/state", "", 200);
        ASSERT_EQ(state.at("faults").size(), 1u);
        EXPECT_EQ(state.at("faults")[0].at("label"), "atlas down");
    }
    std::this_thread::sleep_for(3000ms - (std::chrono::steady_clock::now() - begin) + 100ms);
    const auto after = call(2);
    EXPECT_EQ(after.ending, Ending::Response) << after.error;
    EXPECT_EQ(admin("GET", "/admin/state", "", 200).at("faults").size(), 0u);
}

// Polls /admin/state until `done` holds of it or 10 s (more under a sanitizer) pass.
template <class Pred>
bool eventually(const std::function<json()>& state, Pred done) {
    const auto until = std::chrono::steady_clock::now() + 10s * test::kSlowdown;
    while (std::chrono::steady_clock::now() < until) {
        if (done(state())) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

TEST_F(FleetServerTest, ATimelineKnobChangeApplies) {
    start(fleetScenario(
        kQuiet, R"([{"at": 0.3, "set": {"atlas_median_ms": 250, "engine_correlation": 0.5}}])"));
    const auto state = [&] { return admin("GET", "/admin/state", "", 200); };
    EXPECT_TRUE(eventually(state, [](const json& s) {
        return s.at("knobs").at("engines").at("atlas").at("median_ms") == 250 &&
               s.at("knobs").at("correlation") == 0.5;
    }));
}

// Starting at 95 s on the scenario's clock: the knob change at 90 s is in force, the fault that
// ended at 60 s is not, the one from 90 s is; the change at 200 s is still to come.
TEST_F(FleetServerTest, StartingLaterAppliesTheTimelineUpToThen) {
    FleetServerOptions options;
    options.start_at = 95s;
    start(fleetScenario(kQuiet, R"([
        {"at": 50, "until": 60, "fault": {"target": {"engine": "atlas"}, "effect": "down"}},
        {"at": 90, "set": {"atlas_median_ms": 250}},
        {"at": 90, "fault": {"target": {"engine": "borealis"}, "effect": "down"}},
        {"at": 200, "set": {"atlas_median_ms": 10}}])"),
          options);
    const json s = admin("GET", "/admin/state", "", 200);
    EXPECT_GE(s.at("fleet_time_s").get<double>(), 95);
    EXPECT_EQ(s.at("knobs").at("engines").at("atlas").at("median_ms"), 250);
    ASSERT_EQ(s.at("faults").size(), 1u);
    EXPECT_EQ(s.at("faults")[0].at("label"), "borealis down");
}

TEST_F(FleetServerTest, AnAdminFaultWithADurationEnds) {
    start(fleetScenario(kQuiet));
    const json added = admin("POST", "/admin/faults",
                             R"({"id": "brief", "target": {"region": "EU"}, "effect": "latency", "add_ms": 50,
                                 "duration_s": 0.3})",
                             200);
    ASSERT_EQ(added.at("faults").size(), 1u);
    EXPECT_EQ(added.at("faults")[0].at("id"), "brief");
    const auto state = [&] { return admin("GET", "/admin/state", "", 200); };
    EXPECT_TRUE(eventually(state, [](const json& s) { return s.at("faults").empty(); }));
}

TEST_F(FleetServerTest, AdminKnobChangesApply) {
    start(fleetScenario(kQuiet + R"(, "atlas_median_ms": 5, "atlas_sigma": 0.01)"));
    TestConnection c(at());
    const auto before = search(c, "atlas", "q");
    ASSERT_EQ(before.ending, Ending::Response);
    const json state = admin("POST", "/admin/knobs",
                             R"({"correlation": 0.3, "engines": {"atlas": {"median_ms": 200}}})", 200);
    EXPECT_EQ(state.at("knobs").at("correlation"), 0.3);
    EXPECT_EQ(state.at("knobs").at("engines").at("atlas").at("median_ms"), 200);
    const auto slower = search(c, "atlas", "q2");
    ASSERT_EQ(slower.ending, Ending::Response);
    EXPECT_GE(ms(slower.elapsed), 190);
}

TEST_F(FleetServerTest, BadAdminInputGets400NamingTheJsonPath) {
    start(fleetScenario(kQuiet));
    const auto message = [&](const std::string& path, const std::string& body) {
        const json r = admin("POST", path, body, 400);
        EXPECT_EQ(r.value("error", ""), "bad_request");
        return r.value("message", "");
    };
    EXPECT_NE(message("/admin/knobs", R"({"correlation": 2})").find("$.correlation"), std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"engines": {"atlas": {"median": 3}}})").find("$.engines.atlas.median"),
              std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"engines": {"nimbus": {}}})").find("$.engines.nimbus"), std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"bogus": 1})").find("$.bogus"), std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"egress_ips": 8})").find("$.egress_ips"), std::string::npos);
    EXPECT_NE(message("/admin/knobs", "{not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"target": {}, "effect": "down"})").find("$.id"), std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "effect": "slow", "factor": 0.5})").find("$.factor"),
              std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "effect": "sideways"})").find("$.effect"), std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "target": {"engine": "nimbus"}, "effect": "down"})")
                  .find("$.target.engine"),
              std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "effect": "surge", "factor": 2})").find("$.effect"),
              std::string::npos);
    // Ids of the scenario's own faults are reserved: a clash let a timeline fault's end remove
    // an admin fault, and left the timeline's fault in force.
    EXPECT_NE(message("/admin/faults", R"({"id": "timeline-0", "effect": "down"})").find("$.id"),
              std::string::npos);
    // Numbers that would not fit in nanoseconds, or hold a connection for hours.
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "effect": "slow", "median_ms": 1e300, "sigma": 0.1})")
                  .find("$.median_ms"),
              std::string::npos);
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "effect": "down", "duration_s": 1e10})").find("$.duration_s"),
              std::string::npos);
    // A provider or zone is the gateway's compute, not the fleet's.
    EXPECT_NE(message("/admin/faults", R"({"id": "x", "target": {"provider": "A"}, "effect": "capacity_lost",
                                          "share": 0.5})")
                  .find("$.target"),
              std::string::npos);
    // Nothing is silently dropped: a body that changes nothing, a key given twice.
    EXPECT_NE(message("/admin/knobs", R"({"engines": {}})").find("$.engines: names no engine"), std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"engines": {"atlas": {}}})").find("$.engines.atlas: names no knob"),
              std::string::npos);
    EXPECT_NE(message("/admin/knobs", R"({"correlation": 0.5, "correlation": 0.2})").find("$.correlation"),
              std::string::npos);
    EXPECT_NE(message("/admin/knobs?dry_run=1", R"({"correlation": 0.5})").find("no query string"),
              std::string::npos);
    // A rejected change changes nothing.
    EXPECT_EQ(admin("GET", "/admin/state", "", 200).at("knobs").at("correlation"), 0);
    EXPECT_EQ(admin("GET", "/admin/state", "", 200).at("faults").size(), 0u);
}

// An answer drawn slower than the hang bound ends as a hang does, at the bound, rather than hold
// its connection and its engine's slot for as long as the draw says.
TEST_F(FleetServerTest, NoAnswerHoldsItsConnectionPastTheHangBound) {
    FleetServerOptions options;
    options.hang_close = 300ms;
    start(fleetScenario(kQuiet + R"(, "atlas_median_ms": 5, "atlas_sigma": 0.01)"), options);
    admin("POST", "/admin/faults",
          R"({"id": "crawl", "target": {"engine": "atlas"}, "effect": "slow", "median_ms": 600000, "sigma": 0.01})",
          200);
    TestConnection c(at(), 5s);
    const auto r = search(c, "atlas", "q");
    EXPECT_EQ(r.ending, Ending::Closed) << r.error;
    EXPECT_LT(r.elapsed, 3s);
    EXPECT_EQ(fleet->counters().hangs, 1u);
}

// With atlas's capacity gone, callers wait in its queue: one that leaves leaves the queue
// (counted as abandoned), and one that stays is closed at the hang bound, not held for as long
// as the fault lasts.
TEST_F(FleetServerTest, AQueuedCallLeavesWithItsCallerOrAtTheHangBound) {
    FleetServerOptions options;
    options.hang_close = 400ms;
    start(fleetScenario(kQuiet + R"(, "engine_capacity": 1)"), options);
    admin("POST", "/admin/faults",
          R"({"id": "gone", "target": {"engine": "atlas"}, "effect": "capacity_lost", "share": 1})", 200);
    const std::string request = rawAtlasSearch();
    TestConnection leaver(at()), stayer(at(), 5s);
    leaver.sendRaw(request);
    stayer.sendRaw(request);
    std::this_thread::sleep_for(100ms);
    leaver.close();
    const auto r = stayer.readResponse();
    EXPECT_EQ(r.ending, Ending::Closed) << r.error;
    EXPECT_LT(r.elapsed, 3s);
    const auto state = [&] { return admin("GET", "/admin/state", "", 200); };
    EXPECT_TRUE(eventually(state, [](const json& s) {
        return s.at("counters").at("abandoned") == 1 && s.at("counters").at("hangs") == 1;
    }));
    EXPECT_EQ(fleet->counters().queued, 2u);
}

// The hang bound counts from when a call arrived: one that waited in the queue most of it and
// then draws a long answer is closed at the bound, not a whole bound after it left the queue.
TEST_F(FleetServerTest, TimeInTheQueueCountsAgainstTheHangBound) {
    FleetServerOptions options;
    options.hang_close = 2000ms;
    start(fleetScenario(kQuiet + R"(, "engine_capacity": 1, "atlas_median_ms": 5000, "atlas_sigma": 0.01)"), options);
    admin("POST", "/admin/faults",
          R"({"id": "gone", "target": {"engine": "atlas"}, "effect": "capacity_lost", "share": 1,
              "duration_s": 1.6})",
          200);
    TestConnection c(at(), 8s);
    const auto r = search(c, "atlas", "q");
    EXPECT_EQ(r.ending, Ending::Closed) << r.error;
    EXPECT_LT(r.elapsed, 2800ms);  // the bound from arrival (2 s), not 1.6 s + 2 s
    EXPECT_GE(r.elapsed, 1900ms);
}

// A timeline fault ends at its end even after an admin ended it early and added another.
TEST_F(FleetServerTest, ATimelineFaultsEndRemovesOnlyItself) {
    start(fleetScenario(kQuiet, R"([{"at": 0, "until": 3, "fault": {"target": {"engine": "atlas"},
                                                                   "effect": "down"}}])"));
    admin("DELETE", "/admin/faults/timeline-0", "", 200);
    admin("POST", "/admin/faults", R"({"id": "mine", "target": {"engine": "borealis"}, "effect": "down"})", 200);
    const auto state = [&] { return admin("GET", "/admin/state", "", 200); };
    ASSERT_TRUE(eventually(state, [](const json& s) { return s.at("fleet_time_s").get<double>() > 3.2; }));
    const json s = admin("GET", "/admin/state", "", 200);
    ASSERT_EQ(s.at("faults").size(), 1u);
    EXPECT_EQ(s.at("faults")[0].at("id"), "mine");
}

// A surge is the arrivals' (a live run's plan applies it): the fleet's note says so in the words a
// live run filters on, so that no "not applied" note reaches the user for it.
TEST(FleetServer, NotesASurgeInTheWordsALiveRunLeavesOut) {
    Loop loop;
    FleetServer fleet(loop, fleetScenario(kQuiet, R"([{"at": 60, "until": 120, "fault": {"effect": "surge", "factor": 2}}])"),
                      {});
    ASSERT_EQ(fleet.notes().size(), 1u);
    EXPECT_NE(fleet.notes()[0].find(kSurgeNotTheFleets), std::string::npos) << fleet.notes()[0];
}

// The July incidents aim a capacity loss at the gateway's compute: the fleet notes it and runs.
TEST(FleetServer, RunsTheIncidentScenariosLeavingComputeFaultsToTheGateway) {
    for (const char* name : {"july-v3", "july-v4"}) {
        const Scenario s = loadScenarioFile(std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/" + name + ".json");
        Loop loop;
        FleetServer fleet(loop, s, {});
        bool noted = false;
        for (const std::string& n : fleet.notes()) noted = noted || n.find("gateway's compute") != std::string::npos;
        EXPECT_TRUE(noted) << name;
    }
}

TEST_F(FleetServerTest, AdminFaultsAddAndRemove) {
    start(fleetScenario(kQuiet + R"(, "atlas_median_ms": 5, "atlas_sigma": 0.01)"));
    admin("POST", "/admin/faults",
          R"({"id": "atlas-resets", "target": {"engine": "atlas"}, "effect": "resets", "share": 1})", 200);
    TestConnection c(at());
    EXPECT_EQ(search(c, "atlas", "q").ending, Ending::Reset);
    TestConnection d(at());
    EXPECT_EQ(search(d, "borealis", "q").ending, Ending::Response);
    EXPECT_EQ(admin("POST", "/admin/faults", R"({"id": "atlas-resets", "effect": "down"})", 400)
                  .at("message")
                  .get<std::string>()
                  .find("$.id"),
              0u);
    admin("DELETE", "/admin/faults/atlas-resets", "", 200);
    admin("DELETE", "/admin/faults/atlas-resets", "", 404);
    TestConnection e(at());
    EXPECT_EQ(search(e, "atlas", "q").ending, Ending::Response);
}

TEST_F(FleetServerTest, WrongPathsMethodsAndBodiesGetJsonErrors) {
    start(fleetScenario(kQuiet));
    const auto error = [&](const std::string& method, const std::string& path, const std::string& body, int status) {
        const auto r = test::requestOnce(at(), method, path, body);
        EXPECT_EQ(r.ending, Ending::Response) << r.error;
        if (!r.response) return std::string();
        EXPECT_EQ(r.response->status, status) << method << " " << path;
        EXPECT_EQ(r.response->header("Content-Type"), "application/json");
        return json::parse(r.response->body).at("message").get<std::string>();
    };
    error("POST", "/engines/nimbus/search", "{}", 404);
    error("POST", "/nowhere", "{}", 404);
    error("GET", "/engines/atlas/search", "", 405);
    error("GET", "/admin/knobs", "", 405);
    EXPECT_NE(error("POST", "/engines/atlas/search", R"({"query": 3})", 400).find("$.query"), std::string::npos);
    EXPECT_NE(error("POST", "/engines/atlas/search", R"({"query": "x", "max_results": 99})", 400).find("$.max_results"),
              std::string::npos);
    EXPECT_NE(error("POST", "/engines/atlas/search", R"({"query": "x", "page": 2})", 400).find("$.page"),
              std::string::npos);
    EXPECT_NE(error("POST", "/engines/atlas/search", "[1,", 400).find("not valid JSON"), std::string::npos);
    // Where, as the gateway says it: line and column, not a byte count.
    EXPECT_EQ(error("POST", "/engines/atlas/search", "{\"query\": \"x\",\n \"max_results\": 3,}", 400),
              "$: the body is not valid JSON at line 2, column 19: unexpected '}'");
    EXPECT_EQ(error("POST", "/admin/knobs", std::string(32000, ' ') + "{x", 400),
              "$: the body is not valid JSON at line 1, column 32002: unexpected 'x'");
    // Too deep a nesting, in a request's words: array elements as $[0], no scenario in sight.
    std::string zeros;
    for (int i = 0; i < 64; ++i) zeros += "[0]";
    for (const char* path : {"/admin/knobs", "/admin/faults"})
        EXPECT_EQ(error("POST", path, std::string(70, '[') + std::string(70, ']'), 400),
                  "$" + zeros + ": nested deeper than 64 levels (an admin request needs three)");
    EXPECT_EQ(error("POST", "/admin/knobs", R"({"engines": {"atlas": [[{"sigma": 1, "sigma": 2}]]}})", 400)
                  .rfind("$.engines.atlas[0][0].sigma: duplicate key", 0),
              0u);
    const auto r = test::requestOnce(at(), "POST", "/engines/atlas/search", R"({"query": "x"})",
                                     {{"X-TailLab-Role", "boss"}});
    ASSERT_TRUE(r.response);
    EXPECT_EQ(r.response->status, 400);
    EXPECT_NE(r.response->body.find("X-TailLab-Role"), std::string::npos);
    EXPECT_EQ(fleet->counters().bad_requests, 6u);
}

TEST(FleetServer, RefusesAScenarioOfAnotherLab) {
    Loop loop;
    const Scenario fanout = parseScenario(
        R"({"schema_version": 1, "name": "f", "title": "t", "lab": "fanout", "seed": 1, "params": {}})", "f.json");
    EXPECT_THROW(FleetServer f(loop, fanout), std::invalid_argument);
}

}  // namespace
}  // namespace taillab::live
