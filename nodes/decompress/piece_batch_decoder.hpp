// Where the decompress node's GPU workers decode batches of stream pieces
// (pieces of a gzip file of one stream, deflate_piece.hpp): a GpuPieceDecoder
// (devices/gpu_stream_pieces.hpp) on a GPU, or, for the tests, the same warp
// decoder taken on the host (devices/inflate/host_lanes.hpp), so that the
// node's whole GPU path for pieces runs on any machine.
// StreamPieceBatch (stream_piece_batch.hpp) fills a batch and reads it back
// through this interface only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/gpu_stream_pieces.hpp"

namespace invidx {

// What one batch may hold: compressed bytes in, symbols out (the room of
// every piece on the device), pieces, the symbols each piece may make (its
// window's markers included), and the decoded pieces' text symbols (the
// host's packed copy).
struct PieceBatchLimits {
    size_t input_bytes = 0;
    size_t output_symbols = 0;
    size_t pieces = 0;
    uint32_t piece_symbols = 0;
    size_t text_symbols = 0;
};

// The read-ahead a GPU piece gets past its stop: its last deflate block
// runs on past it (zlib's blocks hold some tens of KiB of compressed bytes;
// a piece that needs more is decoded by a CPU worker).
inline constexpr size_t kGpuPieceLookaheadBytes = size_t{256} << 10;

// The limits of a batch of `input_bytes` of compressed input (whole read
// blocks and their read-ahead) in pieces of `piece_bytes`. A piece's room:
// 8 text bytes a compressed byte of the piece (web text inflates 4-5x)
// and 384 KiB for its last block, which runs on past its stop (zlib's
// blocks of web text make up to some 250 KiB; 32 KiB pieces of generated
// web pages at gzip -6 made at most 411 K symbols). The host's text: 8
// symbols a byte of input. A piece that makes more is the CPU's.
PieceBatchLimits piece_batch_limits(size_t input_bytes, size_t piece_bytes);

class PieceBatchDecoder {
public:
    virtual ~PieceBatchDecoder() = default;
    virtual const PieceBatchLimits& limits() const = 0;
    virtual char* input() = 0;
    virtual std::vector<inflate::PieceOutcome> decode(size_t input_size, const std::vector<GpuStreamPiece>& pieces) = 0;
    // After decode(): piece k's text symbols (GpuPieceDecoder::text).
    virtual const uint16_t* text(size_t k) const = 0;
    // The last decode()'s device time by step (CUDA events); zeros on the host.
    virtual GpuPieceDecoder::Timings last_device_seconds() const { return {}; }
};

// On the host: the warp's steps taken one lane after another, piece after piece.
std::unique_ptr<PieceBatchDecoder> make_host_piece_decoder(const PieceBatchLimits& limits);
// On GPU `ordinal` (a GpuPieceDecoder). Throws invidx::Error when the GPU cannot be used.
std::unique_ptr<PieceBatchDecoder> make_gpu_piece_decoder(int ordinal, const PieceBatchLimits& limits);

}  // namespace invidx
