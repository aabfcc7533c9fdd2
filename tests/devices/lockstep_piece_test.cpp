// The GPU's stream piece decoder (devices/inflate/lockstep_piece_decoding.hpp,
// a warp in lockstep) taken on the host with HostPieceLanes gives exactly
// the pieces the CPU's decode_deflate_piece gives (support/stream_pieces.hpp),
// and fails where it fails. The kernel is held to the same in
// gpu_stream_pieces_test.cpp.
#include <doctest/doctest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/gzip_member.hpp"
#include "devices/inflate/host_lanes.hpp"
#include "support/stream_pieces.hpp"
#include "support/web_text.hpp"

namespace {

using namespace invidx;
using namespace invidx::testing;
using inflate::HostPieceLanes;

std::vector<WarpPiece> decode_by_warp_on_host(const std::string& file, const std::vector<inflate::PieceBounds>& bounds,
                                              size_t piece_bytes) {
    const auto tables = std::make_unique<inflate::DecoderTables>();
    const uint32_t capacity = test_piece_capacity(piece_bytes);
    std::vector<uint16_t> out(capacity);
    std::vector<WarpPiece> pieces(bounds.size());
    for (size_t k = 0; k < bounds.size(); ++k) {
        HostPieceLanes lanes;
        WarpPiece& piece = pieces[k];
        piece.outcome = inflate::decode_piece_in_lockstep(reinterpret_cast<const unsigned char*>(file.data()),
                                                          static_cast<uint32_t>(file.size()), bounds[k], out.data(), capacity,
                                                          *tables, lanes);
        if (piece.outcome.ok)
            piece.symbols.assign(out.begin() + inflate::kPieceWindowSymbols,
                                 out.begin() + inflate::kPieceWindowSymbols + piece.outcome.symbols);
    }
    return pieces;
}

size_t check_on_host(const std::string& file, size_t piece_bytes) {
    return check_pieces_alike(file, piece_bytes, [&](const std::string& f, const std::vector<inflate::PieceBounds>& bounds) {
        return decode_by_warp_on_host(f, bounds, piece_bytes);
    });
}

TEST_CASE("a warp's stream piece decoder, taken on the host, gives the CPU's pieces") {
    std::mt19937 random(11);
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
                CHECK(check_on_host(file, piece_bytes) > 2);
            }
        }
    }
}

TEST_CASE("a warp's stream piece decoder fails where the CPU's fails") {
    std::mt19937 random(12);
    const std::string text = web_text(random, 600'000);
    const std::string file = member(text);
    // Damage in the middle of pieces; truncation before the trailer.
    std::string damaged = file;
    for (size_t at = 30'000; at < damaged.size(); at += 45'000) damaged[at] = static_cast<char>(damaged[at] ^ 0x5A);
    check_on_host(damaged, 25'000);
    check_on_host(file.substr(0, file.size() - 20'000), 25'000);
    // A stored-only stream: no dynamic block for the search to find.
    MemberOptions stored;
    stored.level = 0;
    CHECK(check_on_host(member(text.substr(0, 200'000), stored), 25'000) == 0);
}

}  // namespace
