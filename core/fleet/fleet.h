// The simulated upstream fleet: search engines with their own latency distributions and failure
// modes, reached from each region through egress IPs over warm or cold connections, each IP with
// a rate limit per engine. It answers the gateway's upstream calls with the same vocabulary a live
// upstream client produces: a result page (a ResultBody, with the query echoed) or a failure.
//
// A call's latency: the engine's usual latency (lognormal body) or, with the engine's slow
// probability, one of its slow moments (a second, wider lognormal), plus the cold-connection
// cost (DNS + TCP + TLS + CONNECT) when egress is cold. Slow moments are correlated between the
// engines of one request by `correlation` = f: a shared cause fires with probability f * p_e for
// engine e from one draw shared by the request's calls, and each engine is also independently
// slow with q_e = (p_e - f p_e) / (1 - f p_e), so every engine keeps its own slow rate p_e. Slow
// moments are more frequent for some classes than others (class_variability).
//
// Failure modes (invalid answers, `invalid_rate` x `fault_multiplier`): an empty page, a block
// page, a CAPTCHA, a consent wall, a reset connection, which come back fast (a fast wrong
// answer); and a hung call that gives up only after kHangMs (the gateway's deadline ends it first).
// Each egress IP has a rate limit per engine (a token bucket); a call over it is served the IP's
// previous page for that engine again, byte for byte (a cached page, which validation recognises
// as another query's answer), or a block page when there was none.
//
// Faults from a scenario's timeline (down, slow, invalid answers, resets, added latency) apply to
// the calls they target while they are active.
//
// Fair comparisons: every draw for a call comes from a stream keyed by (seed, the request's
// trace id, engine, role), and the correlation draw by (seed, trace id): the same request gets
// the same upstream luck in two runs whatever their knobs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/time.h"
#include "gateway/answer.h"
#include "gateway/contract.h"
#include "gateway/token_bucket.h"
#include "sim/distributions.h"

namespace taillab::fleet {

using gateway::QueryClass;
using gateway::Region;

struct EngineModel {
    std::string name;
    LognormalWithSlowMode latency;
    double invalid_rate = 0;
};

constexpr double kHangMs = 30000;  // an upstream's own timeout on a hung call

struct FleetConfig {
    std::vector<EngineModel> engines;
    double correlation = 0;
    double slow_multiplier = 1;
    double fault_multiplier = 1;
    bool cold_egress = false;
    // Per-class variability: each class's slow-moment probability is the engine's times
    // 1 + v (m_c - 1), with m = {0.6, 0.8, 1.0, 1.0, 1.5} for navigational .. news (news is the
    // most variable, seed 000), and v = `class_variability` in [0, 1].
    double class_variability = 1;
    LognormalParams cold_connect{80, 0.5};
    int egress_ips = 4;
    double ip_burst = 30, ip_rate_per_s = 3;  // each engine's limit per egress IP
};

// A fault in force on upstream calls (from a scenario timeline): which calls it hits and what it
// does to them.
struct CallFault {
    enum class Effect : std::uint8_t { Down, Slow, Invalid, Resets, Latency };
    Effect effect = Effect::Slow;
    int engine = -1;                    // -1: every engine
    std::optional<Region> region;       // nullopt: every region
    std::optional<int> egress_ip;       // with a region
    double factor = 1;                  // slow: latency multiplier
    std::optional<LognormalParams> distribution;  // slow: replaces the latency
    double share = 0;                   // invalid, resets: share of the calls hit
    double add_ms = 0;                  // latency
};

// One answer, as the fleet will deliver it.
struct FleetAnswer {
    Duration latency{};
    gateway::CallFailure failure = gateway::CallFailure::None;
    const gateway::ResultBody* page = nullptr;
    std::uint64_t echo = 0;
    gateway::UpstreamAnswer answer() const {
        gateway::UpstreamAnswer a;
        a.failure = failure;
        a.page = page;
        a.echo = echo;
        return a;
    }
};

class Fleet {
public:
    Fleet(const FleetConfig& config, std::uint64_t seed);
    void setConfig(const FleetConfig& config);
    const FleetConfig& config() const { return cfg_; }

    // The answer to `call`, sent at `at`.
    FleetAnswer answer(const gateway::UpstreamCall& call, Time at);

    // Faults in force: added when they start, removed when they end (by the id given).
    void addFault(std::uint32_t id, const CallFault& fault);
    void removeFault(std::uint32_t id);

private:
    struct ActiveFault {
        std::uint32_t id;
        CallFault fault;
    };
    const gateway::ResultBody* pageFor(int engine, int fetchCount, std::uint64_t key) const;

    FleetConfig cfg_;
    std::uint64_t seed_;
    // Synthetic result pages, a pool per (engine, fetch bucket), chosen by the query: cheap, but
    // real items that validation and merge work through.
    std::vector<std::array<std::vector<std::shared_ptr<gateway::ResultBody>>, 3>> pages_;
    std::shared_ptr<gateway::ResultBody> empty_, blockPage_, captcha_, consentWall_;
    // Per (region, IP, engine): the rate limit and the last page served, for the cached-page case.
    struct IpState {
        gateway::TokenBucket bucket;
        const gateway::ResultBody* lastPage = nullptr;
        std::uint64_t lastEcho = 0;
    };
    std::vector<IpState> ips_;
    std::vector<ActiveFault> faults_;
};

}  // namespace taillab::fleet
