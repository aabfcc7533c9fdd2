// A posting's positions on the postings wire (postings_wire.hpp): its tf
// gaps (the first from 0) all at one width, the bit width of the largest,
// packed least significant bit first into ceil(tf * width / 8) bytes.
// With one variable-byte code a gap, each read's place depends on the
// length of the one before, so decoding was a chain of dependent loads and
// the costliest part of a positional message; here every gap's place follows
// from its index, and the reads are independent. The size is about the same
// (a posting's gaps are of similar sizes, and a byte holds 8 bits, not 7).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace invidx::postings_wire {

// The width of the gaps of `count` increasing positions: 1 to 32.
inline uint32_t packed_width(const uint32_t* positions, uint32_t count) {
    uint32_t all = 0, previous = 0;
    for (uint32_t k = 0; k < count; ++k) {
        all |= positions[k] - previous;
        previous = positions[k];
    }
    return std::max(1u, static_cast<uint32_t>(std::bit_width(all)));
}

inline uint64_t packed_bytes(uint64_t count, uint32_t width) { return (count * width + 7) / 8; }

// Writes the gaps of `count` increasing positions at `width` bits; returns
// the end (packed_bytes later). Writes up to 4 bytes past it: room needed.
inline char* pack_positions(char* at, const uint32_t* positions, uint32_t count, uint32_t width) {
    uint64_t pending = 0;  // bits not yet written, lowest first
    uint32_t pending_bits = 0, previous = 0;
    for (uint32_t k = 0; k < count; ++k) {
        pending |= static_cast<uint64_t>(positions[k] - previous) << pending_bits;
        previous = positions[k];
        pending_bits += width;
        if (pending_bits >= 32) {
            for (int b = 0; b < 4; ++b) at[b] = static_cast<char>(pending >> (8 * b));
            at += 4;
            pending >>= 32;
            pending_bits -= 32;
        }
    }
    for (int b = 0; b < 4; ++b) at[b] = static_cast<char>(pending >> (8 * b));
    return at + (pending_bits + 7) / 8;
}

// Eight bytes from `at`, first lowest; `readable` bytes may be read.
inline uint64_t load_bits(const uint8_t* at, size_t readable) {
    uint8_t bytes[8] = {};
    std::memcpy(bytes, at, readable < 8 ? readable : 8);
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = word << 8 | bytes[b];
    return word;
}

// Reads the `count` gaps of `width` bits at `at` (packed_bytes of them, and
// `readable` >= that bytes from `at` may be read) as positions.
inline void unpack_positions(const uint8_t* at, size_t readable, uint32_t count, uint32_t width,
                             uint32_t* positions) {
    const uint64_t mask = (uint64_t{1} << width) - 1;
    uint32_t position = 0;
    uint64_t bit = 0;
    if (readable >= packed_bytes(count, width) + 8) {  // every 8-byte read inside: no checks
        for (uint32_t k = 0; k < count; ++k, bit += width) {
            position += static_cast<uint32_t>(load_bits(at + bit / 8, 8) >> (bit % 8) & mask);
            positions[k] = position;
        }
        return;
    }
    for (uint32_t k = 0; k < count; ++k, bit += width) {
        position += static_cast<uint32_t>(load_bits(at + bit / 8, readable - bit / 8) >> (bit % 8) & mask);
        positions[k] = position;
    }
}

}  // namespace invidx::postings_wire
