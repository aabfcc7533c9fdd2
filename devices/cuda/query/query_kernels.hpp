// The GPU query kernels' launchers (devices/cuda/query/*.cu), called by the
// query processor (devices/cuda/query/gpu_query.cu) for one batch of queries, each
// query in its own slot. Work is described by tables the host uploads once
// per batch; every launcher only queues work on `stream`.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "devices/cuda/query/device_list.cuh"
#include "devices/cuda/query/sort_key.cuh"

namespace invidx::cuda {

constexpr uint32_t kNoList = 0xFFFFFFFFu;

// One block of 128 postings of one query term: one 128-thread block's work.
struct BlockTask {
    uint32_t list = 0;   // into the batch's DeviceList table
    uint32_t block = 0;  // within the list
    uint32_t slot = 0;   // the query
    uint32_t term = 0;   // the term's position in its query (idf, tf column)
};

// Per slot, filled on the device and copied back with the results.
struct SlotCounters {
    uint32_t* matches = nullptr;         // OR: documents touched; AND: in every list
    uint32_t* blocks_decoded = nullptr;  // list blocks read (decoded, for bp128)
};

// What every kernel needs to score: BM25's per-document norms and k1 + 1,
// and the batch's idf table (slot · max_terms + term).
struct Scoring {
    const double* norms = nullptr;
    double k1_plus_1 = 0.0;
    const double* idfs = nullptr;
    const uint32_t* slot_terms = nullptr;  // terms per slot
    uint32_t max_terms = 0;
    bool impacts = false;  // the lists' values are impacts: a posting contributes value · idfs[...] (its integer query weight)
};

// ---- OR (disjunctive.cu): dense accumulators, one per slot, never cleared:
// an entry counts only when its stamp is the batch's.
struct Accumulators {
    double* scores = nullptr;    // slot · documents + docid
    uint32_t* stamps = nullptr;  // likewise
    uint32_t documents = 0;
    uint32_t stamp = 0;
};

// Each slot owns the region [region_base[slot], + region_size[slot]) of the
// candidate and key arrays (its bound: what it can match).
struct Regions {
    const uint32_t* base = nullptr;
    const uint32_t* size = nullptr;
    uint32_t largest = 0;
};

// One term of each query (the tasks of one round, query order): adds every
// posting's contribution; a document seen first in its query is appended to
// the slot's region of `touched` (counters.matches: how many).
void launch_or_round(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists, const Scoring& scoring,
                     const Accumulators& accumulators, uint2* touched, const Regions& regions,
                     const SlotCounters& counters, cudaStream_t stream);
// Every slot's region of keys: its touched documents' keys, then last_sort_key().
void launch_or_keys(const uint2* touched, const Regions& regions, uint32_t slots, const Accumulators& accumulators,
                    uint32_t docid_bits, SortKey* keys, const SlotCounters& counters, cudaStream_t stream);

// ---- Dense impact OR (dense_impact.cu): every (query, term) pair of the
// batch scattered in one launch with integer atomics into the slot's dense
// accumulator (zero between batches), then a radix select per slot over
// virtual keys score · 2^docid_bits + (2^docid_bits − 1 − docid), which are
// unique and order as the CPU ranks, down to at most `capacity` keys.

// One (query, term) pair: its list blocks are blocks pair_first[p] ..
// pair_first[p + 1] − 1 of the batch's flat block numbering.
struct DensePair {
    uint32_t list = 0;  // into the batch's DeviceList table
    uint32_t slot = 0;
    uint64_t weight = 0;  // the term's integer query weight
};

constexpr uint32_t kDenseBlocksPerCta = 8;  // list blocks one 128-thread block scatters
constexpr uint32_t kDenseChunk = 16384;     // accumulator entries one block of a selection pass reads
constexpr uint32_t kDenseDigitBits = 8;     // radix select digit

// The accumulators: slot · stride + docid; 32-bit (wide false) or 64-bit.
struct DenseAccumulators {
    void* values = nullptr;
    bool wide = false;
    size_t stride = 0;
    uint32_t documents = 0;
};

// A slot's radix select (zeroed before the batch). Keys whose bits from
// bucket_top up equal prefix are the bucket; `above` keys are larger than
// it. Done: the keys whose bits from bucket_top up are >= prefix are kept.
struct DenseSelect {
    unsigned long long max_score = 0;
    unsigned long long prefix_hi = 0;
    unsigned long long prefix_lo = 0;
    uint32_t bucket_top = 0;
    uint32_t above = 0;
    uint32_t take = 0;      // min(k, matches)
    uint32_t done = 0;
    uint32_t finished = 0;  // blocks of the running pass that are through
    uint32_t padding = 0;
};

struct DenseSelection {
    DenseSelect* states = nullptr;    // per slot
    uint32_t* histograms = nullptr;   // slot · 2^kDenseDigitBits, zeroed before the batch
    uint32_t* matches = nullptr;      // per slot: documents of score > 0
    uint32_t* kept = nullptr;         // per slot: keys written by launch_dense_compact
    uint32_t capacity = 0;            // keys per slot region
    uint32_t k = 0;
    uint32_t docid_bits = 1;
};

void launch_dense_scatter(const DensePair* pairs, const uint32_t* pair_first, uint32_t pair_count,
                          uint32_t total_blocks, const DeviceList* lists, const DenseAccumulators& accumulators,
                          cudaStream_t stream);
// matches and the largest score of every slot; the select's first bucket (every key).
void launch_dense_scan(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                       cudaStream_t stream);
// One radix select pass over the slots not yet done (a slot is done after
// at most ceil(key bits / kDenseDigitBits) passes).
void launch_dense_histogram(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                            cudaStream_t stream);
// Each slot's kept keys (make_sort_key) into keys + slot · capacity, in no
// order; every accumulator entry of the slots back to 0.
void launch_dense_compact(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                          SortKey* keys, cudaStream_t stream);

// ---- AND (conjunctive.cu): candidates from each query's shortest list,
// narrowed list by list, in order of length.
struct Candidates {
    uint32_t* docids = nullptr;
    uint32_t* slots = nullptr;
    uint32_t* blocks = nullptr;  // the block of the list being intersected that may hold the docid
    uint8_t* alive = nullptr;
    uint32_t* tfs = nullptr;     // candidate · max_terms + term
    uint32_t count = 0;
};

// A slot's list at one level of the intersection (kNoList: the query has fewer terms).
struct LevelList {
    uint32_t list = kNoList;
    uint32_t term = 0;
    uint32_t needed_base = 0;  // into the level's block stamps and decoded scratch (· 128)
};

struct LevelScratch {
    uint32_t* needed = nullptr;  // stamp of the blocks some candidate needs
    uint32_t stamp = 0;
    uint32_t* docids = nullptr;  // decoded blocks, 128 per block
    uint32_t* tfs = nullptr;
};

// Decodes the shortest lists (tasks: every block of them): candidate
// first_candidate[slot] + 128·block + i.
void launch_and_first(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists,
                      const uint32_t* first_candidate, const Candidates& candidates, uint32_t max_terms,
                      const SlotCounters& counters, cudaStream_t stream);
// One level: each live candidate finds its block by the blocks' last docids
// (a binary search) and stamps it; the stamped blocks are decoded (tasks:
// every block of the level's lists); each candidate binary-searches its
// decoded block and dies when its docid is not there.
void launch_and_level(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists, const LevelList* level,
                      const Candidates& candidates, uint32_t max_terms, const LevelScratch& scratch,
                      const SlotCounters& counters, cudaStream_t stream);
// Scores the survivors in query order; keys[i] for every candidate (the dead: last_sort_key()).
void launch_and_keys(const Candidates& candidates, const Scoring& scoring, uint32_t docid_bits, SortKey* keys,
                     const SlotCounters& counters, cudaStream_t stream);

// ---- top k (top_k.cu): one block per slot, one launch, when every region
// holds at most kSelectTopK keys and k <= kBlockTopK (or every region holds
// at most kBlockTopK): radix select down to at most kBlockTopK keys, then a
// sort in shared memory. Larger regions: one radix sort of all
// the batch's keys (~12 launches) and a gather.
constexpr uint32_t kBlockTopK = 2048;
constexpr uint32_t kSelectTopK = 1u << 17;
void launch_block_top_k(const SortKey* keys, const Regions& regions, uint32_t slots, const uint32_t* matches,
                        const uint32_t* out_base, uint32_t k, SortKey* out, cudaStream_t stream);

size_t sort_temp_bytes(uint32_t count, int end_bit);
void sort_keys(void* temp, size_t temp_bytes, const SortKey* in, SortKey* out, uint32_t count, int end_bit,
               cudaStream_t stream);
// The first min(k, matches[slot]) keys of each slot (sorted holds the slots
// one after another) to out + out_base[slot].
void launch_gather_top(const SortKey* sorted, const uint32_t* matches, uint32_t slots, const uint32_t* out_base,
                       uint32_t k, SortKey* out, cudaStream_t stream);

}  // namespace invidx::cuda
