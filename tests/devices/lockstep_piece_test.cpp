// The GPU's stream piece decoder (devices/inflate/lockstep_piece_decoding.hpp,
// a warp in lockstep) taken on the host with HostPieceLanes gives exactly
// the pieces the CPU's decode_deflate_piece gives (support/stream_pieces.hpp),
// and fails where it fails. The kernel is held to the same in
// gpu_stream_pieces_test.cpp.
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "devices/inflate/host_lanes.hpp"
#include "support/stream_pieces.hpp"

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
    check_every_stream(11, check_on_host);
}

TEST_CASE("a warp's stream piece decoder fails where the CPU's fails") {
    check_failing_streams(12, check_on_host);
}

TEST_CASE("a warp's stream piece whose blocks outgrow its room is not ok, out of room, never started at a later block") {
    std::mt19937 random(13);
    const std::string file = member(web_text(random, 1'500'000));
    const size_t piece_bytes = 20'000;
    const std::optional<size_t> header = gzip_header_length(file);
    REQUIRE(header);
    const auto tables = std::make_unique<inflate::DecoderTables>();
    size_t tried = 0;
    for (size_t begin = 0; begin + piece_bytes < file.size(); begin += piece_bytes) {
        inflate::PieceBounds b;
        b.search_bit = begin == 0 ? uint64_t{*header} * 8 : uint64_t{begin} * 8;
        b.search_end_bit = uint64_t{file.size()} * 8;
        b.stop_bit = uint64_t{begin + piece_bytes} * 8;
        b.has_stop = 1;
        DeflatePieceLimits limits;
        limits.stop_bit = b.stop_bit;
        const DeflatePiece cpu = decode_deflate_piece(file, b.search_bit, b.search_end_bit, limits);
        REQUIRE(cpu.ok);
        if (cpu.no_block) continue;
        const uint32_t symbols = static_cast<uint32_t>(cpu.symbols.text_size());
        // Room for half its text (its first block may not fit), and for all but one symbol (its last block does not).
        for (const uint32_t room : {symbols / 2, symbols - 1}) {
            CAPTURE(begin);
            CAPTURE(room);
            std::vector<uint16_t> out(inflate::kPieceWindowSymbols + room);
            HostPieceLanes lanes;
            const inflate::PieceOutcome o =
                inflate::decode_piece_in_lockstep(reinterpret_cast<const unsigned char*>(file.data()),
                                                  static_cast<uint32_t>(file.size()), b, out.data(),
                                                  static_cast<uint32_t>(out.size()), *tables, lanes);
            CHECK_FALSE(o.ok);
            CHECK(o.out_of_room == 1);
            ++tried;
        }
    }
    CHECK(tried > 20);
}

}  // namespace
