#include "nodes/read/block_reader.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "invidx/error.hpp"
#include "tests/support/temp_dir.hpp"

namespace invidx {
namespace {

using testing::TempDir;

InputFile input_file(const std::filesystem::path& path, uint32_t ordinal = 7) {
    InputFile file;
    file.ordinal = ordinal;
    file.path = path.string();
    file.name = path.filename().string();
    return file;
}

std::string pattern(size_t size) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 251);
    return bytes;
}

std::vector<RawBlock> read_all(BlockReader& reader) {
    std::vector<RawBlock> blocks;
    RawBlock block;
    while (reader.next(block)) blocks.push_back(block);
    return blocks;
}

TEST_CASE("files are cut into blocks that put the file back together") {
    constexpr size_t kBlock = 16;
    for (const size_t size : {size_t{0}, size_t{1}, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock + 2, 4 * kBlock}) {
        CAPTURE(size);
        TempDir dir;
        const std::string bytes = pattern(size);
        BlockReader reader(input_file(dir.write("f.bin", bytes)), kBlock);
        const auto blocks = read_all(reader);
        const size_t expected_blocks = size == 0 ? 1 : (size + kBlock - 1) / kBlock;
        REQUIRE(blocks.size() == expected_blocks);
        std::string joined;
        for (size_t i = 0; i < blocks.size(); ++i) {
            CHECK(blocks[i].file_ordinal == 7);
            CHECK(blocks[i].file_offset == joined.size());
            CHECK(blocks[i].first == (i == 0));
            CHECK(blocks[i].last == (i + 1 == blocks.size()));
            CHECK(blocks[i].bytes.size() <= kBlock);
            CHECK_FALSE(blocks[i].end_of_input);
            if (i + 1 < blocks.size()) CHECK(blocks[i].bytes.size() == kBlock);
            joined.append(blocks[i].bytes.begin(), blocks[i].bytes.end());
        }
        CHECK(joined == bytes);
        CHECK(reader.done());
        CHECK(reader.bytes_read() == size);
        RawBlock after;
        CHECK_FALSE(reader.next(after));
    }
}

TEST_CASE("a regular file is read as it was when opened, its last block no larger than what is left") {
    TempDir dir;
    const std::string bytes = pattern(1000);
    const auto path = dir.write("small.html", bytes);
    BlockReader reader(input_file(path));  // the default block, 4 MiB
    {
        std::ofstream grow(path, std::ios::binary | std::ios::app);
        grow << "appended after the file was opened";
    }
    RawBlock block;
    REQUIRE(reader.next(block));
    CHECK(block.bytes.size() == bytes.size());
    CHECK(std::string(block.bytes.begin(), block.bytes.end()) == bytes);
    CHECK(block.last);
    // A small file's buffer is not a whole block's (zero-filled and faulted
    // in for every small file of a directory, that cost more than the reads).
    CHECK(block.bytes.capacity() < (size_t{64} << 10));
    RawBlock after;
    CHECK_FALSE(reader.next(after));
}

TEST_CASE("a regular file whose size reads 0 but holds bytes (procfs) is read, not taken for empty") {
    const std::filesystem::path status = "/proc/self/status";
    if (!std::filesystem::exists(status)) return;  // not Linux
    BlockReader reader(input_file(status));
    const auto blocks = read_all(reader);
    REQUIRE(blocks.size() == 1);
    CHECK(std::string(blocks[0].bytes.begin(), blocks[0].bytes.end()).find("Name:") == 0);
}

TEST_CASE("a missing file is an error naming it") {
    TempDir dir;
    const auto path = dir / "gone.warc";
    CHECK_THROWS_WITH_AS(BlockReader(input_file(path)), doctest::Contains(path.string().c_str()), Error);
}

TEST_CASE("reads wait for their turn at the scheduler") {
    TempDir dir;
    ReadScheduler scheduler;
    BlockReader reader(input_file(dir.write("f.bin", pattern(100))), 64, scheduler);
    std::atomic<bool> read_done = false;
    std::thread reading;
    {
        const auto turn = scheduler.acquire();  // another reader is reading
        reading = std::thread([&] {
            RawBlock block;
            reader.next(block);
            read_done = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        CHECK_FALSE(read_done.load());
    }
    reading.join();
    CHECK(read_done.load());
}

}  // namespace
}  // namespace invidx
