#include "nodes/decompress/decompress_file.hpp"

#include <algorithm>

#include "invidx/error.hpp"
#include "nodes/decompress/file_byte_source.hpp"

namespace invidx {
namespace {

// Blocks start small and double up to the limit, so that a tar of many small
// files does not hold a full-size buffer per tiny entry.
constexpr size_t kFirstBufferBytes = size_t{64} << 10;

// Reads into block.bytes until it holds `limit` bytes or the entry ends;
// returns true when the entry ended.
bool fill(ArchiveStream& stream, TextBlock& block, size_t limit) {
    size_t filled = 0;
    block.bytes.resize(std::min(limit, kFirstBufferBytes));
    for (;;) {
        if (filled == block.bytes.size()) {
            if (filled == limit) return false;
            block.bytes.resize(std::min(limit, filled * 2));
        }
        const size_t got = stream.read(block.bytes.data() + filled, block.bytes.size() - filled);
        if (got == 0) {
            block.bytes.resize(filled);
            return true;
        }
        filled += got;
    }
}

}  // namespace

bool emit_text_blocks(ArchiveStream& stream, const InputFile& file, size_t text_block_bytes,
                      const std::function<bool(TextBlock&&)>& emit) {
    ensure(text_block_bytes > 0, "text block size must be positive");
    std::string entry_name;
    while (stream.next_entry(entry_name)) {
        const auto start_block = [&](uint64_t entry_offset) {
            TextBlock block;
            block.file_ordinal = file.ordinal;
            block.entry_index = stream.entry_index();
            block.entry_name = entry_name;
            block.entry_offset = entry_offset;
            return block;
        };
        TextBlock current = start_block(0);
        current.entry_begin = true;
        bool ended = fill(stream, current, text_block_bytes);
        // A full block is only known to be the entry's last once the next
        // read finds nothing, so one block is held back.
        while (!ended) {
            TextBlock next = start_block(current.entry_offset + current.bytes.size());
            ended = fill(stream, next, text_block_bytes);
            if (ended && next.bytes.empty()) break;
            if (!emit(std::move(current))) return false;
            current = std::move(next);
        }
        current.entry_end = true;
        if (!emit(std::move(current))) return false;
    }
    return true;
}

void decompress_file(const InputFile& file, size_t text_block_bytes,
                     const std::function<bool(TextBlock&&)>& emit) {
    FileByteSource source(file.path);
    ArchiveStream stream(source, file);
    emit_text_blocks(stream, file, text_block_bytes, emit);
}

}  // namespace invidx
