// Page-locked (pinned) host memory that does not stall the process while it
// is made. cudaMallocHost faults in and pins every 4 KiB page in one call,
// holding the process's memory map meanwhile: every other thread that faults
// in memory or maps some waits. A build makes its GPU buffers while its
// decoders start, so 144 MiB locked that way cost them about a core-second
// (bench/page_lock_stall.cpp on an H200 host: 12 threads touching fresh
// memory ran at 6-9% of their rate for the 62-110 ms it took). Here the
// pages are mapped as transparent huge pages where the kernel allows,
// faulted in by this thread one at a time (others fault in beside it), and
// only then registered with CUDA, which then has little left to do (3-9 ms
// for 144 MiB; the others kept 92-114% of their rate). Copies run as fast
// as from cudaMallocHost's.
// Unlike cudaMallocHost's, the memory is not inherited by fork() children.
#pragma once

#include <cstddef>

namespace invidx::cuda {

// A page-locked allocation: registered with CUDA (then `length` mapped
// bytes), or, where registering is refused, from cudaMallocHost.
struct PageLockedBlock {
    void* data = nullptr;
    size_t length = 0;
    bool registered = false;
};

// At least `bytes` of page-locked host memory, mapped for the device and
// portable, as cudaMallocHost's; throws invidx::Error naming the device when
// CUDA refuses.
PageLockedBlock allocate_page_locked(size_t bytes);

// Frees what allocate_page_locked returned (an empty block: nothing).
void free_page_locked(const PageLockedBlock& block);

}  // namespace invidx::cuda
