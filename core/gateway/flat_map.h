// FlatMap: an open-addressing hash map from 64-bit keys to small values, for the gateway's hot
// lookups (L1 index, L2, in-flight keys). One array of slots, linear probing, deletion by
// backward shift (no tombstones), growth at 70% load. Keys are already well-mixed hashes (cache
// keys), so a multiplicative hash of the key picks the slot. Iteration order is never used, so
// results do not depend on the layout. Key 0 marks an empty slot, so it is stored as kZeroKey
// (a key that is itself remapped would collide with 0; both are 64-bit hashes, so that is a
// 2^-64 event per pair, and it only merges two cache entries).
#pragma once

#include <cstdint>
#include <vector>

#include "gateway/table_allocator.h"

namespace taillab::gateway {

template <typename Value>
class FlatMap {
public:
    explicit FlatMap(std::size_t expected = 16) { rehash(capacityFor(expected)); }

    Value* find(std::uint64_t key) {
        key = stored(key);
        std::size_t i = slotOf(key);
        for (;;) {
            Slot& s = slots_[i];
            if (s.key == 0) return nullptr;
            if (s.key == key) return &s.value;
            i = (i + 1) & mask_;
        }
    }
    const Value* find(std::uint64_t key) const { return const_cast<FlatMap*>(this)->find(key); }
    // Inserts or overwrites; returns the stored value.
    Value& put(std::uint64_t key, const Value& value) {
        bool inserted = false;
        Value& v = slot(key, inserted);
        v = value;
        return v;
    }
    // Inserts when absent; returns false when the key was already there.
    bool insert(std::uint64_t key, const Value& value) {
        bool inserted = false;
        Value& v = slot(key, inserted);
        if (inserted) v = value;
        return inserted;
    }
    bool erase(std::uint64_t key) {
        key = stored(key);
        std::size_t i = slotOf(key);
        for (;;) {
            if (slots_[i].key == 0) return false;
            if (slots_[i].key == key) break;
            i = (i + 1) & mask_;
        }
        // Backward-shift deletion: pull later entries of the probe run into the hole.
        std::size_t hole = i;
        std::size_t j = i;
        for (;;) {
            j = (j + 1) & mask_;
            if (slots_[j].key == 0) break;
            const std::size_t home = slotOf(slots_[j].key);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            const bool between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!between) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole].key = 0;
        --size_;
        return true;
    }
    std::size_t size() const { return size_; }
    // Starts loading the cache line where a lookup of `key` begins (no effect on contents).
    void prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[slotOf(stored(key))]); }

private:
    static constexpr std::uint64_t kZeroKey = 0x9e3779b97f4a7c15ULL;
    static std::uint64_t stored(std::uint64_t key) { return key == 0 ? kZeroKey : key; }
    struct Slot {
        std::uint64_t key = 0;  // 0: empty
        Value value{};
    };
    static std::size_t capacityFor(std::size_t n) {
        std::size_t c = 16;
        while (c * 7 < n * 10) c <<= 1;
        return c;
    }
    std::size_t slotOf(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_);
    }
    Value& slot(std::uint64_t key, bool& inserted) {
        key = stored(key);
        if ((size_ + 1) * 10 > slots_.size() * 7) rehash(slots_.size() * 2);
        std::size_t i = slotOf(key);
        for (;;) {
            Slot& s = slots_[i];
            if (s.key == 0) {
                s.key = key;
                ++size_;
                inserted = true;
                return s.value;
            }
            if (s.key == key) return s.value;
            i = (i + 1) & mask_;
        }
    }
    void rehash(std::size_t capacity) {
        std::vector<Slot, TableAllocator<Slot>> old;
        old.swap(slots_);
        slots_.assign(capacity, Slot{});
        mask_ = capacity - 1;
        int bits = 0;
        while ((std::size_t{1} << bits) < capacity) ++bits;
        shift_ = 64 - bits;
        size_ = 0;
        for (const Slot& s : old) {
            if (s.key == 0) continue;
            bool inserted = false;
            slot(s.key, inserted) = s.value;
        }
    }

    std::vector<Slot, TableAllocator<Slot>> slots_;
    std::size_t mask_ = 0;
    int shift_ = 60;
    std::size_t size_ = 0;
};

}  // namespace taillab::gateway
