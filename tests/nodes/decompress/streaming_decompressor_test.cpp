#include "nodes/decompress/streaming_decompressor.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/read/block_reader.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx {
namespace {

using testing::TempDir;
using testing::input_file;
using testing::same_block;


// Reads `file` with a BlockReader and pushes every block, as the graph does.
void stream(StreamingDecompressor& decompressor, const InputFile& file, size_t read_block_bytes,
            std::vector<TextBlock>& out) {
    BlockReader reader(file, read_block_bytes);
    auto block = std::make_shared<RawBlock>();
    while (reader.next(*block)) {
        decompressor.push(*block, file, [&](TextBlock&& text) { out.push_back(std::move(text)); });
    }
}

// The test inputs: every kind of file the decompressor meets.
std::vector<InputFile> write_inputs(const TempDir& dir) {
    const std::string text = testing::sample_text(12000, 11);
    const std::vector<std::pair<std::string, std::string>> contents = {
        {"a.empty", ""},
        {"b.tiny", "xy"},
        {"c.txt", text},
        {"d.gz", testing::compress("one ", ARCHIVE_FILTER_GZIP) + testing::compress(text, ARCHIVE_FILTER_GZIP)},
        {"e.bz2", testing::compress(text, ARCHIVE_FILTER_BZIP2)},
        {"f.xz", testing::compress(text, ARCHIVE_FILTER_XZ)},
        {"g.zst", testing::compress(text, ARCHIVE_FILTER_ZSTD)},
        {"h.lz4", testing::compress(text, ARCHIVE_FILTER_LZ4)},
        {"i.tar.gz", testing::write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
                                            {{"d", "", AE_IFDIR}, {"d/1", "first"}, {"d/0", ""}, {"d/2", text}})},
        {"j.zip", testing::write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, {{"m/n.txt", text}, {"o", "p"}})},
        {"k.gz", testing::compress("", ARCHIVE_FILTER_GZIP)},
    };
    std::vector<InputFile> files;
    for (const auto& [name, bytes] : contents) {
        files.push_back(input_file(dir.write(name, bytes), static_cast<uint32_t>(files.size())));
    }
    return files;
}

TEST_CASE("pushed blocks of any size decode exactly like decompress_file") {
    TempDir dir;
    const auto files = write_inputs(dir);
    for (const size_t text_block_bytes : {size_t{5}, size_t{4096}}) {
        std::vector<TextBlock> expected;
        for (const auto& file : files) {
            auto blocks = testing::blocks_with_libarchive(file, text_block_bytes);
            expected.insert(expected.end(), std::make_move_iterator(blocks.begin()),
                            std::make_move_iterator(blocks.end()));
        }
        for (const size_t read_block_bytes : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
            CAPTURE(text_block_bytes);
            CAPTURE(read_block_bytes);
            StreamingDecompressor decompressor(text_block_bytes);
            std::vector<TextBlock> got;
            for (const auto& file : files) stream(decompressor, file, read_block_bytes, got);
            REQUIRE(got.size() == expected.size());
            size_t mismatches = 0;
            for (size_t i = 0; i < got.size(); ++i) mismatches += same_block(got[i], expected[i]) ? 0 : 1;
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("a file that comes in one block is decoded without a decoder thread, its errors as from one") {
    TempDir dir;
    const auto files = write_inputs(dir);
    std::vector<TextBlock> expected;
    for (const auto& file : files) {
        auto blocks = testing::blocks_with_libarchive(file, 4096);
        expected.insert(expected.end(), std::make_move_iterator(blocks.begin()), std::make_move_iterator(blocks.end()));
    }
    StreamingDecompressor decompressor(4096);
    std::vector<TextBlock> got;
    for (const auto& file : files) {
        BlockReader reader(file, size_t{1} << 20);
        RawBlock block;
        while (reader.next(block)) {
            block.lease = std::make_shared<int>(0);
            decompressor.push(block, file, [&](TextBlock&& text) {
                CHECK(text.lease == block.lease);
                got.push_back(std::move(text));
            });
        }
    }
    CHECK(decompressor.decoder_threads_started() == 0);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(same_block(got[i], expected[i]));

    // Damaged, in one block: the error names the file, and the next file decodes.
    std::string corrupt = testing::compress(testing::sample_text(5000, 3), ARCHIVE_FILTER_GZIP);
    corrupt[10] = 0x07;  // reserved deflate block type
    const auto bad = input_file(dir.write("bad.gz", corrupt), 20);
    got.clear();
    CHECK_THROWS_WITH_AS(stream(decompressor, bad, size_t{1} << 20, got), doctest::Contains(bad.path.c_str()), Error);
    got.clear();
    stream(decompressor, files[2], size_t{1} << 20, got);
    CHECK(!got.empty());
    // A file in several blocks still gets its thread.
    stream(decompressor, files[2], 64, got);
    CHECK(decompressor.decoder_threads_started() == 1);
}

TEST_CASE("each text block carries the lease of the latest pushed block, and no lease is kept after the file") {
    TempDir dir;
    const auto file = input_file(dir.write("f.gz", testing::compress(testing::sample_text(20000), ARCHIVE_FILTER_GZIP)), 0);
    StreamingDecompressor decompressor(100);
    BlockReader reader(file, 64);
    RawBlock block;
    size_t emitted = 0;
    std::vector<std::weak_ptr<void>> leases;
    while (reader.next(block)) {
        block.lease = std::make_shared<int>(0);
        leases.push_back(block.lease);
        decompressor.push(block, file, [&](TextBlock&& text) {
            CHECK(text.lease == block.lease);
            ++emitted;
        });
    }
    CHECK(emitted == 200);
    block.lease.reset();
    size_t alive = 0;
    for (const auto& lease : leases) alive += lease.expired() ? 0 : 1;
    CHECK(alive == 0);
}

TEST_CASE("a highly compressed file streams through a bounded channel without deadlock") {
    TempDir dir;
    // Not zeros: a file starting with a zero 512-byte block is an empty tar archive to libarchive.
    const std::string same(8 << 20, 'a');
    const auto file = input_file(dir.write("z.gz", testing::compress(same, ARCHIVE_FILTER_GZIP)), 0);
    StreamingDecompressor decompressor(4096);
    std::vector<TextBlock> got;
    stream(decompressor, file, 7, got);
    size_t total = 0;
    for (const auto& block : got) total += block.bytes.size();
    CHECK(total == same.size());
    REQUIRE_FALSE(got.empty());
    CHECK(got.back().entry_end);
}

TEST_CASE("a decoder error is thrown from push and the file's remaining blocks are ignored") {
    TempDir dir;
    const std::string text = testing::sample_text(50000, 12);
    std::string corrupt = testing::compress(text, ARCHIVE_FILTER_GZIP);
    corrupt[10] = 0x07;  // reserved deflate block type
    const auto bad = input_file(dir.write("bad.gz", corrupt), 0);
    const auto good = input_file(dir.write("good.gz", testing::compress(text, ARCHIVE_FILTER_GZIP)), 1);
    StreamingDecompressor decompressor(1000);
    std::vector<TextBlock> got;
    bool thrown = false;
    BlockReader reader(bad, 64);
    RawBlock block;
    while (reader.next(block)) {
        try {
            decompressor.push(block, bad, [&](TextBlock&& text) { got.push_back(std::move(text)); });
        } catch (const Error& error) {
            CHECK_FALSE(thrown);  // thrown once, not for every later block
            thrown = true;
            CHECK(error.context().file == bad.path);
        }
    }
    CHECK(thrown);
    got.clear();
    stream(decompressor, good, 4096, got);
    std::string decoded;
    for (const auto& text_block : got) decoded += text_block.bytes;
    CHECK(decoded == text);
}

TEST_CASE("a truncated file is an error at its last block") {
    TempDir dir;
    const std::string compressed = testing::compress(testing::sample_text(50000, 13), ARCHIVE_FILTER_XZ);
    const auto file = input_file(dir.write("cut.xz", compressed.substr(0, compressed.size() - 3)), 0);
    StreamingDecompressor decompressor(1000);
    std::vector<TextBlock> got;
    CHECK_THROWS_WITH_AS(stream(decompressor, file, 4096, got), doctest::Contains(file.path.c_str()), Error);
}

TEST_CASE("a block without its file's first block is refused") {
    TempDir dir;
    const auto file = input_file(dir.write("f.txt", "text"), 0);
    RawBlock block;
    block.file_offset = 10;
    block.last = true;
    block.bytes = {'x'};
    StreamingDecompressor decompressor;
    CHECK_THROWS_AS(decompressor.push(block, file, [](TextBlock&&) {}), Error);
}

// Runs `work` on a thread and reports whether it finished within the limit; a
// hung thread is left behind (detached) so the test fails instead of hanging.
bool finishes_in_time(std::function<void()> work) {
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    std::thread([work = std::move(work), done] {
        work();
        done->set_value();
    }).detach();
    return finished.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
}

TEST_CASE("destroying the decompressor in the middle of a file does not hang") {
    TempDir dir;
    const std::string text = testing::sample_text(200000, 14);
    const auto file = input_file(dir.write("big.bz2", testing::compress(text, ARCHIVE_FILTER_BZIP2)), 0);
    CHECK(finishes_in_time([file] {
        auto decompressor = std::make_unique<StreamingDecompressor>(1000);
        BlockReader reader(file, 100);
        RawBlock block;
        for (int i = 0; i < 5 && reader.next(block); ++i) decompressor->push(block, file, [](TextBlock&&) {});
        decompressor.reset();
    }));
    CHECK(finishes_in_time([file] {
        StreamingDecompressor decompressor(1000);
        BlockReader reader(file, 100);
        RawBlock block;
        reader.next(block);
        decompressor.push(block, file, [](TextBlock&&) {});
    }));
}

TEST_CASE("a new file before the last block of the previous one is an error, and the next file decodes") {
    TempDir dir;
    const std::string text = testing::sample_text(5000, 15);
    const auto first = input_file(dir.write("a.txt", text), 0);
    const auto second = input_file(dir.write("b.txt", "second"), 1);
    StreamingDecompressor decompressor(1000);
    RawBlock block;
    BlockReader reader(first, 100);
    reader.next(block);
    decompressor.push(block, first, [](TextBlock&&) {});
    BlockReader other(second, 100);
    RawBlock other_block;
    other.next(other_block);
    CHECK_THROWS_AS(decompressor.push(other_block, second, [](TextBlock&&) {}), Error);
    std::vector<TextBlock> got;
    stream(decompressor, second, 100, got);
    REQUIRE(got.size() == 1);
    CHECK(got[0].bytes == "second");
}

}  // namespace
}  // namespace invidx
