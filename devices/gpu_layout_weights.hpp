// BM25 impacts of every posting computed on a GPU straight from the query
// layout's own bytes (query.post with the bp128 codec, docs/FORMAT.md): what
// crosses PCIe is the file's lists and list offsets as they lie on disk
// (about 1.7 bytes a posting), not decoded docids and tfs (8 bytes a posting,
// as gpu_posting_weights takes them), and one impact a posting comes back.
// The device does all the rest:
//   1. each term's blocks (ceil(df / 128)) and first posting, by two CUB
//      exclusive scans over the terms;
//   2. one thread per term walks its list's block entries into a table of
//      blocks (where each block's docid and tf groups start, its first docid),
//      checking the entries as the host reader does (last docids increasing
//      and below the document count, the bytes adding up to the list's);
//   3. one 128-thread block per block of postings decodes its docids and tfs
//      (Ding et al.'s block-wise bp128, devices/cuda/codecs/bp128_decode.cuh)
//      and weighs them, twice: the largest weight first (block maxima, then
//      a CUB reduction), then every weight again, quantized by it. Weights
//      are never stored: recomputing one is cheaper than 8 bytes a posting.
//
// Arithmetic as in gpu_posting_weights (CONTENT.md §10 in store/bm25.hpp's order,
// no fused multiply-add), so the impacts are the CPU's.
//
// C++17 and free of CUDA headers: devices/no_cuda.cpp throws for builds
// without CUDA. The input comes from an index by query/layout_weights.hpp,
// which also holds the host reference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace invidx {

struct GpuLayoutWeightInput {
    // query.post's bytes from its first byte to the end of its list offsets
    // (the file less its footer and CRC), already verified; not owned.
    const unsigned char* file = nullptr;
    uint64_t file_bytes = 0;
    uint64_t lists_start = 0;   // where the first list starts
    uint64_t table_offset = 0;  // where the (terms + 1) u64 list offsets start
    uint64_t entry_bytes = 20;  // a block entry: 20, or 28 with impacts (their bytes follow each block's tfs)
    std::vector<uint64_t> term_dfs;          // per term, dictionary order
    std::vector<uint32_t> document_lengths;  // by docid: every document of the index
    double average_length = 1.0;
    double k1 = 0.9;
    double b = 0.4;
    unsigned bits = 8;
    std::optional<double> max_weight;  // quantize by this instead of the input's own largest weight
};

// Device seconds of one call by part (CUDA events), for benchmarks.
struct GpuLayoutWeightTimes {
    double copies_in = 0.0;   // the file's bytes, dfs, lengths
    double blocks = 0.0;      // the scans and the walk of the block entries
    double weights = 0.0;     // norms, idfs, both passes, the reduction
    double copies_out = 0.0;  // the impacts
};

struct GpuLayoutImpacts {
    double max_weight = 0.0;  // the input's own largest weight (0 without postings)
    uint64_t blocks = 0;      // blocks of postings decoded (each twice)
    std::string device;       // "gpu:N (name)"
    GpuLayoutWeightTimes times;
};

// A GPU's stream, device arrays and pinned staging buffers kept between
// calls, so that weighting many inputs (or one input many times, as the
// benchmark does) allocates once. The file's bytes go to the device and the
// impacts come back through two pinned buffers each, the host copying one
// piece (on every thread) while the copy engine moves the other. One thread
// at a time.
class GpuLayoutWeigher {
public:
    // Throws invidx::Error without a usable GPU `device`, or (builds without
    // CUDA) always.
    explicit GpuLayoutWeigher(int device = 0);
    ~GpuLayoutWeigher();
    GpuLayoutWeigher(const GpuLayoutWeigher&) = delete;
    GpuLayoutWeigher& operator=(const GpuLayoutWeigher&) = delete;

    // Every posting's impact, term by term in dictionary order and each
    // term's in docid order, into `impacts` (`count` entries: the sum of the
    // dfs). The 8-bit form needs bits <= 8. Throws invidx::Error on a
    // malformed input or file (naming what the walk of the lists found).
    GpuLayoutImpacts impacts(const GpuLayoutWeightInput& input, uint16_t* impacts, uint64_t count);
    GpuLayoutImpacts impacts(const GpuLayoutWeightInput& input, uint8_t* impacts, uint64_t count);

    uint64_t device_bytes() const;  // device memory held now (arrays, not the pinned staging)

private:
    struct State;
    std::unique_ptr<State> state_;
};

// One call with a weigher of its own (allocation included).
GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint16_t* impacts, uint64_t count, int device = 0);
GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint8_t* impacts, uint64_t count, int device = 0);

// The device memory a call needs for an index of these sizes (the file's
// bytes, per term, per document, per block and per posting, CUB's temporary
// storage and a fixed 16 MiB for the allocator's rounding): what a caller
// keeps under a device memory budget.
uint64_t gpu_layout_device_bytes(uint64_t file_bytes, uint64_t terms, uint64_t documents, uint64_t postings);

// Throws invidx::Error unless the offsets lie in order inside the bytes, the
// entry size is 20 or 28, the bits are 1 to 16 (1 to 8 when `byte_impacts`),
// the average length and a given largest weight are positive and `count` is
// the sum of the dfs. The lists themselves are checked where they are walked.
void check_layout_weight_input(const GpuLayoutWeightInput& input, uint64_t count, bool byte_impacts);

}  // namespace invidx
