// Helpers for tests that compare decompressed TextBlocks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "nodes/decompress/decompress_file.hpp"
#include "invidx/messages.hpp"

namespace invidx::testing {

inline InputFile input_file(const std::filesystem::path& path, uint32_t ordinal = 3) {
    InputFile file;
    file.ordinal = ordinal;
    file.path = path.string();
    file.name = path.filename().string();
    return file;
}

// Equal content and entry framing (leases and file-level flags aside).
inline bool same_block(const TextBlock& a, const TextBlock& b) {
    return a.file_ordinal == b.file_ordinal && a.entry_index == b.entry_index && a.entry_name == b.entry_name &&
           a.entry_offset == b.entry_offset && a.bytes == b.bytes && a.entry_begin == b.entry_begin &&
           a.entry_end == b.entry_end;
}

// Every TextBlock of `file` through libarchive, synchronously.
inline std::vector<TextBlock> blocks_with_libarchive(const InputFile& file, size_t text_block_bytes) {
    std::vector<TextBlock> blocks;
    decompress_file(file, text_block_bytes, [&](TextBlock&& block) {
        blocks.push_back(std::move(block));
        return true;
    });
    return blocks;
}

}  // namespace invidx::testing
