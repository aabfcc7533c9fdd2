// documents-text.bin, the optional document store (docs/FORMAT.md,
// "documents-text.bin"): each document's text as the parser saw it and, for
// JSONL, its other fields, in zlib blocks of consecutive docids (compressed
// at "store.level", or stored uncompressed at level 0).
#pragma once

#include <cstdint>
#include <string_view>

namespace invidx::layout {

inline constexpr std::string_view kDocumentTextFile = "documents-text.bin";
inline constexpr std::string_view kDocumentTextMagic = "INVIDXTX";
inline constexpr uint32_t kDocumentTextVersion = 1;
// A block is closed once its records reach this many bytes (uncompressed):
// one document's text costs the decoding of at most about this much.
inline constexpr uint64_t kDocumentTextBlockBytes = 64 * 1024;
inline constexpr uint64_t kDocumentTextHeaderBytes = 16;      // magic, version, reserved
inline constexpr uint64_t kDocumentTextBlockEntryBytes = 36;  // first docid, offset, compressed, uncompressed, crc32
inline constexpr uint64_t kDocumentTextFooterBytes = 28;      // documents, blocks, table offset, crc32

}  // namespace invidx::layout
