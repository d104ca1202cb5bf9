// Seeded random-number streams.
//
// Every component draws from its own stream, derived from (run seed, stream name), so adding a
// component or a draw in one place never shifts the draws of another. The generator is
// xoshiro256** (Blackman and Vigna), seeded through SplitMix64; the name is hashed with FNV-1a.
// All transforms to floating point are written here, not taken from <random>, so results are the
// same with every standard library.
#pragma once

#include <cstdint>
#include <string_view>

namespace taillab {

class Rng {
public:
    // A stream for `name` under the run seed `seed`.
    Rng(std::uint64_t seed, std::string_view name);
    explicit Rng(std::uint64_t raw_seed) {
        std::uint64_t state = raw_seed;
        for (auto& word : s_) word = splitmix64(state);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform in (0, 1]: safe to take the log of.
    double uniformOpen() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
    // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, bias below 2^-64 * n).
    std::uint64_t below(std::uint64_t n) {
        __extension__ using U128 = unsigned __int128;
        return static_cast<std::uint64_t>((static_cast<U128>(next()) * n) >> 64);
    }
    bool bernoulli(double p) { return uniform() < p; }
    // Exponential with the given mean.
    double exponential(double mean);
    // Standard normal (Marsaglia polar method; caches the second value).
    double normal();

    // A child stream, independent of this one, for a named sub-component.
    Rng fork(std::string_view name) const;

private:
    static std::uint64_t splitmix64(std::uint64_t& state);
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

// FNV-1a 64-bit hash of a name; stable across platforms.
std::uint64_t hashName(std::string_view name);

// A 64-bit mixer (splitmix64's finalizer): a bijection in which every input bit affects every
// output bit. For hashing keys that are already distinct, and for turning counters into
// well-spread values.
inline std::uint64_t mix64(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

inline std::uint64_t Rng::splitmix64(std::uint64_t& state) {
    return mix64(state += 0x9E3779B97F4A7C15ull);
}

// Randomness per concern and per entity: the key of a stream of draws that belongs to one purpose
// (a stage cost, an upstream call, a routing choice) of one entity (a request, identified by an id
// its driver gives it). It depends only on (seed, id, purpose), never on what else was drawn
// before, so two runs with the same seed draw the same numbers for the same request and purpose
// whatever their knobs: Rng(streamKey(seed, id, purpose)) is that stream. Purposes are small
// integers or name hashes (hashName).
inline std::uint64_t streamKey(std::uint64_t seed, std::uint64_t id, std::uint64_t purpose) {
    return mix64(seed ^ mix64(id ^ mix64(purpose + 0x9E3779B97F4A7C15ull)));
}
// One uniform draw in [0, 1) from a stream key and an index, without building a stream: for the
// many single draws a simulation makes per request (53 bits).
inline double uniformAt(std::uint64_t key, std::uint64_t index) {
    return static_cast<double>(mix64(key + (index + 1) * 0xD1B54A32D192ED03ull) >> 11) * 0x1.0p-53;
}

}  // namespace taillab
