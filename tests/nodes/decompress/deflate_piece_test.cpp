// Pieces of one deflate stream, each decoded without the text before it
// (markers for the unknown window), then resolved in order, give the
// stream's text exactly: whatever the compression level, the piece size,
// flush points or stored blocks; consecutive pieces meet at the same block.
#include "nodes/decompress/deflate_piece.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include <zlib.h>

#include "tests/support/gzip_member.hpp"
#include "tests/support/web_text.hpp"

namespace invidx {
namespace {

using testing::member;
using testing::MemberOptions;
using testing::web_text;

struct Decoded {
    std::string text;
    size_t pieces = 0;
    size_t redone = 0;          // pieces whose search found another block than the one before ended at
    size_t with_markers = 0;    // pieces whose symbols held markers
    size_t without_block = 0;   // pieces with no block start before their stop
    bool final_block = false;
    uint32_t trailer_crc = 0;
    uint32_t trailer_size = 0;
};

// The gzip member `file` cut into pieces of `piece_bytes`, decoded as the
// reassembler takes them: each in its own (window unknown), checked in
// order against where the one before ended, decoded again from there with
// its window where it does not meet it.
Decoded decode_in_pieces(const std::string& file, size_t piece_bytes) {
    Decoded out;
    const std::optional<size_t> header = gzip_header_length(file);
    REQUIRE(header);
    uint64_t expected_bit = *header * 8;
    const size_t pieces = (file.size() + piece_bytes - 1) / piece_bytes;
    for (size_t k = 0; k < pieces; ++k) {
        CAPTURE(k);
        const size_t begin = k * piece_bytes;
        const size_t end = std::min(file.size(), begin + piece_bytes);
        DeflatePieceLimits limits;
        if (k + 1 < pieces) limits.stop_bit = uint64_t{end} * 8;
        DeflatePiece piece = k == 0 ? decode_deflate_from(file, expected_bit, {}, limits)
                                    : decode_deflate_piece(file, uint64_t{begin} * 8, file.size() * 8, limits);
        const std::string_view window =
            std::string_view(out.text).substr(out.text.size() - std::min<size_t>(out.text.size(), kDeflateWindowBytes));
        // No block start before its stop: passed through where the piece
        // before ended, at or past that stop (as the reassembler does).
        if (piece.ok && piece.no_block) {
            ++out.without_block;
            if (expected_bit >= piece.end_bit) piece.start_bit = piece.end_bit = expected_bit;
        }
        if (!piece.ok || piece.start_bit != expected_bit) {
            ++out.redone;
            piece = decode_deflate_from(file, expected_bit, window, limits);
        }
        REQUIRE(piece.ok);
        CHECK(piece.start_bit >= uint64_t{begin} * 8);
        if (k + 1 < pieces) CHECK(piece.end_bit >= uint64_t{end} * 8);
        for (size_t i = 0; i < piece.symbols.text_size(); ++i) {
            if (piece.symbols.text()[i] >= 256) {
                ++out.with_markers;
                break;
            }
        }
        std::string text(piece.symbols.text_size(), '\0');
        REQUIRE(resolve_piece_text(piece.symbols.text(), text.size(), window, text.data()));
        out.text += text;
        expected_bit = piece.end_bit;
        ++out.pieces;
        if (piece.final_block) {
            out.final_block = true;
            CHECK(piece.trailer_read);
            CHECK(piece.after_trailer == file.size());
            out.trailer_crc = piece.trailer_crc;
            out.trailer_size = piece.trailer_size;
            break;  // the stream ended (a piece decodes on through blocks no search finds)
        }
    }
    return out;
}

uint32_t crc_of(const std::string& text) {
    return static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(text.data()), text.size()));
}

TEST_CASE("deflate pieces decoded without their windows give the stream's text") {
    size_t without_block = 0;
    std::mt19937 random(7);
    const std::string text = web_text(random, 3'000'000);
    for (const int level : {1, 6, 9}) {
        for (const size_t flush_every : {size_t{0}, size_t{100'000}}) {
            MemberOptions options;
            options.level = level;
            options.flush_every = flush_every;
            const std::string file = member(text, options);
            for (const size_t piece_bytes : {size_t{20'000}, size_t{150'000}}) {
                CAPTURE(level);
                CAPTURE(flush_every);
                CAPTURE(piece_bytes);
                const Decoded decoded = decode_in_pieces(file, piece_bytes);
                CHECK(decoded.pieces > 2);
                CHECK(decoded.text == text);
                CHECK(decoded.final_block);
                CHECK(decoded.trailer_crc == crc_of(text));
                CHECK(decoded.trailer_size == text.size());
                // Every search found the block the piece before ended at,
                // flush points' empty stored blocks included.
                CHECK(decoded.redone == 0);
                CHECK(decoded.with_markers > 0);  // the unknown windows were used
                without_block += decoded.without_block;
            }
        }
    }
    // Some 20 KB pieces hold no block start: they passed through.
    CHECK(without_block > 0);
}

TEST_CASE("deflate pieces: a stream of stored blocks is decoded on by its first piece") {
    std::mt19937 random(8);
    const std::string text = web_text(random, 400'000);
    MemberOptions options;
    options.level = 0;  // stored blocks only: no search finds one, no dynamic block ends a piece
    const std::string file = member(text, options);
    const Decoded decoded = decode_in_pieces(file, 50'000);
    CHECK(decoded.pieces == 1);
    CHECK(decoded.text == text);
    CHECK(decoded.trailer_crc == crc_of(text));
}

TEST_CASE("a deflate piece fails where its bytes end before its stop, or are damaged") {
    std::mt19937 random(9);
    const std::string text = web_text(random, 600'000);
    const std::string file = member(text);
    const size_t header = *gzip_header_length(file);
    DeflatePieceLimits limits;
    limits.stop_bit = uint64_t{file.size()} * 8;  // past the final block: never reached
    CHECK_FALSE(decode_deflate_from(std::string_view(file).substr(0, file.size() / 2), header * 8, {}, limits).ok);
    // Damage after the first blocks: the piece does not decode, or decodes
    // to other text than the trailer's CRC-32 says.
    std::string damaged = file;
    for (size_t i = file.size() / 2; i < file.size() / 2 + 64; ++i) damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
    const DeflatePiece piece = decode_deflate_from(damaged, header * 8, {}, DeflatePieceLimits{});
    if (piece.ok) {
        std::string out(piece.symbols.text_size(), '\0');
        REQUIRE(resolve_piece_text(piece.symbols.text(), out.size(), {}, out.data()));
        CHECK((out != text || piece.trailer_crc != crc_of(out)));
    }
    CHECK_FALSE(gzip_header_length("not a gzip file"));
}

TEST_CASE("resolving a piece refuses a marker before the text's start") {
    const std::vector<uint16_t> symbols = {'a', 256 + 32767, 256 + 32766, 'b'};
    std::string out(symbols.size(), '\0');
    CHECK(resolve_piece_text(symbols.data(), symbols.size(), "xyz", out.data()));
    CHECK(out == "azyb");
    const std::vector<uint16_t> too_far = {256 + 100};
    CHECK_FALSE(resolve_piece_text(too_far.data(), too_far.size(), "xyz", out.data()));
}

}  // namespace
}  // namespace invidx
