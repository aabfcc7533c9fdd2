#include "store/block_checksums.hpp"

#include <bit>

#include "store/index_layout.hpp"

namespace invidx {

void write_block_checksums(const std::vector<FileBlockChecksums>& files, BinaryWriter& out) {
    out.bytes(layout::kChecksumsMagic);
    out.u32(layout::kFileVersion);
    out.u32(0);  // reserved
    out.u64(files.size());
    for (const auto& file : files) {
        out.string(file.path);
        out.u64(file.size_bytes);
        out.u32(file.block_bytes);
        out.u64(file.crcs.size());
        for (const uint32_t crc : file.crcs) out.u32(crc);
    }
    out.finish_with_crc();
}

std::vector<FileBlockChecksums> read_block_checksums(const std::string& name, std::string_view bytes) {
    check_trailing_crc(name, bytes);
    BinaryReader in(name, bytes.substr(0, bytes.size() - 4));
    in.expect_header(layout::kChecksumsMagic, layout::kFileVersion);
    in.u32("reserved");
    const uint64_t count = in.u64("file_count");
    // A file entry takes at least 24 bytes: bounds the reservation.
    if (count > (in.size() - in.position()) / 24) in.fail("file_count", "more files than checksums.bin can hold");
    std::vector<FileBlockChecksums> files(count);
    for (auto& file : files) {
        file.path = std::string(in.string("path"));
        file.size_bytes = in.u64("size_bytes");
        file.block_bytes = in.u32("block_bytes");
        if (!std::has_single_bit(file.block_bytes) || file.block_bytes < 512) {
            in.fail("block_bytes", "block size of " + file.path + " must be a power of two of at least 512");
        }
        const uint64_t blocks = in.u64("block_count");
        if (blocks != (file.size_bytes + file.block_bytes - 1) / file.block_bytes) {
            in.fail("block_count", std::to_string(blocks) + " blocks do not cover the " + std::to_string(file.size_bytes) +
                                       " bytes of " + file.path);
        }
        if (blocks > (in.size() - in.position()) / 4) in.fail("block_count", "more block checksums than the file holds");
        file.crcs.resize(blocks);
        for (auto& crc : file.crcs) crc = in.u32("crc32");
        if (&file != &files.front() && !((&file - 1)->path < file.path)) in.fail("path", "paths are not sorted and unique");
    }
    if (in.position() != in.size()) in.fail("file_count", "bytes after the last file's checksums");
    return files;
}

}  // namespace invidx
