// TableAllocator: for the gateway's large hash tables (the regional L2 runs to several MB). A
// simulated cache lookup is a random access into tens of MB, and with 4 KiB pages nearly every
// one also misses the TLB; allocations of 2 MiB and more are aligned to 2 MiB and, on Linux,
// offered to the kernel as transparent huge pages (madvise; where THP is off, this changes
// nothing). Smaller ones come from the ordinary allocator.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace taillab::gateway {

template <typename T>
struct TableAllocator {
    using value_type = T;
    static constexpr std::size_t kHuge = std::size_t{2} << 20;

    TableAllocator() = default;
    template <typename U>
    TableAllocator(const TableAllocator<U>&) {}

    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHuge) return static_cast<T*>(::operator new(bytes));
        const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, rounded);
        if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) {
        if (n * sizeof(T) < kHuge) {
            ::operator delete(p);
        } else {
            std::free(p);
        }
    }
    template <typename U>
    bool operator==(const TableAllocator<U>&) const { return true; }
};

}  // namespace taillab::gateway
