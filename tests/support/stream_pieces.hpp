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
#include <random>
#include <string>
#include <vector>

#include "devices/inflate/lockstep_piece_decoding.hpp"
#include "nodes/decompress/deflate_piece.hpp"
#include "support/gzip_member.hpp"
#include "support/web_text.hpp"

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
// stream's final block. Returns how many decoded a block (ok, not no_block).
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
        if (!host.no_block) ++ok;
        CHECK(bool(w.outcome.no_block) == host.no_block);
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

// `check(file, piece_bytes)` (check_pieces_alike with a warp decoder) on
// the streams both warp decoders are held to: web text at levels 1, 6 and
// 9, with and without flush points, in pieces of two sizes.
inline void check_every_stream(unsigned seed, const std::function<size_t(const std::string&, size_t)>& check) {
    std::mt19937 random(seed);
    const std::string text = web_text(random, 1'500'000);
    for (const int level : {1, 6, 9}) {
        for (const size_t flush_every : {size_t{0}, size_t{100'000}}) {
            MemberOptions options;
            options.level = level;
            options.flush_every = flush_every;
            const std::string file = member(text, options);
            for (const size_t piece_bytes : {size_t{20'000}, size_t{120'000}}) {
                CAPTURE(level);
                CAPTURE(flush_every);
                CAPTURE(piece_bytes);
                CHECK(check(file, piece_bytes) > 2);
            }
        }
    }
}

// Streams whose pieces fail: damage in the middle of pieces, truncation
// before the trailer, and a stream of stored blocks (no dynamic block for
// the search to find).
inline void check_failing_streams(unsigned seed, const std::function<size_t(const std::string&, size_t)>& check) {
    std::mt19937 random(seed);
    const std::string text = web_text(random, 600'000);
    const std::string file = member(text);
    std::string damaged = file;
    for (size_t at = 30'000; at < damaged.size(); at += 45'000) damaged[at] = static_cast<char>(damaged[at] ^ 0x5A);
    check(damaged, 25'000);
    check(file.substr(0, file.size() - 20'000), 25'000);
    MemberOptions stored;
    stored.level = 0;
    CHECK(check(member(text.substr(0, 200'000), stored), 25'000) == 0);
}

}  // namespace invidx::testing
