// CONTENT.md §10's BM25 on the device, for the weighting kernels
// (gpu_bm25_weights.cu, gpu_layout_weights.cu): each step an explicitly
// rounded intrinsic in store/bm25.hpp's order, so that nvcc cannot fuse a
// multiply-add whose single rounding would differ from the host's two and
// move a weight across an impact boundary. Only log differs from glibc's
// (within an ulp).
#pragma once

#include <cstdint>

namespace invidx::cuda {

// Bm25::idf, ln(1 + (N − df + 0.5) / (df + 0.5)).
__device__ inline double bm25_idf(double documents, double df) {
    const double ratio = __ddiv_rn(__dadd_rn(__dsub_rn(documents, df), 0.5), __dadd_rn(df, 0.5));
    return log(__dadd_rn(1.0, ratio));
}

// Bm25::length_norm, k1·((1 − b) + b·dl / avgdl).
__device__ inline double bm25_length_norm(uint32_t length, double k1, double b, double average_length) {
    const double scaled = __ddiv_rn(__dmul_rn(b, static_cast<double>(length)), average_length);
    return __dmul_rn(k1, __dadd_rn(__dsub_rn(1.0, b), scaled));
}

// Bm25::score, idf · (tf·(k1 + 1)) / (tf + norm).
__device__ inline double bm25_weight(double idf, uint32_t tf, double k1, double norm) {
    const double f = static_cast<double>(tf);
    const double part = __ddiv_rn(__dmul_rn(f, __dadd_rn(k1, 1.0)), __dadd_rn(f, norm));
    return __dmul_rn(idf, part);
}

// ImpactQuantizer: ceil(w / max · range), clamped to [1, range].
__device__ inline uint32_t bm25_impact(double weight, double max_weight, uint32_t range) {
    const double scaled = ceil(__dmul_rn(__ddiv_rn(weight, max_weight), static_cast<double>(range)));
    return !(scaled >= 1.0) ? 1u : scaled >= static_cast<double>(range) ? range : static_cast<uint32_t>(scaled);
}

// The maps both weighting paths run, one thread an element (templates, so
// that each file's copy is one definition): each term's idf from its df, and
// each document's length norm.
template <class Df>
__global__ void bm25_idfs(const Df* dfs, uint64_t terms, double documents, double* idfs) {
    const uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (t < terms) idfs[t] = bm25_idf(documents, static_cast<double>(dfs[t]));
}

template <class Length>
__global__ void bm25_length_norms(const Length* lengths, uint64_t documents, double k1, double b, double average_length,
                                  double* norms) {
    const uint64_t d = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (d < documents) norms[d] = bm25_length_norm(lengths[d], k1, b, average_length);
}

}  // namespace invidx::cuda
