// Kind "gpu_hash": term ids found in a device hash table, one thread per
// occurrence. Probing claims an empty slot with atomicCAS; threads holding
// the same key agree on the slot and keep the smallest occurrence index as
// its claimant; a prefix sum over the claimants then numbers the new terms
// in order of first occurrence, so ids do not depend on thread timing.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "devices/cuda/index/device_dictionary.cuh"

namespace invidx::cuda {

struct HashTableView {
    uint32_t* slots = nullptr;   // kEmptySlot, kClaimed | occurrence, or a term id
    uint64_t mask = 0;           // capacity - 1 (capacity a power of two)
};

// Scratch per chunk occurrence: the slot found, and claimant/key-length
// pairs and their prefix sums.
struct HashScratch {
    uint32_t* slot = nullptr;
    unsigned long long* claim = nullptr;
    unsigned long long* claim_prefix = nullptr;
    void* scan_temp = nullptr;
    size_t scan_temp_bytes = 0;
};

inline constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;
inline constexpr uint32_t kClaimed = 0x80000000u;
// Term ids and chunk occurrences stay below the claimed bit.
inline constexpr uint32_t kMaxHashTerms = kClaimed - 1;

size_t hash_scan_temp_bytes(uint32_t max_chunk);

// Writes the term id of every chunk occurrence to term_ids[0..count) and
// adds the new terms to the dictionary. The table must have room for
// count more terms at load <= 1/2, the term arrays and arena for all of them.
void hash_assign_term_ids(const DictionaryView& dictionary, const HashTableView& table, const ChunkView& chunk,
                          const HashScratch& scratch, uint32_t* term_ids, cudaStream_t stream);

// Fills an empty table (all kEmptySlot) with every term of the dictionary;
// the count is read on the device (dictionary.counters[0] <= max_terms).
void hash_insert_all(const DictionaryView& dictionary, const HashTableView& table, uint64_t max_terms,
                     cudaStream_t stream);

}  // namespace invidx::cuda
