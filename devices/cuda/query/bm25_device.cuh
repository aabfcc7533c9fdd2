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

// A posting's contribution to its document's score: BM25 from its tf, or
// with impact scoring its stored impact times the term's integer query
// weight (query/impact_weights.hpp, where the idf table holds it): integers
// below 2^53, exact in a double, so sums equal the CPU's integer sums in any order.
template <class Scoring>
__device__ inline double posting_contribution(const Scoring& scoring, uint32_t slot, uint32_t term, uint32_t value, double norm) {
    if (scoring.impacts) return __dmul_rn(scoring.idfs[slot * scoring.max_terms + term], static_cast<double>(value));
    return bm25_contribution(scoring.idfs[slot * scoring.max_terms + term], value, scoring.k1_plus_1, norm);
}

}  // namespace invidx::cuda
