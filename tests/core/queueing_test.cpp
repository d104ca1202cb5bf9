#include "labs/queueing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace taillab::queueing {
namespace {

TEST(Queueing, Mm1MeanAndQuantilesFollowExponentialResponse) {
    EXPECT_DOUBLE_EQ(mm1MeanResponse(0.5, 1.0), 2.0);
    EXPECT_NEAR(mm1MeanResponse(0.09, 0.1), 100.0, 1e-9);
    EXPECT_NEAR(mm1ResponseQuantile(0.99, 0.9, 1.0), std::log(100.0) / 0.1, 1e-9);
    EXPECT_NEAR(mm1ResponseQuantile(0.5, 0.5, 1.0), std::log(2.0) / 0.5, 1e-12);
    EXPECT_TRUE(std::isinf(mm1MeanResponse(1.0, 1.0)));
}

TEST(Queueing, VarianceConstantTendsToServiceVarianceAtLowLoad) {
    EXPECT_NEAR(mm1MeanVarianceConstant(0.0), 1.0, 1e-12);
    // Grows like (1-ρ)^-4: about 45,900 at ρ = 0.9 (measured about 35,400).
    EXPECT_NEAR(mm1MeanVarianceConstant(0.9), 45'900, 100);
    EXPECT_NEAR(mm1MeanStandardError(0.9, 1.0, 45'900), 1.0, 1e-3);
}

TEST(Queueing, QuantileStandardErrorShrinksWithSampleSize) {
    const double a = mm1QuantileStandardError(0.99, 0.5, 1.0, 10'000);
    const double b = mm1QuantileStandardError(0.99, 0.5, 1.0, 40'000);
    EXPECT_NEAR(a / b, 2.0, 1e-9);
    EXPECT_GT(mm1QuantileStandardError(0.99, 0.9, 1.0, 10'000), a);
}

TEST(Queueing, ErlangCMatchesKnownValues) {
    EXPECT_NEAR(erlangC(1, 0.7), 0.7, 1e-12);        // M/M/1: P(wait) = ρ
    EXPECT_NEAR(erlangC(2, 1.0), 1.0 / 3.0, 1e-12);  // 2 servers, a = 1
    EXPECT_NEAR(mmcMeanResponse(1, 0.5, 1.0), 2.0, 1e-12);
    // Pooling beats separate queues: M/M/2 at ρ = 0.5 vs two M/M/1 at ρ = 0.5.
    EXPECT_LT(mmcMeanResponse(2, 1.0, 1.0), mm1MeanResponse(0.5, 1.0));
    EXPECT_NEAR(mmcMeanResponse(2, 1.0, 1.0), 1.0 + (1.0 / 3.0) / 1.0, 1e-12);
}

TEST(Queueing, SupermarketFixedPointMatchesPublishedPrediction) {
    EXPECT_DOUBLE_EQ(supermarketMeanTime(0.9, 1), 10.0);
    // 1 + λ² + λ⁶ + λ¹⁴ + ... at λ = 0.9: published as 2.61.
    EXPECT_NEAR(supermarketMeanTime(0.9, 2), 2.61406, 1e-5);
    double direct = 0;
    for (int i = 1; i < 12; ++i) direct += std::pow(0.9, (std::pow(3.0, i) - 3.0) / 2.0);
    EXPECT_NEAR(supermarketMeanTime(0.9, 3), direct, 1e-12);
    EXPECT_DOUBLE_EQ(supermarketMeanTime(0.0, 2), 1.0);
    EXPECT_LT(supermarketMeanTime(0.99, 3), supermarketMeanTime(0.99, 2));
}

TEST(Queueing, SupermarketTailIsDoublyExponential) {
    EXPECT_DOUBLE_EQ(supermarketTail(0.9, 2, 0), 1.0);
    EXPECT_NEAR(supermarketTail(0.9, 2, 1), 0.9, 1e-12);
    EXPECT_NEAR(supermarketTail(0.9, 2, 3), std::pow(0.9, 7), 1e-12);
    EXPECT_NEAR(supermarketTail(0.9, 1, 3), std::pow(0.9, 3), 1e-12);
    // Mean time = Σ_i s_i / λ (Little's law on the fixed point).
    double sum = 0;
    for (int i = 1; i < 10; ++i) sum += supermarketTail(0.8, 2, i);
    EXPECT_NEAR(sum / 0.8, supermarketMeanTime(0.8, 2), 1e-12);
}

}  // namespace
}  // namespace taillab::queueing
