#include "labs/queueing.h"

#include <cmath>
#include <limits>

namespace taillab::queueing {

double mm1MeanResponse(double lambda, double mu) {
    if (lambda >= mu) return std::numeric_limits<double>::infinity();
    return 1.0 / (mu - lambda);
}

double mm1ResponseQuantile(double p, double lambda, double mu) {
    if (lambda >= mu) return std::numeric_limits<double>::infinity();
    return -std::log1p(-p) / (mu - lambda);
}

double mm1MeanVarianceConstant(double rho) {
    const double waiting = rho * (2 + 5 * rho - 4 * rho * rho + rho * rho * rho);
    return (waiting + 1.0) / std::pow(1.0 - rho, 4);
}

double mm1MeanStandardError(double rho, double mu, std::int64_t n) {
    if (n <= 0) return std::numeric_limits<double>::infinity();
    return std::sqrt(mm1MeanVarianceConstant(rho) / static_cast<double>(n)) / mu;
}

double mm1RelaxationTime(double rho, double mu) {
    const double gap = 1.0 - std::sqrt(rho);
    return 1.0 / (mu * gap * gap);
}

double mm1QuantileStandardError(double p, double rho, double mu, std::int64_t n) {
    if (n <= 0) return std::numeric_limits<double>::infinity();
    const double rate = mu * (1.0 - rho);
    const double density = rate * (1.0 - p);  // f(q) of Exp(rate) at its p-quantile
    const double iid = std::sqrt(p * (1.0 - p) / static_cast<double>(n)) / density;
    const double inflation = 1.25 * mm1MeanVarianceConstant(rho) * (1.0 - rho) * (1.0 - rho);
    return iid * std::sqrt(inflation);
}

double erlangC(int c, double a) {
    if (a >= c) return 1.0;
    // Erlang B by its stable recursion, then C from B.
    double b = 1.0;
    for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
    const double rho = a / c;
    return b / (1.0 - rho + rho * b);
}

double mmcMeanResponse(int c, double lambda, double mu) {
    const double a = lambda / mu;
    if (a >= c) return std::numeric_limits<double>::infinity();
    return 1.0 / mu + erlangC(c, a) / (c * mu - lambda);
}

double supermarketMeanTime(double lambda, int d) {
    if (lambda >= 1.0) return std::numeric_limits<double>::infinity();
    if (d <= 1) return 1.0 / (1.0 - lambda);
    if (lambda <= 0.0) return 1.0;
    double sum = 0.0;
    double exponent = 0.0;  // (d^i - d)/(d - 1) for i = 1, 2, ...: 0, d, d + d², ...
    double power = 1.0;     // d^(i-1) · d
    for (int i = 1; i < 64; ++i) {
        const double term = std::pow(lambda, exponent);
        sum += term;
        if (term < 1e-17 * sum) break;
        power *= d;
        exponent += power;
    }
    return sum;
}

double supermarketTail(double lambda, int d, int i) {
    if (i <= 0) return 1.0;
    if (d <= 1) return std::pow(lambda, i);
    const double exponent = (std::pow(static_cast<double>(d), i) - 1.0) / (d - 1.0);
    return std::pow(lambda, exponent);
}

}  // namespace taillab::queueing
