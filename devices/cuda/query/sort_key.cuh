// One sort key per candidate of a batch, ordering exactly as the CPU ranks:
// query slot ascending, then score descending, then docid ascending. The
// value is slot · 2^(63+d) + (2^63 − 1 − score bits) · 2^d + docid, d the
// bits of the largest docid (scores are positive, so their 63 low bits order
// like the numbers), held in two 64-bit words; CUB radix-sorts it over its
// 63 + d + slot bits only.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda/std/tuple>

namespace invidx::cuda {

struct SortKey {
    uint64_t hi = 0;
    uint64_t lo = 0;
};

// For cub::DeviceRadixSort: most significant word first.
struct SortKeyDecomposer {
    __host__ __device__ ::cuda::std::tuple<uint64_t&, uint64_t&> operator()(SortKey& key) const {
        return {key.hi, key.lo};
    }
};

constexpr uint64_t kScoreMask = (uint64_t{1} << 63) - 1;

// Sorts after every real key (a real key's score is never 0).
__host__ __device__ inline SortKey last_sort_key() { return SortKey{~uint64_t{0}, ~uint64_t{0}}; }

// docid_bits: 1..32.
__device__ inline SortKey make_sort_key(uint32_t slot, double score, uint32_t docid, uint32_t docid_bits) {
    const uint64_t inverted = kScoreMask - (static_cast<uint64_t>(__double_as_longlong(score)) & kScoreMask);
    SortKey key;
    key.lo = static_cast<uint64_t>(docid) | (inverted << docid_bits);
    key.hi = (inverted >> (64 - docid_bits)) | (static_cast<uint64_t>(slot) << (docid_bits - 1));
    return key;
}

inline void read_sort_key(const SortKey& key, uint32_t docid_bits, uint32_t& slot, uint32_t& docid, double& score) {
    docid = static_cast<uint32_t>(key.lo & ((uint64_t{1} << docid_bits) - 1));
    const uint64_t inverted = ((key.lo >> docid_bits) | (key.hi << (64 - docid_bits))) & kScoreMask;
    const uint64_t bits = kScoreMask - inverted;
    std::memcpy(&score, &bits, sizeof score);
    slot = static_cast<uint32_t>(key.hi >> (docid_bits - 1));
}

// Bits the sort must look at.
inline int sort_key_bits(uint32_t docid_bits, uint32_t slot_bits) { return static_cast<int>(63 + docid_bits + slot_bits); }

}  // namespace invidx::cuda
