// BM25 weights of every posting of an index computed on a GPU, as Wakatsuki,
// Keyaki and Miyazaki compose them from data-parallel primitives
// (../shared/papers/wakatsuki-gpu-bm25-term-weighting.md): the postings of
// all terms lie in one array grouped by term, and every step is a CUB
// primitive or a one-thread-per-element map over it:
//   1. term of each posting: a head flag at each term's first posting, then
//      an inclusive scan (cub::DeviceScan) of the flags;
//   2. df of each term: a segmented sum over the term's postings
//      (cub::DeviceSegmentedReduce), then idf per term;
//   3. each document's length norm k1·(1 − b + b·dl/avgdl), a map;
//   4. each posting's weight idf(term)·tf·(k1+1)/(tf + norm(doc)), a map;
//   5. the largest weight, a reduction (cub::DeviceReduce::Max);
//   6. each posting's impact, quantized as store/impacts.hpp's
//      ImpactQuantizer does, a map.
// The arithmetic is SPEC §7's in the order store/bm25.hpp evaluates it,
// with every multiply, add and divide rounded on its own (no fused
// multiply-add), so weights match the CPU's to the last bits but for the
// device's log (within an ulp) and impacts are the CPU's.
//
// Only the computation: the caller gathers the postings and stores the
// result. C++17 and free of CUDA headers: devices/no_cuda.cpp throws for
// builds without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace invidx {

struct GpuWeightInput {
    // Term t's postings are [term_offsets[t], term_offsets[t + 1]) of docids
    // and tfs (term_count + 1 entries, non-decreasing, the last docids.size()).
    std::vector<uint64_t> term_offsets;
    std::vector<uint32_t> docids;
    std::vector<uint32_t> tfs;
    std::vector<uint32_t> document_lengths;  // by docid
    double average_length = 1.0;              // > 0
    double k1 = 0.9;
    double b = 0.4;
    unsigned bits = 8;  // impacts in [1, 2^bits − 1]
};

struct GpuWeights {
    std::vector<double> weights;    // per posting, when asked for
    std::vector<uint32_t> impacts;  // per posting
    double max_weight = 0.0;        // what the impacts are scaled by
    std::string device;             // "gpu:N (name)"
};

// Weights and impacts of every posting of `input` on GPU `device`. Throws
// invidx::Error on a malformed input, without a usable GPU, or (builds
// without CUDA) always.
GpuWeights gpu_posting_weights(const GpuWeightInput& input, int device = 0, bool keep_weights = false);

}  // namespace invidx
