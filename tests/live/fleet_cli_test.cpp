// taillab-cli fleet as a real process: it prints its engines' URLs and stops after --duration;
// bad input is a clear message and exit code 2.
#include <gtest/gtest.h>

#include <string>

#include "../core/cli_support.h"
#include "live/http_server.h"
#include "live/loop.h"

namespace taillab::test {
namespace {

const std::string kCli = TAILLAB_CLI_PATH;

ShellOutcome fleet(const std::string& args) {
    return runShell(kCli + " fleet " + args + " 2>&1");
}

void expectBadInput(const std::string& args, const std::string& says) {
    const ShellOutcome o = fleet(args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out;
    EXPECT_NE(o.out.find(says), std::string::npos) << args << "\n" << o.out;
}

TEST(FleetCli, PrintsEngineUrlsAndStopsAfterItsDuration) {
    const ShellOutcome o = runShell(kCli + " fleet gateway/day-eu-atlas-slow --duration 300ms 2>/dev/null");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_EQ(o.out.find("atlas http://127.0.0.1:"), 0u) << o.out;
    EXPECT_NE(o.out.find("/engines/atlas/search\nborealis http://127.0.0.1:"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("/engines/cirrus/search\n"), std::string::npos) << o.out;
}

// SIGINT once the fleet says it listens (a fixed delay could come before the CLI blocks the
// signal on a slow start, and kill it instead).
TEST(FleetCli, StopsCleanlyOnSigint) {
    const std::string log = ::testing::TempDir() + "taillab_fleet_sigint_" + std::to_string(::getpid()) + ".log";
    const ShellOutcome o = runShell(kCli + " fleet gateway/day-eu-atlas-slow >'" + log + "' 2>&1 & pid=$!; "
                                    "for i in $(seq 600); do grep -q 'Ctrl-C stops it' '" + log +
                                    "' && break; sleep 0.05; done; kill -INT $pid; wait $pid; code=$?; cat '" +
                                    log + "'; rm -f '" + log + "'; exit $code");
    EXPECT_EQ(o.exit_code, 0) << o.out;
    EXPECT_NE(o.out.find("fleet: stopped after 0 calls"), std::string::npos) << o.out;
}

// The fleet's /admin endpoints take no authentication: listening beyond loopback is allowed, with
// a warning on stderr; on loopback there is none.
TEST(FleetCli, ListeningBeyondLoopbackWarnsThatTheAdminEndpointsAreReachable) {
    const ShellOutcome open = fleet("gateway/day-eu-atlas-slow --listen 0.0.0.0:0 --duration 300ms");
    EXPECT_EQ(open.exit_code, 0) << open.out;
    EXPECT_NE(open.out.find("fleet: warning: listening on 0.0.0.0:"), std::string::npos) << open.out;
    EXPECT_NE(open.out.find("/admin/faults"), std::string::npos) << open.out;
    EXPECT_NE(open.out.find("reachable from the network"), std::string::npos) << open.out;
    const ShellOutcome local = fleet("gateway/day-eu-atlas-slow --listen 127.0.0.1:0 --duration 300ms");
    EXPECT_EQ(local.exit_code, 0) << local.out;
    EXPECT_EQ(local.out.find("warning"), std::string::npos) << local.out;
}

TEST(FleetCli, BadInputIsExplainedWithExitCode2) {
    expectBadInput("", "missing SCENARIO");
    expectBadInput("labs/fanout", "gateway scenario");
    expectBadInput("no/such/scenario", "no scenario file");
    expectBadInput("gateway/day-eu-atlas-slow --listen 127.0.0.1:99999", "--listen");
    expectBadInput("gateway/day-eu-atlas-slow --listen example.com:80", "--listen");
    expectBadInput("gateway/day-eu-atlas-slow --duration soon", "--duration");
    expectBadInput("gateway/day-eu-atlas-slow --duration -5s", "--duration");
    expectBadInput("gateway/day-eu-atlas-slow --start-at 25h", "within the scenario's run (1 day)");
    expectBadInput("gateway/day-eu-atlas-slow --set params.engine_correlation=7", "engine_correlation");
    expectBadInput("gateway/day-eu-atlas-slow --frobnicate", "unknown option '--frobnicate'");
}

TEST(FleetCli, APortInUseIsBadInput) {
    live::Loop loop;
    struct Silent : live::HttpHandler {
        void handle(const live::ServerRequest&, live::Responder) override {}
    } handler;
    live::HttpServer holder(loop, live::HostPort{"127.0.0.1", 0}, handler);
    expectBadInput("gateway/day-eu-atlas-slow --listen 127.0.0.1:" + std::to_string(holder.bound().port),
                   "cannot listen on 127.0.0.1:");
}

}  // namespace
}  // namespace taillab::test
