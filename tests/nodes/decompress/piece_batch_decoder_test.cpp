// PieceBatchDecoder's host reference (the decompress node's pretend GPU):
// the decoded pieces' text comes back within the batch's text room, each
// piece's symbols the CPU's; a piece whose text no longer fits comes back
// not ok, out of room (a CPU worker searches it), as on a GPU.
#include "nodes/decompress/piece_batch_decoder.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nodes/decompress/deflate_piece.hpp"
#include "support/gzip_member.hpp"
#include "support/web_text.hpp"

namespace invidx {
namespace {

TEST_CASE("piece batch decoder (host): text within the batch's text room, the CPU's symbols; past it, out of room") {
    std::mt19937 random(41);
    const std::string file = testing::member(testing::web_text(random, 600'000));
    const size_t piece_bytes = 20'000;
    const std::optional<size_t> header = gzip_header_length(file);
    REQUIRE(header);
    PieceBatchLimits limits = piece_batch_limits(file.size(), piece_bytes);
    limits.text_symbols = 250'000;  // about two fifths of the text
    const auto decoder = make_host_piece_decoder(limits);
    std::memcpy(decoder->input(), file.data(), file.size());
    std::vector<GpuStreamPiece> pieces;
    std::vector<DeflatePiece> cpu;
    for (size_t begin = 0; begin < file.size(); begin += piece_bytes) {
        GpuStreamPiece p;
        p.in_offset = begin;
        p.in_size = static_cast<uint32_t>(file.size() - begin);
        p.out_offset = uint64_t{pieces.size()} * limits.piece_symbols;
        p.out_capacity = limits.piece_symbols;
        p.bounds.search_bit = begin == 0 ? uint64_t{*header} * 8 : 0;
        p.bounds.search_end_bit = uint64_t{p.in_size} * 8;
        DeflatePieceLimits stop;
        if (begin + piece_bytes < file.size()) {
            p.bounds.stop_bit = uint64_t{piece_bytes} * 8;
            p.bounds.has_stop = 1;
            stop.stop_bit = p.bounds.stop_bit;
        }
        pieces.push_back(p);
        cpu.push_back(decode_deflate_piece(std::string_view(file).substr(begin), p.bounds.search_bit,
                                           p.bounds.search_end_bit, stop));
    }
    const std::vector<inflate::PieceOutcome> outcomes = decoder->decode(file.size(), pieces);
    REQUIRE(outcomes.size() == pieces.size());
    uint64_t returned = 0;
    size_t out_of_room = 0;
    for (size_t k = 0; k < pieces.size(); ++k) {
        CAPTURE(k);
        const inflate::PieceOutcome& o = outcomes[k];
        REQUIRE(cpu[k].ok);
        if (o.out_of_room) {
            CHECK_FALSE(o.ok);
            CHECK(cpu[k].symbols.text_size() > limits.text_symbols - returned);
            ++out_of_room;
            continue;
        }
        REQUIRE(o.ok);
        REQUIRE(o.symbols == cpu[k].symbols.text_size());
        CHECK(std::equal(decoder->text(k), decoder->text(k) + o.symbols, cpu[k].symbols.text()));
        returned += o.symbols;
        if (cpu[k].final_block) break;
    }
    CHECK(returned <= limits.text_symbols);
    CHECK(returned > 100'000);
    CHECK(out_of_room > 0);
}

}  // namespace
}  // namespace invidx
