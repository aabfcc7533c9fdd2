// CRC-32 of a text from the CRCs of its pieces: the GPU inflate kernel
// splits a member's text among a warp's 32 lanes, each lane takes the CRC
// of its piece, and the pieces' CRCs combine into the text's, so no thread
// walks a long member alone. C++17, host and device (the host tests hold
// the combination to the CRC of the whole).
//
// The CRC register (gzip's reflected polynomial, before the final
// inversion) is linear in its start value and the bytes, so the register
// over A then B is the register over B from 0, XOR the register over A
// carried through |B| zero bytes. Carrying a register r through n zero bytes
// is r * x^(8n) mod P; x^(8n) is a product of the powers x^(8 * 2^k) for the
// set bits k of n, precomputed once.
#pragma once

#include <cstdint>

#include "devices/inflate/deflate_member_decoder.hpp"

namespace invidx::inflate {

constexpr uint32_t kCrc32Polynomial = 0xEDB88320u;  // reflected: bit 31 is x^0, bit 0 is x^31

// a * b mod P, both in the reflected form.
INVIDX_HOST_DEVICE constexpr uint32_t crc32_multiply(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {  // a's terms from x^0 up, b times x each step
        if (a & bit) product ^= b;
        b = (b & 1) ? (b >> 1) ^ kCrc32Polynomial : b >> 1;
    }
    return product;
}

// powers[k] = x^(8 * 2^k) mod P: carrying a register through 2^k zero bytes.
struct Crc32ShiftPowers {
    uint32_t powers[32];
};

constexpr Crc32ShiftPowers make_crc32_shift_powers() {
    Crc32ShiftPowers out{};
    out.powers[0] = 1u << (31 - 8);  // x^8
    for (int k = 1; k < 32; ++k) out.powers[k] = crc32_multiply(out.powers[k - 1], out.powers[k - 1]);
    return out;
}

// The register `reg` carried through `bytes` zero bytes; `powers` a
// Crc32ShiftPowers' powers (in shared memory on the device).
INVIDX_HOST_DEVICE inline uint32_t crc32_shift(uint32_t reg, uint32_t bytes, const uint32_t* powers) {
    uint32_t factor = 1u << 31;  // x^0
    for (uint32_t k = 0; bytes != 0; ++k, bytes >>= 1) {
        if (bytes & 1) factor = crc32_multiply(factor, powers[k]);
    }
    return crc32_multiply(factor, reg);
}

// The register over bytes [0, size) started from `start` (0xFFFFFFFF for the
// first piece of a text, 0 for the others); the text's CRC-32 is the
// inverse of the XOR of its pieces' registers, each carried through the
// bytes after its piece.
INVIDX_HOST_DEVICE inline uint32_t crc32_register(uint32_t start, const unsigned char* bytes, uint64_t size,
                                                  const uint32_t (*tables)[256]) {
    return ~crc32_update(~start, bytes, size, tables);
}

}  // namespace invidx::inflate
