// Stream pieces (nodes/decompress/deflate_piece.hpp) decoded by the warp
// form of the decoder (devices/inflate/lockstep_piece_decoding.hpp: on the
// host with HostPieceLanes, or by GpuPieceDecoder on a GPU) checked against
// the CPU's decode_deflate_piece: the same block found, the same stop, the
// same symbols and trailer, and failing where it fails.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "devices/inflate/lockstep_piece_decoding.hpp"
#include "nodes/decompress/deflate_piece.hpp"

namespace invidx::testing {

struct WarpPiece {
    inflate::PieceOutcome outcome;
    std::vector<uint16_t> symbols;  // the text's, after the window's place
};

// Decodes every piece of `file` (bounds in bits of the whole file).
using WarpPieceDecoder = std::function<std::vector<WarpPiece>(const std::string& file,
                                                              const std::vector<inflate::PieceBounds>& bounds)>;

// Symbols a piece of `piece_bytes` may make in these tests (its own bytes,
// a block past its stop, 16 symbols a byte).
inline uint32_t test_piece_capacity(size_t piece_bytes) {
    return inflate::kPieceWindowSymbols + static_cast<uint32_t>(piece_bytes + 131072) * 16;
}

// `file` cut every `piece_bytes`, each piece searched from its first byte
// (the first from its deflate data) to the file's end, stopping at the next
// piece's first byte: `decode`'s pieces against the CPU's, up to the
// stream's final block. Returns how many decoded ok.
inline size_t check_pieces_alike(const std::string& file, size_t piece_bytes, const WarpPieceDecoder& decode) {
    const std::optional<size_t> header = gzip_header_length(file);
    REQUIRE(header);
    std::vector<inflate::PieceBounds> bounds;
    for (size_t begin = 0; begin < file.size(); begin += piece_bytes) {
        inflate::PieceBounds b;
        b.search_bit = begin == 0 ? uint64_t{*header} * 8 : uint64_t{begin} * 8;
        b.search_end_bit = uint64_t{file.size()} * 8;
        if (begin + piece_bytes < file.size()) {
            b.stop_bit = uint64_t{begin + piece_bytes} * 8;
            b.has_stop = 1;
        }
        bounds.push_back(b);
    }
    const std::vector<WarpPiece> warp = decode(file, bounds);
    REQUIRE(warp.size() == bounds.size());
    size_t ok = 0;
    for (size_t k = 0; k < bounds.size(); ++k) {
        CAPTURE(k);
        DeflatePieceLimits limits;
        if (bounds[k].has_stop) limits.stop_bit = bounds[k].stop_bit;
        const DeflatePiece host = decode_deflate_piece(file, bounds[k].search_bit, bounds[k].search_end_bit, limits);
        const WarpPiece& w = warp[k];
        REQUIRE(bool(w.outcome.ok) == host.ok);
        if (!host.ok) continue;
        ++ok;
        CHECK(w.outcome.start_bit == host.start_bit);
        CHECK(w.outcome.end_bit == host.end_bit);
        CHECK(bool(w.outcome.final_block) == host.final_block);
        CHECK(bool(w.outcome.trailer_read) == host.trailer_read);
        if (host.trailer_read) {
            CHECK(w.outcome.trailer_crc == host.trailer_crc);
            CHECK(w.outcome.trailer_size == host.trailer_size);
            CHECK(w.outcome.after_trailer == host.after_trailer);
        }
        REQUIRE(w.symbols.size() == host.symbols.text_size());
        CHECK(std::equal(w.symbols.begin(), w.symbols.end(), host.symbols.text()));
        if (host.final_block) break;
    }
    return ok;
}

}  // namespace invidx::testing
