// The gateway's stage mechanisms (core/gateway/stages.h), each driven with explicit `now` values,
// and seed 000's week of hourly counts (Workload::weekHours) against the published figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <list>
#include <map>
#include <unordered_map>
#include <numeric>
#include <vector>

#include "gateway/flat_map.h"
#include "gateway_sim/gateway_sim.h"
#include "gateway/lru_map.h"
#include "gateway/adaptive_limit.h"
#include "gateway/cache.h"
#include "gateway/breaker.h"
#include "gateway/hedge_budget.h"
#include "gateway/latency_ewma.h"
#include "gateway/rolling_delay.h"
#include "gateway/token_bucket.h"
#include "base/rng.h"
#include "workload/workload.h"
#include "test_support.h"

namespace taillab::gateway {
namespace {

Time at(double seconds) { return fromSeconds(seconds); }

// ---- TokenBucket ---------------------------------------------------------------------------

TEST(GatewayStagesTokenBucket, BurstThenEmpty) {
    TokenBucket b(5, 2, kZero);
    EXPECT_EQ(b.remaining(kZero), 5);
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(b.take(kZero)) << "token " << i;
    EXPECT_FALSE(b.take(kZero));  // the 429
    EXPECT_FALSE(b.take(kZero));
    EXPECT_EQ(b.remaining(kZero), 0);
}

TEST(GatewayStagesTokenBucket, RetryAfterIsTheTimeToTheNextToken) {
    TokenBucket b(5, 2, kZero);
    EXPECT_EQ(b.retryAfter(kZero), kZero);  // a token is available now
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(b.take(kZero));
    EXPECT_EQ(b.retryAfter(kZero), fromMs(500));    // 1 token at 2 per second
    EXPECT_EQ(b.retryAfter(fromMs(250)), fromMs(250));  // half a token already back
    // One nanosecond early is still a 429; exactly on time succeeds.
    EXPECT_FALSE(b.take(fromMs(500) - Duration{1}));
    EXPECT_TRUE(b.take(fromMs(500)));
    EXPECT_FALSE(b.take(fromMs(500)));
}

// A client that waits exactly Retry-After must get its token, also when the rate does not divide
// a second into whole nanoseconds (with 3 tokens/s, a Retry-After rounded to the nearest
// nanosecond, 333333333 ns, would bring back only 0.999999999 tokens: a 429 again).
TEST(GatewayStagesTokenBucket, TakeSucceedsExactlyAtRetryAfterForAnyRate) {
    for (double rate : {2.0, 3.0, 7.0, 0.3, 1e3 / 7}) {
        TokenBucket b(1, rate, kZero);
        ASSERT_TRUE(b.take(kZero));
        const Duration wait = b.retryAfter(kZero);
        EXPECT_GT(wait, kZero);
        EXPECT_NEAR(toSeconds(wait), 1.0 / rate, 2e-9) << "rate " << rate;
        EXPECT_TRUE(b.take(wait)) << "rate " << rate << ": 429 again at exactly Retry-After";
        EXPECT_FALSE(b.take(wait)) << "rate " << rate;
        // Well before it, still a 429.
        TokenBucket early(1, rate, kZero);
        ASSERT_TRUE(early.take(kZero));
        EXPECT_FALSE(early.take(wait - wait / 1000)) << "rate " << rate;
    }
}

// X-RateLimit-Reset: at now + resetIn the bucket reports itself full.
// (resetIn rounds up, as retryAfter does; this test found it rounding to nearest.)
TEST(GatewayStagesTokenBucket, FullExactlyAtResetForAnyRate) {
    for (double rate : {2.0, 3.0, 7.0, 0.3, 1e3 / 7}) {
        TokenBucket b(4, rate, kZero);
        for (int i = 0; i < 4; ++i) ASSERT_TRUE(b.take(kZero));
        const Duration reset = b.resetIn(kZero);
        EXPECT_NEAR(toSeconds(reset), 4.0 / rate, 2e-9) << "rate " << rate;
        EXPECT_EQ(b.remaining(reset), 4) << "rate " << rate << ": not full at the reset time";
        EXPECT_EQ(b.resetIn(reset), kZero) << "rate " << rate;
    }
}

TEST(GatewayStagesTokenBucket, ResetInAndRefill) {
    TokenBucket b(10, 4, kZero);
    EXPECT_EQ(b.resetIn(kZero), kZero);  // full
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(b.take(kZero));
    EXPECT_EQ(b.resetIn(kZero), fromMs(2500));   // 10 tokens at 4 per second
    EXPECT_EQ(b.resetIn(fromMs(1000)), fromMs(1500));
    EXPECT_EQ(b.remaining(fromMs(1000)), 4);
    EXPECT_EQ(b.remaining(fromMs(1100)), 4);  // 4.4 tokens: whole ones only
    EXPECT_EQ(b.remaining(fromMs(1250)), 5);
    // Refill stops at the capacity.
    EXPECT_EQ(b.remaining(at(100)), 10);
    EXPECT_EQ(b.resetIn(at(100)), kZero);
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.take(at(100)));
    EXPECT_FALSE(b.take(at(100)));
    EXPECT_DOUBLE_EQ(b.capacity(), 10);
}

TEST(GatewayStagesTokenBucket, SteadyRateAdmitsTheRefillRate) {
    // Asking every 100 ms (10/s) against 2/s with burst 5: over 10 s exactly 5 + 2*10 = 25 pass.
    TokenBucket b(5, 2, kZero);
    int granted = 0;
    for (int i = 0; i <= 100; ++i) granted += b.take(fromMs(100.0 * i)) ? 1 : 0;
    EXPECT_EQ(granted, 25);
}

// ---- Cache ---------------------------------------------------------------------------------

// A stale copy in one instance's L1 is not served (nor refreshed again) when another instance's
// refresh has already made L2 fresh: the fresh answer is one tier away. With L2 stale too, the
// L1 copy is served stale, as before.
TEST(GatewayStagesCache, AStaleL1CopyGivesWayToAFreshL2) {
    GatewayConfig c;
    c.instances = 2;
    Cache cache(c);
    const auto first = std::make_shared<const RankedResults>(RankedResults::copyOf({}));
    const auto second = std::make_shared<const RankedResults>(RankedResults::copyOf({}));
    const std::uint64_t key = 42;
    const QueryClass cls = QueryClass::Navigational;  // fresh 6 h, then stale for 1 h
    const Time hour = fromSeconds(3600);
    cache.write(Time{}, Region::EU, 0, key, cls, first);
    EXPECT_TRUE(cache.lookup(fromSeconds(1), Region::EU, 1, key, cls).hit);  // into instance 1's L1
    // 6.5 h on, both copies are stale; instance 1 serves its own, stale.
    Cache::Lookup l = cache.lookup(6 * hour + hour / 2, Region::EU, 1, key, cls);
    EXPECT_TRUE(l.hit);
    EXPECT_TRUE(l.stale);
    // Instance 0's refresh lands: its L1 and L2 are fresh. Instance 1 now gets the fresh answer.
    cache.write(6 * hour + hour / 2, Region::EU, 0, key, cls, second);
    l = cache.lookup(6 * hour + hour / 2 + fromSeconds(1), Region::EU, 1, key, cls);
    EXPECT_TRUE(l.hit);
    EXPECT_FALSE(l.stale);
    EXPECT_TRUE(l.consulted_l2);
    EXPECT_EQ(&cache.answer(l.answer), second.get());
}

// ---- AdaptiveLimit -------------------------------------------------------------------------

TEST(GatewayStagesAdaptiveLimit, GradientRuleByHand) {
    // limit * clamp(minRtt / sampleRtt, 0.5, 1) + sqrt(limit), rounded, clamped to [min, max].
    EXPECT_EQ(AdaptiveLimit::nextLimit(100, 100, 100, 1, 1000), 110);  // 100 + 10
    EXPECT_EQ(AdaptiveLimit::nextLimit(100, 80, 100, 1, 1000), 90);    // 80 + 10
    EXPECT_EQ(AdaptiveLimit::nextLimit(100, 50, 200, 1, 1000), 60);    // 0.25 -> 0.5: 50 + 10
    EXPECT_EQ(AdaptiveLimit::nextLimit(100, 10, 1000, 1, 1000), 60);   // 0.01 -> 0.5
    EXPECT_EQ(AdaptiveLimit::nextLimit(100, 200, 100, 1, 1000), 110);  // 2 -> 1
    EXPECT_EQ(AdaptiveLimit::nextLimit(16, 1, 2, 1, 1000), 12);        // 8 + 4
    // Rounding: 50 + 7.07 -> 57; 9 * 0.5 + 3 = 7.5 -> 8 (half away from zero); 4.5+2.83 -> 7.
    EXPECT_EQ(AdaptiveLimit::nextLimit(50, 1, 1, 1, 1000), 57);
    EXPECT_EQ(AdaptiveLimit::nextLimit(9, 1, 2, 1, 1000), 8);
    EXPECT_EQ(AdaptiveLimit::nextLimit(8, 1, 2, 1, 1000), 7);   // 4 + 2.83 = 6.83 -> 7
    EXPECT_EQ(AdaptiveLimit::nextLimit(2, 1, 1, 1, 1000), 3);   // 2 + 1.41 = 3.41 -> 3
    // Clamps.
    EXPECT_EQ(AdaptiveLimit::nextLimit(195, 1, 1, 10, 200), 200);  // 208.96 -> max
    EXPECT_EQ(AdaptiveLimit::nextLimit(10, 1, 2, 10, 200), 10);    // 5 + 3.16 = 8.16 -> min
    EXPECT_EQ(AdaptiveLimit::nextLimit(10, 1, 2, 1, 200), 8);
}

// One 250 ms window [k * 250 ms, (k + 1) * 250 ms) with `n` samples of `latencyMs`.
void feedWindow(AdaptiveLimit& a, int k, int n, double latencyMs) {
    for (int i = 0; i < n; ++i)
        a.onSample(fromMs(250.0 * k + 240.0 * i / n), fromMs(latencyMs));
}

AdaptiveLimit::Config limitConfig() {
    AdaptiveLimit::Config c;
    c.min_limit = 10;
    c.max_limit = 1000;
    c.initial = 100;
    c.interval = fromMs(250);
    c.min_samples = 20;
    c.baseline_windows = 40;
    c.tolerance = 1.0;  // the seed's rule as written; the tolerance has its own test
    return c;
}

TEST(GatewayStagesAdaptiveLimit, GrowsBySqrtLimitPerWindowAtBaseline) {
    AdaptiveLimit a(limitConfig());
    EXPECT_EQ(a.limit(), 100);
    int expected = 100;
    for (int k = 0; k < 8; ++k) {
        feedWindow(a, k, 25, 100);
        a.advance(fromMs(250.0 * (k + 1)));  // the window closes
        const int grown = expected + static_cast<int>(std::lround(std::sqrt(expected)));
        EXPECT_EQ(a.limit(), grown) << "window " << k;
        EXPECT_GE(a.limit() - expected, static_cast<int>(std::floor(std::sqrt(expected))));
        EXPECT_LE(a.limit() - expected, static_cast<int>(std::ceil(std::sqrt(expected))));
        expected = grown;
        EXPECT_EQ(a.updates(), static_cast<std::uint64_t>(k + 1));
    }
}

// The baseline is the lowest p90 of the last baseline_windows windows, whichever they are: a low
// window after the first 40 counts (the ring was written over 64 places and read over 40, so
// windows 40 to 63 never entered the baseline).
TEST(GatewayStagesAdaptiveLimit, ALowWindowAfterTheFirstFortyEntersTheBaseline) {
    AdaptiveLimit a(limitConfig());
    int k = 0;
    for (; k < 40; ++k) feedWindow(a, k, 25, 200);
    feedWindow(a, k++, 25, 100);  // the 41st window: the lowest yet
    feedWindow(a, k++, 25, 200);
    a.advance(fromMs(250.0 * k));  // closes the 41st window, then the 42nd
    const int before = a.limit();
    feedWindow(a, k++, 25, 200);
    a.advance(fromMs(250.0 * k));
    // Against a baseline of 100 ms a 200 ms window halves the limit (gradient 0.5), plus sqrt.
    EXPECT_EQ(a.limit(), AdaptiveLimit::nextLimit(before, 100, 200, 10, 1000));
    EXPECT_LT(a.limit(), before);
}

TEST(GatewayStagesAdaptiveLimit, ShrinksWhenTheWindowP90Rises) {
    AdaptiveLimit a(limitConfig());
    for (int k = 0; k < 5; ++k) {
        feedWindow(a, k, 25, 100);
        a.advance(fromMs(250.0 * (k + 1)));
    }
    const int before = a.limit();
    ASSERT_GT(before, 100);
    // Queueing: latencies rise to 125 ms; gradient 100 / 125 = 0.8.
    feedWindow(a, 5, 25, 125);
    a.advance(fromMs(250.0 * 6));
    const int afterMild = a.limit();
    EXPECT_EQ(afterMild, AdaptiveLimit::nextLimit(before, 100, 125, 10, 1000));
    EXPECT_LT(afterMild, before);
    // Heavy queueing: 400 ms, gradient 0.25 clamped to 0.5.
    feedWindow(a, 6, 25, 400);
    a.advance(fromMs(250.0 * 7));
    EXPECT_EQ(a.limit(), static_cast<int>(std::lround(afterMild * 0.5 + std::sqrt(afterMild))));
    // Back to baseline: it grows again.
    const int low = a.limit();
    feedWindow(a, 7, 25, 100);
    a.advance(fromMs(250.0 * 8));
    EXPECT_GT(a.limit(), low);
}

TEST(GatewayStagesAdaptiveLimit, ToleranceIgnoresRisesBelowItsFactor) {
    AdaptiveLimit::Config c = limitConfig();
    c.tolerance = 2.0;
    AdaptiveLimit a(c);
    feedWindow(a, 0, 25, 100);
    a.advance(fromMs(250));
    const int l0 = a.limit();
    // 1.8x the baseline p90: within the tolerance, so the limit still grows by sqrt(limit).
    feedWindow(a, 1, 25, 180);
    a.advance(fromMs(500));
    const int l1 = a.limit();
    EXPECT_EQ(l1, AdaptiveLimit::nextLimit(l0, 200, 180, 10, 1000));
    EXPECT_GT(l1, l0);
    // 3x: gradient 200 / 300, the limit shrinks.
    feedWindow(a, 2, 25, 300);
    a.advance(fromMs(750));
    EXPECT_EQ(a.limit(), AdaptiveLimit::nextLimit(l1, 200, 300, 10, 1000));
    EXPECT_LT(a.limit(), l1);
}

TEST(GatewayStagesAdaptiveLimit, SampleRttIsTheWindowP90) {
    // 20 samples: 18 at 100 ms and 2 at 500 ms. p90 is the 18th of 20 (index 17): 100 ms, no
    // shrink. With 4 at 500 ms the 18th is 500 ms: gradient clamped to 0.5.
    AdaptiveLimit a(limitConfig());
    feedWindow(a, 0, 20, 100);
    a.advance(fromMs(250));
    const int l0 = a.limit();
    for (int i = 0; i < 20; ++i) a.onSample(fromMs(250 + 10.0 * i), fromMs(i < 18 ? 100 : 500));
    a.advance(fromMs(500));
    const int l1 = a.limit();
    EXPECT_EQ(l1, AdaptiveLimit::nextLimit(l0, 100, 100, 10, 1000));
    for (int i = 0; i < 20; ++i) a.onSample(fromMs(500 + 10.0 * i), fromMs(i < 16 ? 100 : 500));
    a.advance(fromMs(750));
    EXPECT_EQ(a.limit(), AdaptiveLimit::nextLimit(l1, 100, 500, 10, 1000));
    EXPECT_LT(a.limit(), l1);
}

TEST(GatewayStagesAdaptiveLimit, QuietWindowsDoNotUpdateAndCarryOver) {
    AdaptiveLimit a(limitConfig());
    feedWindow(a, 0, 19, 100);  // one short of min_samples
    a.advance(fromMs(250));
    EXPECT_EQ(a.updates(), 0u);
    EXPECT_EQ(a.limit(), 100);
    // Empty windows change nothing either.
    a.advance(at(10));
    EXPECT_EQ(a.updates(), 0u);
    EXPECT_EQ(a.limit(), 100);
    // The 19 samples were merged into the next window: one more sample makes 20.
    a.onSample(at(10) + fromMs(10), fromMs(100));
    a.advance(at(10) + fromMs(250));
    EXPECT_EQ(a.updates(), 1u);
    EXPECT_EQ(a.limit(), 110);
}

TEST(GatewayStagesAdaptiveLimit, SetBoundsClampsTheLimit) {
    AdaptiveLimit a(limitConfig());
    a.setBounds(10, 60);
    EXPECT_EQ(a.limit(), 60);
    for (int k = 0; k < 5; ++k) {
        feedWindow(a, k, 25, 100);
        a.advance(fromMs(250.0 * (k + 1)));
        EXPECT_LE(a.limit(), 60);
    }
    a.setBounds(80, 90);
    EXPECT_EQ(a.limit(), 80);
}

// ---- Breaker -------------------------------------------------------------------------------

Breaker::Config breakerConfig() {
    Breaker::Config c;
    c.threshold = 0.8;
    c.min_samples = 50;
    c.window = fromSeconds(10);
    c.open_for = fromSeconds(5);
    c.probe_fraction = 0.05;
    c.close_after = 3;
    return c;
}

TEST(GatewayStagesBreaker, StaysClosedBelowMinSamplesEvenAtZeroValid) {
    Breaker b(breakerConfig());
    for (int i = 0; i < 49; ++i) b.record(fromMs(10.0 * i), false);
    EXPECT_EQ(b.state(fromMs(500)), BreakerState::Closed);
    EXPECT_TRUE(b.admits(fromMs(500), 0.999));
    EXPECT_FALSE(b.takeChange(nullptr));
    b.record(fromMs(500), false);  // the 50th
    EXPECT_EQ(b.state(fromMs(500)), BreakerState::Open);
}

TEST(GatewayStagesBreaker, OpensWhenTheValidRateFallsBelowTheThreshold) {
    Breaker b(breakerConfig());
    for (int i = 0; i < 40; ++i) b.record(fromMs(10.0 * i), true);
    for (int i = 0; i < 10; ++i) b.record(fromMs(400 + 10.0 * i), false);
    // 40 of 50 valid: exactly at the threshold, not below it.
    EXPECT_EQ(b.state(fromMs(500)), BreakerState::Closed);
    b.record(fromMs(510), false);  // 40 of 51
    EXPECT_EQ(b.state(fromMs(510)), BreakerState::Open);
    EXPECT_FALSE(b.admits(fromMs(510), 0.0));
    Time t{};
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, fromMs(510));
    EXPECT_FALSE(b.takeChange(&t));
}

TEST(GatewayStagesBreaker, OldSamplesLeaveTheWindow) {
    {
        Breaker b(breakerConfig());
        for (int i = 0; i < 45; ++i) b.record(fromMs(10.0 * i), false);
        // 9.5 s later the first 45 are still in the 10 s window: 50 invalid, open.
        for (int i = 0; i < 5; ++i) b.record(fromMs(9500 + 10.0 * i), false);
        EXPECT_EQ(b.state(at(9.6)), BreakerState::Open);
    }
    {
        Breaker b(breakerConfig());
        for (int i = 0; i < 45; ++i) b.record(fromMs(10.0 * i), false);
        // 10.5 s later they have left it: only the 45 new ones count, still closed.
        for (int i = 0; i < 45; ++i) b.record(fromMs(10500 + 10.0 * i), false);
        EXPECT_EQ(b.state(at(11)), BreakerState::Closed);
        b.record(at(11), false);
        b.record(at(11), false);
        b.record(at(11), false);
        b.record(at(11), false);
        b.record(at(11), false);  // now 50 in the window
        EXPECT_EQ(b.state(at(11)), BreakerState::Open);
    }
}

// Opens a breaker at `t` (50 invalid calls at t).
void openAt(Breaker& b, Time t) {
    for (int i = 0; i < 50; ++i) b.record(t, false);
    ASSERT_EQ(b.state(t), BreakerState::Open);
}

TEST(GatewayStagesBreaker, HalfOpenAfterOpenForThenProbes) {
    Breaker b(breakerConfig());
    openAt(b, at(20));
    Time t{};
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(20));
    EXPECT_EQ(b.state(at(25) - Duration{1}), BreakerState::Open);
    EXPECT_FALSE(b.admits(at(24.9), 0.0));
    EXPECT_FALSE(b.takeChange(&t));
    // Queried late (at 27 s): half-open, and the change is dated when it happened (25 s).
    EXPECT_EQ(b.state(at(27)), BreakerState::HalfOpen);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(25));
    EXPECT_FALSE(b.takeChange(&t));
    // The probe lottery: u < probe_fraction.
    EXPECT_TRUE(b.admits(at(27), 0.0));
    EXPECT_TRUE(b.admits(at(27), 0.0499));
    EXPECT_FALSE(b.admits(at(27), 0.05));
    EXPECT_FALSE(b.admits(at(27), 0.7));
    int admitted = 0;
    for (int i = 0; i < 1000; ++i) admitted += b.admits(at(27), (i + 0.5) / 1000) ? 1 : 0;
    EXPECT_EQ(admitted, 50);
    // close_after = 3 valid probes close it.
    b.record(at(27), true);
    b.record(at(27.1), true);
    EXPECT_EQ(b.state(at(27.1)), BreakerState::HalfOpen);
    EXPECT_FALSE(b.takeChange(&t));
    b.record(at(27.2), true);
    EXPECT_EQ(b.state(at(27.2)), BreakerState::Closed);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(27.2));
    EXPECT_FALSE(b.takeChange(&t));
    EXPECT_TRUE(b.admits(at(27.2), 0.99));
    // Closing cleared the window: 49 failures are below min_samples again.
    for (int i = 0; i < 49; ++i) b.record(at(27.3), false);
    EXPECT_EQ(b.state(at(27.3)), BreakerState::Closed);
}

TEST(GatewayStagesBreaker, FailedProbeReopens) {
    Breaker b(breakerConfig());
    Time t{};
    openAt(b, at(0));
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(0));
    EXPECT_EQ(b.state(at(5)), BreakerState::HalfOpen);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(5));
    b.record(at(5.1), true);
    b.record(at(5.2), true);
    EXPECT_FALSE(b.takeChange(&t));
    b.record(at(5.3), false);  // the third probe fails
    EXPECT_EQ(b.state(at(5.3)), BreakerState::Open);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(5.3));
    EXPECT_FALSE(b.takeChange(&t));
    // Open for another open_for from the failed probe; the probe count starts over.
    EXPECT_EQ(b.state(at(10.3) - Duration{1}), BreakerState::Open);
    EXPECT_FALSE(b.takeChange(&t));
    EXPECT_EQ(b.state(at(10.3)), BreakerState::HalfOpen);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(10.3));
    b.record(at(10.4), true);
    b.record(at(10.5), true);
    EXPECT_EQ(b.state(at(10.5)), BreakerState::HalfOpen);
    EXPECT_FALSE(b.takeChange(&t));
    b.record(at(10.6), true);
    EXPECT_EQ(b.state(at(10.6)), BreakerState::Closed);
    ASSERT_TRUE(b.takeChange(&t));
    EXPECT_EQ(t, at(10.6));
    EXPECT_FALSE(b.takeChange(&t));
}

TEST(GatewayStagesBreaker, StragglersWhileOpenAreIgnored) {
    Breaker b(breakerConfig());
    openAt(b, at(0));
    for (int i = 0; i < 100; ++i) b.record(at(1), true);  // answers of calls sent before
    EXPECT_EQ(b.state(at(4.9)), BreakerState::Open);
    EXPECT_EQ(b.state(at(5)), BreakerState::HalfOpen);
}

// ---- LatencyEwma ---------------------------------------------------------------------------

TEST(GatewayStagesLatencyEwma, EmptyUsesThePrior) {
    LatencyEwma e;
    EXPECT_TRUE(e.empty());
    EXPECT_DOUBLE_EQ(e.ewmaMs(300), 300);
    EXPECT_DOUBLE_EQ(e.success(), 1.0);
}

TEST(GatewayStagesLatencyEwma, HalfLifeDecay) {
    const Duration half = fromSeconds(30);
    LatencyEwma e;
    e.record(at(0), 100, true, half);
    EXPECT_FALSE(e.empty());
    EXPECT_DOUBLE_EQ(e.ewmaMs(0), 100);
    // 30 s later the first sample weighs half the fresh one: (0.5 * 100 + 200) / 1.5.
    e.record(at(30), 200, false, half);
    EXPECT_NEAR(e.ewmaMs(0), 250.0 / 1.5, 1e-9);
    EXPECT_NEAR(e.success(), 0.5 / 1.5, 1e-12);
    // Two samples at one moment weigh the same.
    LatencyEwma same;
    same.record(at(5), 100, true, half);
    same.record(at(5), 300, false, half);
    EXPECT_NEAR(same.ewmaMs(0), 200, 1e-9);
    EXPECT_NEAR(same.success(), 0.5, 1e-12);
    // 60 s: a quarter.
    LatencyEwma q;
    q.record(at(0), 400, true, half);
    q.record(at(60), 100, true, half);
    EXPECT_NEAR(q.ewmaMs(0), (0.25 * 400 + 100) / 1.25, 1e-9);
    EXPECT_NEAR(q.success(), 1.0, 1e-12);
}

TEST(GatewayStagesLatencyEwma, ScoreFormula) {
    // ewma / max(0.05, success) + inflight * ewma * 0.1
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 1.0, 0), 100);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.5, 0), 200);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.5, 2), 220);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(250, 1.0, 4), 350);
    // The success floor: 0.05.
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.0, 0), 2000);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.01, 0), 2000);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.04, 1), 2010);
    EXPECT_DOUBLE_EQ(LatencyEwma::score(100, 0.1, 0), 1000);
}

// ---- RollingDelay --------------------------------------------------------------------------

constexpr double kLo = 120, kHi = 450;
constexpr double kWidth = (kHi - kLo) / RollingDelay::kBuckets;

TEST(GatewayStagesRollingDelay, NoSamplesGivesTheUpperClamp) {
    RollingDelay d(kLo, kHi, 90);
    EXPECT_DOUBLE_EQ(d.delayMs(at(0)), kHi);
    EXPECT_EQ(d.samples(), 0);
}

TEST(GatewayStagesRollingDelay, P90OfAKnownSetWithinOneBucket) {
    RollingDelay d(kLo, kHi, 90);
    EXPECT_DOUBLE_EQ(d.delayMs(at(0)), kHi);  // refreshed at 0; next refresh at 10 s
    // 100 samples 200, 201, ..., 299 ms within the first slice: p90 (nearest rank) is 289.
    for (int i = 0; i < 100; ++i) d.record(at(0.05 * i), 200.0 + ((i * 37) % 100));
    EXPECT_EQ(d.samples(), 100);
    // Not refreshed before the slice ends: the new samples are not seen yet.
    EXPECT_DOUBLE_EQ(d.delayMs(at(9.99)), kHi);
    const double p90 = d.delayMs(at(10));
    EXPECT_NEAR(p90, 289, kWidth);
    // p50 of the same set is 249 (or 250).
    RollingDelay m(kLo, kHi, 50);
    for (int i = 0; i < 100; ++i) m.record(at(0.05 * i), 200.0 + i);
    EXPECT_NEAR(m.delayMs(at(6)), 249.5, 0.5 + kWidth);
}

TEST(GatewayStagesRollingDelay, ClampsToTheRange) {
    RollingDelay low(kLo, kHi, 90);
    for (int i = 0; i < 50; ++i) low.record(at(1), 30);
    EXPECT_DOUBLE_EQ(low.delayMs(at(2)), kLo);
    RollingDelay high(kLo, kHi, 90);
    for (int i = 0; i < 50; ++i) high.record(at(1), 2000);
    EXPECT_DOUBLE_EQ(high.delayMs(at(2)), kHi);
    // Nine in ten fast, one in ten very slow: p90 sits inside the range.
    RollingDelay mix(kLo, kHi, 90);
    for (int i = 0; i < 100; ++i) mix.record(at(1), i < 90 ? 200 : 5000);
    const double v = mix.delayMs(at(2));
    EXPECT_GE(v, kLo);
    EXPECT_LE(v, kHi);
    EXPECT_NEAR(v, 200, kWidth);
}

TEST(GatewayStagesRollingDelay, RefreshAtMostOncePerSlice) {
    RollingDelay d(kLo, kHi, 90);
    for (int i = 0; i < 100; ++i) d.record(at(1), 200);
    const double first = d.delayMs(at(2));  // refresh at 2 s; next at 12 s
    EXPECT_NEAR(first, 200, kWidth);
    for (int i = 0; i < 1000; ++i) d.record(at(3), 400);
    EXPECT_DOUBLE_EQ(d.delayMs(at(5)), first);
    EXPECT_DOUBLE_EQ(d.delayMs(at(12) - Duration{1}), first);
    EXPECT_NEAR(d.delayMs(at(12)), 400, kWidth);
}

TEST(GatewayStagesRollingDelay, SamplesOlderThanSixtySecondsLeave) {
    RollingDelay d(kLo, kHi, 90);
    for (int i = 0; i < 100; ++i) d.record(at(1 + 0.05 * i), 400);   // slice [0, 10)
    for (int i = 0; i < 100; ++i) d.record(at(31 + 0.05 * i), 200);  // slice [30, 40)
    EXPECT_NEAR(d.delayMs(at(50)), 400, kWidth);  // both in the window; p90 is a 400
    EXPECT_EQ(d.samples(), 200);
    EXPECT_NEAR(d.delayMs(at(70)), 200, kWidth);  // the 400s are over 60 s old
    EXPECT_EQ(d.samples(), 100);
    EXPECT_DOUBLE_EQ(d.delayMs(at(100)), kHi);    // all gone: the upper clamp again
    EXPECT_EQ(d.samples(), 0);
}

// The delay against the raw samples: at random times (bursts, quiet stretches, gaps longer
// than the window), with latencies under, inside and over the clamp range, each refresh must
// equal the percentile of the samples in the six slices up to now, taken the same way (the
// sample at the percentile's rank counted from the slowest, reported at its bucket's lower edge).
TEST(GatewayStagesRollingDelay, EveryRefreshIsThePercentileOfTheWindowsRawSamples) {
    constexpr double kLoMs = 120, kHiMs = 450;
    constexpr int kBuckets = RollingDelay::kBuckets;
    for (const double pct : {50.0, 90.0, 99.0}) {
        RollingDelay d(kLoMs, kHiMs, pct);
        std::vector<std::pair<std::int64_t, double>> samples;  // (slice index, ms)
        Rng rng(static_cast<std::uint64_t>(pct), "rolling_delay_test");
        double t = 0;
        int refreshes = 0;
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t gap = rng.below(100);
            t += gap < 90 ? rng.uniform() * 0.5 : gap < 99 ? rng.uniform() * 15 : 40 + rng.uniform() * 60;
            const double ms = rng.uniform() * 600;
            d.record(at(t), ms);
            samples.emplace_back(static_cast<std::int64_t>(std::floor(t / 10)), ms);
            if (i % 50 != 49) continue;
            t += 10;  // a refresh is due at most once per slice: step past it
            const double got = d.delayMs(at(t));
            const auto slice = static_cast<std::int64_t>(std::floor(t / 10));
            std::vector<int> buckets;
            for (const auto& [s, v] : samples) {
                if (s <= slice - RollingDelay::kSlices) continue;
                buckets.push_back(v < kLoMs   ? 0
                                  : v >= kHiMs ? kBuckets + 1
                                               : 1 + std::min(kBuckets - 1,
                                                              static_cast<int>((v - kLoMs) / (kHiMs - kLoMs) *
                                                                               kBuckets)));
            }
            ASSERT_EQ(d.samples(), static_cast<std::int64_t>(buckets.size())) << "at " << t;
            if (buckets.empty()) {
                EXPECT_DOUBLE_EQ(got, kHiMs);
                continue;
            }
            std::sort(buckets.begin(), buckets.end(), std::greater<>());
            const auto n = static_cast<std::int64_t>(buckets.size());
            const std::int64_t above = n - std::max<std::int64_t>(1, std::llround(pct / 100.0 * n));
            const int b = buckets[static_cast<std::size_t>(above)];
            const double want = b == kBuckets + 1 ? kHiMs : b == 0 ? kLoMs : kLoMs + (kHiMs - kLoMs) * b / kBuckets;
            ASSERT_DOUBLE_EQ(got, want) << "p" << pct << " at " << t << " over " << n << " samples";
            ++refreshes;
        }
        EXPECT_GT(refreshes, 300) << "p" << pct;
    }
}

// ---- HedgeBudget ---------------------------------------------------------------------------

TEST(GatewayStagesHedgeBudget, CreditsAFractionPerPrimary) {
    HedgeBudget b(0.15, 10);
    EXPECT_DOUBLE_EQ(b.level(), 1.0);
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.take()) << i;
    EXPECT_FALSE(b.take());  // empty
    EXPECT_DOUBLE_EQ(b.level(), 0.0);
    for (int i = 0; i < 6; ++i) b.onPrimary();  // 0.9 tokens
    EXPECT_FALSE(b.take());
    b.onPrimary();  // 1.05
    EXPECT_TRUE(b.take());
    EXPECT_FALSE(b.take());
    // Over many primaries, hedges never exceed fraction x primaries (+ what was left).
    HedgeBudget c(0.15, 10);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(c.take());
    int hedges = 0;
    for (int i = 0; i < 1000; ++i) {
        c.onPrimary();
        hedges += c.take() ? 1 : 0;
    }
    EXPECT_LE(hedges, 150);
    EXPECT_GE(hedges, 149);
}

TEST(GatewayStagesHedgeBudget, NeverExceedsCapacity) {
    HedgeBudget b(0.5, 4);
    for (int i = 0; i < 1000; ++i) b.onPrimary();
    EXPECT_DOUBLE_EQ(b.level(), 1.0);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(b.take());
    EXPECT_FALSE(b.take());
    b.setFraction(0.0);
    for (int i = 0; i < 100; ++i) b.onPrimary();
    EXPECT_FALSE(b.take());
    // A zero budget allows no hedge at all, not even the burst it starts with.
    HedgeBudget zero(0.0, 10);
    EXPECT_FALSE(zero.take());
    for (int i = 0; i < 100; ++i) zero.onPrimary();
    EXPECT_FALSE(zero.take());
    HedgeBudget none(0.15, 0);
    EXPECT_FALSE(none.take());
    EXPECT_DOUBLE_EQ(none.level(), 0.0);
}

// ---- Workload::weekHours -------------------------------------------------------------------

TEST(GatewayStagesWorkload, WeekHoursMatchThePublishedDays) {
    std::vector<std::int64_t> interactive, batch;
    Workload::weekHours(interactive, batch);
    ASSERT_EQ(interactive.size(), 168u);
    ASSERT_EQ(batch.size(), 168u);
    const nlohmann::json* days = test::publishedAt("gateway_000.week_traffic.days");
    ASSERT_NE(days, nullptr);
    ASSERT_EQ(days->size(), 7u);
    std::int64_t week = 0;
    for (int d = 0; d < 7; ++d) {
        const nlohmann::json& pub = (*days)[static_cast<std::size_t>(d)];
        std::int64_t total = 0;
        int busiest = -1;
        std::int64_t busiestCount = -1;
        for (int h = 0; h < 24; ++h) {
            const auto i = static_cast<std::size_t>(d * 24 + h);
            EXPECT_GE(interactive[i], 0);
            EXPECT_GE(batch[i], 0);
            const std::int64_t n = interactive[i] + batch[i];
            total += n;
            if (n > busiestCount) busiestCount = n, busiest = h;
        }
        week += total;
        SCOPED_TRACE(pub["day"].get<std::string>());
        EXPECT_EQ(total, pub["requests"].get<std::int64_t>());
        EXPECT_EQ(busiest, pub["busiest_hour_utc"].get<int>());
        EXPECT_EQ(busiestCount, pub["busiest_hour_requests"].get<std::int64_t>());
        // The busiest hour is the only one at that count.
        int atMax = 0;
        for (int h = 0; h < 24; ++h)
            atMax += interactive[static_cast<std::size_t>(d * 24 + h)] +
                                 batch[static_cast<std::size_t>(d * 24 + h)] ==
                             busiestCount
                         ? 1
                         : 0;
        EXPECT_EQ(atMax, 1);
    }
    // The table's rows sum to 1,084,001; the seed's text rounds it to 1,084,000.
    EXPECT_EQ(week, 1'084'001);
    const nlohmann::json* text = test::publishedAt("gateway_000.week_traffic.total");
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(text->get<std::int64_t>(), 1'084'000);
}

// Each generated hour holds its interactive and batch counts, every arrival inside the hour, in
// time order (the simulator streams them in that order), over a Tuesday with its 04:00 batch job.
TEST(GatewayStagesWorkload, HoursArriveInTimeOrder) {
    Params p(GatewaySim::knobs());
    p.set("days", 1);
    p.set("start_day", 1);  // Tuesday
    Workload workload(p, 5);
    std::vector<RequestSpec> hour;
    std::int64_t batchSeen = 0;
    for (int h = 0; h < workload.hours(); ++h) {
        hour.clear();
        workload.generateHour(h, hour);
        const auto hh = static_cast<std::size_t>(h);
        ASSERT_EQ(static_cast<std::int64_t>(hour.size()),
                  workload.hourCounts()[hh] + workload.batchCounts()[hh]) << "hour " << h;
        for (std::size_t i = 0; i < hour.size(); ++i) {
            ASSERT_GE(hour[i].at, at(3600.0 * h)) << "hour " << h;
            ASSERT_LT(hour[i].at, at(3600.0 * (h + 1))) << "hour " << h;
            if (i > 0) {
                ASSERT_LE(hour[i - 1].at, hour[i].at) << "hour " << h << " arrival " << i;
            }
            batchSeen += hour[i].batch ? 1 : 0;
        }
    }
    EXPECT_GT(batchSeen, 0);
}

TEST(GatewayStagesWorkload, BatchJobsOnlyOnTheNightPeaks) {
    std::vector<std::int64_t> interactive, batch;
    Workload::weekHours(interactive, batch);
    for (int i = 0; i < 168; ++i) {
        const bool jobHour = i == 24 + 4 || i == 72 + 2;  // Tue 04:00, Thu 02:00
        if (jobHour) {
            EXPECT_GT(batch[static_cast<std::size_t>(i)], 0) << "hour " << i;
        } else {
            EXPECT_EQ(batch[static_cast<std::size_t>(i)], 0) << "hour " << i;
        }
    }
}

// The flat map against std::map over random inserts, overwrites and erases, with clustered keys
// (to exercise probe runs and backward-shift deletion) and key 0 (the empty marker's remap).
TEST(GatewayStagesFlatMap, AgreesWithStdMapUnderRandomOperations) {
    FlatMap<std::uint64_t> flat(4);
    std::map<std::uint64_t, std::uint64_t> ref;
    Rng rng(7, "flat_map_test");
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t key = rng.below(3) == 0 ? rng.below(64) : rng.next();
        switch (rng.below(4)) {
            case 0:
            case 1:
                flat.put(key, static_cast<std::uint64_t>(i));
                ref[key] = static_cast<std::uint64_t>(i);
                break;
            case 2:
                EXPECT_EQ(flat.erase(key), ref.erase(key) == 1);
                break;
            default: {
                const std::uint64_t* v = flat.find(key);
                const auto it = ref.find(key);
                ASSERT_EQ(v != nullptr, it != ref.end()) << "key " << key;
                if (v) {
                    EXPECT_EQ(*v, it->second);
                }
            }
        }
        ASSERT_EQ(flat.size(), ref.size());
    }
    for (const auto& [k, v] : ref) {
        ASSERT_NE(flat.find(k), nullptr) << k;
        EXPECT_EQ(*flat.find(k), v);
    }
    EXPECT_TRUE(flat.insert(0, 5) || flat.find(0) != nullptr);
    EXPECT_FALSE(flat.insert(0, 6));
}

// Capacity is a bound, not an allocation: 64 parts of ten million entries each (the l1_entries
// and instances knobs at their maximum) would need tens of GB up front; holding a few thousand
// entries must cost memory for a few thousand, and still evict exactly at a small capacity.
TEST(GatewayStagesLruMap, MemoryFollowsTheEntriesHeldNotTheCapacity) {
    LruMap<std::uint64_t> big(64, 10'000'000);
    for (std::uint64_t k = 0; k < 5000; ++k) big.put(k % 64, k, k * 3);
    for (std::uint64_t k = 0; k < 5000; ++k) {
        const std::uint64_t* v = big.find(k % 64, k);
        ASSERT_NE(v, nullptr) << k;
        EXPECT_EQ(*v, k * 3);
    }
    EXPECT_EQ(big.find(1, 0), nullptr);  // key 0 lives in part 0 only
    std::size_t held = 0;
    for (std::size_t part = 0; part < 64; ++part) held += big.size(part);
    EXPECT_EQ(held, 5000U);
}

// The log-based LRUs against textbook ones (a list in recency order and an index), over random
// lookups and writes with a skewed key mix, at capacities from 1 (every new key evicts) to ones
// where the log fills with stale records and must compact, with three parts sharing keys (each
// part is its own LRU): the same entries must be present, with the same values, after every
// operation.
TEST(GatewayStagesLruMap, EachPartEvictsExactlyLikeATextbookLru) {
    struct Textbook {
        std::list<std::pair<std::uint64_t, std::uint64_t>> order;  // front: most recently used
        std::unordered_map<std::uint64_t, std::list<std::pair<std::uint64_t, std::uint64_t>>::iterator>
            where;
        std::uint64_t evictions = 0;
    };
    constexpr std::size_t kParts = 3;
    for (const std::size_t capacity : {std::size_t{1}, std::size_t{3}, std::size_t{50}, std::size_t{700}}) {
        LruMap<std::uint64_t> lru(kParts, capacity);
        std::array<Textbook, kParts> ref;
        Rng rng(11 + capacity, "lru_map_test");
        for (int i = 0; i < 90000; ++i) {
            const std::size_t part = rng.below(kParts);
            Textbook& t = ref[part];
            // Hot keys (used again and again, so the log fills with stale records), a warm range
            // about the capacity's size, and one-offs that push entries out.
            const std::uint64_t r = rng.below(10);
            const std::uint64_t key = r < 4   ? rng.below(capacity / 2 + 1)
                                      : r < 8 ? rng.below(2 * capacity + 1)
                                              : rng.next();
            if (rng.below(2) == 0) {
                const std::uint64_t value = static_cast<std::uint64_t>(i);
                lru.put(part, key, value);
                if (auto it = t.where.find(key); it != t.where.end()) t.order.erase(it->second);
                t.order.emplace_front(key, value);
                t.where[key] = t.order.begin();
                if (t.order.size() > capacity) {
                    t.where.erase(t.order.back().first);
                    t.order.pop_back();
                    ++t.evictions;
                }
            } else {
                const std::uint64_t* v = lru.find(part, key);
                const auto it = t.where.find(key);
                ASSERT_EQ(v != nullptr, it != t.where.end())
                    << "capacity " << capacity << " part " << part << " op " << i;
                if (v) {
                    EXPECT_EQ(*v, it->second->second);
                    t.order.splice(t.order.begin(), t.order, it->second);
                }
            }
            ASSERT_EQ(lru.size(part), t.order.size()) << "capacity " << capacity << " op " << i;
        }
        for (std::size_t part = 0; part < kParts; ++part) {
            EXPECT_GT(ref[part].evictions, 1000U) << "capacity " << capacity;
            // What is left is exactly the textbook's set.
            for (const auto& [k, v] : ref[part].order) {
                const std::uint64_t* got = lru.find(part, k);
                ASSERT_NE(got, nullptr) << k;
                EXPECT_EQ(*got, v);
            }
        }
    }
}

}  // namespace
}  // namespace taillab::gateway
