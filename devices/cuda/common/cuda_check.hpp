// CUDA runtime errors become exceptions that say which call failed and why;
// the index node adds its own name (graph/guard.hpp).
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace invidx::cuda {

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
    }
}

// After a kernel launch: reports a bad launch configuration at once (errors
// while the kernel runs surface at the next synchronization).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Makes GPU `device` this thread's current device and returns its name;
// throws when it does not exist.
inline std::string use_device(int device) {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (device < 0 || device >= count) throw std::runtime_error("gpu:" + std::to_string(device) + " does not exist");
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
}

}  // namespace invidx::cuda
