// VerifiedFile: bytes verified block by block on first use, once.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "invidx/error.hpp"
#include "store/crc32.hpp"
#include "store/mapped_file.hpp"
#include "store/verified_file.hpp"
#include "support/temp_dir.hpp"

using invidx::testing::TempDir;

namespace {

constexpr uint32_t kBlock = 1024;

std::vector<uint32_t> block_crcs(const std::string& bytes) {
    std::vector<uint32_t> crcs;
    for (size_t at = 0; at < bytes.size(); at += kBlock) crcs.push_back(invidx::crc32(std::string_view(bytes).substr(at, kBlock)));
    return crcs;
}

std::string pattern(size_t size) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131) ^ (i >> 7));
    return bytes;
}

}  // namespace

TEST_CASE("a verified file checksums only the blocks that are read, each once") {
    TempDir dir;
    const std::string bytes = pattern(10 * kBlock + 100);  // 11 blocks, the last short
    const auto path = dir.write("f.bin", bytes);
    const invidx::VerifiedFile file(invidx::MappedFile(path, "f.bin"), "f.bin", kBlock, block_crcs(bytes));
    CHECK(file.lazy());
    CHECK(file.block_count() == 11);
    CHECK(file.bytes_verified() == 0);
    CHECK(file.range(10, 20) == bytes.substr(10, 20));
    CHECK(file.bytes_verified() == kBlock);
    CHECK(file.range(kBlock - 2, 4) == bytes.substr(kBlock - 2, 4));  // straddles blocks 0 and 1
    CHECK(file.bytes_verified() == 2 * kBlock);
    (void)file.range(0, 2 * kBlock);  // both verified already
    CHECK(file.bytes_verified() == 2 * kBlock);
    CHECK(file.range(10 * kBlock, 100) == bytes.substr(10 * kBlock));
    CHECK(file.bytes_verified() == 2 * kBlock + 100);
    CHECK_THROWS_AS(file.range(bytes.size() - 5, 6), invidx::FormatError);
    file.verify_all();
    CHECK(file.bytes_verified() == bytes.size());
    CHECK(file.damaged_blocks(0, 100).empty());
}

TEST_CASE("a damaged block is a FormatError naming the file, the block and its bytes, and only that block") {
    TempDir dir;
    std::string bytes = pattern(8 * kBlock);
    const auto crcs = block_crcs(bytes);
    bytes[5 * kBlock + 17] ^= 0x01;
    bytes[7 * kBlock] ^= 0x40;
    const auto path = dir.write("g.bin", bytes);
    const invidx::VerifiedFile file(invidx::MappedFile(path, "g.bin"), "idx/g.bin", kBlock, crcs);
    CHECK(file.range(4 * kBlock, kBlock) == bytes.substr(4 * kBlock, kBlock));
    CHECK_THROWS_WITH_AS(file.range(5 * kBlock + 100, 1), doctest::Contains("idx/g.bin: block 5 (bytes 5120-6143)"), invidx::FormatError);
    // Still damaged on the next read (a failed block is never marked verified).
    CHECK_THROWS_AS(file.check(std::string_view(file.unchecked_bytes()).substr(5 * kBlock, 1)), invidx::FormatError);
    const auto damaged = file.damaged_blocks(0, file.block_count());
    REQUIRE(damaged.size() == 2);
    CHECK(damaged[0].block == 5);
    CHECK(damaged[1].block == 7);
    CHECK(damaged[1].first_byte == 7 * kBlock);
    CHECK(damaged[1].last_byte == 8 * kBlock - 1);
}

TEST_CASE("threads reading one verified file share its verified blocks") {
    TempDir dir;
    const std::string bytes = pattern(64 * kBlock);
    const auto path = dir.write("h.bin", bytes);
    const invidx::VerifiedFile file(invidx::MappedFile(path, "h.bin"), "h.bin", kBlock, block_crcs(bytes));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (uint64_t block = 0; block < 64; ++block) (void)file.range(block * kBlock, kBlock);
        });
    }
    for (auto& thread : threads) thread.join();
    // Each block at least once; a block raced by two threads may count twice.
    CHECK(file.bytes_verified() >= bytes.size());
    CHECK(file.bytes_verified() <= 4 * bytes.size());
    const uint64_t settled = file.bytes_verified();
    file.verify_all();
    CHECK(file.bytes_verified() == settled);
}

TEST_CASE("a file verified whole at open checks nothing more") {
    TempDir dir;
    const auto path = dir.write("w.bin", pattern(3000));
    const invidx::VerifiedFile file(invidx::MappedFile(path, "w.bin"), "w.bin");
    CHECK_FALSE(file.lazy());
    CHECK(file.range(0, 3000).size() == 3000);
    CHECK(file.bytes_verified() == 0);
}
