// A CUDA event owned for a scope, for timing work on a stream: record it
// between launches, read the elapsed time once the stream has synchronized.
#pragma once

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {

class ScopedEvent {
public:
    ScopedEvent() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    ~ScopedEvent() { cudaEventDestroy(event_); }  // destructor path: errors have nowhere to go
    ScopedEvent(const ScopedEvent&) = delete;
    ScopedEvent& operator=(const ScopedEvent&) = delete;

    void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }

    // Seconds from `earlier` to this event; both recorded and complete.
    double seconds_since(const ScopedEvent& earlier) const {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, earlier.event_, event_), "cudaEventElapsedTime");
        return static_cast<double>(ms) * 1e-3;
    }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace invidx::cuda
