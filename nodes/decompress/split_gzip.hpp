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
//
// A file of one gzip stream (ClueWeb-style, a whole-file .jsonl.gz) has no
// member to cut at; split_gzip_streams cuts it into pieces of compressed
// bytes anyway (GzipStreamChunker), each decoded without the text before it
// (deflate_piece.hpp), in three steps: a worker finds the piece's first
// block and decodes it to symbols (bytes and markers for the unknown 32 KiB
// window); the reassembler, in order, checks that each piece starts where
// the one before ended (else a worker decodes it again from there, its
// window known) and passes on the window; a worker then writes the piece's
// text with the window in place and takes its CRC-32; the reassembler emits
// the text in order and checks the trailer's CRC-32 and ISIZE. What
// follows the first member (another member, padding) is decoded in order
// from there by a GzipStream; anything else (damage, a stream of stored
// blocks) and the whole file is decoded again in order from its start, its
// text after what was already sent going on: so the text and every error
// are as without pieces.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "graph/buffer_pool.hpp"
#include "graph/in_order.hpp"
#include "invidx/messages.hpp"
#include "nodes/decompress/deflate_piece.hpp"
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

// What a piece of a one-stream file is sent to a worker for.
enum class PieceStep {
    search,   // find its first block, decode to symbols
    redo,     // decode to symbols from redo_bit, the window known
    resolve,  // its text: symbols with the window in place, and its CRC-32
};

// A piece of a one-stream file: compressed bytes [start, end) of
// blocks.front(), readable on to the end of blocks.back() (the next read
// block, when there is one: the piece's last deflate block runs past end).
struct StreamPieceJob {
    PieceStep step = PieceStep::search;
    bool first = false;          // the file's first piece: starts at the gzip header
    uint64_t stop_offset = 0;    // file byte where the next piece starts (not for the final piece)
    uint64_t redo_bit = 0;       // redo: the file bit where the piece before ended
    std::shared_ptr<const std::string> window;  // redo, resolve: the text before the piece
    DeflatePiece piece;          // from search or redo; bit and byte offsets in the file
    bool resolved = false;       // resolve: the text is in the chunk's text
    uint32_t text_crc = 0;       // of that text
    uint64_t text_size = 0;
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
    // A piece of a one-stream file (GzipStreamChunker); null for a chunk of members.
    std::shared_ptr<StreamPieceJob> stream;
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

// Router side, one file of one gzip stream at a time in read order: cuts
// each read block into pieces of about `piece_bytes`, sent once the next
// block (their lookahead) is read, or the block is the file's last.
class GzipStreamChunker {
public:
    explicit GzipStreamChunker(size_t piece_bytes);
    void push(const std::shared_ptr<const RawBlock>& block, const std::function<void(GzipChunkPtr)>& send);

private:
    void send_pieces(const std::shared_ptr<const RawBlock>& block, const std::shared_ptr<const RawBlock>& next,
                     const std::function<void(GzipChunkPtr)>& send);
    size_t piece_bytes_;
    std::shared_ptr<const RawBlock> held_;  // read, its pieces not sent: waiting for the next block
    uint64_t next_index_ = 0;
};

// Symbol buffers of decoded pieces, kept for the next pieces (fresh memory
// costs its page faults each time). Thread-safe.
class PieceSymbolPool {
public:
    explicit PieceSymbolPool(size_t keep) : keep_(keep) {}
    PieceSymbols take();
    void give_back(PieceSymbols symbols);

private:
    std::mutex mutex_;
    std::vector<PieceSymbols> free_;
    size_t keep_;
};

// A worker's step on a piece of a one-stream file (chunk.stream->step).
// Never throws: what fails is the reassembler's to handle.
void work_on_stream_piece(GzipChunk& chunk, size_t text_block_bytes,
                          const std::shared_ptr<BufferPool<std::string>>& buffers, PieceSymbolPool& symbols);

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
    // Sends a piece of a one-stream file back to the workers for its next step.
    using Resend = std::function<void(GzipChunkPtr)>;
    GzipReassembler(size_t text_block_bytes, std::shared_ptr<BufferPool<std::string>> buffers,
                    std::shared_ptr<PieceSymbolPool> symbols = nullptr);

    void push(GzipChunkPtr chunk, const InputFile& file, const Emit& emit, const Resend& resend = {});
    // Files whose chunks fell back to in-order decoding (for the report).
    uint64_t files_in_order() const { return files_in_order_; }
    // Pieces of one-stream files decoded again from where the piece before ended.
    uint64_t pieces_redone() const { return pieces_redone_; }
    // Text blocks of pieces (of less than a quarter of text_block_bytes)
    // that went out joined with others.
    uint64_t small_blocks_joined() const { return small_blocks_joined_; }
    // One-stream files decoded again in order from their start (damage, a
    // stream no piece could start in), and files continued in order after
    // their first member (more members, padding).
    uint64_t stream_files_decoded_again() const { return stream_files_decoded_again_; }
    uint64_t stream_files_continued() const { return stream_files_continued_; }

private:
    struct FileState {
        InOrder<GzipChunkPtr> order;
        uint64_t next_block = 0;     // file_block of the next text block
        uint64_t text_offset = 0;    // of the next text byte in the entry
        uint64_t members = 0;        // in the chunks taken so far
        bool begun = false;          // a text block went out
        std::optional<GzipStream> in_order;  // set once a chunk did not decode
        bool done = false;
        struct Stream;
        std::shared_ptr<Stream> stream;  // a one-stream file's pieces (shared: Stream is defined in the .cpp)
    };
    void take(FileState& state, GzipChunk& chunk, const InputFile& file, const Emit& emit);
    void take_piece(FileState& state, GzipChunkPtr chunk, const InputFile& file, const Emit& emit,
                    const Resend& resend);
    void accept_pieces(FileState& state, const InputFile& file, const Emit& emit, const Resend& resend);
    void emit_pieces(FileState& state, const InputFile& file, const Emit& emit);
    void decode_file_again(FileState& state, const InputFile& file, const Lease& lease, const Emit& emit,
                           uint64_t member = 0);
    void send(FileState& state, TextBlock&& text, bool last, const Lease& lease, const Emit& emit);
    void send_piece_text(FileState& state, TextBlock&& text, bool last, const Lease& lease, const Emit& emit);
    void send_joined(FileState& state, bool last, const Emit& emit);

    size_t text_block_bytes_;
    std::shared_ptr<BufferPool<std::string>> buffers_;
    std::shared_ptr<PieceSymbolPool> symbols_;
    std::map<uint32_t, FileState> files_;
    uint64_t files_in_order_ = 0;
    uint64_t pieces_redone_ = 0;
    uint64_t small_blocks_joined_ = 0;
    uint64_t stream_files_decoded_again_ = 0;
    uint64_t stream_files_continued_ = 0;
};

// The lease its text blocks carry: every block of the chunk.
Lease chunk_lease(const GzipChunk& chunk);

}  // namespace invidx
