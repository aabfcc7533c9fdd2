// BM25 top-k queries on a GPU (Ding et al. §5): the device half.
//
// Lists stay in device memory between queries, in an LRU cache bounded in
// bytes and keyed by term, so a repeated term costs no transfer. A bp128
// list of the query layout is kept COMPRESSED there (its blocks' bytes, the
// blocks' last docids) and decoded per query, one 128-thread block per block
// of 128 postings (devices/cuda/codecs/bp128_decode.cuh); any other list is decoded
// on the host and kept decoded. Either way a list is a sequence of blocks of
// 128 postings, each with its last docid.
//
// OR: term at a time in query order into dense per-document accumulators
// that are never cleared (a per-document stamp says whether the entry
// belongs to the running query); the documents a query touches are its
// candidates. AND (Ding et al.'s merge-based intersection): the shortest
// list is decoded, and for each longer list, in order of length, only the
// blocks whose docid range holds a remaining candidate are decoded; each
// candidate binary-searches its block. Survivors are scored term by term in
// query order. Sums use the host's IEEE operations in the host's order (no
// fused multiply-add): scores are bit-identical to the CPU's, ties fall the
// same way. Long impact OR queries take the dense impact path instead
// (devices/cuda/query/dense_impact.cu): all (query, term) pairs of a batch
// scattered in one launch with integer atomics into per-query dense
// accumulators, then a radix select per query; a query goes there when its
// lists hold at least documents / kDenseImpactDivisor postings, every weight
// is an integer from 1 to 2^32 − 1 and its largest possible sum is below
// 2^53 (the rule: dense_impact_suits). The top k of each query comes from exact (query, score, docid)
// keys: a radix select and a sort in shared memory, one block per query (a
// CUB radix sort over the batch for very many candidates or a large k). A
// batch costs one device-to-host copy and one synchronization.
//
// C++17, no CUDA headers: devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace invidx {

// A list as the host hands it over on a cache miss: decoded, or (bp128 true)
// as query.post's bp128 blocks, kept compressed on the device.
struct GpuList {
    std::vector<uint32_t> docids;  // decoded: increasing
    std::vector<uint32_t> tfs;
    bool bp128 = false;
    uint64_t postings = 0;            // bp128: the list's length
    std::string bytes;                // bp128: every block's docid group then its tf group
    std::vector<uint32_t> docid_starts;  // bp128: per block, where its docid group starts in bytes
    std::vector<uint32_t> tf_starts;     // bp128: per block, where its tf group starts
    std::vector<uint32_t> last_docids;   // bp128: per block
};

struct GpuQueryTerm {
    uint64_t term = 0;  // cache key (the term's index in the dictionary)
    double idf = 0.0;
    uint64_t df = 0;  // the list's length (known before it is loaded: orders AND's lists)
    // Fills the list on a cache miss.
    std::function<void(GpuList& list)> load;
};

using GpuQuery = std::vector<GpuQueryTerm>;  // terms in query order, each present in the index

struct GpuQueryResult {
    std::vector<std::pair<uint32_t, double>> hits;  // (docid, score), best first, at most k
    uint64_t blocks = 0;          // blocks of 128 postings in the query's lists
    uint64_t blocks_decoded = 0;  // of those, decoded (AND skips blocks holding no candidate)
    uint64_t candidates = 0;      // OR: documents touched; AND: the shortest list's length
    uint64_t matches = 0;         // documents that passed (every list for AND), before the cut to k
};

struct GpuQueryStats {
    std::string device;
    uint64_t cache_hits = 0;
    uint64_t cache_misses = 0;
    uint64_t cache_bytes = 0;  // lists held now
    uint64_t cache_lists = 0;
    uint64_t postings_scored = 0;
    uint64_t blocks_decoded = 0;
    uint64_t batches = 0;
    uint64_t queries = 0;        // answered on the device
    uint64_t dense_queries = 0;  // of those, by the dense impact OR path
};

class GpuQueryProcessor {
public:
    virtual ~GpuQueryProcessor() = default;
    // Every query of the batch, answered with few launches and one
    // synchronization per group of queries that fits the accumulators
    // (`max_batch`); results in the queries' order. conjunctive: only
    // documents in every list of their query. impacts: the lists hold
    // impacts where tfs would be (GpuList, GpuQueryTerm) and a document's
    // score is the sum of each impact times its term's `idf` (there: an
    // integer query weight; exact in a double below 2^53), as the CPU's
    // `--scoring impact`; otherwise BM25 from the tfs.
    virtual std::vector<GpuQueryResult> top_k_batch(const std::vector<GpuQuery>& queries, bool conjunctive, size_t k,
                                                    bool impacts) = 0;
    GpuQueryResult top_k(const GpuQuery& query, bool conjunctive, size_t k, bool impacts = false) {
        return std::move(top_k_batch({query}, conjunctive, k, impacts).front());
    }
    // The BM25 the following batches score by: every document's
    // Bm25::length_norm and k1, as the host's Bm25 of that k1 and b has them.
    // `key` names them: 0 is the norms and k1 the processor was made with
    // (kept on the device for good); one other set is kept beside them, so a
    // key already there uploads nothing.
    virtual void use_bm25(uint64_t key, const std::vector<double>& norms, double k1) = 0;
    // Queries answered together at most (by the per-document accumulators' memory).
    virtual size_t max_batch() const = 0;
    virtual GpuQueryStats stats() const = 0;
};

// The dense impact OR path's rule on the host's side (the device also needs
// the query's largest possible sum below 2^53): an impact OR query whose
// lists hold at least documents / kDenseImpactDivisor postings, with every
// weight an integer from 1 to 2^32 − 1. Such a query touches most documents,
// so scanning the dense accumulator (a few reads of 4 bytes a document)
// costs less than tracking touched documents, and its term count no longer
// sets the batch's rounds.
inline constexpr uint64_t kDenseImpactDivisor = 8;
inline bool dense_impact_suits(const GpuQuery& query, uint64_t documents) {
    uint64_t postings = 0;
    for (const GpuQueryTerm& term : query) {
        if (!(term.idf >= 1.0 && term.idf < 4294967296.0 && term.idf == std::floor(term.idf))) return false;
        postings += term.df;
    }
    return !query.empty() && postings * kDenseImpactDivisor >= documents;
}

// norms: Bm25::length_norm of every document; k1 as the host's Bm25 has it
// (use_bm25's key 0).
// Throws invidx::Error naming the device when the GPU cannot be used.
std::unique_ptr<GpuQueryProcessor> create_gpu_query_processor(int device, const std::vector<double>& norms, double k1,
                                                              size_t cache_bytes);

}  // namespace invidx
