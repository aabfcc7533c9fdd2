// One block of bytes compressed whole as a zlib stream (RFC 1950): by
// libdeflate where the build has it (faster at the same ratio), by zlib
// otherwise; either decodes the other's. For the document store's blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace invidx {

// `bytes` compressed at a fast level, appended to `out`.
void compress_block(std::string_view bytes, std::string& out);
// The `uncompressed_bytes` bytes `compressed` decodes to; false when it is
// not a zlib stream of exactly that many bytes.
bool decompress_block(std::string_view compressed, uint64_t uncompressed_bytes, std::string& out);

}  // namespace invidx
