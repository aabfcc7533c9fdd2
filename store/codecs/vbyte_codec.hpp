// Variable-byte, the build's own code (nodes/compress/vbyte.hpp, docs/FORMAT.md:
// 7 bits a byte, least significant group first, high bit set on the last
// byte), as a codec over a plain sequence of values: the baseline the other
// codecs are measured against. One to five bytes a value, a branch a byte.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace invidx::codecs {

struct VariableByte {
    static constexpr std::string_view kName = "vbyte";
    static constexpr std::string_view kDescription =
        "variable-byte, 7 bits a byte (the build's own postings code)";

    static void encode(std::span<const uint32_t> values, std::string& out);
    static void decode(std::string_view bytes, std::span<uint32_t> decoded);
};

}  // namespace invidx::codecs
