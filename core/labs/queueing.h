// Closed forms of the queueing models the labs check against.
//
//  - M/M/1 (arrival rate λ, service rate μ, ρ = λ/μ < 1): the response (sojourn) time is
//    exponential with rate μ - λ, so its mean is 1/(μ - λ) and its p-quantile -ln(1-p)/(μ - λ).
//    Random routing of Poisson arrivals to c identical FIFO servers splits the stream into c
//    independent Poisson streams, so each server is an M/M/1 queue at the same ρ.
//  - M/M/c (one shared queue): Erlang C gives the probability of waiting; the mean response time
//    is 1/μ + C(c, a)/(cμ - λ) with a = λ/μ.
//  - Supermarket model (Mitzenmacher 2001): n → ∞ FIFO servers of rate 1, arrivals at rate λn,
//    each joining the shortest of d sampled queues. The fraction of queues holding at least i jobs
//    is s_i = λ^((d^i - 1)/(d - 1)) and the mean time in system is
//    T_d(λ) = Σ_{i≥1} λ^((d^i - d)/(d - 1)); d = 1 gives back M/M/1's 1/(1 - λ).
//  - Sampling noise: the sample mean of n consecutive M/M/1 response times has variance close to
//    C(ρ)/(n μ²) for large n (successive customers are correlated, so C grows like (1-ρ)^-4).
//    mm1MeanVarianceConstant() returns an upper bound on C: Daley's (1968) constant for the
//    waiting time, ρ(2 + 5ρ - 4ρ² + ρ³)/(1-ρ)^4, plus 1/(1-ρ)^4 for the service part; 300
//    replications of 200,000 customers at ρ = 0.1..0.9 measured C between 75% and 95% of it.
#pragma once

#include <cstdint>

namespace taillab::queueing {

double mm1MeanResponse(double lambda, double mu);
double mm1ResponseQuantile(double p, double lambda, double mu);
double mm1MeanVarianceConstant(double rho);
// Standard error of the sample p-quantile of n M/M/1 response times (same time unit as 1/μ):
// the i.i.d. standard error sqrt(p(1-p)/n)/f(q), inflated by the correlation factor
// 1.25 · C(ρ)(1-ρ)², which bounded the measured inflation of p99 at ρ = 0.1..0.9.
double mm1QuantileStandardError(double p, double rho, double mu, std::int64_t n);
// Standard error of the sample mean of n M/M/1 response times.
double mm1MeanStandardError(double rho, double mu, std::int64_t n);
// Relaxation time of an M/M/1 queue, 1/(μ(1-√ρ)²): started empty, its distance from the
// stationary distribution decays like exp(-t/τ) (Morse 1955; Abate and Whitt 1987). 2.1 mean
// service times at ρ = 0.1, 34 at 0.7, 380 at 0.9, 1,560 at 0.95.
double mm1RelaxationTime(double rho, double mu);

// Erlang C: probability that an arrival waits in an M/M/c queue with offered load a = λ/μ < c.
double erlangC(int c, double a);
double mmcMeanResponse(int c, double lambda, double mu);

// Supermarket fixed point (μ = 1, 0 ≤ λ < 1, d ≥ 1).
double supermarketMeanTime(double lambda, int d);
// Fraction of queues with at least i jobs in the fixed point.
double supermarketTail(double lambda, int d, int i);

}  // namespace taillab::queueing
