#include "fleet/fleet.h"

#include <algorithm>
#include <cmath>

namespace taillab::gateway {

FleetConfig FleetConfig::fromParams(const Params& p) {
    FleetConfig c;
    for (int e = 0; e < kEngines; ++e) {
        const std::string k(kEngineNames[e]);
        EngineModel& m = c.engines[e];
        m.name = k;
        m.latency.body = {p.real(k + "_median_ms"), p.real(k + "_sigma")};
        m.latency.slow_probability = p.real(k + "_slow_probability");
        m.latency.slow = {p.real(k + "_slow_median_ms"), p.real(k + "_slow_sigma")};
        m.invalid_rate = p.real(k + "_invalid_rate");
        m.quality = p.real(k + "_quality");
    }
    c.correlation = p.real("engine_correlation");
    c.slow_multiplier = p.real("slow_multiplier");
    c.fault_multiplier = p.real("fault_multiplier");
    c.cold_egress = p.choiceIndex("egress") == 1;
    c.class_variability = p.real("class_variability");
    c.cold_connect = {p.real("cold_connect_median_ms"), p.real("cold_connect_sigma")};
    return c;
}

Fleet::Fleet(const FleetConfig& config, std::uint64_t seed)
    : cfg_(config), rng_(seed, "gateway/fleet") {}

namespace {
constexpr std::array<double, kClasses> kClassSlowness{0.6, 0.8, 1.0, 1.0, 1.5};
}

Fleet::Draw Fleet::call(int engine, QueryClass cls, std::uint64_t key, int results, double shared) {
    const EngineModel& m = cfg_.engines[static_cast<std::size_t>(engine)];
    Draw d;
    const double invalid = std::min(1.0, m.invalid_rate * cfg_.fault_multiplier);
    double ms;
    if (rng_.bernoulli(invalid)) {
        const double u = rng_.uniform();
        d.answer.kind = u < 0.38   ? AnswerKind::Empty
                        : u < 0.62 ? AnswerKind::BlockPage
                        : u < 0.76 ? AnswerKind::Captcha
                        : u < 0.86 ? AnswerKind::ConsentWall
                        : u < 0.95 ? AnswerKind::Reset
                                   : AnswerKind::Timeout;
        ms = d.answer.kind == AnswerKind::Timeout
                 ? kHangMs
                 : lognormalSample(m.latency.body, rng_) *
                       (d.answer.kind == AnswerKind::Reset ? 0.3 : 0.6);
    } else {
        const double classFactor =
            1 + cfg_.class_variability * (kClassSlowness[static_cast<int>(cls)] - 1);
        const double p =
            std::min(0.95, m.latency.slow_probability * cfg_.slow_multiplier * classFactor);
        const double f = cfg_.correlation;
        const double q = (p - f * p) / (1 - f * p);
        const bool slow = shared < f * p || rng_.bernoulli(q);
        ms = lognormalSample(slow ? m.latency.slow : m.latency.body, rng_);
        d.answer.kind = AnswerKind::Results;
        d.answer.results = static_cast<std::uint16_t>(results);
        d.answer.complete = d.answer.results;
        d.answer.fingerprint = key * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(engine);
    }
    if (cfg_.cold_egress) ms += lognormalSample(cfg_.cold_connect, rng_);
    d.latency = fromMs(ms);
    return d;
}

}  // namespace taillab::gateway
