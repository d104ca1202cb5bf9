#include "labs/averaging_percentiles_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace taillab::avg {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr std::int64_t kChunk = 4096;

double lognormalDensity(const LognormalParams& l, double x) {
    if (x <= 0) return 0.0;
    const double z = std::log(x / l.median_ms) / l.sigma;
    return std::exp(-0.5 * z * z) / (x * l.sigma * std::sqrt(2 * kPi));
}

}  // namespace

double Fleet::share(int h) const {
    return h == 0 ? odd_share : (1.0 - odd_share) / static_cast<double>(hosts - 1);
}

LognormalParams Fleet::host(int h) const {
    LognormalParams l = healthy;
    if (h == 0) l.median_ms *= odd_slowness;
    return l;
}

double Fleet::hostQuantile(int h, double p) const { return lognormalQuantile(host(h), p); }
double Fleet::hostDensity(int h, double x) const { return lognormalDensity(host(h), x); }

// Hosts 1..H-1 are identical, so the mixture needs two evaluations, not H.
double Fleet::pooledCdf(double x) const {
    return odd_share * lognormalCdf(host(0), x) + (1.0 - odd_share) * lognormalCdf(host(1), x);
}

double Fleet::pooledDensity(double x) const {
    return odd_share * hostDensity(0, x) + (1.0 - odd_share) * hostDensity(1, x);
}

double Fleet::pooledQuantile(double p) const {
    // The mixture's quantile lies between its components' quantiles: bisect there, in log space.
    double lo = std::min(hostQuantile(0, p), hostQuantile(1, p));
    double hi = std::max(hostQuantile(0, p), hostQuantile(1, p));
    if (hi / lo < 1 + 1e-12) return lo;
    return invertCdf([this](double x) { return pooledCdf(x); }, p, lo, hi);
}

double Fleet::meanOfHostQuantiles(double p) const {
    return (hostQuantile(0, p) + static_cast<double>(hosts - 1) * hostQuantile(1, p)) /
           static_cast<double>(hosts);
}

std::vector<std::int64_t> Fleet::split(std::int64_t total) const {
    std::vector<std::int64_t> n(static_cast<std::size_t>(hosts));
    std::int64_t sum = 0;
    for (int h = 0; h < hosts; ++h) {
        n[static_cast<std::size_t>(h)] =
            std::max<std::int64_t>(1, std::llround(share(h) * static_cast<double>(total)));
        sum += n[static_cast<std::size_t>(h)];
    }
    // Rounding leaves a few requests over or under: give them to (or take them from) the
    // busiest host, where they change its share least.
    *std::max_element(n.begin(), n.end()) += total - sum;
    return n;
}

HdrConfig Fleet::histogramConfig() const {
    const double slowest = std::max(hostQuantile(0, 1 - 1e-9), hostQuantile(1, 1 - 1e-9));
    HdrConfig c;
    c.highest_trackable = static_cast<std::int64_t>(std::clamp(2000.0 * slowest, 60e6, 1e13));
    return c;
}

std::optional<double> zeroCrossingShare(Fleet fleet, double p, double lo, double hi) {
    auto errorAt = [&](double w) {
        fleet.odd_share = w;
        return fleet.error(p);
    };
    double elo = errorAt(lo);
    if ((elo > 0) == (errorAt(hi) > 0)) return std::nullopt;
    for (int i = 0; i < 100 && hi / lo > 1 + 1e-10; ++i) {
        const double mid = std::sqrt(lo * hi);
        const double e = errorAt(mid);
        if ((e > 0) == (elo > 0)) {
            lo = mid;
            elo = e;
        } else {
            hi = mid;
        }
    }
    return std::sqrt(lo * hi);
}

double quantileStandardError(double p, double n, double density) {
    if (n <= 0 || density <= 0) return std::numeric_limits<double>::infinity();
    return std::sqrt(p * (1 - p) / n) / density;
}

bool sampleFleet(const Fleet& fleet, const std::vector<std::int64_t>& requests,
                 std::vector<Rng>& streams, std::vector<HdrHistogram>& hosts, RunControl& control,
                 double progress_from, double progress_to) {
    double total = 0, sampled = 0;
    for (auto n : requests) total += static_cast<double>(n);
    for (int h = 0; h < fleet.hosts; ++h) {
        const auto j = static_cast<std::size_t>(h);
        const LognormalParams l = fleet.host(h);
        for (std::int64_t done = 0; done < requests[j];) {
            const std::int64_t end = std::min(requests[j], done + kChunk);
            sampled += static_cast<double>(end - done);
            for (; done < end; ++done)
                hosts[j].record(std::llround(1000.0 * lognormalSample(l, streams[j])));
            if (!control.checkpoint()) return false;
            control.reportProgress(progress_from + (progress_to - progress_from) * sampled / total);
        }
    }
    return true;
}

}  // namespace taillab::avg
