// BM25 top-k queries on a GPU (issue #5, Ding et al. §5): the device half.
// Lists are decoded on the host once and then kept in device memory (an LRU
// cache of a configured size, keyed by term), so a repeated term costs no
// transfer. A query accumulates BM25 one term at a time in query order into a
// dense per-document array: a term's docids are distinct, so the adds need
// no atomics and each document's sum is taken in the same order, with the
// same IEEE operations (no fused multiply-add), as the CPU's: scores are
// bit-identical to the CPU's and ties fall the same way. The top k comes from
// a radix sort of (score, docid) over the documents the query touched.
//
// C++17, no CUDA headers: devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace invidx {

struct GpuQueryTerm {
    uint64_t term = 0;   // cache key (the term's index in the dictionary)
    double idf = 0.0;
    // Fills docids (increasing) and tfs on a cache miss.
    std::function<void(std::vector<uint32_t>& docids, std::vector<uint32_t>& tfs)> load;
};

struct GpuQueryStats {
    std::string device;
    uint64_t cache_hits = 0;
    uint64_t cache_misses = 0;
    uint64_t cache_bytes = 0;        // lists held now
    uint64_t postings_scored = 0;
};

class GpuQueryProcessor {
public:
    virtual ~GpuQueryProcessor() = default;
    // `terms` in query order, each present in the index. conjunctive: only
    // documents in every list. Returns (docid, score), best first, at most k.
    virtual std::vector<std::pair<uint32_t, double>> top_k(const std::vector<GpuQueryTerm>& terms, bool conjunctive,
                                                           size_t k) = 0;
    virtual GpuQueryStats stats() const = 0;
};

// norms: Bm25::length_norm of every document; k1 as the host's Bm25 has it.
// Throws std::runtime_error when the GPU cannot be used.
std::unique_ptr<GpuQueryProcessor> create_gpu_query_processor(int device, const std::vector<double>& norms, double k1,
                                                              size_t cache_bytes);

}  // namespace invidx
