// Damaged inputs that libarchive reads as something else (issue #28, item 3):
// a zeroed start taken for an empty tar, a tar header or zip local header
// that is stepped over. Each is an error naming the file (and member); the
// undamaged files give every entry.
#include "nodes/decompress/decompress_file.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx {
namespace {

using testing::input_file;
using testing::TempDir;

struct Entry {
    std::string name;
    std::string bytes;
};

std::vector<Entry> decode(const InputFile& file) {
    std::vector<Entry> entries;
    decompress_file(file, kDefaultTextBlockBytes, [&](TextBlock&& block) {
        if (block.entry_begin) entries.push_back(Entry{block.entry_name, ""});
        entries.back().bytes += block.bytes;
        return true;
    });
    return entries;
}

// The error decoding `file` gives; fails the test when there is none.
Error decode_error(const InputFile& file) {
    try {
        decode(file);
    } catch (const Error& error) {
        return error;
    }
    FAIL("no error for " << file.path);
    return Error("unreachable");
}

std::vector<testing::Member> ten_documents() {
    std::vector<testing::Member> members;
    for (int i = 0; i < 10; ++i)
        members.push_back({"doc" + std::to_string(i) + ".txt", "document " + std::to_string(i) + " text\n"});
    return members;
}

std::string warc_record(int i) {
    const std::string body = "<html><body>page " + std::to_string(i) + "</body></html>";
    return "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.org/" + std::to_string(i) +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body + "\r\n\r\n";
}

std::string zeroed(std::string bytes, size_t count) {
    std::fill_n(bytes.begin(), std::min(count, bytes.size()), '\0');
    return bytes;
}

TEST_CASE("a file whose first 512 bytes are zero is an error, not an empty tar") {
    TempDir dir;
    std::string warc;
    for (int i = 0; i < 200; ++i) warc += warc_record(i);
    std::string jsonl;
    for (int i = 0; i < 200; ++i) jsonl += "{\"id\": \"d" + std::to_string(i) + "\", \"contents\": \"text " + std::to_string(i) + "\"}\n";
    const std::string text = testing::sample_text(20000, 9);
    const std::string warc_gz = testing::compress(warc, ARCHIVE_FILTER_GZIP);
    struct Case {
        std::string name;
        std::string intact;
    };
    const std::vector<Case> cases = {{"a.warc.gz", warc_gz}, {"a.warc", warc}, {"a.jsonl", jsonl}, {"a.txt", text}};
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const auto intact = decode(input_file(dir.write("intact-" + c.name, c.intact)));
        REQUIRE(intact.size() == 1);
        CHECK(intact[0].bytes.size() >= 512);
        for (const size_t zeros : {size_t{512}, size_t{4096}}) {
            CAPTURE(zeros);
            const auto file = input_file(dir.write(c.name, zeroed(c.intact, zeros)));
            const Error error = decode_error(file);
            CHECK(error.context().file == file.path);
            CHECK(error.message().find("512 zero bytes") != std::string::npos);
            CHECK(std::string(error.what()).find(file.path) != std::string::npos);
        }
    }
    // A 1 MiB file of zeros named .gz, the probe's all-zero gzip.
    const auto all_zero = input_file(dir.write("zeros.warc.gz", std::string(size_t{1} << 20, '\0')));
    CHECK(decode_error(all_zero).context().file == all_zero.path);
}

TEST_CASE("a file of zeros named .tar or .tgz is an empty archive") {
    TempDir dir;
    CHECK(decode(input_file(dir.write("empty.tar", std::string(10240, '\0')))).empty());
    const std::string empty_tar = testing::write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP, {});
    CHECK(decode(input_file(dir.write("empty.TGZ", empty_tar))).empty());
    CHECK(decode(input_file(dir.write("empty.warc.tar.gz", empty_tar))).empty());
    // The name decides, not the zeros: the same bytes named otherwise.
    CHECK_THROWS_AS(decode(input_file(dir.write("empty.warc.gz", empty_tar))), Error);
}

// The offset of the tar header of member `name` in an uncompressed tar.
size_t tar_header_of(const std::string& tar, const std::string& name) {
    for (size_t at = 0; at + 512 <= tar.size(); at += 512)
        if (tar.compare(at, name.size() + 1, name + '\0') == 0) return at;
    FAIL("no header for " << name);
    return 0;
}

TEST_CASE("a tar member with a bad header checksum is an error naming the file and the member before it") {
    TempDir dir;
    const std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, ten_documents());
    const auto intact = decode(input_file(dir.write("ten.tar", tar)));
    REQUIRE(intact.size() == 10);
    CHECK(intact[9].name == "ten.tar!doc9.txt");

    std::string damaged = tar;
    const size_t header = tar_header_of(tar, "doc5.txt");
    damaged[header + 148] = damaged[header + 148] == '1' ? '2' : '1';  // a checksum digit
    for (const int filter : {ARCHIVE_FILTER_NONE, ARCHIVE_FILTER_GZIP}) {
        CAPTURE(filter);
        const std::string bytes = filter == ARCHIVE_FILTER_NONE ? damaged : testing::compress(damaged, filter);
        const auto file = input_file(dir.write(filter == ARCHIVE_FILTER_NONE ? "bad.tar" : "bad.tar.gz", bytes));
        const Error error = decode_error(file);
        CHECK(error.context().file == file.path);
        CHECK(error.message().find("damaged tar header") != std::string::npos);
        CHECK(error.message().find("doc4.txt") != std::string::npos);
        CHECK(error.context().byte_offset == header);
    }
}

TEST_CASE("a tar whose first header is damaged is an error when named .tar") {
    TempDir dir;
    std::string tar = testing::write_archive(ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, ten_documents());
    tar[148] = tar[148] == '1' ? '2' : '1';
    for (const std::string name : {"first.tar", "first.txt.tar", "first.tar.gz"}) {
        CAPTURE(name);
        const std::string bytes = name.ends_with(".gz") ? testing::compress(tar, ARCHIVE_FILTER_GZIP) : tar;
        const auto file = input_file(dir.write(name, bytes));
        const Error error = decode_error(file);
        CHECK(error.context().file == file.path);
        CHECK(error.message().find("not a valid tar header") != std::string::npos);
    }
}

// The offset of the n-th (0-based) zip local file header.
size_t zip_local_header(const std::string& zip, int n) {
    size_t at = 0;
    for (int i = 0; i <= n; ++i) {
        at = zip.find(std::string("PK\x03\x04", 4), i == 0 ? 0 : at + 1);
        REQUIRE(at != std::string::npos);
    }
    return at;
}

TEST_CASE("a zip entry with a bad local header signature is an error naming the file and the member") {
    TempDir dir;
    const std::string zip = testing::write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ten_documents());
    const auto intact = decode(input_file(dir.write("ten.zip", zip)));
    REQUIRE(intact.size() == 10);
    CHECK(intact[9].bytes == "document 9 text\n");

    for (const int damaged_entry : {5, 9}) {
        CAPTURE(damaged_entry);
        std::string damaged = zip;
        const size_t header = zip_local_header(zip, damaged_entry);
        damaged[header + 3] = '\x05';
        const auto file = input_file(dir.write("bad.zip", damaged));
        const Error error = decode_error(file);
        CHECK(error.context().file == file.path + "!doc" + std::to_string(damaged_entry) + ".txt");
        CHECK(error.context().byte_offset == header);
        CHECK(error.message().find("local file header is damaged") != std::string::npos);
    }
    // The first entry's: no zip is recognized at all, which the name refuses.
    std::string damaged = zip;
    damaged[3] = '\x05';
    const auto file = input_file(dir.write("first.zip", damaged));
    const Error error = decode_error(file);
    CHECK(error.context().file == file.path);
    CHECK(error.message().find("not start with a zip local file header") != std::string::npos);
}

TEST_CASE("a zip cut short in its central directory is an error") {
    TempDir dir;
    const std::string zip = testing::write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ten_documents());
    const auto file = input_file(dir.write("cut.zip", zip.substr(0, zip.size() - 30)));
    CHECK(decode_error(file).context().file == file.path);
}

}  // namespace
}  // namespace invidx
