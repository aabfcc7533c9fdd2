#include "nodes/decompress/gzip_stream.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/gzip_member.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx {
namespace {

using testing::TempDir;
using testing::input_file;
using testing::member;
using testing::MemberOptions;
using testing::same_block;



// The zlib path, fed the pieces of `bytes` cut at `cuts` (increasing).
std::vector<TextBlock> with_zlib(const InputFile& file, std::string_view bytes, const std::vector<size_t>& cuts,
                                 size_t text_block_bytes) {
    std::vector<TextBlock> blocks;
    GzipStream stream(file, text_block_bytes);
    size_t begin = 0;
    for (size_t i = 0; i <= cuts.size(); ++i) {
        const size_t end = i < cuts.size() ? cuts[i] : bytes.size();
        stream.feed(bytes.substr(begin, end - begin), i == cuts.size(),
                    [&](TextBlock&& block) { blocks.push_back(std::move(block)); });
        begin = end;
    }
    CHECK(stream.finished());
    return blocks;
}

std::vector<size_t> every(size_t step, size_t size) {
    std::vector<size_t> cuts;
    for (size_t at = step; at < size; at += step) cuts.push_back(at);
    return cuts;
}

bool same_blocks(const std::vector<TextBlock>& a, const std::vector<TextBlock>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!same_block(a[i], b[i])) return false;
    return true;
}

// Generated gzip files, each valid: the zlib and libarchive paths must agree.
std::vector<std::pair<std::string, std::string>> valid_inputs() {
    const std::string text = testing::sample_text(3000, 5);
    std::vector<std::pair<std::string, std::string>> inputs = {
        {"single", member(text)},
        {"stored", member(text.substr(0, 700), {.level = 0})},
        {"empty data", member("")},
        {"libarchive writer", testing::compress(text, ARCHIVE_FILTER_GZIP)},
        {"header fields", member(text.substr(0, 400), {.header_fields = true})},
        {"block ends", member(text, {.flush_every = 97})},
        {"zero padding", member(text.substr(0, 900)) + std::string(37, '\0')},
    };
    std::string many, with_empty, tiny;
    for (size_t i = 0; i < 12; ++i) many += member(text.substr(i * 200, 13 + i * 31), {.flush_every = 50});
    for (size_t i = 0; i < 5; ++i) with_empty += member(i % 2 ? "" : text.substr(i * 100, 150));
    for (size_t i = 0; i < 40; ++i) tiny += member(text.substr(i, 1 + i % 3), {.header_fields = i % 2 == 1});
    inputs.emplace_back("many members", many);
    inputs.emplace_back("empty members among others", with_empty);
    inputs.emplace_back("tiny members", tiny);
    inputs.emplace_back("empty members only", member("") + member("") + member(""));
    return inputs;
}

}  // namespace

TEST_CASE("zlib decodes gzip exactly like libarchive, for blocks cut anywhere") {
    TempDir dir;
    for (const auto& [label, bytes] : valid_inputs()) {
        CAPTURE(label);
        const InputFile file = input_file(dir.write("in.gz", bytes));
        for (const size_t text_block_bytes : {size_t{1}, size_t{7}, size_t{150}, size_t{1000}, size_t{1} << 20}) {
            CAPTURE(text_block_bytes);
            const auto expected = testing::blocks_with_libarchive(file, text_block_bytes);
            REQUIRE(!expected.empty());
            // One block, and every block size.
            CHECK(same_blocks(with_zlib(file, bytes, {}, text_block_bytes), expected));
            for (size_t step = 1; step <= std::min<size_t>(bytes.size(), 64); ++step) {
                CAPTURE(step);
                CHECK(same_blocks(with_zlib(file, bytes, every(step, bytes.size()), text_block_bytes), expected));
            }
            // Two blocks, cut at every position (so at every member boundary,
            // inside headers, trailers and blocks), and a last block that is empty.
            if (text_block_bytes == 7 || text_block_bytes == 1000) {
                for (size_t cut = 0; cut <= bytes.size(); ++cut) {
                    CAPTURE(cut);
                    CHECK(same_blocks(with_zlib(file, bytes, {cut}, text_block_bytes), expected));
                }
            }
        }
    }
}

TEST_CASE("a damaged gzip trailer is an error naming the file") {
    const std::string text = testing::sample_text(5000, 9);
    const std::string first = member(text.substr(0, 2000));
    const std::string second = member(text.substr(2000));
    const InputFile file = input_file("/data/crawl.warc.gz");
    struct Damage {
        const char* what;
        size_t position;  // of the flipped byte
        const char* message;
    };
    const Damage damages[] = {
        {"CRC-32 of the last member", first.size() + second.size() - 8, "incorrect data check"},
        {"CRC-32 of the first member", first.size() - 5, "incorrect data check"},
        {"ISIZE of the last member", first.size() + second.size() - 4, "incorrect length check"},
        {"ISIZE of the first member", first.size() - 1, "incorrect length check"},
    };
    for (const auto& damage : damages) {
        CAPTURE(damage.what);
        std::string bytes = first + second;
        bytes[damage.position] = static_cast<char>(bytes[damage.position] ^ 0x20);
        for (const size_t step : {size_t{1}, size_t{100}, bytes.size()}) {
            CAPTURE(step);
            try {
                with_zlib(file, bytes, every(step, bytes.size()), 1000);
                FAIL("no error");
            } catch (const Error& error) {
                CHECK(error.context().file == "/data/crawl.warc.gz");
                CHECK(error.message().find(damage.message) != std::string::npos);
                CHECK(std::string(error.what()).find("/data/crawl.warc.gz") != std::string::npos);
            }
        }
    }
}

TEST_CASE("truncated gzip data is an error with the decompressed offset") {
    const std::string text = testing::sample_text(4000, 3);
    const std::string first = member(text.substr(0, 1000));
    const std::string bytes = first + member(text.substr(1000));
    const InputFile file = input_file("/data/t.gz");
    // Cut anywhere inside the last member (at its start the file is just shorter).
    for (size_t keep = first.size() + 1; keep < bytes.size(); ++keep) {
        CAPTURE(keep);
        const std::string cut = bytes.substr(0, keep);
        try {
            with_zlib(file, cut, every(300, cut.size()), 512);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.context().file == "/data/t.gz");
            CHECK(error.message().find("truncated gzip data") != std::string::npos);
            REQUIRE(error.context().byte_offset.has_value());
            CHECK(*error.context().byte_offset >= 1000);
            CHECK(*error.context().byte_offset <= text.size());
        }
    }
}

TEST_CASE("after the last member only zero bytes may follow") {
    const std::string bytes = member("some text");
    const InputFile file = input_file("/data/g.gz");
    for (const std::string& tail : {std::string("garbage"), std::string("\0\0\0x", 4), std::string("\x1f", 1),
                                    std::string("\x1f\x8b\x08", 3), std::string("\x1f\x8c rest")}) {
        CAPTURE(tail);
        const std::string all = bytes + tail;
        for (const size_t step : {size_t{1}, size_t{3}, all.size()}) {
            CHECK_THROWS_AS(with_zlib(file, all, every(step, all.size()), 100), Error);
        }
    }
    try {
        with_zlib(file, bytes + "xyz", {}, 100);
        FAIL("no error");
    } catch (const Error& error) {
        CAPTURE(error.message());
        CHECK(error.context().file == "/data/g.gz");
        CHECK(error.message().find("compressed byte " + std::to_string(bytes.size())) != std::string::npos);
    }
}

TEST_CASE("only plain gzip of text takes the zlib path") {
    const std::string text = testing::sample_text(3000, 2);
    const std::string gz = member(text);
    CHECK(gzip_direct(gz, true));
    CHECK(gzip_direct(gz, false));
    CHECK(gzip_direct(member("short"), true));
    CHECK(gzip_direct(member(""), true));
    CHECK(gzip_direct(member("a") + member("b"), true));
    // Not gzip at all.
    CHECK_FALSE(gzip_direct("", true));
    CHECK_FALSE(gzip_direct("\x1f", false));
    CHECK_FALSE(gzip_direct(text, true));
    CHECK_FALSE(gzip_direct(testing::compress(text, ARCHIVE_FILTER_BZIP2), true));
    // Too little of the file to see 512 bytes of text: libarchive decides.
    CHECK_FALSE(gzip_direct(std::string_view(gz).substr(0, 12), false));
    // Archives and nested compression stay with libarchive.
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_NONE,
                                                   {{"documents/a-long-name.txt", text}});
    CHECK_FALSE(gzip_direct(member(tar), false));
    CHECK_FALSE(gzip_direct(member(testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE,
                                                          {{"a.txt", "x"}})), true));
    CHECK_FALSE(gzip_direct(member(testing::write_archive(ARCHIVE_FORMAT_TAR_GNUTAR, ARCHIVE_FILTER_NONE,
                                                          {{"a.txt", text}})), true));
    CHECK_FALSE(gzip_direct(member(testing::write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE,
                                                          {{"a.txt", text}})), true));
    CHECK_FALSE(gzip_direct(member(gz), true));
    CHECK_FALSE(gzip_direct(member(testing::compress(text, ARCHIVE_FILTER_XZ)), true));
    CHECK_FALSE(gzip_direct(member(std::string(600, '\0')), true));
    // A v7 tar header (no ustar magic) is known by its checksum.
    std::string v7 = tar.substr(0, 512);
    v7.replace(257, 8, std::string(8, '\0'));
    unsigned sum = 0;
    for (size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(v7[i]);
    char field[8];
    std::snprintf(field, sizeof field, "%06o", sum);
    v7.replace(148, 8, std::string(field, 6) + std::string("\0 ", 2));
    CHECK_FALSE(gzip_direct(member(v7 + std::string(1024, '\0')), true));
}

}  // namespace invidx
