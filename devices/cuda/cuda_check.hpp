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

}  // namespace invidx::cuda
