// The compiler stage's memo: the analysis of recently seen raw queries (normalized text, its hash,
// freshness class, whether zero results is a legitimate answer), keyed by a 64-bit hash of the
// raw text. Agents repeat themselves (retries, parallel copies, the same question across a loop),
// so most requests skip normalization. Bounded: `capacity` entries in a ring, the oldest replaced
// first, each slot's string reused (no allocation once the ring has filled). A slot keeps a
// normalized text only when it differs from the raw one: most queries arrive normalized. A
// raw-hash collision would give one query another's analysis; with 64-bit hashes that is a
// 2^-64 event per pair, the same odds the cache key takes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/flat_map.h"
#include "gateway/gateway_types.h"

namespace taillab::gateway {

class CompilerMemo {
public:
    explicit CompilerMemo(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
    // An analysis: its facts, copied out (they depend on the raw text alone, so they stay right
    // whatever happens to the memo), and where its normalized text sits, which is valid while the
    // slot still holds the same raw hash. raw_hash 0: no analysis.
    struct Ref {
        std::uint32_t slot = 0;
        QueryClass query_class = QueryClass::Evergreen;
        bool zero_results_allowed = false;
        bool normalized_is_raw = false;  // the raw text was already in normalized form
        std::uint64_t raw_hash = 0;
        std::uint64_t normalized_hash = 0;
    };
    // The analysis of `raw`. Throws std::invalid_argument (a 400) for invalid UTF-8 or a query
    // that is empty after normalization; failures are not remembered.
    Ref find(std::string_view raw) { return find(raw, hashOf(raw)); }
    // The same with `hash` == hashOf(raw) already computed, and, when `given` is not null, with
    // analyzeQuery(raw) too: a miss files it instead of analysing `raw` (and then never throws).
    Ref find(std::string_view raw, std::uint64_t hash, const AnalyzedQuery* given = nullptr);
    static std::uint64_t hashOf(std::string_view raw) {
        const std::uint64_t h = hashRawText(raw);
        return h == 0 ? 1 : h;  // 0 marks an empty slot
    }
    // Starts loading the index slot a lookup of `raw` begins with.
    void prefetch(std::uint64_t hash) const { index_.prefetch(hash); }
    // The normalized text of `raw`, whose analysis `ref` is: `raw` itself when it was already
    // normalized (most queries), else the memo's copy, analysed again if its slot has been reused
    // since. Valid until the next call that changes the memo (find, normalized).
    std::string_view normalized(const Ref& ref, std::string_view raw) {
        if (ref.normalized_is_raw) return raw;
        if (ref.slot < slots_.size() && slots_[ref.slot].raw_hash == ref.raw_hash)
            return slots_[ref.slot].normalized;
        return slots_[find(raw, ref.raw_hash).slot].normalized;
    }
    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return misses_; }

private:
    struct Slot {
        std::uint64_t raw_hash = 0;
        std::string normalized;  // when it differs from the raw text
    };
    // A Ref without its raw hash, which is the index's key: 16 bytes, so the index stays small.
    struct Facts {
        std::uint64_t normalized_hash = 0;
        std::uint32_t slot = 0;
        QueryClass query_class = QueryClass::Evergreen;
        bool zero_results_allowed = false;
        bool normalized_is_raw = false;
    };
    std::size_t capacity_;
    // By raw hash: the facts a request needs, so that a hit reads the index alone, not the slot
    // (a hit on a slot is a cache miss: the ring holds tens of thousands of texts).
    FlatMap<Facts> index_{1024};
    std::vector<Slot> slots_;
    AnalyzedQuery scratch_;  // where a miss is analysed
    std::size_t next_ = 0;
    std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace taillab::gateway
