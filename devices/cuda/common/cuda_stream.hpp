// A non-blocking CUDA stream owned for a scope: one per call of a device
// entry point, so concurrent host threads never share one. Declare it before
// the device arrays it orders, so it outlives their frees.
#pragma once

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {

class ScopedStream {
public:
    ScopedStream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~ScopedStream() { cudaStreamDestroy(stream_); }  // destructor path: errors have nowhere to go
    ScopedStream(const ScopedStream&) = delete;
    ScopedStream& operator=(const ScopedStream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

}  // namespace invidx::cuda
