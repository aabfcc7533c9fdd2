// The GPUs this process can use. In the library only devices/cuda/ includes
// CUDA headers; a build without CUDA compiles devices/no_cuda.cpp instead,
// which says so, so a configured GPU node fails at configuration time with a
// clear message rather than falling back to the CPU in silence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace invidx {

struct GpuDevice {
    int ordinal = 0;
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
    uint64_t memory_bytes = 0;
    int multiprocessors = 0;
};

struct GpuInventory {
    bool built_with_cuda = false;
    std::vector<GpuDevice> devices;
    std::string note;  // why there are none: "built without CUDA", the driver's error, ...
};

GpuInventory list_gpus();

// Creates the CUDA context of a GPU (a few hundred milliseconds on a large
// one) so that a later user finds it ready; the index node runs it on a
// thread while the sampler reads. Errors are left to that later user.
void warm_up_gpu(int ordinal);

// CPU time the calling thread has spent so far polling for its GPUs' work
// to finish (cuda::wait_yielding), in nanoseconds; 0 without CUDA. Read
// before and after a job: how much of a GPU slot's host CPU is waiting.
uint64_t gpu_wait_cpu_ns();

// Host memory this process has page-locked for its GPUs so far (every
// node's staging and transfer buffers): allocations, how many of them were
// registered without holding up the threads beside them rather than taken
// from cudaMallocHost (devices/cuda/common/page_locked_memory.hpp), their
// bytes and the wall time spent making them. Zeros without CUDA.
struct PageLockedTotals {
    uint64_t allocations = 0;
    uint64_t registered = 0;
    uint64_t bytes = 0;
    double seconds = 0;
};
PageLockedTotals page_locked_totals();

}  // namespace invidx
