// Binary packing in groups of 128 (Lemire & Boytsov 2015, "SIMD-BP128"),
// the SIMD-friendly codec: each group of up to 128 values is one
// byte b = bits of its largest value, then the values packed in b bits
// (store/codecs/bit_packing.hpp: full groups in the 4-lane vertical layout
// that gcc vectorizes, a last short group horizontally). No exceptions, so
// one large value widens its whole group; in exchange decoding is a few
// shifts and masks per 4 values with no branch per value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace invidx::codecs {

struct BinaryPacking {
    static constexpr std::string_view kName = "bp128";
    static constexpr std::string_view kDescription =
        "binary packing: per 128 values one bit width, 4-lane vertical layout (SIMD-BP128)";

    static void encode(std::span<const uint32_t> values, std::string& out);
    static void decode(std::string_view bytes, std::span<uint32_t> decoded);
};

}  // namespace invidx::codecs
