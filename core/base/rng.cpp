#include "base/rng.h"

#include <cmath>

namespace taillab {
std::uint64_t hashName(std::string_view name) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : name) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

Rng::Rng(std::uint64_t seed, std::string_view name) : Rng(seed ^ rotl(hashName(name), 29)) {}

Rng Rng::fork(std::string_view name) const {
    // Mix this stream's state (not its position-dependent output) with the child's name.
    return Rng(s_[0] ^ rotl(s_[2], 17) ^ hashName(name));
}

double Rng::exponential(double mean) { return -mean * std::log(uniformOpen()); }

double Rng::normal() {
    if (hasSpare_) {
        hasSpare_ = false;
        return spare_;
    }
    double u, v, s;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double m = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * m;
    hasSpare_ = true;
    return u * m;
}

}  // namespace taillab
