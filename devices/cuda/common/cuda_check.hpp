// Device failures become invidx::Error naming the device, e.g.
// "gpu:0 (NVIDIA H100 80GB HBM3): cudaMallocAsync: out of memory": CUDA
// calls that fail, and requests a device refuses (bytes that are not an
// encoding, a list too long). The index node or the searcher adds its own
// context (graph/guard.hpp, query/searcher.cpp).
#pragma once

#include <string>

#include <cuda_runtime.h>

namespace invidx::cuda {

// How errors name GPU `device`: "gpu:N (its name)", or "gpu:N" when CUDA
// cannot tell its name (no such device).
std::string device_label(int device);

// Throw invidx::Error "<device>: <message>": fail_on for a device known by
// ordinal, fail for the one this thread uses (cudaSetDevice). Out of line so
// that the checks inlined at every call stay small.
[[noreturn]] void fail_on(int device, const std::string& message);
[[noreturn]] void fail(const std::string& message);

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(status));
}

// After a kernel launch: reports a bad launch configuration at once (errors
// while the kernel runs surface at the next synchronization).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Makes GPU `device` this thread's current device and returns its name;
// throws when it does not exist.
std::string use_device(int device);

}  // namespace invidx::cuda
