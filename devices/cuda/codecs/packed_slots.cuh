// One value of store/codecs/bit_packing.hpp's layout, read on the device by
// its index, so that every thread unpacks its own slot (Ding et al. §6):
// full groups of 128 values are 4 vertical lanes of b-bit fields (value j of
// a group: lane j % 4, field j / 4, in 32-bit little-endian words 4·f + lane),
// the last n % 128 values one horizontal little-endian bit stream.
// PForDelta's slots and Rice's binary part are both this layout.
#pragma once

#include <cstdint>

namespace invidx::cuda {

constexpr uint32_t kPackedGroup = 128;

// Bytes that codecs::pack writes for n values of b bits (codecs::packed_bytes).
__host__ __device__ inline uint64_t packed_slot_bytes(uint64_t n, uint32_t b) {
    return (n / kPackedGroup) * 16 * b + ((n % kPackedGroup) * b + 7) / 8;
}

// Four bytes at any address, little-endian: a unit's slots start after its
// header bytes, so the words are not aligned.
__device__ inline uint32_t load_le32(const unsigned char* at) {
    return static_cast<uint32_t>(at[0]) | (static_cast<uint32_t>(at[1]) << 8) |
           (static_cast<uint32_t>(at[2]) << 16) | (static_cast<uint32_t>(at[3]) << 24);
}

__device__ inline uint32_t low_bits(uint64_t field, uint32_t b) {
    return b == 32 ? static_cast<uint32_t>(field) : static_cast<uint32_t>(field & ((uint64_t{1} << b) - 1));
}

// Value i of the n values of b bits packed at `slots`. Reads only bytes of
// the packing (packed_slot_bytes(n, b) from `slots`).
__device__ inline uint32_t packed_slot(const unsigned char* slots, uint32_t n, uint32_t b, uint32_t i) {
    if (b == 0) return 0;
    const uint32_t grouped = n - n % kPackedGroup;
    if (i < grouped) {
        const unsigned char* group = slots + static_cast<uint64_t>(i / kPackedGroup) * 16 * b;
        const uint32_t j = i % kPackedGroup;
        const uint32_t lane = j & 3;
        const uint32_t bit = (j >> 2) * b;
        const uint32_t word = bit >> 5;
        const uint32_t shift = bit & 31;
        uint64_t field = load_le32(group + 4 * (4 * word + lane)) >> shift;
        if (shift + b > 32) {
            field |= static_cast<uint64_t>(load_le32(group + 4 * (4 * (word + 1) + lane))) << (32 - shift);
        }
        return low_bits(field, b);
    }
    // The tail: at most 127 values, so the bit offset fits in 32 bits; a
    // field spans at most 5 bytes, all inside the tail.
    const unsigned char* tail = slots + static_cast<uint64_t>(grouped / kPackedGroup) * 16 * b;
    const uint32_t bit = (i - grouped) * b;
    const unsigned char* first = tail + (bit >> 3);
    const uint32_t shift = bit & 7;
    const uint32_t bytes = (shift + b + 7) >> 3;
    uint64_t field = 0;
    for (uint32_t k = 0; k < bytes; ++k) field |= static_cast<uint64_t>(first[k]) << (8 * k);
    return low_bits(field >> shift, b);
}

}  // namespace invidx::cuda
