// One gzip file decoded in chunks on several cores gives the text (and the
// text blocks' framing) of decoding it in order, whatever the read block
// size, the order the chunks finish in, false member headers inside
// compressed data, members longer than a chunk may hold, padding or damage.
#include "nodes/decompress/split_gzip.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "tests/support/gzip_chunk_decoding.hpp"
#include "tests/support/gzip_chunks.hpp"
#include "tests/support/gzip_member.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx {
namespace {

using testing::in_order;
using testing::kFakeHeader;
using testing::member;
using testing::MemberOptions;
using testing::raw_blocks;
using testing::words;

// Members of `sizes` bytes of text; every `stored_every`-th one stored (level
// 0), with a gzip header's bytes in its text, so that they stand in the
// compressed file where no member starts.
std::string members(const std::vector<size_t>& sizes, size_t stored_every, std::mt19937& random) {
    std::string file;
    for (size_t i = 0; i < sizes.size(); ++i) {
        std::string text = words(random, sizes[i]);
        MemberOptions options;
        if (stored_every != 0 && i % stored_every == stored_every - 1) {
            text.insert(text.size() / 2, kFakeHeader);
            options.level = 0;
        }
        file += member(text, options);
    }
    return file;
}

struct Split {
    std::vector<TextBlock> text;
    size_t chunks = 0;
    size_t chunks_not_decoded = 0;
    uint64_t files_in_order = 0;
};

// Chunked, decoded chunk by chunk, reassembled with the chunks in a shuffled order.
Split split_decode(const std::string& file, size_t block_bytes, size_t max_blocks, size_t text_block_bytes,
                   uint32_t seed) {
    const InputFile input = testing::input_file("x.warc.gz");
    GzipChunker chunker(max_blocks);
    std::vector<GzipChunkPtr> chunks;
    for (const auto& block : raw_blocks(file, block_bytes))
        chunker.push(block, [&](GzipChunkPtr chunk) { chunks.push_back(std::move(chunk)); });
    Split out;
    out.chunks = chunks.size();
    for (auto& chunk : chunks) {
        decode_chunk(*chunk, input, text_block_bytes, nullptr);
        if (!chunk->decoded) ++out.chunks_not_decoded;
    }
    out.text = testing::reassemble_shuffled(std::move(chunks), text_block_bytes, seed, out.files_in_order);
    return out;
}

std::string joined(const std::vector<TextBlock>& blocks) {
    std::string text;
    for (const auto& block : blocks) text += block.bytes;
    return text;
}

// The same text, blocks numbered 0, 1, ... with offsets that follow, the
// entry begun on the first and ended (with the file) on the last only.
void check_same_text(const Split& split, const std::vector<TextBlock>& reference, size_t text_block_bytes) {
    REQUIRE(!split.text.empty());
    CHECK(joined(split.text) == joined(reference));
    uint64_t offset = 0;
    for (size_t i = 0; i < split.text.size(); ++i) {
        const TextBlock& block = split.text[i];
        CAPTURE(i);
        CHECK(block.file_block == i);
        CHECK(block.file_ordinal == 3);
        CHECK(block.entry_name == "x.warc.gz");
        CHECK(block.entry_offset == offset);
        CHECK(block.entry_begin == (i == 0));
        CHECK(block.entry_end == (i + 1 == split.text.size()));
        CHECK(block.file_end == (i + 1 == split.text.size()));
        CHECK(block.bytes.size() <= text_block_bytes);
        offset += block.bytes.size();
    }
}

}  // namespace

TEST_CASE("find_gzip_member_header: member starts, not lookalikes with other methods, flags or a cut header") {
    std::mt19937 random(1);
    const std::string a = member(words(random, 3000)), b = member(words(random, 500));
    const std::string file = a + b;
    CHECK(find_gzip_member_header(file.data(), file.size(), 0) == size_t{0});
    const auto second = find_gzip_member_header(file.data(), file.size(), 1);
    // zlib's compressed bytes hold no lookalike here (checked), so the next is b's.
    CHECK(second == a.size());
    std::string bad = kFakeHeader;
    bad[2] = 7;  // not deflate
    CHECK_FALSE(find_gzip_member_header(bad.data(), bad.size(), 0).has_value());
    bad = kFakeHeader;
    bad[3] = '\x20';  // a reserved flag bit
    CHECK_FALSE(find_gzip_member_header(bad.data(), bad.size(), 0).has_value());
    bad = kFakeHeader;
    bad[8] = 1;  // unknown XFL
    CHECK_FALSE(find_gzip_member_header(bad.data(), bad.size(), 0).has_value());
    const std::string cut = "xx" + kFakeHeader.substr(0, 9);  // the header's last byte is past the end
    CHECK_FALSE(find_gzip_member_header(cut.data(), cut.size(), 0).has_value());
    const std::string later = "abc" + kFakeHeader;
    CHECK(find_gzip_member_header(later.data(), later.size(), 0) == size_t{3});
}

TEST_CASE("a gzip file in chunks gives the text of decoding it in order, any block size, any finishing order") {
    std::mt19937 random(7);
    std::vector<size_t> sizes;
    for (int i = 0; i < 120; ++i) sizes.push_back(50 + random() % 20000);
    const std::string file = members(sizes, 0, random);
    for (const size_t block_bytes : {size_t{997}, size_t{4096}, size_t{30000}, file.size()}) {
        for (const size_t text_block_bytes : {size_t{1000}, size_t{1} << 16}) {
            CAPTURE(block_bytes);
            CAPTURE(text_block_bytes);
            const Split split = split_decode(file, block_bytes, 1000, text_block_bytes, static_cast<uint32_t>(block_bytes));
            check_same_text(split, in_order(file, text_block_bytes), text_block_bytes);
            CHECK(split.chunks_not_decoded == 0);
            CHECK(split.files_in_order == 0);
            if (block_bytes < file.size()) CHECK(split.chunks > 1);
        }
    }
}

TEST_CASE("false member headers inside compressed data: the rest of the file is decoded in order, same text") {
    std::mt19937 random(11);
    std::vector<size_t> sizes;
    for (int i = 0; i < 60; ++i) sizes.push_back(2000 + random() % 6000);
    const std::string file = members(sizes, 5, random);  // every fifth member stored, a header in its text
    for (const size_t block_bytes : {size_t{1500}, size_t{5000}, size_t{20000}}) {
        CAPTURE(block_bytes);
        const Split split = split_decode(file, block_bytes, 1000, 4096, 3);
        check_same_text(split, in_order(file, 4096), 4096);
        CHECK(split.chunks_not_decoded > 0);
        CHECK(split.files_in_order == 1);
    }
}

TEST_CASE("a member longer than a chunk may hold: the rest of the file goes undecoded to the reassembler") {
    std::mt19937 random(5);
    const std::string file = members({3000, 400000, 3000, 3000}, 0, random);
    const Split split = split_decode(file, 2048, 4, 8192, 9);
    check_same_text(split, in_order(file, 8192), 8192);
    CHECK(split.files_in_order == 1);
    CHECK(split.chunks_not_decoded > 0);
}

TEST_CASE("one whole-file gzip member, zero padding at the end: same text as in order") {
    std::mt19937 random(3);
    const std::string single = member(words(random, 300000));
    check_same_text(split_decode(single, 4096, 1000, 8192, 1), in_order(single, 8192), 8192);
    const std::string padded = members({5000, 7000, 9000}, 0, random) + std::string(3000, '\0');
    check_same_text(split_decode(padded, 1024, 1000, 8192, 2), in_order(padded, 8192), 8192);
}

TEST_CASE("damage in a split file is an error naming the file, as in order; padding between members too") {
    std::mt19937 random(13);
    std::vector<size_t> sizes(40, 3000);
    std::string file = members(sizes, 0, random);
    const auto damaged_at = file.size() / 2;
    const auto start = find_gzip_member_header(file.data(), file.size(), damaged_at);
    REQUIRE(start.has_value());
    std::string damaged = file;
    damaged[*start + 40] = static_cast<char>(damaged[*start + 40] ^ 0x55);
    // The same error, word for word (file, member number, offsets), split or not.
    const auto error_of = [](const auto& decode) -> std::string {
        try {
            decode();
        } catch (const Error& error) {
            return error.what();
        }
        return "no error";
    };
    const auto same_error = [&](const std::string& bad, size_t block_bytes) {
        const std::string expected = error_of([&] { in_order(bad, 4096); });
        CHECK(expected != "no error");
        CHECK(expected.find("x.warc.gz") != std::string::npos);
        CHECK(error_of([&] { split_decode(bad, block_bytes, 1000, 4096, 4); }) == expected);
    };
    same_error(damaged, 2000);
    // Zero bytes between members (the end of the file only may hold them),
    // and bytes after the last member that are no member.
    same_error(members({4000, 4000}, 0, random) + std::string(100, '\0') + members({4000}, 0, random), 1500);
    same_error(file + "trailing bytes, not gzip", 2000);
    same_error(file.substr(0, file.size() - 5), 2000);  // truncated
}

}  // namespace invidx

namespace invidx {
namespace {

// Web-like text with numbers, so that the deflate blocks are many and short.
std::string numbered_words(std::mt19937& random, size_t bytes) {
    std::string text;
    while (text.size() < bytes) text += "w" + std::to_string(random() % 5000) + (random() % 13 ? " " : "\n<p>");
    return text;
}

struct PieceRun {
    std::vector<TextBlock> text;
    uint64_t redone = 0;
    uint64_t altered = 0;  // of the pieces in `wrong`, those that held a block start
    uint64_t small_blocks_joined = 0;
};

// A file of one gzip stream through GzipStreamChunker, the workers' steps
// and the reassembler, each step's pieces handed on in a shuffled order;
// the search step's result of the pieces in `wrong` altered as a header
// found where no block starts would leave it (a piece without a block
// start before its stop passes through unaltered).
PieceRun pieces_through_reassembler(const std::string& file, size_t block_bytes, size_t piece_bytes,
                                    size_t text_block_bytes, const std::vector<uint64_t>& wrong, uint32_t seed,
                                    const std::vector<uint64_t>& blind = {}) {
    InputFile input = testing::input_file("x.warc.gz");
    input.size_bytes = file.size();
    GzipStreamChunker chunker(piece_bytes);
    std::vector<GzipChunkPtr> waiting;
    for (const auto& block : testing::raw_blocks(file, block_bytes))
        chunker.push(block, [&](GzipChunkPtr chunk) { waiting.push_back(std::move(chunk)); });
    auto symbols = std::make_shared<PieceSymbolPool>(4);
    GzipReassembler reassembler(text_block_bytes, nullptr, symbols);
    PieceRun out;
    std::mt19937 random(seed);
    while (!waiting.empty()) {
        std::swap(waiting[random() % waiting.size()], waiting.back());
        GzipChunkPtr chunk = std::move(waiting.back());
        waiting.pop_back();
        const bool search = chunk->stream->step == PieceStep::search;
        work_on_stream_piece(*chunk, text_block_bytes, nullptr, *symbols);
        if (search && std::find(wrong.begin(), wrong.end(), chunk->index) != wrong.end() &&
            !chunk->stream->piece.no_block) {
            chunk->stream->piece.start_bit += 1;
            ++out.altered;
        }
        // As a search whose read-ahead ran out before its block's end
        // would report it: no block start before the stop.
        if (search && !chunk->final && std::find(blind.begin(), blind.end(), chunk->index) != blind.end() &&
            !chunk->stream->piece.no_block) {
            DeflatePiece& piece = chunk->stream->piece;
            piece.start_bit = piece.end_bit = chunk->stream->stop_offset * 8;
            piece.no_block = true;
            piece.final_block = piece.trailer_read = false;
            piece.symbols.size = piece.symbols.text_begin;
            ++out.altered;
        }
        reassembler.push(
            chunk, input, [&](TextBlock&& text) { out.text.push_back(std::move(text)); },
            [&](GzipChunkPtr again) { waiting.push_back(std::move(again)); });
    }
    out.redone = reassembler.pieces_redone();
    out.small_blocks_joined = reassembler.small_blocks_joined();
    CHECK(reassembler.stream_files_decoded_again() == 0);
    return out;
}

TEST_CASE("pieces of one gzip stream: the text of decoding it in order, any finishing order, wrong starts decoded again") {
    std::mt19937 random(21);
    const std::string file = testing::member(numbered_words(random, 900'000));
    const size_t text_block_bytes = 100'000;
    for (const uint32_t seed : {1u, 2u, 3u}) {
        // Starts off by a bit; or no block start reported where one starts
        // before the stop (as a read-ahead that ran out before the block's
        // end would leave it: a piece passed through unchecked fails here).
        for (const bool blind : {false, true}) {
            CAPTURE(seed);
            CAPTURE(blind);
            const PieceRun run = blind ? pieces_through_reassembler(file, 60'000, 15'000, text_block_bytes, {}, seed, {2, 6, 9})
                                       : pieces_through_reassembler(file, 60'000, 15'000, text_block_bytes, {3, 7, 8}, seed);
            Split split;
            split.text = run.text;
            check_same_text(split, in_order(file, text_block_bytes), text_block_bytes);
            CHECK(run.altered > 0);
            CHECK(run.redone == run.altered);
        }
    }
}

TEST_CASE("pieces of one gzip stream: text blocks under a quarter of text_block_bytes go out joined, the same text") {
    std::mt19937 random(22);
    const std::string file = testing::member(numbered_words(random, 900'000));
    for (const size_t text_block_bytes : {size_t{600'000}, size_t{1'000'000}}) {
        for (const uint32_t seed : {1u, 2u}) {
            CAPTURE(text_block_bytes);
            CAPTURE(seed);
            const PieceRun run = pieces_through_reassembler(file, 60'000, 15'000, text_block_bytes, {5}, seed);
            Split split;
            split.text = run.text;
            check_same_text(split, in_order(file, text_block_bytes), text_block_bytes);
            CHECK(run.small_blocks_joined >= 8);
            // Every block but the last holds at least three quarters of text_block_bytes.
            for (size_t i = 0; i + 1 < run.text.size(); ++i) CHECK(run.text[i].bytes.size() >= text_block_bytes / 4 * 3);
        }
    }
}

}  // namespace
}  // namespace invidx
