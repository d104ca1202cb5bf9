// The gateway stage's first two steps (seed 000): authenticate the API key, then take a token from
// the key's bucket for the endpoint. Keys are looked up in an in-process table (a hash and a map
// read on the hot path). Every response to a known key carries the bucket's X-RateLimit fields;
// an empty bucket is a 429 whose Retry-After is exactly when the next token lands.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config.h"
#include "gateway/contract.h"
#include "gateway/flat_map.h"
#include "gateway/token_bucket.h"

namespace taillab::gateway {

class ApiKeys {
public:
    explicit ApiKeys(const std::vector<ApiKey>& keys);
    // The key's index in the config, or nullopt for an unknown key (401).
    std::optional<std::uint32_t> find(std::string_view token) const;
    const ApiKey& operator[](std::uint32_t i) const { return keys_[i]; }
    std::size_t size() const { return keys_.size(); }

private:
    std::vector<ApiKey> keys_;
    FlatMap<std::uint32_t> index_;  // hash of the token -> first key with that hash
    std::vector<std::uint32_t> sameHash_;  // next key with the same hash, or npos (collisions)
    // The tokens side by side (a lookup compares the one its hash names without a cache miss on
    // a string of its own): token i is tokens_[offsets_[i], offsets_[i + 1]).
    std::string tokens_;
    std::vector<std::uint32_t> offsets_;
};

class RateLimits {
public:
    explicit RateLimits(const ApiKeys& keys);
    struct Verdict {
        bool allowed = true;
        RateLimitFields fields;
        std::optional<Duration> retry_after;  // when refused
    };
    // Takes a token for (key, endpoint) at `now` when `enforce`; either way returns the fields
    // the response reports.
    Verdict take(Time now, std::uint32_t key, Endpoint endpoint, bool enforce);

private:
    std::vector<TokenBucket> buckets_;  // [key * kEndpoints + endpoint]
};

}  // namespace taillab::gateway
