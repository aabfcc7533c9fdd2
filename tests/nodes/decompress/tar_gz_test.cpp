// A .tar.gz is inflated by GzipStream and read by libarchive as a plain tar
// (InflatingSource, ArchiveStream): the same entries as the .tar, with every
// decoder mix and input cut anywhere, and damage libarchive's own gzip filter
// did not see (a CRC-32 or length that does not match, which lies after the
// tar's end blocks) is an error naming the file.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/decompress/archive_stream.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "nodes/decompress/inflating_source.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/gzip_decoder_mixes.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx {
namespace {

using testing::decoder_mixes;
using testing::input_file;
using testing::TempDir;

// Hands out `bytes` in reads of `step` bytes, as a file or a channel would.
class StringSource final : public ByteSource {
public:
    StringSource(std::string bytes, size_t step) : bytes_(std::move(bytes)), step_(step) {}
    std::string_view next() override {
        const std::string_view rest = std::string_view(bytes_).substr(std::min(at_, bytes_.size()));
        const std::string_view piece = rest.substr(0, step_);
        at_ += piece.size();
        return piece;
    }

private:
    std::string bytes_;
    size_t step_;
    size_t at_ = 0;
};

struct Entry {
    std::string name;
    std::string bytes;
};

std::vector<Entry> entries_of(ArchiveStream& stream) {
    std::vector<Entry> entries;
    std::string name;
    while (stream.next_entry(name)) {
        entries.push_back({name, ""});
        char buffer[4096];
        for (size_t got = stream.read(buffer, sizeof buffer); got > 0; got = stream.read(buffer, sizeof buffer))
            entries.back().bytes.append(buffer, got);
    }
    return entries;
}

std::vector<Entry> decode(const std::string& bytes, const std::string& path, size_t step) {
    StringSource source(bytes, step);
    ArchiveStream stream(source, input_file(path));
    return entries_of(stream);
}

// The error decoding `bytes` (named `path`) gives; fails the test when there is none.
Error decode_error(const std::string& bytes, const std::string& path, size_t step) {
    try {
        decode(bytes, path, step);
    } catch (const Error& error) {
        return error;
    }
    FAIL("no error for " << path);
    return Error("unreachable");
}

std::vector<testing::Member> documents() {
    std::vector<testing::Member> members;
    for (int i = 0; i < 6; ++i)
        members.push_back({"doc" + std::to_string(i) + ".txt", testing::sample_text(3000 + 20000 * i, 40 + i)});
    return members;
}

TEST_CASE("a .tar.gz gives the entries of its tar, read in pieces of any size") {
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, documents());
    const std::string tar_gz = testing::compress(tar, ARCHIVE_FILTER_GZIP);
    const std::vector<Entry> expected = decode(tar, "/data/docs.tar", size_t{1} << 20);
    REQUIRE(expected.size() == 6);
    // Two members (as pigz or a concatenation writes), and zero padding after the last.
    const std::string two_members = testing::compress(tar.substr(0, 30000), ARCHIVE_FILTER_GZIP) +
                                    testing::compress(tar.substr(30000), ARCHIVE_FILTER_GZIP) + std::string(700, '\0');
    for (const std::string* bytes : {&tar_gz, &two_members}) {
        for (const size_t step : {size_t{1}, size_t{3}, size_t{4093}, size_t{1} << 20}) {
            CAPTURE(step);
            const std::vector<Entry> got = decode(*bytes, "/data/docs.tar.gz", step);
            REQUIRE(got.size() == expected.size());
            for (size_t i = 0; i < got.size(); ++i) {
                CHECK(got[i].name == "docs.tar.gz!doc" + std::to_string(i) + ".txt");
                CHECK(got[i].bytes == expected[i].bytes);
            }
        }
    }
}

TEST_CASE("InflatingSource gives the same text with every decoder mix") {
    const std::string text = testing::sample_text(700000, 3);
    const std::string gz = testing::compress(text.substr(0, 1000), ARCHIVE_FILTER_GZIP) +
                           testing::compress(text.substr(1000), ARCHIVE_FILTER_GZIP);
    for (const GzipDecoders mix : decoder_mixes()) {
        CAPTURE(mix.isal);
        CAPTURE(mix.libdeflate);
        StringSource compressed(gz, 100000);
        InflatingSource source(compressed, input_file("/data/t.gz"), mix);
        std::string got;
        for (std::string_view piece = source.next(); !piece.empty(); piece = source.next()) got += piece;
        CHECK(got == text);
        source.finish();
    }
}

TEST_CASE("a .tar.gz whose CRC-32 or length does not match is an error naming the file") {
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, documents());
    const std::string tar_gz = testing::compress(tar, ARCHIVE_FILTER_GZIP);
    // The trailer, the last 8 bytes: CRC-32, then ISIZE. Both lie after the
    // tar's end blocks, which libarchive stops at.
    struct Case {
        size_t byte_from_end;
        const char* words;
    };
    for (const Case& c : {Case{8, "incorrect data check"}, Case{2, "incorrect length check"}}) {
        CAPTURE(c.words);
        std::string damaged = tar_gz;
        damaged[damaged.size() - c.byte_from_end] ^= 0x10;
        for (const size_t step : {size_t{5}, size_t{1} << 20}) {
            CAPTURE(step);
            const Error error = decode_error(damaged, "/data/crc.tar.gz", step);
            CHECK(error.context().file == "/data/crc.tar.gz");
            CHECK(error.context().node == "decompress");
            CHECK(error.message().find(c.words) != std::string::npos);
            CHECK(error.context().byte_offset == tar.size());
            CHECK(std::string(error.what()).find("/data/crc.tar.gz") != std::string::npos);
        }
    }
}

TEST_CASE("a truncated .tar.gz is an error naming the file, never fewer entries") {
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, documents());
    const std::string tar_gz = testing::compress(tar, ARCHIVE_FILTER_GZIP);
    // In a member's data, in the tar's end blocks' deflate data, in the trailer.
    for (const size_t keep : {tar_gz.size() / 3, tar_gz.size() - 12, tar_gz.size() - 1}) {
        CAPTURE(keep);
        const Error error = decode_error(tar_gz.substr(0, keep), "/data/cut.tar.gz", 4096);
        CHECK(error.context().file == "/data/cut.tar.gz");
        CHECK(error.message().find("truncated gzip data") != std::string::npos);
        REQUIRE(error.context().byte_offset.has_value());
        CHECK(*error.context().byte_offset <= tar.size());
    }
}

TEST_CASE("a .tar.gz with bytes after its last member that are not zero padding is an error") {
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, documents());
    const std::string bytes = testing::compress(tar, ARCHIVE_FILTER_GZIP) + "garbage after the archive";
    const Error error = decode_error(bytes, "/data/tail.tar.gz", 1 << 20);
    CHECK(error.context().file == "/data/tail.tar.gz");
    CHECK(error.message().find("neither a gzip member nor zero padding") != std::string::npos);
}

TEST_CASE("a damaged .tar.gz read by path, as the sampler and decompress_file do, names the file") {
    TempDir dir;
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, documents());
    std::string damaged = testing::compress(tar, ARCHIVE_FILTER_GZIP);
    damaged[damaged.size() - 6] ^= 0x01;  // the CRC-32
    const InputFile file = input_file(dir.write("crc.tgz", damaged));
    try {
        decompress_file(file, kDefaultTextBlockBytes, [](TextBlock&&) { return true; });
        FAIL("no error for " << file.path);
    } catch (const Error& error) {
        CHECK(error.context().file == file.path);
        CHECK(error.message().find("incorrect data check") != std::string::npos);
    }
}

}  // namespace
}  // namespace invidx
