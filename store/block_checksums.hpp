// checksums.bin (docs/FORMAT.md, "checksums.bin"): a CRC-32 per 64 KiB block
// of every other file of the index, so that a reader verifies the blocks it
// reads when it reads them instead of every byte at open.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/binary_io.hpp"

namespace invidx {

struct FileBlockChecksums {
    std::string path;         // relative to the index directory, as in the manifest
    uint64_t size_bytes = 0;
    uint32_t block_bytes = 0;  // a power of two
    std::vector<uint32_t> crcs;  // ceil(size_bytes / block_bytes), the last block shorter
};

// Writes the whole file, trailing CRC-32 included, and finishes `out`.
void write_block_checksums(const std::vector<FileBlockChecksums>& files, BinaryWriter& out);

// Parses checksums.bin (all of it, its own trailing CRC-32 checked): any
// inconsistency is a FormatError naming `name` and the field.
std::vector<FileBlockChecksums> read_block_checksums(const std::string& name, std::string_view bytes);

}  // namespace invidx
