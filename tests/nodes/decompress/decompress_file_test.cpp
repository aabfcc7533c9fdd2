#include "nodes/decompress/decompress_file.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/temp_dir.hpp"

namespace invidx {
namespace {

using testing::TempDir;

struct Entry {
    std::string name;
    std::string bytes;
};

InputFile input_file(const std::filesystem::path& path, uint32_t ordinal = 3) {
    InputFile file;
    file.ordinal = ordinal;
    file.path = path.string();
    file.name = "input/" + path.filename().string();
    return file;
}

// Decodes `file` and checks the TextBlock invariants on the way.
std::vector<Entry> decode(const InputFile& file, size_t text_block_bytes = 1000) {
    std::vector<Entry> entries;
    bool in_entry = false;
    decompress_file(file, text_block_bytes, [&](TextBlock&& block) {
        CHECK(block.file_ordinal == file.ordinal);
        CHECK(block.bytes.size() <= text_block_bytes);
        CHECK(block.entry_begin == !in_entry);
        if (block.entry_begin) entries.push_back(Entry{block.entry_name, ""});
        REQUIRE(!entries.empty());
        CHECK(block.entry_index == entries.size() - 1);
        CHECK(block.entry_name == entries.back().name);
        CHECK(block.entry_offset == entries.back().bytes.size());
        // Only an entry's last block may be short, and only an empty entry's may be empty.
        if (!block.entry_end) CHECK(block.bytes.size() == text_block_bytes);
        if (block.bytes.empty()) CHECK((block.entry_begin && block.entry_end));
        entries.back().bytes += block.bytes;
        in_entry = !block.entry_end;
        return true;
    });
    CHECK_FALSE(in_entry);
    return entries;
}

TEST_CASE("plain files, tiny and empty ones included, are one entry named after the file") {
    TempDir dir;
    for (const std::string& contents : {std::string(), std::string("a"), std::string("ab"), std::string("abc"),
                                       testing::sample_text(5000)}) {
        CAPTURE(contents.size());
        const auto file = input_file(dir.write("plain.txt", contents));
        const auto entries = decode(file);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].name == "input/plain.txt");
        CHECK(entries[0].bytes == contents);
    }
}

TEST_CASE("every compression filter decodes to the original bytes") {
    const std::string text = testing::sample_text(200000);
    const std::pair<int, const char*> filters[] = {{ARCHIVE_FILTER_GZIP, "gz"}, {ARCHIVE_FILTER_BZIP2, "bz2"},
                                                   {ARCHIVE_FILTER_XZ, "xz"},   {ARCHIVE_FILTER_ZSTD, "zst"},
                                                   {ARCHIVE_FILTER_LZ4, "lz4"}};
    for (const auto& [filter, extension] : filters) {
        CAPTURE(extension);
        TempDir dir;
        const std::string compressed = testing::compress(text, filter);
        REQUIRE(compressed != text.substr(0, compressed.size()));
        const auto entries = decode(input_file(dir.write(std::string("doc.") + extension, compressed)), 4096);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].name == std::string("input/doc.") + extension);
        CHECK(entries[0].bytes == text);
    }
}

TEST_CASE("a compressed empty file is one empty entry") {
    for (const int filter : {ARCHIVE_FILTER_GZIP, ARCHIVE_FILTER_BZIP2, ARCHIVE_FILTER_XZ, ARCHIVE_FILTER_ZSTD}) {
        CAPTURE(filter);
        TempDir dir;
        const auto entries = decode(input_file(dir.write("empty.gz", testing::compress("", filter))));
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].bytes.empty());
    }
}

TEST_CASE("every member of a multi-member gzip is decoded") {
    TempDir dir;
    const std::string second = testing::sample_text(70000, 2);
    const std::string file_bytes = testing::compress("first member\n", ARCHIVE_FILTER_GZIP) +
                                   testing::compress("", ARCHIVE_FILTER_GZIP) +
                                   testing::compress(second, ARCHIVE_FILTER_GZIP);
    const auto entries = decode(input_file(dir.write("multi.gz", file_bytes)));
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].bytes == "first member\n" + second);
}

TEST_CASE("tar members are entries in archive order, directories and links skipped") {
    TempDir dir;
    const std::string big = testing::sample_text(3000, 3);
    const std::vector<testing::Member> members = {
        {"docs", "", AE_IFDIR}, {"docs/one.txt", "first"}, {"docs/link", "docs/one.txt", AE_IFLNK},
        {"empty.txt", ""},      {"docs/big.txt", big},     {"a.txt", "last"}};
    for (const int filter : {ARCHIVE_FILTER_NONE, ARCHIVE_FILTER_GZIP}) {
        CAPTURE(filter);
        const auto archive = testing::write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, filter, members);
        const auto entries = decode(input_file(dir.write("c.tar", archive)), 512);
        REQUIRE(entries.size() == 4);
        CHECK(entries[0].name == "input/c.tar!docs/one.txt");
        CHECK(entries[0].bytes == "first");
        CHECK(entries[1].name == "input/c.tar!empty.txt");
        CHECK(entries[1].bytes.empty());
        CHECK(entries[2].name == "input/c.tar!docs/big.txt");
        CHECK(entries[2].bytes == big);
        CHECK(entries[3].name == "input/c.tar!a.txt");
        CHECK(entries[3].bytes == "last");
    }
}

TEST_CASE("zip members are entries in archive order") {
    TempDir dir;
    const std::string big = testing::sample_text(50000, 4);
    const auto archive = testing::write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE,
                                                {{"dir/", "", AE_IFDIR}, {"dir/b.txt", big}, {"a.txt", "x"}});
    const auto entries = decode(input_file(dir.write("c.zip", archive)));
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].name == "input/c.zip!dir/b.txt");
    CHECK(entries[0].bytes == big);
    CHECK(entries[1].name == "input/c.zip!a.txt");
    CHECK(entries[1].bytes == "x");
}

TEST_CASE("blocks are cut at the block size, with no empty block after a full one") {
    TempDir dir;
    const std::string fourteen = "0123456789abcd";
    std::vector<TextBlock> blocks;
    decompress_file(input_file(dir.write("f.txt", fourteen)), 7, [&](TextBlock&& block) {
        blocks.push_back(std::move(block));
        return true;
    });
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].bytes == "0123456");
    CHECK((blocks[0].entry_begin && !blocks[0].entry_end));
    CHECK(blocks[1].bytes == "789abcd");
    CHECK(blocks[1].entry_offset == 7);
    CHECK((!blocks[1].entry_begin && blocks[1].entry_end));
}

TEST_CASE("emit returning false stops decoding") {
    TempDir dir;
    int calls = 0;
    decompress_file(input_file(dir.write("f.txt", std::string(100, 'x'))), 10, [&](TextBlock&&) {
        ++calls;
        return calls < 3;
    });
    CHECK(calls == 3);
}

TEST_CASE("truncated compressed files are errors naming the file, never short output") {
    const std::string text = testing::sample_text(100000, 5);
    const std::pair<int, const char*> filters[] = {{ARCHIVE_FILTER_GZIP, "gz"}, {ARCHIVE_FILTER_BZIP2, "bz2"},
                                                   {ARCHIVE_FILTER_XZ, "xz"},   {ARCHIVE_FILTER_ZSTD, "zst"},
                                                   {ARCHIVE_FILTER_LZ4, "lz4"}};
    for (const auto& [filter, extension] : filters) {
        const std::string compressed = testing::compress(text, filter);
        // Cut in the middle, and cut only the last byte (part of a trailer or end mark).
        for (const size_t keep : {compressed.size() / 2, compressed.size() - 1}) {
            CAPTURE(extension);
            CAPTURE(keep);
            TempDir dir;
            const auto file = input_file(dir.write(std::string("cut.") + extension, compressed.substr(0, keep)));
            try {
                decode(file);
                FAIL("no error for a truncated file");
            } catch (const Error& error) {
                CHECK(error.context().file == file.path);
                CHECK(error.context().node == "decompress");
                REQUIRE(error.context().byte_offset.has_value());
                CHECK(*error.context().byte_offset <= text.size());
                CHECK(std::string(error.what()).find(file.path) != std::string::npos);
            }
        }
    }
}

TEST_CASE("a truncated tar names the member being read") {
    TempDir dir;
    const std::string big = testing::sample_text(20000, 6);
    const auto archive = testing::write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_NONE,
                                                {{"a.txt", "aaa"}, {"b.txt", big}});
    const auto file = input_file(dir.write("cut.tar", archive.substr(0, archive.size() / 2)));
    CHECK_THROWS_WITH_AS(decode(file), doctest::Contains((file.path + "!b.txt").c_str()), Error);
}

TEST_CASE("corrupt gzip data is an error") {
    TempDir dir;
    std::string compressed = testing::compress(testing::sample_text(10000, 7), ARCHIVE_FILTER_GZIP);
    // The first deflate block header follows the 10-byte gzip header; block
    // type 3 is reserved, so inflate must refuse it.
    compressed[10] = 0x07;
    const auto file = input_file(dir.write("bad.gz", compressed));
    CHECK_THROWS_WITH_AS(decode(file), doctest::Contains(file.path.c_str()), Error);
}

TEST_CASE("a missing file is an error naming it") {
    TempDir dir;
    const auto file = input_file(dir / "missing.gz");
    CHECK_THROWS_WITH_AS(decode(file), doctest::Contains(file.path.c_str()), Error);
}

}  // namespace
}  // namespace invidx
