// Rice coding (Rice 1979) as Ding et al. lay it out for GPUs (WWW 2009,
// §6.1, after Yan, Ding & Suel 2009): with 2^b near the mean value, value v
// is q = v >> b in unary and r = v mod 2^b in b bits, and the unary and
// binary parts go to two separate bit arrays. The binary part is then plain
// fixed-width packing (decoded by the vectorized kernel of bit_packing.hpp)
// and the unary part is decoded a 64-bit word at a time: each zero bit ends
// one value, found by count-trailing-zeros.
//
// Bytes: b (one byte, 0..31), the binary part (bit_packing.hpp layout, n
// values of b bits), then the unary part: per value q one-bits then a
// zero-bit, least significant bit first, the last byte padded with zeros.
// b = floor(log2(0.69 · mean)) (0.69 ≈ ln 2: the Golomb parameter that is
// optimal for geometric gaps), so the unary part never exceeds about 3 bits
// per value, whatever the values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace invidx::codecs {

struct Rice {
    static constexpr std::string_view kName = "rice";
    static constexpr std::string_view kDescription =
        "Rice: b from the mean, unary and binary parts in separate bit arrays (Ding et al. 2009)";

    static void encode(std::span<const uint32_t> values, std::string& out);
    static void decode(std::string_view bytes, std::span<uint32_t> decoded);

    // The parameter b for these values (exposed for tests and the docs).
    static uint32_t parameter(std::span<const uint32_t> values);
};

}  // namespace invidx::codecs
