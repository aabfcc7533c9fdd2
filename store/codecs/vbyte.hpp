// Variable-byte, the build's own code (docs/FORMAT.md: 7 bits a byte, least
// significant group first, high bit set on the last byte). vbyte::put/get are
// the primitives every run list is written and read with (store/run_list.hpp);
// VariableByte is the same code as a codec over a plain sequence of values:
// the baseline the other codecs are measured against. One to five bytes a
// value, a branch a byte.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "invidx/error.hpp"

namespace invidx::vbyte {

inline void put(std::string& out, uint64_t value) {
    while (value >= 128) {
        out.push_back(static_cast<char>(value & 127));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value | 128));
}

// Reads one integer at `pos`, advancing it. Throws invidx::Error past the end.
// Inline: it is the inner loop of every list decode (and of the vbyte codec).
inline uint64_t get(std::string_view in, size_t& pos) {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (pos >= in.size()) throw Error("variable-byte list ends inside an integer");
        const auto byte = static_cast<uint8_t>(in[pos++]);
        value |= static_cast<uint64_t>(byte & 127) << shift;
        if (byte & 128) return value;
    }
    throw Error("variable-byte integer longer than 64 bits");
}

}  // namespace invidx::vbyte

namespace invidx::codecs {

struct VariableByte {
    static constexpr std::string_view kName = "vbyte";
    static constexpr std::string_view kDescription =
        "variable-byte, 7 bits a byte (the build's own postings code)";

    static void encode(std::span<const uint32_t> values, std::string& out);
    static void decode(std::string_view bytes, std::span<uint32_t> decoded);
};

}  // namespace invidx::codecs
