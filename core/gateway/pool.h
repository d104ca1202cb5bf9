// A slot from a pool of reusable objects: a freed index when there is one, else a new element at
// the end. A deque keeps references to the other elements valid as the pool grows.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace taillab::gateway {

template <typename T>
std::uint32_t acquireSlot(std::deque<T>& pool, std::vector<std::uint32_t>& freed) {
    if (!freed.empty()) {
        const std::uint32_t i = freed.back();
        freed.pop_back();
        return i;
    }
    pool.emplace_back();
    return static_cast<std::uint32_t>(pool.size() - 1);
}

}  // namespace taillab::gateway
