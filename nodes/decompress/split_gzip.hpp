// One gzip file decoded on several cores (the decompress node's
// "split_gzip"). A file of many gzip members (WARC.gz: one per record) is
// cut into chunks at member headers found by a byte scan; each chunk is
// decoded on its own (GzipStream, CRC-32 and ISIZE checked), and the chunks'
// text is put back in order. A header the scan finds may be bytes inside
// compressed data that merely look like one; then the chunk before it (or
// the chunk starting there) does not decode, and the rest of the file is
// decoded in order from the last boundary proven, as without splitting. So
// the text, and every error, is the same either way; only a file decoded in
// order from its start proves a boundary.
//
//   GzipChunker      router side: blocks of one file in, chunks out
//   decode_chunk     a worker: one chunk to text blocks, or failed
//   GzipReassembler  serial: chunks in order to the file's text blocks
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "graph/buffer_pool.hpp"
#include "graph/in_order.hpp"
#include "invidx/messages.hpp"
#include "nodes/decompress/gzip_stream.hpp"

namespace invidx {

// The first offset in [from, size) where a gzip member header could start:
// 1f 8b, method 8 (deflate), no reserved flag bits, an XFL of 0, 2 or 4 and
// a known OS byte, all 10 header bytes inside `bytes`. Unproven: compressed
// data can hold such bytes.
std::optional<size_t> find_gzip_member_header(const char* bytes, size_t size, size_t from);

// A member of a chunk whose text a GPU batch left to the CPU (longer than
// the GPU's cap): its compressed bytes [in_offset, in_offset + in_size) of
// the chunk and its text [text_offset, text_offset + text_size) of the
// chunk's text (chunk_batch.hpp).
struct ChunkMemberHole {
    uint64_t in_offset = 0;
    uint64_t text_offset = 0;
    uint32_t in_size = 0;
    uint32_t text_size = 0;
};

// Compressed bytes [start in blocks.front(), end in blocks.back()) of one file.
struct GzipChunk {
    uint32_t file_ordinal = 0;
    uint64_t index = 0;          // 0, 1, 2, ... within the file
    std::vector<std::shared_ptr<const RawBlock>> blocks;
    size_t start = 0;            // in blocks.front()
    size_t end = 0;              // in blocks.back()
    bool final = false;          // the file's last chunk: ends at its end
    bool decode = true;          // false: left to the reassembler (a member too long to chunk)
    // Filled by decode_chunk:
    bool decoded = false;        // the range decoded on its own, ending between members
    uint64_t members = 0;        // gzip members in the range, when decoded
    std::vector<TextBlock> text;
    // Set by a GPU batch that inflated the chunk's other members: `text`
    // holds the whole chunk's blocks but these members' bytes are not
    // filled yet (fill_member_holes, chunk_batch.hpp), and decoded is false.
    std::vector<ChunkMemberHole> holes;
    // For the report (decompress_node.cpp, chunk_latency.hpp): when the
    // router sent it, and whether a GPU batch inflated it.
    std::chrono::steady_clock::time_point routed_at{};
    bool via_gpu = false;
};
using GzipChunkPtr = std::shared_ptr<GzipChunk>;

// Router side, one file at a time in read order: cuts the file's blocks into
// chunks at the first member header of a block. A chunk that would hold more
// than `max_blocks` blocks (a member longer than that) is sent undecoded,
// and so is the rest of the file: the reassembler decodes them in order.
class GzipChunker {
public:
    GzipChunker(size_t max_blocks);
    // `block` is the next of the current file (its first starts a file).
    // Calls `send` for every chunk complete.
    void push(const std::shared_ptr<const RawBlock>& block, const std::function<void(GzipChunkPtr)>& send);

private:
    size_t max_blocks_;
    GzipChunkPtr pending_;      // the chunk being gathered
    uint64_t next_index_ = 0;
    bool in_order_only_ = false;  // the rest of this file goes undecoded
};

// A worker: decodes `chunk` on its own into text blocks (entry offsets from
// 0; the reassembler renumbers). Never throws: a chunk that does not decode
// is left to the reassembler.
void decode_chunk(GzipChunk& chunk, const InputFile& file, size_t text_block_bytes,
                  const std::shared_ptr<BufferPool<std::string>>& buffers,
                  GzipDecoders decoders = gzip_decoders());

// Serial: takes chunks in any order, emits each file's text blocks in order
// with consecutive file_block numbers, the entry flags and offsets of an
// unsplit decoding, and the lease of the chunk they came from. Throws
// invidx::Error for a damaged file, as GzipStream would.
class GzipReassembler {
public:
    using Emit = std::function<void(TextBlock&&)>;
    GzipReassembler(size_t text_block_bytes, std::shared_ptr<BufferPool<std::string>> buffers);

    void push(GzipChunkPtr chunk, const InputFile& file, const Emit& emit);
    // Files whose chunks fell back to in-order decoding (for the report).
    uint64_t files_in_order() const { return files_in_order_; }

private:
    struct FileState {
        InOrder<GzipChunkPtr> order;
        uint64_t next_block = 0;     // file_block of the next text block
        uint64_t text_offset = 0;    // of the next text byte in the entry
        uint64_t members = 0;        // in the chunks taken so far
        bool begun = false;          // a text block went out
        std::optional<GzipStream> in_order;  // set once a chunk did not decode
        bool done = false;
    };
    void take(FileState& state, GzipChunk& chunk, const InputFile& file, const Emit& emit);
    void send(FileState& state, TextBlock&& text, bool last, const Lease& lease, const Emit& emit);

    size_t text_block_bytes_;
    std::shared_ptr<BufferPool<std::string>> buffers_;
    std::map<uint32_t, FileState> files_;
    uint64_t files_in_order_ = 0;
};

// The lease its text blocks carry: every block of the chunk.
Lease chunk_lease(const GzipChunk& chunk);

}  // namespace invidx
