// Where in a deflate stream a dynamic Huffman block (BTYPE 10) could begin:
// the search a stream piece starts with (its bytes begin at an arbitrary
// byte of the stream), on the host (nodes/decompress/deflate_piece.cpp) and
// by a warp on the GPU (devices/inflate/lockstep_piece_decoding.hpp). Both
// only filter: a position that passes is then read whole, header and
// block, before a piece starts there. C++17, no CUDA headers.
#pragma once

#include <cstdint>
#include <cstring>

#include "devices/inflate/deflate_member_decoder.hpp"

namespace invidx::inflate {

// The 57 or more bits from bit `bit` of `in` (zeros past its end).
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint64_t bits_at(const unsigned char* in, uint64_t size, uint64_t bit) {
    const uint64_t byte = bit >> 3;
    uint64_t word = 0;
#if defined(__CUDA_ARCH__)
    for (uint32_t k = 0; k < 8; ++k) {
        if (byte + k < size) word |= uint64_t{in[byte + k]} << (8 * k);
    }
#else
    if (byte + 8 <= size) {
        std::memcpy(&word, in + byte, 8);
    } else if (byte < size) {
        std::memcpy(&word, in + byte, static_cast<size_t>(size - byte));
    }
#endif
    return word >> (bit & 7);
}

// Of positions 0-31 of `bits` (the stream from a search position on, first
// bit lowest), those where a dynamic block's first 13 bits could be:
// BTYPE 10 (bit p + 1 clear, p + 2 set), HLIT and HDIST at most 29 (not
// their top four bits all set). could_start_dynamic_block checks the same
// and more; this takes 32 positions in a few word operations.
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint64_t header_candidates(uint64_t bits) {
    const uint64_t type_dynamic = ~(bits >> 1) & (bits >> 2);
    const uint64_t hlit_over = (bits >> 4) & (bits >> 5) & (bits >> 6) & (bits >> 7);
    const uint64_t hdist_over = (bits >> 9) & (bits >> 10) & (bits >> 11) & (bits >> 12);
    return type_dynamic & ~hlit_over & ~hdist_over & 0xFFFFFFFFu;
}

#if !defined(__CUDA_ARCH__)
// The Kraft sums of four 3-bit code lengths (a 12-bit group of a dynamic
// header's code length code lengths), in units of 2^-7: 0 for an unused
// symbol, 128 >> length otherwise.
struct KraftOfFourLengths {
    uint16_t sum[1u << 12];
    constexpr KraftOfFourLengths() : sum() {
        for (uint32_t group = 0; group < (1u << 12); ++group) {
            uint32_t total = 0;
            for (uint32_t k = 0; k < 4; ++k) {
                const uint32_t length = (group >> (3 * k)) & 7;
                if (length != 0) total += 128u >> length;
            }
            sum[group] = static_cast<uint16_t>(total);
        }
    }
};
inline constexpr KraftOfFourLengths kKraftOfFour{};
#endif

// Whether a dynamic block's header could start at `bit`: its type, counts
// in range and a complete code length code (a cheap filter before the
// header is read whole; most positions of a piece's search end here, so on
// the host the code length code's Kraft sum is five table lookups, not a
// loop; on the GPU each lane tests its own position with the loop).
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE bool could_start_dynamic_block(const unsigned char* in, uint64_t size, uint64_t bit) {
    const uint64_t head = bits_at(in, size, bit);
    if ((head & 6) != 4) return false;  // BTYPE 10, final or not
    if (((head >> 3) & 31) > 29 || ((head >> 8) & 31) > 29) return false;
    const uint32_t code_length_codes = static_cast<uint32_t>((head >> 13) & 15) + 4;
    // HCLEN's 3-bit lengths (at most 19: 57 bits), those past the count masked off.
    const uint64_t lengths = bits_at(in, size, bit + 17) & ((uint64_t{1} << (3 * code_length_codes)) - 1);
#if defined(__CUDA_ARCH__)
    uint32_t kraft = 0;
    for (uint32_t i = 0; i < code_length_codes; ++i) {
        const uint32_t length = static_cast<uint32_t>((lengths >> (3 * i)) & 7);
        if (length != 0) kraft += 128u >> length;
    }
#else
    const uint32_t kraft = kKraftOfFour.sum[lengths & 0xFFF] + kKraftOfFour.sum[(lengths >> 12) & 0xFFF] +
                           kKraftOfFour.sum[(lengths >> 24) & 0xFFF] + kKraftOfFour.sum[(lengths >> 36) & 0xFFF] +
                           kKraftOfFour.sum[(lengths >> 48) & 0xFFF];
#endif
    return kraft == 128;
}

}  // namespace invidx::inflate
