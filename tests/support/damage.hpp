// Damaging index files on purpose, for the tests that check damage is found.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

namespace invidx::testing {

// XORs the byte at `offset` of `path` with 0x5A (never a no-op).
inline void flip_byte(const std::filesystem::path& path, uint64_t offset) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(offset));
    char byte = 0;
    file.get(byte);
    file.seekp(static_cast<std::streamoff>(offset));
    file.put(static_cast<char>(byte ^ 0x5A));
}

}  // namespace invidx::testing
