#include "devices/cuda/index/gpu_hash_dictionary.cuh"

#include <cub/device/device_scan.cuh>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {
namespace {

constexpr int kThreads = 256;
// A claimant's packed scan value: new-term count in the high 24 bits, key
// bytes in the low 40, so one prefix sum numbers the terms and places keys.
constexpr unsigned kCountShift = 40;
constexpr unsigned long long kBytesMask = (1ull << kCountShift) - 1;

unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// FNV-1a over the collection and the key, then a 64-bit finalizer so the
// low bits (the slot) depend on every byte.
__device__ uint64_t hash_key(const char* key, uint32_t length, uint32_t collection) {
    uint64_t h = 14695981039346656037ull ^ (collection * 0x9E3779B97F4A7C15ull);
    for (uint32_t i = 0; i < length; ++i) {
        h ^= static_cast<uint8_t>(key[i]);
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

__device__ uint32_t load_slot(const uint32_t* slots, uint64_t slot) {
    return *reinterpret_cast<const volatile uint32_t*>(slots + slot);
}

// Finds the key's slot: a term already in the dictionary, a slot claimed in
// this chunk by the same key, or an empty slot this thread claims.
__global__ void probe_or_claim(DictionaryView dictionary, HashTableView table, ChunkView chunk, uint32_t* slot_of) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= chunk.count) return;
    const char* key = chunk.key_bytes + chunk.key_offsets[i];
    const uint32_t length = chunk.key_lengths[i];
    const uint32_t collection = chunk.collections[i];
    uint64_t slot = hash_key(key, length, collection) & table.mask;
    for (;;) {
        uint32_t value = load_slot(table.slots, slot);
        if (value == kEmptySlot) {
            const uint32_t previous = atomicCAS(table.slots + slot, kEmptySlot, kClaimed | i);
            if (previous == kEmptySlot) {
                slot_of[i] = static_cast<uint32_t>(slot);
                return;
            }
            value = previous;
        }
        if (value & kClaimed) {
            uint32_t other = value & ~kClaimed;
            if (same_key(key, length, collection, chunk.key_bytes + chunk.key_offsets[other], chunk.key_lengths[other],
                         chunk.collections[other])) {
                // Only occurrences of this same key ever replace the claimant,
                // so the smallest index wins whatever the timing.
                while (i < other) {
                    const uint32_t previous = atomicCAS(table.slots + slot, value, kClaimed | i);
                    if (previous == value) break;
                    value = previous;
                    other = value & ~kClaimed;
                }
                slot_of[i] = static_cast<uint32_t>(slot);
                return;
            }
        } else if (same_key(key, length, collection, dictionary.arena + dictionary.term_offsets[value],
                            dictionary.term_lengths[value], dictionary.term_collections[value])) {
            slot_of[i] = static_cast<uint32_t>(slot);
            return;
        }
        slot = (slot + 1) & table.mask;
    }
}

__global__ void mark_claimants(HashTableView table, ChunkView chunk, const uint32_t* slot_of,
                               unsigned long long* claim) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= chunk.count) return;
    const bool claimant = table.slots[slot_of[i]] == (kClaimed | i);
    claim[i] = claimant ? (1ull << kCountShift) | chunk.key_lengths[i] : 0ull;
}

// Claimants become terms: ids and arena places from the prefix sums, the
// counters (read here, updated by the next kernel) give the bases.
__global__ void commit_new_terms(DictionaryView dictionary, HashTableView table, ChunkView chunk,
                                 const uint32_t* slot_of, const unsigned long long* claim,
                                 const unsigned long long* claim_prefix) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= chunk.count || claim[i] == 0) return;
    const uint64_t id = dictionary.counters[0] + (claim_prefix[i] >> kCountShift);
    const uint64_t offset = dictionary.counters[1] + (claim_prefix[i] & kBytesMask);
    const uint32_t length = chunk.key_lengths[i];
    const char* key = chunk.key_bytes + chunk.key_offsets[i];
    for (uint32_t b = 0; b < length; ++b) dictionary.arena[offset + b] = key[b];
    dictionary.term_offsets[id] = offset;
    dictionary.term_lengths[id] = static_cast<uint8_t>(length);
    dictionary.term_collections[id] = chunk.collections[i];
    table.slots[slot_of[i]] = static_cast<uint32_t>(id);
}

__global__ void advance_counters(DictionaryView dictionary, const unsigned long long* claim,
                                 const unsigned long long* claim_prefix, uint32_t count) {
    const unsigned long long total = claim_prefix[count - 1] + claim[count - 1];
    dictionary.counters[0] += total >> kCountShift;
    dictionary.counters[1] += total & kBytesMask;
}

__global__ void resolve_term_ids(HashTableView table, uint32_t count, const uint32_t* slot_of, uint32_t* term_ids) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) term_ids[i] = table.slots[slot_of[i]];
}

__global__ void insert_all(DictionaryView dictionary, HashTableView table) {
    const uint64_t id = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
    if (id >= dictionary.counters[0]) return;
    uint64_t slot = hash_key(dictionary.arena + dictionary.term_offsets[id], dictionary.term_lengths[id],
                             dictionary.term_collections[id]) &
                    table.mask;
    while (atomicCAS(table.slots + slot, kEmptySlot, static_cast<uint32_t>(id)) != kEmptySlot) {
        slot = (slot + 1) & table.mask;
    }
}

}  // namespace

size_t hash_scan_temp_bytes(uint32_t max_chunk) {
    size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<unsigned long long*>(nullptr),
                                        static_cast<unsigned long long*>(nullptr), max_chunk),
          "cub::DeviceScan::ExclusiveSum (size)");
    return bytes;
}

void hash_assign_term_ids(const DictionaryView& dictionary, const HashTableView& table, const ChunkView& chunk,
                          const HashScratch& scratch, uint32_t* term_ids, cudaStream_t stream) {
    if (chunk.count == 0) return;
    const unsigned blocks = blocks_for(chunk.count);
    probe_or_claim<<<blocks, kThreads, 0, stream>>>(dictionary, table, chunk, scratch.slot);
    check_launch("probe_or_claim");
    mark_claimants<<<blocks, kThreads, 0, stream>>>(table, chunk, scratch.slot, scratch.claim);
    check_launch("mark_claimants");
    size_t temp_bytes = scratch.scan_temp_bytes;
    check(cub::DeviceScan::ExclusiveSum(scratch.scan_temp, temp_bytes, scratch.claim, scratch.claim_prefix,
                                        static_cast<int>(chunk.count), stream),
          "cub::DeviceScan::ExclusiveSum");
    commit_new_terms<<<blocks, kThreads, 0, stream>>>(dictionary, table, chunk, scratch.slot, scratch.claim,
                                                      scratch.claim_prefix);
    check_launch("commit_new_terms");
    advance_counters<<<1, 1, 0, stream>>>(dictionary, scratch.claim, scratch.claim_prefix, chunk.count);
    check_launch("advance_counters");
    resolve_term_ids<<<blocks, kThreads, 0, stream>>>(table, chunk.count, scratch.slot, term_ids);
    check_launch("resolve_term_ids");
}

void hash_insert_all(const DictionaryView& dictionary, const HashTableView& table, uint64_t max_terms,
                     cudaStream_t stream) {
    if (max_terms == 0) return;
    insert_all<<<blocks_for(max_terms), kThreads, 0, stream>>>(dictionary, table);
    check_launch("insert_all");
}

}  // namespace invidx::cuda
