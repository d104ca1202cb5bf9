// hashRawText: pinned values, and the quality a memo key needs (no collisions over a few hundred
// thousand distinct strings, strict avalanche at every length class).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/rng.h"
#include "gateway/compiler.h"
#include "query_grammar.h"

namespace taillab::gateway {
namespace {

// Pinned values: the memo keyed by this hash may outlive a build, so any change to the function
// must show up here.
TEST(GatewayCompilerRawHash, IsStableAcrossBuildsAndPlatforms) {
    EXPECT_EQ(hashRawText(""), 0x122870b82aba0b15ULL);
    EXPECT_EQ(hashRawText("a"), 0x4b26367d8754be2dULL);
    EXPECT_EQ(hashRawText("rust async"), 0xd4ec6cec5045ed55ULL);
    EXPECT_EQ(hashRawText("How do I reverse a linked list in Python"), 0x06aba51bda755c5bULL);
    EXPECT_EQ(hashRawText(std::string(100, 'x')), 0xf12fca2bfb689eadULL);
}

TEST(GatewayCompilerRawHash, ReadsOnlyTheBytesOfTheView) {
    Rng rng(7, "test/gateway/raw-hash-view");
    for (std::size_t n = 0; n <= 80; ++n) {
        const std::string text = randomBytes(rng, n);
        const std::uint64_t h = hashRawText(text);
        for (int k = 0; k < 4; ++k) {
            const std::string padded = randomBytes(rng, 8) + text + randomBytes(rng, 24);
            ASSERT_EQ(hashRawText(std::string_view(padded).substr(8, n)), h) << n;
        }
    }
}

// Over 300,000 distinct strings (sequential, near-identical, all-zero of every length, random of
// every length up to 120): no 64-bit collision, and each 32-bit half collides about as often as
// a random function's would (n^2 / 2^33, about 11 here).
TEST(GatewayCompilerRawHash, DistinctStringsDoNotCollide) {
    std::vector<std::string> texts;
    for (int i = 0; i < 100000; ++i) texts.push_back("query number " + std::to_string(i));
    const std::string base(48, 'q');
    for (std::size_t at = 0; at < base.size(); ++at)
        for (int c = 0; c < 256; ++c) {
            texts.push_back(base);
            texts.back()[at] = static_cast<char>(c);
        }
    for (std::size_t n = 0; n <= 200; ++n) texts.emplace_back(n, '\0');
    Rng rng(11, "test/gateway/raw-hash-collisions");
    while (texts.size() < 320000)
        texts.push_back(randomBytes(rng, rng.below(121), 1 + rng.below(256)));
    std::sort(texts.begin(), texts.end());
    texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
    ASSERT_GT(texts.size(), 300000u);

    std::vector<std::uint64_t> hashes;
    for (const std::string& s : texts) hashes.push_back(hashRawText(s));
    const auto collisions = [&](auto part) {
        std::vector<std::uint64_t> values;
        for (std::uint64_t h : hashes) values.push_back(part(h));
        std::sort(values.begin(), values.end());
        return values.size() -
               static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
    };
    EXPECT_EQ(collisions([](std::uint64_t h) { return h; }), 0u);
    EXPECT_LT(collisions([](std::uint64_t h) { return h & 0xffffffffu; }), 40u);
    EXPECT_LT(collisions([](std::uint64_t h) { return h >> 32; }), 40u);
}

// Strict avalanche: flipping any one input bit flips each output bit with probability 1/2, for
// every length class the function reads differently (1-3, 4-7, 8-16, one round and more).
TEST(GatewayCompilerRawHash, EveryInputBitFlipsHalfTheOutputBits) {
    Rng rng(13, "test/gateway/raw-hash-avalanche");
    for (std::size_t n : {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 64, 100}) {
        std::array<std::uint64_t, 64> flips_per_bit{};
        std::uint64_t trials = 0, flips = 0;
        for (int k = 0; k < 300; ++k) {
            std::string s = randomBytes(rng, n, k % 2 == 0 ? 128 : 256);
            const std::uint64_t h = hashRawText(s);
            for (std::size_t bit = 0; bit < 8 * n; ++bit) {
                s[bit / 8] = static_cast<char>(s[bit / 8] ^ (1 << (bit % 8)));
                const std::uint64_t diff = h ^ hashRawText(s);
                s[bit / 8] = static_cast<char>(s[bit / 8] ^ (1 << (bit % 8)));
                ++trials;
                flips += std::popcount(diff);
                for (int out = 0; out < 64; ++out) flips_per_bit[out] += (diff >> out) & 1;
            }
        }
        // Five standard deviations of a fair coin's estimate over this many trials.
        const double t = static_cast<double>(trials);
        EXPECT_NEAR(static_cast<double>(flips) / t, 32.0, 5 * 4 / std::sqrt(t)) << n;
        for (int out = 0; out < 64; ++out)
            EXPECT_NEAR(static_cast<double>(flips_per_bit[out]) / t, 0.5, 5 * 0.5 / std::sqrt(t))
                << "length " << n << ", output bit " << out;
    }
}

TEST(GatewayCompilerRawHash, LengthIsPartOfTheHash) {
    std::unordered_set<std::uint64_t> hashes;
    for (std::size_t n = 0; n <= 64; ++n) {
        EXPECT_TRUE(hashes.insert(hashRawText(std::string(n, '\0'))).second) << n;
        if (n > 0) {
            EXPECT_TRUE(hashes.insert(hashRawText(std::string(n, ' '))).second) << n;
        }
    }
}

TEST(GatewayCompilerTextHash, PiecesHashAsTheWhole) {
    const std::string text = "the quick brown fox \xc3\xa9 jumps over 13 lazy dogs";
    for (std::size_t cut = 0; cut <= text.size(); ++cut)
        EXPECT_EQ(TextHash().add(text.substr(0, cut)).add(text.substr(cut)).value(), hashText(text)) << cut;
    std::string le(8, '\0');
    for (int i = 0; i < 8; ++i) le[static_cast<std::size_t>(i)] = static_cast<char>(0x1122334455667788ull >> (8 * i));
    EXPECT_EQ(TextHash().addLe64(0x1122334455667788ull).value(), hashText(le));
    EXPECT_EQ(TextHash().value(), hashText(""));
}

}  // namespace
}  // namespace taillab::gateway
