// A file written in pieces by several processes, each at its own offsets:
// its CRC-32 and its 64 KiB block checksums (checksums.bin) put together
// from the CRC-32s of the spans each process wrote, without reading the
// file back. Used by the cluster joins of dictionary.bin and documents.bin.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace invidx {

// The CRC-32 of `length` bytes at `offset` of a file, none crossing a
// checksum block boundary.
struct ChecksumSpan {
    uint64_t offset = 0;
    uint64_t length = 0;
    uint32_t crc = 0;
};
// `bytes`, to lie at `offset`, cut at the block boundaries.
std::vector<ChecksumSpan> checksum_spans(uint64_t offset, std::string_view bytes);
// The same appended to `spans`, the first joined to the last span when it
// continues it within its block: a range written in many small pieces
// still gives about one span per block.
void add_checksum_spans(std::vector<ChecksumSpan>& spans, uint64_t offset, std::string_view bytes);

struct FileChecksums {
    uint32_t crc32 = 0;                // of the whole file
    std::vector<uint32_t> block_crcs;  // per 64 KiB block, as BinaryWriter::block_crcs
};
// From spans that cover [0, size_bytes) exactly once, in any order; a gap
// or an overlap is an invidx::Error.
FileChecksums assemble_checksums(std::vector<ChecksumSpan> spans, uint64_t size_bytes);

}  // namespace invidx
