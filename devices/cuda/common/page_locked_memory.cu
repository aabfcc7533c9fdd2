// allocate_page_locked: map, fault in, then register (page_locked_memory.hpp).
#include "devices/cuda/common/page_locked_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/gpu_devices.hpp"

namespace invidx::cuda {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Below this a buffer gets ordinary pages: huge pages would not fit it.
constexpr size_t kHugeFrom = kHugePage;

// page_locked_totals(): the process's so far.
std::atomic<uint64_t> allocations{0}, registered{0}, locked_bytes{0}, locking_ns{0};

void count(const PageLockedBlock& block, std::chrono::steady_clock::time_point start) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (block.registered) registered.fetch_add(1, std::memory_order_relaxed);
    locked_bytes.fetch_add(block.length, std::memory_order_relaxed);
    locking_ns.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - start)
                                                   .count()),
                         std::memory_order_relaxed);
}

size_t page_size() {
    static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// What the mapping spans: `bytes` rounded to its pages.
size_t mapped_bytes(size_t bytes) { return round_up(bytes, bytes >= kHugeFrom ? kHugePage : page_size()); }

// An anonymous mapping of `length` bytes, huge-page aligned when `huge`
// (the slack before and after unmapped again); nullptr when refused.
char* map_aligned(size_t length, bool huge) {
    const size_t slack = huge ? kHugePage : 0;
    void* raw = mmap(nullptr, length + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    char* const begin = static_cast<char*>(raw);
    // Not inherited by a child made by fork() (cudaMallocHost's memory is):
    // pinned pages a child shared would be copied at the fork or left under
    // the device's writes, and a child cannot use CUDA anyway.
    madvise(begin, length + slack, MADV_DONTFORK);
    if (!huge) return begin;
    char* const aligned = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(begin), kHugePage));
    if (aligned > begin) munmap(begin, static_cast<size_t>(aligned - begin));
    char* const end = begin + length + slack;
    if (end > aligned + length) munmap(aligned + length, static_cast<size_t>(end - (aligned + length)));
    // Advice only: where the kernel offers no huge pages the buffer has small ones.
    madvise(aligned, length, MADV_HUGEPAGE);
    return aligned;
}

}  // namespace

PageLockedBlock allocate_page_locked(size_t bytes) {
    const auto start = std::chrono::steady_clock::now();
    if (bytes == 0) bytes = 1;
    const size_t length = mapped_bytes(bytes);
    char* const memory = map_aligned(length, length >= kHugeFrom);
    if (memory != nullptr) {
        // Faulted in here, a page at a time, so that registering finds
        // every page present and the memory map is held only briefly.
        for (size_t at = 0; at < length; at += page_size()) memory[at] = 0;
        if (cudaHostRegister(memory, length, cudaHostRegisterPortable | cudaHostRegisterMapped) == cudaSuccess) {
            const PageLockedBlock block{memory, length, true};
            count(block, start);
            return block;
        }
        cudaGetLastError();  // refused (some platforms cannot register): cudaMallocHost's way instead
        munmap(memory, length);
    }
    void* pinned = nullptr;
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    const PageLockedBlock block{pinned, bytes, false};
    count(block, start);
    return block;
}

void free_page_locked(const PageLockedBlock& block) {
    if (block.data == nullptr) return;
    if (!block.registered) {
        cudaFreeHost(block.data);  // destructor path: errors have nowhere to go
        return;
    }
    cudaHostUnregister(block.data);
    munmap(block.data, block.length);
}

}  // namespace invidx::cuda

namespace invidx {

PageLockedTotals page_locked_totals() {
    return {cuda::allocations.load(), cuda::registered.load(), cuda::locked_bytes.load(),
            static_cast<double>(cuda::locking_ns.load()) / 1e9};
}

}  // namespace invidx
