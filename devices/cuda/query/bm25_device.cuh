// One posting's BM25 contribution on the device, idf · tf·(k1+1) / (tf + norm),
// each operation rounded on its own as the host computes it (store/bm25.hpp):
// explicit _rn intrinsics, so nvcc cannot contract them into fused
// multiply-adds and the scores stay bit-identical to the CPU's.
#pragma once

#include <cstdint>

namespace invidx::cuda {

__device__ inline double bm25_contribution(double idf, uint32_t tf, double k1_plus_1, double norm) {
    const double f = static_cast<double>(tf);
    return __dmul_rn(idf, __ddiv_rn(__dmul_rn(f, k1_plus_1), __dadd_rn(f, norm)));
}

}  // namespace invidx::cuda
