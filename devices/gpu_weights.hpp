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
// The arithmetic is CONTENT.md §10's in the order store/bm25.hpp evaluates it,
// with every multiply, add and divide rounded on its own (no fused
// multiply-add), so weights match the CPU's to the last bits but for the
// device's log (within an ulp) and impacts are the CPU's.
//
// Only the computation: the caller gathers the postings and stores the
// result. C++17 and free of CUDA headers: devices/no_cuda.cpp throws for
// builds without CUDA.
#pragma once

#include <cstdint>
#include <optional>
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
    // Quantize by this instead of the input's own largest weight: when an
    // index is weighted in chunks of terms, the largest over all chunks.
    std::optional<double> max_weight;
};

struct GpuWeights {
    std::vector<double> weights;    // per posting, when asked for
    std::vector<uint32_t> impacts;  // per posting
    double max_weight = 0.0;        // the input's own largest weight (0 without postings)
    std::string device;             // "gpu:N (name)"
};

// Weights and impacts of every posting of `input` on GPU `device`. Throws
// invidx::Error on a malformed input, without a usable GPU, or (builds
// without CUDA) always.
GpuWeights gpu_posting_weights(const GpuWeightInput& input, int device = 0, bool keep_weights = false);

// The host reference of gpu_posting_weights (devices/posting_weights.cpp):
// the same input, the same steps and arithmetic in the order store/bm25.hpp
// evaluates it, on the calling thread; device "host reference". Its weights
// and impacts are store/impacts.hpp's bit for bit.
GpuWeights posting_weights_on_host(const GpuWeightInput& input, bool keep_weights = false);

// Throws invidx::Error unless the offsets run from 0 to the postings'
// count without decreasing, every docid has a length, every tf is > 0, the
// average length is > 0, the bits are 1 to 16 and a given max_weight is
// positive and finite. Both computations check their input with it.
void check_weight_input(const GpuWeightInput& input);

// The device memory gpu_posting_weights allocates for an input of these
// sizes (its arrays and CUB's temporary storage, rounded up): what a caller
// that splits an index into chunks of terms keeps each chunk under.
uint64_t gpu_weight_device_bytes(uint64_t terms, uint64_t postings, uint64_t documents);

}  // namespace invidx
