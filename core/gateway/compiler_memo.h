// The compiler stage's memo: the analysis of recently seen raw queries (normalized text, its hash,
// freshness class, whether zero results is a legitimate answer), keyed by a 64-bit hash of the
// raw text. Agents repeat themselves (retries, parallel copies, the same question across a loop),
// so most requests skip normalization. Bounded: `capacity` entries in a ring, the oldest replaced
// first, each slot's strings reused (no allocation once the ring has filled). A raw-hash collision would give one query another's
// analysis; with 64-bit hashes that is a 2^-64 event per pair, the same odds the cache key takes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/flat_map.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

using QueryFacts = AnalyzedQuery;

class CompilerMemo {
public:
    explicit CompilerMemo(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
    // Where an analysis sits: valid while the slot still holds the same raw hash.
    struct Ref {
        std::uint32_t slot = 0;
        std::uint64_t raw_hash = 0;
    };
    // The analysis of `raw`, valid until the next call. Throws std::invalid_argument (a 400) for
    // invalid UTF-8 or a query that is empty after normalization; failures are not remembered.
    const QueryFacts& analyze(std::string_view raw) { return slots_[find(raw).slot].facts; }
    Ref find(std::string_view raw) { return find(raw, hashOf(raw)); }
    // The same with `hash` == hashOf(raw) already computed.
    Ref find(std::string_view raw, std::uint64_t hash);
    static std::uint64_t hashOf(std::string_view raw) {
        const std::uint64_t h = hashRawText(raw);
        return h == 0 ? 1 : h;  // 0 marks an empty slot
    }
    // Starts loading the index slot a lookup of `raw` begins with.
    void prefetch(std::uint64_t hash) const { index_.prefetch(hash); }
    // The analysis `ref` names, if its slot has not been reused since.
    const QueryFacts* get(const Ref& ref) const {
        return ref.raw_hash != 0 && ref.slot < slots_.size() && slots_[ref.slot].raw_hash == ref.raw_hash
                   ? &slots_[ref.slot].facts
                   : nullptr;
    }
    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return misses_; }

private:
    struct Slot {
        std::uint64_t raw_hash = 0;
        QueryFacts facts;
    };
    std::size_t capacity_;
    FlatMap<std::uint32_t> index_{1024};
    std::vector<Slot> slots_;
    std::size_t next_ = 0;
    std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace taillab::gateway
