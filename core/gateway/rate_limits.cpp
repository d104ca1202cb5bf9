#include "gateway/rate_limits.h"

#include <cmath>
#include <stdexcept>

#include "gateway/compiler.h"

namespace taillab::gateway {
namespace {
constexpr std::uint32_t kEnd = 0xffffffffu;
}

ApiKeys::ApiKeys(const std::vector<ApiKey>& keys)
    : keys_(keys), index_(keys.size() + 1), sameHash_(keys.size(), kEnd) {
    offsets_.push_back(0);
    for (const ApiKey& k : keys_) {
        tokens_ += k.key;
        offsets_.push_back(static_cast<std::uint32_t>(tokens_.size()));
    }
    for (std::uint32_t i = 0; i < keys_.size(); ++i) {
        const std::uint64_t h = hashRawText(keys_[i].key);
        if (std::uint32_t* first = index_.find(h)) {
            sameHash_[i] = *first;  // chain in front; find() compares the token itself
            *first = i;
        } else {
            index_.put(h, i);
        }
    }
}

std::optional<std::uint32_t> ApiKeys::find(std::string_view token) const {
    const std::uint32_t* first = index_.find(hashRawText(token));
    for (std::uint32_t i = first ? *first : kEnd; i != kEnd; i = sameHash_[i])
        if (std::string_view(tokens_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]) == token)
            return i;
    return std::nullopt;
}

RateLimits::RateLimits(const ApiKeys& keys) {
    buckets_.reserve(keys.size() * kEndpoints);
    for (std::size_t k = 0; k < keys.size(); ++k)
        for (int e = 0; e < kEndpoints; ++e)
            buckets_.emplace_back(keys[static_cast<std::uint32_t>(k)].burst,
                                  keys[static_cast<std::uint32_t>(k)].rate_per_s, kZero);
}

RateLimits::Verdict RateLimits::take(Time now, std::uint32_t key, Endpoint endpoint, bool enforce) {
    TokenBucket& b = buckets_[key * kEndpoints + static_cast<std::size_t>(endpoint)];
    Verdict v;
    if (enforce && !b.take(now)) {
        v.allowed = false;
        v.retry_after = b.retryAfter(now);
    }
    v.fields.limit = static_cast<int>(std::lround(b.capacity()));
    v.fields.remaining = b.remaining(now);
    v.fields.reset = b.resetIn(now);
    return v;
}

}  // namespace taillab::gateway
