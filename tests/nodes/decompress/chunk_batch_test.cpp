// Chunks of split gzip files inflated as batches of whole members (the
// decompress node's GPU workers, here with a host inflater in the GPU's
// place: libdeflate, and the GPU kernel's own decoder run on the host): a chunk whose members all inflate cleanly gets exactly the text
// blocks decode_chunk gives it; anything else (false member headers inside
// compressed data, damage, padding, a member too long, header CRCs) goes to
// decode_chunk on the CPU, so the text and every error are those of the CPU.
#include "nodes/decompress/chunk_batch.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <string_view>
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

std::string members(const std::vector<size_t>& sizes, std::mt19937& random, MemberOptions options = {}) {
    std::string file;
    for (const size_t size : sizes) file += member(words(random, size), options);
    return file;
}

// A member stored (level 0) whose text holds a gzip header's bytes, so that
// they stand in the compressed file where no member starts. With
// `plausible_size`, the 4 bytes before them read as an ISIZE of 5, so the
// batch takes the chunk and only inflating it shows the header is false.
std::string member_with_false_header(std::mt19937& random, bool plausible_size) {
    std::string text = words(random, 3000);
    text += (plausible_size ? std::string("\x05\x00\x00\x00", 4) : std::string()) + kFakeHeader;
    text += words(random, 2000);
    MemberOptions stored;
    stored.level = 0;
    return member(text, stored);
}

std::vector<GzipChunkPtr> chunks_of(const std::string& file, size_t block_bytes, size_t max_blocks) {
    GzipChunker chunker(max_blocks);
    std::vector<GzipChunkPtr> chunks;
    for (const auto& block : raw_blocks(file, block_bytes))
        chunker.push(block, [&](GzipChunkPtr chunk) { chunks.push_back(std::move(chunk)); });
    return chunks;
}

struct BatchSplit {
    std::vector<TextBlock> text;
    size_t chunks = 0;
    size_t inflated = 0;      // chunks whose text came from the batch inflater
    size_t not_taken = 0;     // chunks the batch left to the CPU before inflating
    size_t not_clean = 0;     // chunks taken whose members did not all inflate
    size_t holes = 0;         // long members the batch left to fill_member_holes
    size_t holes_failed = 0;  // chunks whose holes did not inflate: decode_chunk's
    size_t batches = 0;
    uint64_t files_in_order = 0;
};

// The decompress node's GPU path on the host: chunks gathered into batches
// as they fit, the chunks not inflated decoded by decode_chunk, all
// reassembled in a shuffled order.
BatchSplit batch_split_decode(const std::string& file, size_t block_bytes, size_t max_blocks, size_t text_block_bytes,
                              const MemberBatchLimits& limits, uint32_t max_member_text_bytes = kMaxBatchMemberTextBytes,
                              uint32_t seed = 1, bool kernel_decoder = false) {
    const InputFile input = testing::input_file("x.warc.gz");
    std::vector<GzipChunkPtr> chunks = chunks_of(file, block_bytes, max_blocks);
    BatchSplit out;
    out.chunks = chunks.size();
    const auto inflater = make_host_member_inflater(limits, kernel_decoder);
    ChunkBatch batch(*inflater, max_member_text_bytes);
    std::vector<GzipChunkPtr> on_cpu;
    const auto run = [&] {
        if (batch.empty()) return;
        ++out.batches;
        for (const ChunkBatch::Done& done : batch.run(text_block_bytes, nullptr)) {
            CHECK(done.compressed_bytes > 0);
            if (done.inflated) {
                ++out.inflated;
                CHECK(done.holes == done.chunk->holes.size());
                CHECK(done.chunk->decoded == done.chunk->holes.empty());
                out.holes += done.holes;
                if (!done.chunk->holes.empty() && !fill_member_holes(*done.chunk, text_block_bytes)) {
                    ++out.holes_failed;
                    done.chunk->text.clear();
                    done.chunk->holes.clear();
                    on_cpu.push_back(done.chunk);
                }
            } else {
                ++out.not_clean;
                CHECK(done.chunk->text.empty());
                on_cpu.push_back(done.chunk);
            }
        }
    };
    for (const GzipChunkPtr& chunk : chunks) {
        ChunkBatch::Taken taken = batch.take(chunk, input);
        if (taken == ChunkBatch::Taken::full) {
            run();
            taken = batch.take(chunk, input);
            REQUIRE(taken != ChunkBatch::Taken::full);
        }
        if (taken == ChunkBatch::Taken::no) {
            ++out.not_taken;
            on_cpu.push_back(chunk);
        }
    }
    run();
    for (const GzipChunkPtr& chunk : on_cpu) decode_chunk(*chunk, input, text_block_bytes, nullptr);
    out.text = testing::reassemble_shuffled(std::move(chunks), text_block_bytes, seed, out.files_in_order);
    return out;
}

// Every field of every block, as the reassembler sends them on.
void check_same_blocks(const std::vector<TextBlock>& got, const std::vector<TextBlock>& expected) {
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].file_ordinal == expected[i].file_ordinal);
        CHECK(got[i].file_block == expected[i].file_block);
        CHECK(got[i].file_end == expected[i].file_end);
        CHECK(got[i].entry_index == expected[i].entry_index);
        CHECK(got[i].entry_name == expected[i].entry_name);
        CHECK(got[i].entry_offset == expected[i].entry_offset);
        CHECK(got[i].bytes == expected[i].bytes);
        CHECK(got[i].entry_begin == expected[i].entry_begin);
        CHECK(got[i].entry_end == expected[i].entry_end);
        CHECK(got[i].end_of_input == expected[i].end_of_input);
    }
}

// The same file through the CPU's split path: every chunk decoded by
// decode_chunk, reassembled. Its text is also that of decoding in order.
std::vector<TextBlock> reference(const std::string& file, size_t block_bytes, size_t max_blocks,
                                 size_t text_block_bytes) {
    const InputFile input = testing::input_file("x.warc.gz");
    std::vector<GzipChunkPtr> chunks = chunks_of(file, block_bytes, max_blocks);
    for (const GzipChunkPtr& chunk : chunks) decode_chunk(*chunk, input, text_block_bytes, nullptr);
    std::vector<TextBlock> blocks;
    GzipReassembler reassembler(text_block_bytes, nullptr);
    for (auto& chunk : chunks)
        reassembler.push(chunk, input, [&](TextBlock&& text) { blocks.push_back(std::move(text)); });
    std::string joined, expected;
    for (const TextBlock& block : blocks) joined += block.bytes;
    for (const TextBlock& block : in_order(file, text_block_bytes)) expected += block.bytes;
    CHECK(joined == expected);
    return blocks;
}

std::string error_of(const std::function<void()>& decode) {
    try {
        decode();
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

const MemberBatchLimits kRoomy{size_t{8} << 20, size_t{64} << 20, 100000};

}  // namespace

TEST_CASE("chunk batch: every chunk of per-record members gets decode_chunk's text blocks, field for field") {
    std::mt19937 random(17);
    std::vector<size_t> sizes;
    for (int i = 0; i < 150; ++i) sizes.push_back(i % 29 == 3 ? 0 : 20 + random() % 12000);
    const std::string file = members(sizes, random);
    const InputFile input = testing::input_file("x.warc.gz");
    const auto pool = std::make_shared<BufferPool<std::string>>(64);
    for (const bool kernel_decoder : {false, true}) {  // libdeflate, the GPU kernel's decoder
        for (const size_t block_bytes : {size_t{700}, size_t{5000}, size_t{40000}, file.size()}) {
            // Smaller than most members, a member-size multiple, larger than a chunk.
            for (const size_t text_block_bytes : {size_t{1000}, size_t{4096}, size_t{1} << 20}) {
                CAPTURE(kernel_decoder);
                CAPTURE(block_bytes);
                CAPTURE(text_block_bytes);
                const std::vector<GzipChunkPtr> chunks = chunks_of(file, block_bytes, 1000);
                const auto inflater = make_host_member_inflater(kRoomy, kernel_decoder);
                ChunkBatch batch(*inflater);
                std::vector<GzipChunkPtr> on_cpu;
                uint64_t members_taken = 0;
                for (const GzipChunkPtr& chunk : chunks) {
                    // The CPU's twin: the same blocks, decoded by decode_chunk.
                    on_cpu.push_back(std::make_shared<GzipChunk>(*chunk));
                    REQUIRE(batch.take(chunk, input) == ChunkBatch::Taken::yes);
                }
                CHECK(batch.chunks() == chunks.size());
                const std::vector<ChunkBatch::Done> done = batch.run(text_block_bytes, pool);
                CHECK(batch.empty());
                REQUIRE(done.size() == chunks.size());
                for (size_t c = 0; c < chunks.size(); ++c) {
                    CAPTURE(c);
                    CHECK(done[c].chunk == chunks[c]);
                    REQUIRE(done[c].inflated);
                    decode_chunk(*on_cpu[c], input, text_block_bytes, pool);
                    const GzipChunk& cpu = *on_cpu[c];
                    const GzipChunk& gpu = *chunks[c];
                    CHECK(cpu.decoded);
                    CHECK(gpu.decoded == cpu.decoded);
                    CHECK(gpu.members == cpu.members);
                    CHECK(done[c].members == cpu.members);
                    CHECK(gpu.file_ordinal == cpu.file_ordinal);
                    CHECK(gpu.index == cpu.index);
                    CHECK(gpu.final == cpu.final);
                    uint64_t text_bytes = 0;
                    for (const TextBlock& block : cpu.text) text_bytes += block.bytes.size();
                    CHECK(done[c].text_bytes == text_bytes);
                    check_same_blocks(gpu.text, cpu.text);
                    for (size_t i = 0; i < gpu.text.size(); ++i) CHECK(gpu.text[i].lease == cpu.text[i].lease);
                    members_taken += done[c].members;
                }
                CHECK(members_taken == sizes.size());
            }
        }
    }
}

TEST_CASE("chunk batch: reassembled, batches of any size give the text of decoding in order") {
    std::mt19937 random(23);
    std::vector<size_t> sizes;
    for (int i = 0; i < 200; ++i) sizes.push_back(50 + random() % 9000);
    const std::string file = members(sizes, random);
    const std::vector<MemberBatchLimits> limits = {
        kRoomy,
        {20000, 200000, 100000},  // input fills first: a batch holds few chunks
        {size_t{1} << 20, 80000, 100000},  // text fills first
        {size_t{1} << 20, size_t{8} << 20, 12},  // members fill first
    };
    for (const MemberBatchLimits& limit : limits) {
        for (const size_t block_bytes : {size_t{3000}, size_t{9000}}) {
            CAPTURE(limit.input_bytes);
            CAPTURE(limit.output_bytes);
            CAPTURE(limit.members);
            CAPTURE(block_bytes);
            const BatchSplit split = batch_split_decode(file, block_bytes, 1000, 4096, limit, kMaxBatchMemberTextBytes,
                                                        static_cast<uint32_t>(block_bytes));
            check_same_blocks(split.text, reference(file, block_bytes, 1000, 4096));
            CHECK(split.files_in_order == 0);
            CHECK(split.not_clean == 0);
            // Chunks too large for any batch of these limits go to the CPU; the rest inflate.
            CHECK(split.inflated + split.not_taken == split.chunks);
            CHECK(split.inflated > 0);
            if (limit.input_bytes < kRoomy.input_bytes || limit.output_bytes < kRoomy.output_bytes || limit.members < 100)
                CHECK(split.batches > 1);
        }
    }
}

TEST_CASE("chunk batch: one whole-file member inflates whole, or goes to the CPU when longer than a batch member may be") {
    std::mt19937 random(3);
    const std::string single = member(words(random, 300000));
    for (const size_t block_bytes : {size_t{4096}, single.size()}) {
        CAPTURE(block_bytes);
        const BatchSplit whole = batch_split_decode(single, block_bytes, 1000, 8192, kRoomy, uint32_t{4} << 20);
        check_same_blocks(whole.text, reference(single, block_bytes, 1000, 8192));
        CHECK(whole.chunks == 1);
        CHECK(whole.inflated == 1);
        const BatchSplit too_long = batch_split_decode(single, block_bytes, 1000, 8192, kRoomy, 100000);
        check_same_blocks(too_long.text, reference(single, block_bytes, 1000, 8192));
        CHECK(too_long.inflated == 0);
        CHECK(too_long.not_taken == 1);
    }
    // More text than a batch holds at all: the CPU's.
    const BatchSplit too_much =
        batch_split_decode(single, 4096, 1000, 8192, {size_t{1} << 20, 200000, 100}, uint32_t{4} << 20);
    check_same_blocks(too_much.text, reference(single, 4096, 1000, 8192));
    CHECK(too_much.not_taken == 1);
    // A member longer than a chunk may hold: the chunks go undecoded to the reassembler, untouched here.
    const std::string long_member = members({3000, 400000, 3000}, random);
    const BatchSplit undecoded = batch_split_decode(long_member, 2048, 4, 8192, kRoomy);
    check_same_blocks(undecoded.text, reference(long_member, 2048, 4, 8192));
    CHECK(undecoded.files_in_order == 1);
    CHECK(undecoded.not_taken > 0);
}

// Members of 400-1,000 bytes of text among members of 20,000-30,000: a cap
// between the two leaves the long ones as holes in their chunks' text.
std::string short_and_long_members(std::mt19937& random, size_t count) {
    std::vector<size_t> sizes;
    for (size_t i = 0; i < count; ++i) sizes.push_back(i % 5 == 2 ? 20000 + random() % 10000 : 400 + random() % 600);
    return members(sizes, random);
}

TEST_CASE("chunk batch: members longer than the cap are left as holes, and filled they give decode_chunk's text") {
    std::mt19937 random(31);
    const std::string file = short_and_long_members(random, 60);
    const uint32_t cap = 10000;  // bytes of text: the short members are under it, the long ones over
    for (const size_t block_bytes : {size_t{3000}, size_t{20000}, size_t{90000}, file.size()}) {
        for (const size_t text_block_bytes : {size_t{1000}, size_t{4096}, size_t{1} << 20}) {
            for (const bool kernel_decoder : {false, true}) {
                CAPTURE(block_bytes);
                CAPTURE(text_block_bytes);
                CAPTURE(kernel_decoder);
                const BatchSplit split =
                    batch_split_decode(file, block_bytes, 1000, text_block_bytes, kRoomy, cap, 5, kernel_decoder);
                check_same_blocks(split.text, reference(file, block_bytes, 1000, text_block_bytes));
                // Every long member once, where no chunk holds long members only.
                if (block_bytes >= 20000) CHECK(split.holes == 12);
                CHECK(split.holes > 0);
                CHECK(split.holes_failed == 0);
                CHECK(split.not_clean == 0);
                CHECK(split.inflated > 0);
                CHECK(split.files_in_order == 0);
            }
        }
    }
    // Every member over the cap: nothing for the batch, every chunk the CPU's.
    const BatchSplit none = batch_split_decode(file, 20000, 1000, 4096, kRoomy, 100);
    check_same_blocks(none.text, reference(file, 20000, 1000, 4096));
    CHECK(none.inflated == 0);
    CHECK(none.not_taken == none.chunks);
}

TEST_CASE("chunk batch: a damaged member left as a hole gives the CPU's error, word for word") {
    std::mt19937 random(37);
    const std::string file = short_and_long_members(random, 30);
    // The third member is a long one: damage inside it, or its trailer.
    size_t start = 0;
    for (int m = 0; m < 2; ++m) start = *find_gzip_member_header(file.data(), file.size(), start + 1);
    const size_t next = *find_gzip_member_header(file.data(), file.size(), start + 1);
    REQUIRE(next - start > 2000);  // compressed
    const auto flipped = [&](size_t at) {
        std::string bad = file;
        bad[at] = static_cast<char>(bad[at] ^ 0x55);
        return bad;
    };
    const std::vector<std::pair<std::string, std::string>> damaged = {
        {"deflate data", flipped(start + (next - start) / 2)},
        {"CRC-32", flipped(next - 7)},
        {"ISIZE", flipped(next - 4)},
    };
    for (const auto& [what, bad] : damaged) {
        CAPTURE(what);
        const std::string expected = error_of([&] { in_order(bad, 4096); });
        CHECK(expected != "no error");
        CHECK(error_of([&] { batch_split_decode(bad, 50000, 1000, 4096, kRoomy, 10000); }) == expected);
    }
    // The deflate data damaged, the ISIZE intact: the batch inflates the
    // short members, and filling the hole fails (so decode_chunk decodes it).
    const std::string bad = flipped(start + (next - start) / 2);
    const std::vector<GzipChunkPtr> chunks = chunks_of(bad, bad.size(), 1000);
    REQUIRE(chunks.size() == 1);
    const auto inflater = make_host_member_inflater(kRoomy);
    ChunkBatch batch(*inflater, 10000);
    REQUIRE(batch.take(chunks[0], testing::input_file("x.warc.gz")) == ChunkBatch::Taken::yes);
    const std::vector<ChunkBatch::Done> done = batch.run(4096, nullptr);
    REQUIRE(done.size() == 1);
    CHECK(done[0].inflated);
    CHECK(done[0].holes == 6);
    CHECK_FALSE(chunks[0]->decoded);
    CHECK_FALSE(fill_member_holes(*chunks[0], 4096));
    CHECK_FALSE(chunks[0]->decoded);
}

TEST_CASE("chunk batch: a false member header inside compressed data leaves its chunk to the CPU, same text") {
    for (const bool plausible_size : {false, true}) {
        CAPTURE(plausible_size);
        std::mt19937 random(11);
        std::string file;
        for (int i = 0; i < 40; ++i) {
            file += i % 7 == 3 ? member_with_false_header(random, plausible_size) : member(words(random, 2000 + random() % 5000));
        }
        // The false header is found inside the batch's chunks (or at a chunk's start).
        const size_t at = file.find(kFakeHeader);
        REQUIRE(at != std::string::npos);
        for (const size_t block_bytes : {size_t{1500}, size_t{6000}, size_t{25000}, file.size()}) {
            for (const bool kernel_decoder : {false, true}) {
                CAPTURE(block_bytes);
                CAPTURE(kernel_decoder);
                const BatchSplit split =
                    batch_split_decode(file, block_bytes, 1000, 4096, kRoomy, kMaxBatchMemberTextBytes, 1, kernel_decoder);
                check_same_blocks(split.text, reference(file, block_bytes, 1000, 4096));
                CHECK(split.not_taken + split.not_clean > 0);
                // An ISIZE that looks right gets the chunk inflated, and inflating finds the header false.
                if (plausible_size) CHECK(split.not_clean > 0);
            }
        }
    }
}

TEST_CASE("chunk batch: members with a header CRC, and chunks split at no header, stay with the CPU") {
    std::mt19937 random(29);
    MemberOptions with_fields;
    with_fields.header_fields = true;  // FNAME, FCOMMENT, FEXTRA and FHCRC
    const std::string file = members({4000, 3000, 5000, 2000, 6000, 1000}, random, with_fields);
    const BatchSplit split = batch_split_decode(file, 4000, 1000, 4096, kRoomy);
    check_same_blocks(split.text, reference(file, 4000, 1000, 4096));
    CHECK(split.inflated == 0);
    CHECK(split.not_taken == split.chunks);
}

TEST_CASE("chunk batch: damage, truncation, padding and trailing bytes give the CPU's error, word for word") {
    std::mt19937 random(13);
    const std::string file = members(std::vector<size_t>(40, 3000), random);
    const auto start = find_gzip_member_header(file.data(), file.size(), file.size() / 2);
    REQUIRE(start.has_value());
    const auto next = find_gzip_member_header(file.data(), file.size(), *start + 1);
    REQUIRE(next.has_value());
    const auto flipped = [&](size_t at) {
        std::string bad = file;
        bad[at] = static_cast<char>(bad[at] ^ 0x55);
        return bad;
    };
    const std::vector<std::pair<std::string, std::string>> damaged = {
        {"deflate data", flipped(*start + 40)},
        {"CRC-32", flipped(*next - 8)},
        {"ISIZE", flipped(*next - 4)},
        {"ISIZE high byte", flipped(*next - 1)},
        {"truncated", file.substr(0, file.size() - 5)},
        {"trailing bytes", file + "trailing bytes, not gzip"},
        {"zero bytes between members",
         members({4000, 4000}, random) + std::string(100, '\0') + members({4000}, random)},
        {"a member cut short", file.substr(0, *start + 100) + file.substr(*next)},
    };
    for (const auto& [what, bad] : damaged) {
        for (const size_t block_bytes : {size_t{2000}, size_t{7000}}) {
            CAPTURE(what);
            CAPTURE(block_bytes);
            const std::string expected = error_of([&] { in_order(bad, 4096); });
            CHECK(expected != "no error");
            CHECK(expected.find("x.warc.gz") != std::string::npos);
            for (const bool kernel_decoder : {false, true}) {
                CAPTURE(kernel_decoder);
                CHECK(error_of([&] {
                          batch_split_decode(bad, block_bytes, 1000, 4096, kRoomy, kMaxBatchMemberTextBytes, 1, kernel_decoder);
                      }) == expected);
            }
        }
    }
    // Zero padding at the end of the file is no error, on either path.
    const std::string padded = file + std::string(3000, '\0');
    const BatchSplit split = batch_split_decode(padded, 2000, 1000, 4096, kRoomy);
    check_same_blocks(split.text, reference(padded, 2000, 1000, 4096));
    CHECK(split.inflated > 0);
}

TEST_CASE("chunk batch: where the inflater keeps a batch's text on its GPU, each block says which of its bytes are there, and where") {
    // The host inflater pretends gpu:3 with a host copy of each batch's
    // text, so the addresses can be read back: every span of every block
    // must hold the block's own bytes, at any block size and batch cut, and
    // the spans must cover exactly the bytes of batch members (a hole, a
    // member too long for the batch that the CPU fills in, is not there).
    std::mt19937 random(41);
    std::vector<size_t> sizes;
    for (int i = 0; i < 120; ++i) sizes.push_back(i % 23 == 5 ? 30000 : 20 + random() % 9000);
    const std::string file = members(sizes, random);
    const InputFile input = testing::input_file("x.warc.gz");
    for (const size_t block_bytes : {size_t{3000}, size_t{40000}}) {
        for (const size_t text_block_bytes : {size_t{1000}, size_t{8192}}) {
            CAPTURE(block_bytes);
            CAPTURE(text_block_bytes);
            const MemberBatchLimits small{size_t{64} << 10, size_t{512} << 10, 1000};  // several batches
            const auto inflater = make_host_member_inflater(small, false, 3);
            ChunkBatch batch(*inflater, 20000);
            uint64_t text_on_device = 0, hole_text = 0, text = 0;
            const auto run = [&] {
                for (const ChunkBatch::Done& done : batch.run(text_block_bytes, nullptr)) {
                    REQUIRE(done.inflated);
                    hole_text += done.hole_text_bytes;
                    text += done.text_bytes;
                    for (const TextBlock& block : done.chunk->text) {
                        if (!block.device_text) continue;
                        CHECK(block.device_text->device == 3);
                        uint64_t end = 0;
                        for (const DeviceText::Span& span : block.device_text->spans) {
                            CHECK(span.begin >= end);
                            CHECK(span.begin < span.end);
                            REQUIRE(span.end <= block.bytes.size());
                            end = span.end;
                            text_on_device += span.end - span.begin;
                            // The holes' bytes are unset here (fill_member_holes comes later), so a span
                            // that strayed into one would not hold the block's bytes.
                            CHECK(std::string_view(span.address, span.end - span.begin) ==
                                  std::string_view(block.bytes).substr(span.begin, span.end - span.begin));
                            CHECK(block.device_text->address_of(span.begin, span.end - span.begin) == span.address);
                        }
                    }
                }
            };
            for (const GzipChunkPtr& chunk : chunks_of(file, block_bytes, 1000)) {
                ChunkBatch::Taken taken = batch.take(chunk, input);
                if (taken == ChunkBatch::Taken::full) {
                    run();
                    taken = batch.take(chunk, input);
                }
                REQUIRE(taken != ChunkBatch::Taken::full);  // `no`: a chunk the CPU decodes (a member longer than a block)
            }
            run();
            CHECK(hole_text > 0);
            CHECK(text_on_device > 0);
            CHECK(text_on_device == text - hole_text);  // every batch member's byte, and nothing else
        }
    }
    // An inflater that keeps nothing on a GPU leaves every block without.
    const auto plain = make_host_member_inflater(kRoomy);
    ChunkBatch batch(*plain);
    for (const GzipChunkPtr& chunk : chunks_of(file, 40000, 1000)) REQUIRE(batch.take(chunk, input) == ChunkBatch::Taken::yes);
    for (const ChunkBatch::Done& done : batch.run(4096, nullptr)) {
        for (const TextBlock& block : done.chunk->text) CHECK_FALSE(block.device_text);
    }
}

TEST_CASE("chunk batch: a block's device address is found only for bytes that lie in one span") {
    DeviceText text;
    const char base[100] = {};
    text.spans = {{0, 10, base + 50}, {20, 30, base + 5}};
    CHECK(text.address_of(0, 10) == base + 50);
    CHECK(text.address_of(3, 4) == base + 53);
    CHECK(text.address_of(20, 10) == base + 5);
    CHECK(text.address_of(25, 0) == base + 10);
    CHECK(text.address_of(5, 10) == nullptr);   // into the gap
    CHECK(text.address_of(12, 3) == nullptr);   // in the gap
    CHECK(text.address_of(25, 10) == nullptr);  // past the last span
    CHECK(text.address_of(40, 1) == nullptr);
}

}  // namespace invidx
