// GpuPieceDecoder: pieces of gzip files of one deflate stream (ClueWeb-style
// WARC.gz) decoded on one GPU, a warp a piece, each without the 32 KiB
// window before it (devices/inflate/lockstep_piece_decoding.hpp): the GPU's
// form of the decompress node's first step for such files
// (nodes/decompress/deflate_piece.hpp says what a piece is; the window's
// markers are resolved afterwards, in order). A batch's compressed bytes
// cross PCIe once, one kernel decodes every piece, and the outcomes and
// symbols come back on the decoder's own stream.
//
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/inflate/lockstep_piece_decoding.hpp"

namespace invidx {

// One piece of a batch.
struct GpuStreamPiece {
    uint64_t in_offset = 0;    // its bytes in the batch's input...
    uint32_t in_size = 0;      // ...(the search and the stop are bits of these)
    uint32_t out_capacity = 0; // symbols it may make, the window's markers included
    uint64_t out_offset = 0;   // its symbols' place in the output (markers first)
    inflate::PieceBounds bounds;
};

class GpuPieceDecoder {
public:
    // max_output_symbols: the device's room for every piece's symbols
    // (out_offset, out_capacity); max_text_symbols: the host's for the
    // decoded pieces' text, which comes back packed (web text fills about
    // a fifth of the room a piece needs for its largest block).
    GpuPieceDecoder(int device_ordinal, size_t max_input_bytes, size_t max_output_symbols, size_t max_pieces,
                    size_t max_text_symbols);
    ~GpuPieceDecoder();
    GpuPieceDecoder(const GpuPieceDecoder&) = delete;
    GpuPieceDecoder& operator=(const GpuPieceDecoder&) = delete;

    // Page-locked: write the batch's compressed bytes here (max_input_bytes).
    char* input();

    // Copies input()[0, input_size) to the GPU, decodes every piece, copies
    // the outcomes and each decoded piece's text symbols back. Pieces
    // must lie inside input_size and max_output_symbols (else invidx::Error).
    // A decoded piece whose text finds no host room left is returned not
    // ok, out_of_room (a CPU worker searches it).
    std::vector<inflate::PieceOutcome> decode(size_t input_size, const std::vector<GpuStreamPiece>& pieces);
    // After decode(): piece k's text symbols (its outcome's `symbols` of
    // them; the window's markers before them stay on the device), page-locked.
    const uint16_t* text(size_t k) const;

    struct Timings {
        double copy_in = 0;
        double kernel = 0;
        double copy_out = 0;
    };
    Timings last_timings() const;

    // The last decode()'s kernel again on the batch in device memory: its
    // seconds by CUDA events (benchmarks). 0 before any decode().
    double time_resident_kernel();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace invidx
