// The simulated upstream fleet: search engines with their own latency distributions and failure
// modes, reached through egress IPs over warm or cold connections.
//
// A call's latency: the engine's usual latency (lognormal body) or, with the engine's slow
// probability, one of its slow moments (a second, wider lognormal), plus the cold-connection
// cost (DNS + TCP + TLS + CONNECT) when egress is cold. Slow moments are correlated between the
// engines of one request by `engine_correlation` = f: a shared cause fires with probability
// f * p_e for engine e from one shared uniform draw, and each engine is also independently slow
// with q_e = (p_e - f p_e) / (1 - f p_e), so every engine keeps its own slow rate p_e.
//
// Slow moments are more frequent for some classes than others (class_variability).
//
// Failure modes (invalid answers, `invalid_rate` x `fault_multiplier`): an empty page, a block
// page, a CAPTCHA, a consent wall, a reset connection, which come back fast (a fast wrong
// answer); and a hung call that gives up only after kHangMs (the gateway's deadline ends it first).
// Each egress IP has a rate limit per engine (a token bucket); a call over it draws a block page,
// and an IP that has drawn one serves the same cached block page (byte-identical) to the next
// query; the gateway rests an IP for that engine after a block page.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gateway/gateway_types.h"
#include "knobs/knob.h"
#include "sim/distributions.h"
#include "base/rng.h"
#include "base/time.h"

namespace taillab::gateway {

enum class AnswerKind : std::uint8_t { Results, Empty, BlockPage, Captcha, ConsentWall, Reset, Timeout };

// What the gateway sees of an upstream answer; enough to validate it.
struct AnswerSummary {
    AnswerKind kind = AnswerKind::Results;
    std::uint16_t results = 0;
    std::uint16_t complete = 0;
    std::uint64_t fingerprint = 0;
};

struct EngineModel {
    std::string name;
    LognormalWithSlowMode latency;
    double invalid_rate = 0;
    double quality = 1;
};

constexpr double kHangMs = 30000;  // an upstream's own timeout on a hung call
constexpr int kEngines = 3;  // atlas, borealis, cirrus
constexpr std::array<std::string_view, kEngines> kEngineNames{"atlas", "borealis", "cirrus"};

struct FleetConfig {
    std::array<EngineModel, kEngines> engines;
    double correlation = 0;
    double slow_multiplier = 1;
    double fault_multiplier = 1;
    bool cold_egress = false;
    // Per-class variability: each class's slow-moment probability is the engine's times
    // 1 + v (m_c - 1), with m = {0.6, 0.8, 1.0, 1.0, 1.5} for navigational .. news (news is the
    // most variable, seed 000), and v = `class_variability` in [0, 1].
    double class_variability = 1;
    LognormalParams cold_connect{80, 0.5};
    static FleetConfig fromParams(const Params& p);
};

class Fleet {
public:
    Fleet(const FleetConfig& config, std::uint64_t seed);
    void setConfig(const FleetConfig& config) { cfg_ = config; }
    const FleetConfig& config() const { return cfg_; }

    // Per request: one shared draw for correlated slow moments.
    double sharedDraw() { return rng_.uniform(); }
    struct Draw {
        Duration latency;
        AnswerSummary answer;
    };
    // One call to `engine` for a query (key) asking for `results` results; `shared` is the
    // request's shared draw.
    Draw call(int engine, QueryClass cls, std::uint64_t key, int results, double shared);

private:
    FleetConfig cfg_;
    Rng rng_;
};

}  // namespace taillab::gateway
