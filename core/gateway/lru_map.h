// LruMap: exact fixed-capacity LRUs from 64-bit keys to small values, laid out for a simulator
// that does about one cache lookup per simulated request and is bound by memory latency.
//
// One map holds several independent LRUs ("parts", e.g. the L1 caches of a region's gateway
// instances), each with its own capacity and recency order, in one shared open-addressing table:
// one large table pages and caches better than several small ones. A part's keys are salted so
// that parts never see each other's entries.
//
// Each entry lives in one table slot, so a hit is one probe. Recency is kept as a log of keys
// appended on every use rather than as a linked list (a list touch reads and writes the two
// neighbours: two more cache misses per hit). Each entry counts its records in the log. Popping
// the log from its oldest end and decrementing counts, the first entry whose count reaches zero
// is the one whose last use is the oldest: the least recently used. Eviction pops until that
// happens, prefetching the slots of the records behind, so the checks overlap instead of waiting
// on memory one at a time. The log grows to twice the capacity; when it is full at that size, it
// is compacted to each entry's last record, which keeps it bounded when entries are rarely
// evicted. The order of evictions is exactly LRU's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "gateway/flat_map.h"

namespace taillab::gateway {

template <typename Value>
class LruMap {
public:
    // Memory grows with the entries actually held, up to the capacity: a large capacity that a
    // run never fills costs nothing.
    LruMap(std::size_t parts, std::size_t capacityPerPart)
        : capacity_(capacityPerPart < 1 ? 1 : capacityPerPart), parts_(parts < 1 ? 1 : parts) {
        while (maxRing_ < 2 * capacity_ + kSlack) maxRing_ <<= 1;
        for (Part& p : parts_) resizeLog(p, std::min<std::size_t>(maxRing_, 1024));
    }

    // The value for `key` in `part`, marked as just used; nullptr when absent.
    Value* find(std::size_t part, std::uint64_t key) {
        key = salted(part, key);
        Entry* e = index_.find(key);
        if (!e) return nullptr;
        use(parts_[part], key, *e);
        return &e->value;
    }
    // Inserts or overwrites `key` in `part`, marked as just used; evicts the part's least
    // recently used entry when a new key would exceed its capacity. Returns the value that left
    // the map, if any: the one overwritten, or the one evicted.
    std::optional<Value> put(std::size_t part, std::uint64_t key, const Value& value) {
        key = salted(part, key);
        Part& p = parts_[part];
        if (Entry* e = index_.find(key)) {
            std::optional<Value> old = e->value;
            e->value = value;
            use(p, key, *e);
            return old;
        }
        std::optional<Value> evicted;
        if (p.size >= capacity_) evicted = evictOne(p);
        ++p.size;
        use(p, key, index_.put(key, Entry{value, 0}));
        return evicted;
    }
    // Starts loading the slot a lookup of `key` in `part` begins with.
    void prefetch(std::size_t part, std::uint64_t key) const { index_.prefetch(salted(part, key)); }
    std::size_t size(std::size_t part) const { return parts_[part].size; }
    std::size_t capacity() const { return capacity_; }

private:
    struct Entry {
        Value value{};
        std::uint32_t records = 0;  // this entry's keys in its part's log
    };
    struct Part {
        std::unique_ptr<std::uint64_t[]> log;  // a ring: count salted keys from head
        std::size_t mask = 0, head = 0, count = 0, size = 0;
    };
    static constexpr std::size_t kSlack = 64;
    static constexpr std::size_t kPrefetchAhead = 8;

    static std::uint64_t salted(std::size_t part, std::uint64_t key) {
        return key ^ (0xd6e8feb86659fd93ULL * part);  // part 0 keeps its keys as they are
    }
    void use(Part& p, std::uint64_t key, Entry& e) {
        if (p.count == p.mask + 1) {
            if (p.mask + 1 < maxRing_) {
                resizeLog(p, 2 * (p.mask + 1));
            } else {
                compact(p);
            }
        }
        ++e.records;
        p.log[(p.head + p.count++) & p.mask] = key;
    }
    // Moves the log into a ring of `size` records (a power of two, at least its count), oldest
    // first.
    static void resizeLog(Part& p, std::size_t size) {
        std::unique_ptr<std::uint64_t[]> log(new std::uint64_t[size]);  // written before read
        for (std::size_t i = 0; i < p.count; ++i) log[i] = p.log[(p.head + i) & p.mask];
        p.log = std::move(log);
        p.head = 0;
        p.mask = size - 1;
    }
    // Takes the oldest record off the log, starting the load of a later record's slot.
    std::uint64_t pop(Part& p) {
        if (p.count > kPrefetchAhead) index_.prefetch(p.log[(p.head + kPrefetchAhead) & p.mask]);
        const std::uint64_t key = p.log[p.head];
        p.head = (p.head + 1) & p.mask;
        --p.count;
        return key;
    }
    Value evictOne(Part& p) {
        for (;;) {
            const std::uint64_t key = pop(p);
            Entry* e = index_.find(key);  // present: entries leave only here, with no records left
            if (--e->records == 0) {
                const Value v = e->value;
                index_.erase(key);
                --p.size;
                return v;
            }
        }
    }
    // Keeps each entry's last record, in order. Once the log has its full size and is full, at
    // least half of it is stale (at most capacity + 1 entries, one last record each), so this runs
    // at most once per capacity uses.
    void compact(Part& p) {
        const std::size_t n = p.count;
        std::size_t kept = 0;
        const std::size_t start = p.head;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t key = pop(p);
            Entry* e = index_.find(key);
            if (e->records > 1) {
                --e->records;
            } else {
                p.log[(start + kept++) & p.mask] = key;
            }
        }
        p.head = start;
        p.count = kept;
    }

    std::size_t capacity_;
    std::size_t maxRing_ = 16;  // the log's full size: a power of two >= 2 * capacity + kSlack
    FlatMap<Entry> index_{1024};
    std::vector<Part> parts_;
};

}  // namespace taillab::gateway
