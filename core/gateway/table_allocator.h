// TableAllocator: for the gateway's hash tables (a region's L1 caches share one of about 3 MB;
// its L2 grows to about 1 MB). A simulated cache lookup is a random access into several MB, and
// with 4 KiB pages nearly every one also misses the TLB; allocations of 512 KiB and more are
// rounded up to whole 2 MiB pages, aligned, and on Linux offered to the kernel as transparent huge
// pages (madvise; where THP is off, this changes nothing). At most 1.5 MiB is wasted per table,
// against a TLB entry per 2 MiB instead of per 4 KiB. Smaller ones come from the ordinary
// allocator.
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
    static constexpr std::size_t kMinHuge = std::size_t{512} << 10;

    TableAllocator() = default;
    template <typename U>
    TableAllocator(const TableAllocator<U>&) {}

    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kMinHuge) return static_cast<T*>(::operator new(bytes));
        const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, rounded);
        if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) {
        if (n * sizeof(T) < kMinHuge) {
            ::operator delete(p);
        } else {
            std::free(p);
        }
    }
    template <typename U>
    bool operator==(const TableAllocator<U>&) const { return true; }
};

}  // namespace taillab::gateway
