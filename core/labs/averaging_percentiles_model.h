// Averaging percentiles: the model behind the "averaging_percentiles" lab.
//
// A fleet of H hosts. Host 0, the odd one, takes a share w of the traffic and is `slowness` times
// slower than the others (every quantile scaled); the H - 1 healthy hosts share the rest equally.
// Each host's latency is lognormal (median m, shape sigma), the odd host's median m * slowness.
//
// A dashboard that averages per-host percentiles reports
//      mean_j q_j(p),                 q_j(p) = m_j exp(sigma z_p),
// which does not depend on the traffic shares at all. The percentile of all requests pooled is the
// p-quantile of the mixture:
//      Q(p) solves  sum_j w_j F_j(Q) = p        (F_j the hosts' CDFs; solved by bisection),
// which moves from near the healthy hosts' q(p) (w -> 0) to the odd host's (w -> 1). So the
// error mean_j q_j - Q is positive for a quiet odd host and negative for a busy one:
//  - overstates: a low-traffic host with a bad tail (w = 1%, 10x slower) pulls the mean of p99s
//    far up while adding only a sliver of requests to the pool;
//  - understates: a busy host with a moderate tail (w = 90%, 3x slower) sets the pooled p99
//    almost alone, while idle fast hosts pull the mean back down with equal votes.
// It crosses zero at one share (the error falls monotonically in w when slowness > 1).
//
// What adds correctly is a count: requests over a threshold, summed over hosts, equal the pooled
// count over it, exactly. Essay 003 ("Averaging percentiles across hosts") makes this point
// without figures; the lab checks the closed forms and the sign of the error instead.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/hdr_histogram.h"
#include "sim/distributions.h"
#include "base/rng.h"
#include "sim/run_control.h"

namespace taillab::avg {

struct Fleet {
    int hosts = 4;
    double odd_share = 0.01;
    double odd_slowness = 10;
    LognormalParams healthy{10.0, 0.5};

    double share(int host) const;
    LognormalParams host(int host) const;

    // Closed forms (ms; p a probability in (0, 1)).
    double hostQuantile(int host, double p) const;
    double hostDensity(int host, double x_ms) const;
    double pooledCdf(double x_ms) const;
    double pooledDensity(double x_ms) const;
    double pooledQuantile(double p) const;
    double meanOfHostQuantiles(double p) const;
    double error(double p) const { return meanOfHostQuantiles(p) - pooledQuantile(p); }

    // Requests per host for `total` requests: each share rounded, every host at least one.
    std::vector<std::int64_t> split(std::int64_t total) const;
    // Histograms wide enough for the slowest host's far tail.
    HdrConfig histogramConfig() const;
};

// The odd host's share at which the mean of host quantiles equals the pooled quantile, if the
// error changes sign within [lo, hi].
std::optional<double> zeroCrossingShare(Fleet fleet, double p, double lo, double hi);

// Standard error of the sample p-quantile from n draws of a distribution with density f at the
// quantile q: sqrt(p (1 - p) / n) / f(q).
double quantileStandardError(double p, double n, double density);

// Draws each host's requests into its histogram (host j from its own stream `streams[j]`).
// Polls `control` every few thousand draws, reporting progress moving from `progress_from` to
// `progress_to`; returns false if it asked to stop.
bool sampleFleet(const Fleet& fleet, const std::vector<std::int64_t>& requests,
                 std::vector<Rng>& streams, std::vector<HdrHistogram>& hosts, RunControl& control,
                 double progress_from, double progress_to);

}  // namespace taillab::avg
