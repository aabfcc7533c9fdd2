// Pieces of gzip files of one stream (split_gzip.hpp, "stream pieces") whose
// search step a GPU worker takes: many pieces decoded to symbols at once by
// a PieceBatchDecoder, a warp a piece (piece_batch_decoder.hpp). A piece's
// read block goes into the batch's input once, with kGpuPieceLookaheadBytes
// of the next block after it, and every piece of that block reads its
// bytes there. A piece the batch decoded gets the DeflatePiece a CPU
// worker's search would have given it (the same block found, the same
// stop and symbols: the tests hold the warp decoder to that), so the
// reassembler takes it as it takes the CPU's; one it did not decode (no
// block start within its bytes and read-ahead, a symbol past its room) goes
// to a CPU worker for the search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nodes/decompress/piece_batch_decoder.hpp"
#include "nodes/decompress/split_gzip.hpp"

namespace invidx {

class StreamPieceBatch {
public:
    explicit StreamPieceBatch(PieceBatchDecoder& decoder);

    enum class Taken {
        yes,   // in the batch
        full,  // would fit an empty batch, not this one: run this one first
        no,    // never for a batch (not a search step, the file's first piece, too large): the CPU searches it
    };
    Taken take(const GzipChunkPtr& chunk);

    bool empty() const { return entries_.empty(); }
    void clear();

    struct Done {
        GzipChunkPtr chunk;
        bool decoded = false;  // its stream->piece is set, as a CPU worker's search sets it
        uint64_t compressed_bytes = 0;
        uint64_t symbols = 0;
    };
    // Decodes the batch, sets each decoded piece (its symbols from `symbols`),
    // and empties the batch. One Done per chunk, in the order taken.
    std::vector<Done> run(PieceSymbolPool& symbols);

private:
    struct Segment {
        const RawBlock* block = nullptr;
        uint64_t input_offset = 0;
        uint64_t size = 0;  // the block's bytes and its read-ahead
    };
    struct Entry {
        GzipChunkPtr chunk;
        uint64_t base = 0;  // the file byte where the piece's bytes start
    };
    PieceBatchDecoder& decoder_;
    std::vector<Segment> segments_;
    std::vector<Entry> entries_;
    std::vector<GpuStreamPiece> pieces_;
    uint64_t input_used_ = 0;
    uint64_t output_used_ = 0;
};

}  // namespace invidx
