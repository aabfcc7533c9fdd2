// Kind "gpu_btree": Wei & JaJa's GPU indexer (§III.D.2). Every trie
// collection has its own B-tree (degree 16: up to 31 keys, each with a 4-byte
// cache of its first bytes); one warp (a 32-thread block) owns a collection
// for a whole chunk and inserts its occurrences in arrival order. A node is
// read with coalesced loads, one key per thread; the threads compare in
// parallel and a ballot gives the slot; inserts shift the keys in parallel
// and full nodes are split on the way down. Collections are handed out to
// blocks dynamically (an atomic counter), so a few huge collections do not
// hold up the rest.
//
// A term gets a provisional id when a warp inserts it (the order warps run
// in is not fixed); a prefix sum over the inserting occurrences then gives
// the final ids in order of first occurrence, as for gpu_hash.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/index/device_dictionary.cuh"

namespace invidx::cuda {

inline constexpr int kBtreeMaxKeys = 31;  // degree t = 16: 2t - 1 keys
inline constexpr uint32_t kNoNode = 0xFFFFFFFFu;

struct BtreeNode {
    uint32_t cache[32];   // first 4 key bytes, big-endian, zero-padded
    uint32_t term[32];    // provisional term id of each key
    uint32_t child[32];   // kNoNode in leaves
    uint32_t count;
    uint32_t leaf;
};

// The device arrays of all the collections' B-trees. The dictionary's term
// arrays are indexed by provisional id; final_id maps them to term ids.
struct BtreeArrays {
    explicit BtreeArrays(MemoryCounter& counter)
        : nodes(counter), roots(counter), final_id(counter), counters(counter), sorted_collections(counter),
          sorted_occurrences(counter), segment_collections(counter), segment_lengths(counter),
          segment_starts(counter), sort_temp(counter) {}
    DeviceArray<BtreeNode> nodes;
    DeviceArray<uint32_t> roots;       // per collection, kNoNode until its first term
    DeviceArray<uint32_t> final_id;    // provisional id -> term id
    // [0] nodes used, [1] provisional ids used, [2] segments, [3] next segment
    DeviceArray<unsigned long long> counters;
    // The chunk grouped by collection, stable (arrival order within each).
    DeviceArray<uint16_t> sorted_collections;
    DeviceArray<uint32_t> sorted_occurrences;
    DeviceArray<uint16_t> segment_collections;
    DeviceArray<uint32_t> segment_lengths;
    DeviceArray<uint32_t> segment_starts;
    DeviceArray<unsigned char> sort_temp;
};

struct BtreeScratch {
    uint32_t* provisional = nullptr;          // per occurrence: its term's provisional id
    unsigned long long* inserted = nullptr;   // 1 where the occurrence inserted its term
    unsigned long long* inserted_prefix = nullptr;
    void* scan_temp = nullptr;
    size_t scan_temp_bytes = 0;
};

void btree_init(BtreeArrays& btree, cudaStream_t stream);
size_t btree_temp_bytes(uint32_t max_chunk);
// Room for `terms` terms in all (nodes, provisional ids).
void btree_reserve(BtreeArrays& btree, uint64_t terms, uint32_t max_chunk, cudaStream_t stream);
void btree_assign_term_ids(const DictionaryView& dictionary, BtreeArrays& btree, const ChunkView& chunk,
                           const BtreeScratch& scratch, uint32_t* term_ids, cudaStream_t stream);

}  // namespace invidx::cuda
