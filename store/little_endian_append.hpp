// Little-endian integers appended to a byte string: how the pieces of
// dictionary.bin and documents.bin that cluster ranks write themselves are
// encoded, byte for byte as BinaryWriter writes the whole files.
#pragma once

#include <cstdint>
#include <string>

namespace invidx {

inline void put_u32(std::string& out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

inline void put_u64(std::string& out, uint64_t value) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

}  // namespace invidx
