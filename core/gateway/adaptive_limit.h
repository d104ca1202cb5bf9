// AdaptiveLimit: the algorithm of seed 000's adaptive admission (a "Limit" in the manner of Netflix's
// concurrency-limits: samples in, a limit out; Admission, admission.h, enforces it). Per region,
// every 250 ms:
//     limit' = clamp(round(limit * clamp(minRtt / sampleRtt, 0.5, 1) + sqrt(limit)), min, max)
// sampleRtt is the window's p90. A window needs `min_samples` latencies to have a p90; a quieter
// window is merged into the next one. minRtt is the no-queueing baseline of the same statistic:
// the lowest window p90 of the last `baseline_windows` windows, times a tolerance (as
// rttTolerance in Netflix's Gradient2Limit, default 2). Why both: comparing a p90 with the single
// fastest request pins the gradient at 0.5 whenever 20 ms cache hits and 400 ms misses mix; and
// even p90 against the lowest p90 averages a gradient near 0.8 from sampling noise alone, where
// the rule's fixed point, limit = 1 / (1 - gradient)^2, is about 25: the limit would sit near its
// floor with no queueing at all. With the tolerance it shrinks only when the window's p90 is more
// than twice its quiet baseline. Regimes: at the baseline the limit grows by about sqrt(limit)
// per window up to max; when latency doubles past the tolerance it shrinks by up to half per
// window (plus sqrt(limit)) down to min.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/time.h"

namespace taillab::gateway {

class AdaptiveLimit {
public:
    struct Config {
        int min_limit = 10;
        int max_limit = 200;
        int initial = 50;
        Duration interval = fromMs(250);
        int min_samples = 20;
        int baseline_windows = 40;
        double tolerance = 2.0;
    };
    AdaptiveLimit() = default;
    explicit AdaptiveLimit(const Config& c)
        : cfg_(c), limit_(std::clamp(c.initial, c.min_limit, c.max_limit)) {
        cfg_.baseline_windows = std::clamp(c.baseline_windows, 1, static_cast<int>(kMaxBaselineWindows));
    }

    // The gradient rule, exposed for tests.
    static int nextLimit(int limit, double minRtt, double sampleRtt, int minLimit, int maxLimit) {
        const double gradient = std::max(0.5, std::min(1.0, minRtt / sampleRtt));
        const double next = limit * gradient + std::sqrt(static_cast<double>(limit));
        return std::max(minLimit, std::min(maxLimit, static_cast<int>(std::lround(next))));
    }

    int limit() const { return limit_; }
    void setTolerance(double t) { cfg_.tolerance = t; }
    void setBounds(int minLimit, int maxLimit) {
        cfg_.min_limit = minLimit;
        cfg_.max_limit = std::max(minLimit, maxLimit);
        limit_ = std::clamp(limit_, cfg_.min_limit, cfg_.max_limit);
    }
    // Records a finished request's latency; runs the 250 ms update when its window has closed.
    void onSample(Time now, Duration latency) {
        advance(now);
        samples_.push_back(latency.count());
    }
    // Runs any update that is due (call before reading limit() at an arrival).
    void advance(Time now) {
        if (now < windowEnd_) return;
        // Window(s) closed. Only the first closed window holds samples; the rest were empty.
        if (static_cast<int>(samples_.size()) >= cfg_.min_samples) {
            const std::size_t k = static_cast<std::size_t>(0.9 * (samples_.size() - 1) + 0.5);
            std::nth_element(samples_.begin(), samples_.begin() + static_cast<long>(k),
                             samples_.end());
            const double p90 = static_cast<double>(samples_[k]);
            // A ring of the last baseline_windows p90s: written where it is read.
            baseline_[baselineNext_++ % static_cast<std::size_t>(cfg_.baseline_windows)] = p90;
            baselineCount_ = std::min<int>(baselineCount_ + 1, cfg_.baseline_windows);
            double minRtt = p90;
            for (int i = 0; i < baselineCount_; ++i) minRtt = std::min(minRtt, baseline_[i]);
            limit_ = nextLimit(limit_, minRtt * cfg_.tolerance, p90, cfg_.min_limit,
                               cfg_.max_limit);
            samples_.clear();
            ++updates_;
        }
        const auto n = (now - windowEnd_) / cfg_.interval + 1;
        windowEnd_ += cfg_.interval * n;
    }
    std::uint64_t updates() const { return updates_; }

private:
    Config cfg_{};
    int limit_ = 50;
    Time windowEnd_{};
    std::vector<std::int64_t> samples_;
    static constexpr std::size_t kMaxBaselineWindows = 64;
    std::array<double, kMaxBaselineWindows> baseline_{};
    std::size_t baselineNext_ = 0;
    int baselineCount_ = 0;
    std::uint64_t updates_ = 0;
};

}  // namespace taillab::gateway
