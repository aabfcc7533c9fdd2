// One block of bytes compressed whole as a zlib stream (RFC 1950): by
// libdeflate where the build has it (faster at the same ratio), by zlib
// otherwise; either decodes the other's. For the document store's blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace invidx {

// The zlib levels a block may be compressed at: 0 stores the bytes as
// they are (zlib "stored" blocks, about the cost of a copy), 1 is the
// fastest that compresses, 12 (libdeflate; zlib stops at 9) the smallest.
inline constexpr int kMinCompressionLevel = 0;
inline constexpr int kMaxCompressionLevel = 12;

// `bytes` compressed at `level` (kMinCompressionLevel..kMaxCompressionLevel;
// above 9 is 9 where the build has no libdeflate), appended to `out`.
void compress_block(std::string_view bytes, std::string& out, int level);
// The `uncompressed_bytes` bytes `compressed` decodes to; false when it is
// not a zlib stream of exactly that many bytes.
bool decompress_block(std::string_view compressed, uint64_t uncompressed_bytes, std::string& out);

}  // namespace invidx
