// Decoding one bp128 group on the device (store/codecs/bp128.hpp:
// a bit-width byte b, then the values packed at b bits), Ding et al.'s
// block-wise decompression: one 128-thread block decodes one group, thread i
// value i. A full group of 128 is in the 4-lane vertical layout (value i is
// field i / 4 of lane i % 4, which may straddle two of the lane's words); a
// shorter one (a list's last block) is one little-endian bit stream, value i
// at bits [i·b, i·b + b). Used by the codec benchmark (gpu_bp128_decode.cu) and by
// the query processor, which keeps bp128 lists compressed in device memory.
//
// Reads may run up to 20 bytes past the group's last byte (a 0-bit group
// still reads its lanes' first words): buffers carry that much slack.
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

namespace invidx::cuda {

constexpr unsigned kBp128GroupValues = 128;
constexpr unsigned kBp128ReadSlack = 32;  // bytes a buffer of groups keeps after its last group
using Bp128Scan = cub::BlockScan<uint32_t, kBp128GroupValues>;

// Four bytes at any address, little-endian (the words start one byte after
// the bit-width byte, so they are not aligned).
__device__ inline uint32_t bp128_load_word(const unsigned char* at) {
    return static_cast<uint32_t>(at[0]) | (static_cast<uint32_t>(at[1]) << 8) |
           (static_cast<uint32_t>(at[2]) << 16) | (static_cast<uint32_t>(at[3]) << 24);
}

// Value i (as stored: gap − 1 or tf − 1) of a group of `count` values; i < count.
__device__ inline uint32_t bp128_group_value(const unsigned char* group, unsigned i, unsigned count) {
    const uint32_t b = group[0];
    const unsigned char* packed = group + 1;
    if (b == 0) return 0;
    uint64_t field = 0;
    if (count == kBp128GroupValues) {
        const unsigned lane = i & 3;
        const uint32_t bit = (i >> 2) * b;
        const uint32_t word = bit >> 5;
        const uint32_t shift = bit & 31;
        field = bp128_load_word(packed + 4 * (4 * word + lane)) >> shift;
        if (shift + b > 32) field |= static_cast<uint64_t>(bp128_load_word(packed + 4 * (4 * (word + 1) + lane))) << (32 - shift);
    } else {
        // b + 7 bits at most from the field's first byte: five bytes.
        const uint32_t bit = i * b;
        const unsigned char* at = packed + (bit >> 3);
        for (unsigned byte = 0; byte < 5; ++byte) field |= static_cast<uint64_t>(at[byte]) << (8 * byte);
        field >>= bit & 7;
    }
    return b == 32 ? static_cast<uint32_t>(field) : static_cast<uint32_t>(field & ((1ull << b) - 1));
}

// Every thread of a 128-thread block calls this for the same group (the
// prefix sum is a block-wide collective); thread i gets value i. kDocids:
// values are docid gaps minus one counted from first_docid (the previous
// block's last docid + 1, or 0), and thread i gets docid i. Threads at or
// past `count` take part in the sum but get no meaningful value. A caller
// reusing `scan` for another group syncs the block first.
template <bool kDocids>
__device__ inline uint32_t bp128_decode_group(const unsigned char* group, uint32_t first_docid,
                                              Bp128Scan::TempStorage& scan, unsigned count = kBp128GroupValues) {
    const unsigned i = threadIdx.x;
    uint32_t value = i < count ? bp128_group_value(group, i, count) : 0;
    if constexpr (kDocids) {
        uint32_t steps = 0;  // gaps are stored minus one
        Bp128Scan(scan).InclusiveSum(value + 1, steps);
        value = first_docid + steps - 1;
    }
    return value;
}

}  // namespace invidx::cuda
