#include "labs/coordinated_omission_model.h"

#include <algorithm>
#include <cmath>

namespace taillab::co {
namespace {

constexpr double kWindowPercentile = 0.99;

const ConstantModel* constantService(const Config& c) {
    return std::get_if<ConstantModel>(&c.service.variant());
}

// The deterministic case the closed forms cover: constant service s < 1/R on the fixed schedule.
bool hasClosedForm(const Config& c) {
    const ConstantModel* m = constantService(c);
    return !c.poisson && m && m->value_ms > 0 && c.utilisation() < 1.0;
}

// Where the stall meets the fixed schedule.
struct StallHit {
    FixedSchedule schedule;
    Duration service;
    std::int64_t firstSlot = 0;  // first slot at or after the stall's start
    bool interrupted = false;    // the slot before it is still in service when the stall starts
};

StallHit locateStall(const Config& c) {
    StallHit h{FixedSchedule(c.rate_per_s, c.duration), fromMs(constantService(c)->value_ms)};
    h.firstSlot = h.schedule.firstSlotAtOrAfter(c.stall_at);
    h.interrupted = c.stall > kZero && h.firstSlot >= 1 &&
                    h.schedule.slot(h.firstSlot - 1) + h.service > c.stall_at;
    return h;
}

}  // namespace

HdrConfig Config::histogramConfig() const {
    const double load = utilisation();
    const double worstSeconds = toSeconds(stall) + toSeconds(duration) * std::max(1.0, load) + 1.0;
    HdrConfig h;
    h.highest_trackable = static_cast<std::int64_t>(std::clamp(2e6 * worstSeconds, 60e6, 1e15));
    return h;
}

FixedSchedule::FixedSchedule(double rate_per_s, Duration duration)
    : nsPerSlot_(1e9 / rate_per_s), count_(0) {
    count_ = firstSlotAtOrAfter(duration);
}

Time FixedSchedule::slot(std::int64_t j) const {
    return Duration{std::llround(static_cast<double>(j) * nsPerSlot_)};
}

std::int64_t FixedSchedule::firstSlotAtOrAfter(Time t) const {
    if (t <= kZero) return 0;
    auto j = static_cast<std::int64_t>(std::ceil(static_cast<double>(t.count()) / nsPerSlot_));
    while (j > 0 && slot(j - 1) >= t) --j;
    while (slot(j) < t) ++j;
    return count_ > 0 ? std::min(j, count_) : j;
}

Time StallingServer::serve(Time arrival, Duration work) {
    Time start = std::max(arrival, freeAt_);
    const Time stallEnd = stallAt_ + stall_;
    if (start >= stallAt_ && start < stallEnd) start = stallEnd;
    Time done = start + work;
    if (start < stallAt_ && done > stallAt_) done += stall_;
    freeAt_ = done;
    return done;
}

LoopSimulation::LoopSimulation(const Config& config, Loop loop, std::uint64_t seed, bool corrected)
    : config_(config),
      loop_(loop),
      wantCorrected_(corrected),
      arrivals_(seed, "coordinated_omission/arrivals"),
      service_(seed, loop == Loop::Open ? "coordinated_omission/service_open"
                                        : "coordinated_omission/service_closed"),
      fixed_(config.rate_per_s, config.duration),
      server_(config.stall_at, config.stall),
      intervalUs_(std::max<std::int64_t>(1, toUs(config.interval()))),
      latencies_(config.histogramConfig()),
      corrected_(config.histogramConfig()),
      window_(config.histogramConfig()) {}

std::optional<Time> LoopSimulation::nextSlot() {
    Time t;
    if (config_.poisson) {
        poissonNs_ += arrivals_.exponential(1e9 / config_.rate_per_s);
        t = Duration{std::llround(poissonNs_)};
        if (t >= config_.duration) return std::nullopt;
    } else {
        if (nextFixed_ >= fixed_.slotCount()) return std::nullopt;
        t = fixed_.slot(nextFixed_++);
    }
    lastIntended_ = t;
    return t;
}

bool LoopSimulation::advance(std::int64_t max_requests) {
    for (std::int64_t n = 0; n < max_requests && !done_; ++n) {
        std::optional<Time> slot = nextSlot();
        if (loop_ == Loop::Closed && !config_.send_late) {
            while (slot && *slot < lastDone_) {
                ++skipped_;
                slot = nextSlot();
            }
        }
        if (!slot) {
            done_ = true;
            break;
        }
        const Time sendAt = loop_ == Loop::Closed ? std::max(*slot, lastDone_) : *slot;
        const Duration work = fromMs(config_.service.sample(service_));
        lastDone_ = server_.serve(sendAt, work);
        // Open loop: from the intended send (== the actual one). Closed loop: from the actual send.
        recordLatency(sendAt, lastDone_ - sendAt);
    }
    if (done_) flushWindow();
    return !done_;
}

double LoopSimulation::progress() const {
    if (done_) return 1.0;
    return std::clamp(toSeconds(lastIntended_) / toSeconds(config_.duration), 0.0, 1.0);
}

void LoopSimulation::recordLatency(Time sentAt, Duration latency) {
    const std::int64_t us = toUs(latency);
    latencies_.record(us);
    if (wantCorrected_) corrected_.recordCorrected(us, intervalUs_);
    ++sent_;
    const std::int64_t window = sentAt.count() / config_.window.count();
    if (window != windowIndex_) {
        flushWindow();
        windowIndex_ = window;
    }
    window_.record(us);
}

// A window's p99 and max come from its own histogram, reset for the next: memory stays the
// histogram's size however many requests a window holds (a 1,000 s window at 100,000 req/s
// held 10^8 latencies in a list).
void LoopSimulation::flushWindow() {
    if (window_.empty()) return;
    windows_.push_back(WindowPoint{toSeconds(config_.window * windowIndex_),
                                   static_cast<double>(window_.valueAtPercentile(
                                       100.0 * kWindowPercentile)) / 1000.0,
                                   static_cast<double>(window_.max()) / 1000.0,
                                   window_.totalCount()});
    window_.reset();
}

std::int64_t RampDistribution::total() const {
    return baseCount + rampCount + static_cast<std::int64_t>(extrasMs.size());
}

double RampDistribution::valueAtRank(std::int64_t r) const {
    if (r <= baseCount) return baseMs;
    r -= baseCount;
    if (r <= rampCount) return rampTopMs - static_cast<double>(rampCount - r) * rampStepMs;
    r -= rampCount;
    if (extrasMs.empty()) return rampCount > 0 ? rampTopMs : baseMs;
    return extrasMs[static_cast<std::size_t>(std::min<std::int64_t>(r, extrasMs.size()) - 1)];
}

double RampDistribution::quantile(double p) const {
    const std::int64_t n = total();
    const auto rank = static_cast<std::int64_t>(p * static_cast<double>(n) + 0.5);
    return valueAtRank(std::clamp<std::int64_t>(rank, 1, n));
}

std::int64_t RampDistribution::countAtOrBelow(double ms) const {
    std::int64_t count = baseMs <= ms ? baseCount : 0;
    if (rampCount > 0 && ms >= rampTopMs - static_cast<double>(rampCount - 1) * rampStepMs) {
        const auto above = static_cast<std::int64_t>(std::ceil((rampTopMs - ms) / rampStepMs));
        count += rampCount - std::clamp<std::int64_t>(above, 0, rampCount);
    }
    for (double v : extrasMs) count += v <= ms ? 1 : 0;
    return count;
}

std::optional<RampDistribution> openLoopClosedForm(const Config& c) {
    if (!hasClosedForm(c)) return std::nullopt;
    const StallHit h = locateStall(c);
    const std::int64_t n = h.schedule.slotCount();
    RampDistribution d;
    d.baseMs = toMs(h.service);
    if (c.stall > kZero) {
        // The server is next free at F; every queued request from slot t0 on finishes s apart.
        const Time freeAt = h.interrupted ? h.schedule.slot(h.firstSlot - 1) + h.service + c.stall
                                          : c.stall_at + c.stall;
        if (h.firstSlot < n && freeAt > h.schedule.slot(h.firstSlot)) {
            const Duration lead = freeAt - h.schedule.slot(h.firstSlot);
            const double stepNs = 1e9 / c.rate_per_s - static_cast<double>(h.service.count());
            const auto m =
                static_cast<std::int64_t>(std::ceil(static_cast<double>(lead.count()) / stepNs));
            d.rampCount = std::min(m, n - h.firstSlot);
            d.rampTopMs = toMs(lead + h.service);
            d.rampStepMs = stepNs / 1e6;
        }
        if (h.interrupted) d.extrasMs.push_back(toMs(h.service + c.stall));
    }
    d.baseCount = n - d.rampCount - static_cast<std::int64_t>(d.extrasMs.size());
    return d;
}

std::optional<RampDistribution> closedLoopClosedForm(const Config& c) {
    if (!hasClosedForm(c)) return std::nullopt;
    const StallHit h = locateStall(c);
    const std::int64_t n = h.schedule.slotCount();
    RampDistribution d;
    d.baseMs = toMs(h.service);
    std::int64_t total = n;
    std::optional<std::int64_t> hitSlot;
    Duration hitLatency = kZero;
    if (h.interrupted) {
        hitSlot = h.firstSlot - 1;
        hitLatency = h.service + c.stall;
    } else if (c.stall > kZero && h.firstSlot < n &&
               h.schedule.slot(h.firstSlot) < c.stall_at + c.stall) {
        hitSlot = h.firstSlot;
        hitLatency = c.stall_at + c.stall - h.schedule.slot(h.firstSlot) + h.service;
    }
    if (hitSlot) {
        d.extrasMs.push_back(toMs(hitLatency));
        if (!c.send_late) {
            const Time back = h.schedule.slot(*hitSlot) + hitLatency;
            total = *hitSlot + 1 + (n - h.schedule.firstSlotAtOrAfter(back));
        }
    }
    d.baseCount = total - static_cast<std::int64_t>(d.extrasMs.size());
    return d;
}

std::optional<RampDistribution> correctedClosedForm(const Config& c) {
    std::optional<RampDistribution> d = closedLoopClosedForm(c);
    if (!d || d->extrasMs.empty()) return d;
    // recordCorrected works in whole µs: the slow sample L becomes L, L - a, ... down to a.
    const std::int64_t intervalUs = std::max<std::int64_t>(1, toUs(c.interval()));
    const std::int64_t slowUs = std::llround(d->extrasMs.front() * 1000.0);
    d->rampCount = 1 + std::max<std::int64_t>(0, slowUs / intervalUs - 1);
    d->rampTopMs = static_cast<double>(slowUs) / 1000.0;
    d->rampStepMs = static_cast<double>(intervalUs) / 1000.0;
    d->extrasMs.clear();
    return d;
}

}  // namespace taillab::co
