// Fixed-width bit packing: n values of b bits each (0 <= b <= 32), the
// kernel shared by binary packing, PForDelta's slots and Rice's binary part.
//
// Layout of pack(values, b) (docs/FORMAT.md, "Codecs"):
// - every full group of 128 values takes 16·b bytes in a *vertical* layout of
//   4 lanes (Lemire & Boytsov 2015, SIMD-BP128): value i belongs to lane i % 4;
//   each lane's 32 values are b-bit fields, least significant first, in b
//   32-bit little-endian words; word j of lane l is word 4·j + l of the group.
//   So the 4 lanes are unpacked by the same shifts at once, one 128-bit
//   register, and gcc vectorizes the plain C++ below (no intrinsics);
// - the last n % 128 values are packed *horizontally*: one little-endian bit
//   stream, value k at bits [k·b, k·b + b), in ceil(b·(n % 128) / 8) bytes.
// Only the low b bits of each value are packed.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace invidx::codecs {

static_assert(std::endian::native == std::endian::little, "the codecs read little-endian words in place");

inline constexpr size_t kGroupValues = 128;

// Bits needed for value (0 for 0).
inline uint32_t bit_width32(uint32_t value) { return static_cast<uint32_t>(std::bit_width(value)); }

// Bytes that pack() writes for n values of b bits.
inline size_t packed_bytes(size_t n, uint32_t b) {
    return (n / kGroupValues) * 16 * b + (((n % kGroupValues) * b) + 7) / 8;
}

// Appends the low b bits of every value to out.
void pack(std::span<const uint32_t> values, uint32_t b, std::string& out);

// Decodes out.size() values of b bits from `in`, which must hold at least
// packed_bytes(out.size(), b) bytes (the caller checks).
void unpack(const char* in, uint32_t b, std::span<uint32_t> out);

// One group of 128 values, vertical layout: 16·b bytes.
void pack128(const uint32_t* values, uint32_t b, char* out);
void unpack128(const char* in, uint32_t b, uint32_t* out);

}  // namespace invidx::codecs
