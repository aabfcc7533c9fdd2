// Small results read back to the host by a kernel that stores them into
// pinned host memory (mapped into the device's address space), not by a
// cudaMemcpyAsync: a copy goes through the GPU's copy engines, which other
// streams keep busy (GPU inflate's text, the parse slots' term downloads),
// and a count the host waits on before it can queue the next step then
// waits behind them. A kernel's stores cross PCIe at once. For counts and
// per-document arrays of a few KiB; bulk data still goes by copy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {

template <class T>
__global__ void store_to_host(T* host, const T* device, size_t count) {
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
        host[i] = device[i];
    }
}

// Queues on `stream` the copy of `count` elements of `device` into `host`,
// which must be page-locked memory of ours (PinnedArray,
// allocate_page_locked: registered mapped and portable, or cudaMallocHost's,
// mapped under unified addressing); any other memory is an error naming
// `what`.
template <class T>
void read_back_mapped(T* host, const T* device, size_t count, cudaStream_t stream, const char* what) {
    if (count == 0) return;
    T* mapped = nullptr;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), host, 0), what);
    constexpr unsigned kThreads = 256;
    const size_t blocks = (count + kThreads - 1) / kThreads;
    store_to_host<<<static_cast<unsigned>(blocks < 64 ? blocks : 64), kThreads, 0, stream>>>(mapped, device, count);
    check_launch(what);
}

}  // namespace invidx::cuda
