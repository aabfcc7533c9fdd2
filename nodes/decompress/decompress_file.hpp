// Cutting decoded entries into TextBlocks, and the synchronous way to decode
// a whole file (the sampler and tests use it; the flow graph uses
// StreamingDecompressor, which gives the same blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstddef>
#include <functional>

#include "nodes/decompress/archive_stream.hpp"
#include "invidx/messages.hpp"

namespace invidx {

inline constexpr size_t kDefaultTextBlockBytes = size_t{4} << 20;

// Emits every entry of `stream` as TextBlocks of at most `text_block_bytes`
// (entry_begin on the first block of an entry, entry_end on its last; an empty
// entry is one empty block with both). The lease is left empty. Returns false
// as soon as `emit` returns false.
bool emit_text_blocks(ArchiveStream& stream, const InputFile& file, size_t text_block_bytes,
                      const std::function<bool(TextBlock&&)>& emit);

// Decodes `file` straight from disk; `emit` returns false to stop early.
// Throws invidx::Error on unreadable or damaged input.
void decompress_file(const InputFile& file, size_t text_block_bytes,
                     const std::function<bool(TextBlock&&)>& emit);

}  // namespace invidx
