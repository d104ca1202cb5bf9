#include "labs/power_of_d_sim.h"

#include <utility>
#include <vector>

#include "base/time.h"

namespace taillab {
namespace {

constexpr std::int64_t kCheckpointMask = 4095;  // checkpoint every 4096 arrivals
constexpr double kNsPerUnit = 1e6;              // one mean service time = 1 ms of virtual time

// The departure times of the jobs a FIFO server holds, oldest first, on a power-of-two ring.
class DepartureRing {
  public:
    std::size_t size() const { return size_; }
    // Forgets the jobs that have left by `now`; returns how many.
    std::size_t expire(Time now) {
        std::size_t gone = 0;
        while (size_ > 0 && buf_[head_] <= now) {
            head_ = (head_ + 1) & (buf_.size() - 1);
            --size_;
            ++gone;
        }
        return gone;
    }
    Time last() const { return buf_[(head_ + size_ - 1) & (buf_.size() - 1)]; }
    void push(Time t) {
        if (size_ == buf_.size()) grow();
        buf_[(head_ + size_) & (buf_.size() - 1)] = t;
        ++size_;
    }

  private:
    void grow() {
        std::vector<Time> next(buf_.empty() ? 8 : buf_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i) next[i] = buf_[(head_ + i) & (buf_.size() - 1)];
        buf_ = std::move(next);
        head_ = 0;
    }
    std::vector<Time> buf_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace

HdrConfig supermarketHdrConfig() { return HdrConfig{1, 10'000'000LL, 3}; }

SupermarketStats runSupermarket(const SupermarketConfig& config, SupermarketStreams rng,
                                HdrHistogram& response, const SupermarketProgress& progress) {
    SupermarketStats stats;
    response.reset();
    std::vector<DepartureRing> servers(static_cast<std::size_t>(config.servers));
    const double interarrivalMean = 1.0 / (config.load * config.servers);
    const auto n = static_cast<std::uint64_t>(config.servers);
    Time now{0};
    for (std::int64_t i = 0; i < config.requests; ++i) {
        now += Duration{std::llround(rng.arrivals.exponential(interarrivalMean) * kNsPerUnit)};
        std::size_t best = 0;
        std::size_t bestLength = 0;
        for (int j = 0; j < config.choices; ++j) {
            const auto s = static_cast<std::size_t>(rng.sampling.below(n));
            stats.departed += static_cast<std::int64_t>(servers[s].expire(now));
            if (j == 0 || servers[s].size() < bestLength) {
                best = s;
                bestLength = servers[s].size();
            }
        }
        DepartureRing& server = servers[best];
        const Time start = bestLength == 0 ? now : server.last();
        const Duration service{std::llround(rng.service.exponential(1.0) * kNsPerUnit)};
        const Time departure = start + service;
        server.push(departure);
        ++stats.arrived;
        if (i >= config.warmup) {
            const Duration time = departure - now;
            ++stats.measured;
            stats.sumResponse += static_cast<double>(time.count()) / kNsPerUnit;
            response.record(toUs(time));
        }
        if (((i + 1) & kCheckpointMask) == 0 && progress.control) {
            if (!progress.control->checkpoint()) {
                stats.cancelled = true;
                return stats;
            }
            progress.control->reportProgress(progress.base +
                                             progress.span * static_cast<double>(i + 1) /
                                                 static_cast<double>(config.requests));
        }
    }
    for (auto& s : servers) stats.departed += static_cast<std::int64_t>(s.size());
    return stats;
}

}  // namespace taillab
