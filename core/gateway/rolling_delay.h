// RollingDelay: seed 000's hedge delay, the `percentile` (p90) of the last 60 s of primary
// latencies (six 10 s slices), refreshed every 10 s, clamped to [lo, hi] (120-450 ms). Only the
// clamp range matters to the answer, so the histogram has linear buckets across it plus an
// underflow and an overflow bucket: exact to (hi - lo) / 512.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "base/time.h"

namespace taillab::gateway {

class RollingDelay {
public:
    static constexpr int kBuckets = 512;
    static constexpr int kSlices = 6;

    RollingDelay() = default;
    RollingDelay(double loMs, double hiMs, double percentile, Duration slice = fromSeconds(10))
        : lo_(loMs), hi_(std::max(hiMs, loMs)), percentile_(percentile), slice_(slice),
          delayMs_(std::max(hiMs, loMs)) {}

    void record(Time now, double latencyMs) {
        rotate(now);
        const int b = bucketOf(latencyMs);
        slices_[current_].push_back(static_cast<std::uint16_t>(b));
        ++window_[b];
        ++groups_[b / kGroup];
        ++count_;
    }
    // The delay to use now: refreshed at most once per slice, from the last six slices.
    double delayMs(Time now) {
        rotate(now);
        if (now >= nextRefresh_) {
            refresh();
            nextRefresh_ = now + slice_;
        }
        return delayMs_;
    }
    std::int64_t samples() const { return count_; }

private:
    // Window counts per bucket: [0] under lo, [kBuckets + 1] over hi; and per group of kGroup
    // buckets, so the percentile walk skips empty stretches a group at a time.
    static constexpr int kGroup = 32;
    static constexpr int kGroups = (kBuckets + 2 + kGroup - 1) / kGroup;
    int bucketOf(double ms) const {
        if (ms < lo_) return 0;
        if (ms >= hi_) return kBuckets + 1;
        return 1 + std::min(kBuckets - 1, static_cast<int>((ms - lo_) / (hi_ - lo_) * kBuckets));
    }
    // A slice keeps its samples' buckets rather than a count per bucket: a slice holds a few
    // samples at the traffic one (region, engine) sees, and expiring it touches only those.
    void rotate(Time now) {
        const std::int64_t index = now.count() / slice_.count();
        if (index == sliceIndex_) return;
        const std::int64_t steps = std::min<std::int64_t>(index - sliceIndex_, kSlices);
        if (steps >= kSlices) {  // the whole window is older than 60 s
            for (auto& slice : slices_) slice.clear();
            window_.fill(0);
            groups_.fill(0);
            count_ = 0;
            sliceIndex_ = index;
            return;
        }
        for (std::int64_t i = 0; i < steps; ++i) {
            current_ = (current_ + 1) % kSlices;
            std::vector<std::uint16_t>& old = slices_[current_];
            for (const std::uint16_t b : old) {
                --window_[b];
                --groups_[b / kGroup];
            }
            count_ -= static_cast<std::int64_t>(old.size());
            old.clear();
        }
        sliceIndex_ = index;
    }
    void refresh() {
        if (count_ == 0) {
            delayMs_ = hi_;  // nothing seen yet: the most patient delay in range
            return;
        }
        // Walk down from the top: the percentile's rank counted from the slowest sample.
        const std::int64_t above =
            count_ - std::max<std::int64_t>(1, std::llround(percentile_ / 100.0 * count_));
        std::int64_t seen = 0;
        for (int g = kGroups - 1; g >= 0; --g) {
            if (seen + groups_[g] <= above) {
                seen += groups_[g];
                continue;
            }
            for (int b = std::min(kBuckets + 1, (g + 1) * kGroup - 1); b >= g * kGroup; --b) {
                seen += window_[b];
                if (seen > above) {
                    delayMs_ = b == kBuckets + 1 ? hi_
                               : b == 0          ? lo_
                                                 : lo_ + (hi_ - lo_) * b / kBuckets;
                    return;
                }
            }
        }
        delayMs_ = lo_;
    }

    double lo_ = 120, hi_ = 450, percentile_ = 90;
    Duration slice_ = fromSeconds(10);
    std::array<std::vector<std::uint16_t>, kSlices> slices_{};
    std::array<std::uint32_t, kBuckets + 2> window_{};
    std::array<std::uint32_t, kGroups> groups_{};
    std::int64_t count_ = 0;
    int current_ = 0;
    std::int64_t sliceIndex_ = 0;
    Time nextRefresh_{};
    double delayMs_ = 450;
};

}  // namespace taillab::gateway
