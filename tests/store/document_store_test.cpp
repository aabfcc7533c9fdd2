// The document store ("store": {"documents": true}, documents-text.bin):
// each document's text as the parser saw it, and a JSONL record's other
// fields, back by docid for every format, whatever the read block size and
// however the gzip members fall; `check --full` finds a damaged block; an
// index built without it says so when asked for text.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/document_store_layout.hpp"
#include "store/document_store_reader.hpp"
#include "store/index_check.hpp"
#include "support/collections.hpp"
#include "support/gzip_member.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

struct Expected {
    std::string name;
    std::string text;
    std::string metadata;
};

std::string warc_record(const std::string& version, const std::string& id, const std::string& block) {
    return version + "\r\nWARC-Type: response\r\nWARC-Record-ID: " + id + "\r\nContent-Length: " +
           std::to_string(block.size()) + "\r\n\r\n" + block + "\r\n\r\n";
}

// Files of every format and what each document's stored text must be.
std::vector<Expected> write_collection(const TempDir& dir) {
    const std::string http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    const std::string long_body = "<p>" + std::string(3000, 'y') + " long body</p>";
    dir.write("in/a.warc", warc_record("WARC/1.0", "<urn:uuid:w1>", http + "<p>warc one</p>") +
                               warc_record("WARC/1.0", "<urn:uuid:w2>", http + long_body));
    // Two gzip members, one record each.
    dir.write("in/b.warc.gz", member(warc_record("WARC/0.18", "<urn:uuid:old1>", http + "old one")) +
                                  member(warc_record("WARC/0.18", "<urn:uuid:old2>", http + "old two")));
    dir.write("in/c.trec", "<DOC>\n<DOCNO> T-1 </DOCNO>\n<p>trec first</p>\n</DOC>\n<DOC><DOCNO>T-2</DOCNO>trec second</DOC>\n");
    dir.write("in/d.jsonl",
              "{\"id\": \"j1\", \"contents\": \"json \\u00e9 contents\", \"title\": \"T\", \"url\": \"http://x/\"}\n"
              "{\"id\": 7, \"contents\": \"seven\"}\n");
    dir.write("in/e.txt", "plain text\nsecond line " + std::string(2000, 'z'));
    return {
        {"<urn:uuid:w1>", "<p>warc one</p>", ""},
        {"<urn:uuid:w2>", long_body, ""},
        {"<urn:uuid:old1>", "old one", ""},
        {"<urn:uuid:old2>", "old two", ""},
        {"T-1", "\n<p>trec first</p>\n", ""},
        {"T-2", "trec second", ""},
        {"j1", "json \xc3\xa9 contents", "{\"title\":\"T\",\"url\":\"http://x/\"}"},
        {"7", "seven", ""},
        {"e.txt", "plain text\nsecond line " + std::string(2000, 'z'), ""},
    };
}

nlohmann::json pipeline(const TempDir& dir, const fs::path& output, bool store) {
    nlohmann::json description = standard_pipeline({(dir / "in").string()}, output, 2, 2);
    if (store) description["store"] = {{"documents", true}};
    return description;
}

void check_round_trip(const fs::path& index_dir, const std::vector<Expected>& expected) {
    const IndexReader index(index_dir);
    REQUIRE(index.num_documents() == expected.size());
    const DocumentStoreReader store(index);
    REQUIRE(store.present());
    for (uint32_t docid = 0; docid < expected.size(); ++docid) {
        CAPTURE(docid);
        CHECK(index.document(docid).name == expected[docid].name);
        const StoredDocument stored = store.document(docid);
        CHECK(stored.text == expected[docid].text);
        CHECK(stored.metadata == expected[docid].metadata);
    }
    CHECK_THROWS_AS(store.document(expected.size()), Error);
    CHECK(check_index(index_dir, {.full = true}).ok());
}

}  // namespace

TEST_CASE("document store: every format's text and JSONL metadata come back by docid") {
    TempDir dir;
    const auto expected = write_collection(dir);
    build_index(pipeline(dir, dir / "idx", true));
    check_round_trip(dir / "idx", expected);
}

TEST_CASE("document store: documents split across tiny read and text blocks come back whole") {
    TempDir dir;
    const auto expected = write_collection(dir);
    build_index(pipeline(dir, dir / "idx", true),
                {"memory.read_block_bytes=97", "memory.text_block_bytes=131", "memory.batch_bytes=500"});
    check_round_trip(dir / "idx", expected);
}

TEST_CASE("document store: many documents span several compressed blocks") {
    TempDir dir;
    std::string lines;
    std::vector<Expected> expected;
    for (int i = 0; i < 3000; ++i) {
        const std::string text = "document number " + std::to_string(i) + " " + std::string(static_cast<size_t>(i % 97), 'k');
        lines += "{\"id\": \"d" + std::to_string(i) + "\", \"contents\": \"" + text + "\", \"n\": " + std::to_string(i) + "}\n";
        expected.push_back({"d" + std::to_string(i), text, "{\"n\":" + std::to_string(i) + "}"});
    }
    dir.write("in/all.jsonl", lines);
    build_index(pipeline(dir, dir / "idx", true));
    const IndexReader index(dir / "idx");
    const DocumentStoreReader store(index);
    CHECK(store.blocks() > 1);
    check_round_trip(dir / "idx", expected);
}

TEST_CASE("document store: check finds a damaged block") {
    TempDir dir;
    write_collection(dir);
    build_index(pipeline(dir, dir / "idx", true));
    const fs::path file = dir / "idx" / layout::kDocumentTextFile;
    {
        std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
        out.seekp(static_cast<std::streamoff>(layout::kDocumentTextHeaderBytes + 5));
        char byte = 0;
        out.read(&byte, 1);
        out.seekp(static_cast<std::streamoff>(layout::kDocumentTextHeaderBytes + 5));
        byte = static_cast<char>(byte ^ 0x5a);
        out.write(&byte, 1);
    }
    const IndexCheckReport report = check_index(dir / "idx", {.full = true});
    REQUIRE_FALSE(report.ok());
    bool named = false;
    for (const auto& problem : report.problems) named = named || problem.find("documents-text.bin") != std::string::npos;
    CHECK(named);
    // Reading the damaged block is a FormatError, not wrong text.
    const IndexReader index(dir / "idx");
    CHECK_THROWS_AS(DocumentStoreReader(index).document(0), FormatError);
}

TEST_CASE("document store: off by default; asking for text says how to build it") {
    TempDir dir;
    write_collection(dir);
    build_index(pipeline(dir, dir / "idx", false));
    CHECK_FALSE(fs::exists(dir / "idx" / layout::kDocumentTextFile));
    const IndexReader index(dir / "idx");
    const DocumentStoreReader store(index);
    CHECK_FALSE(store.present());
    try {
        (void)store.document(0);
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("\"store\": {\"documents\": true}") != std::string::npos);
    }
}

TEST_CASE("document store: the store key is validated") {
    TempDir dir;
    write_collection(dir);
    auto bad_value = pipeline(dir, dir / "idx", false);
    bad_value["store"] = {{"documents", "yes"}};
    CHECK_THROWS_WITH_AS(PipelineConfig::from_json(bad_value), doctest::Contains("/store/documents"), ConfigError);
    auto unknown = pipeline(dir, dir / "idx", false);
    unknown["store"] = {{"document", true}};
    CHECK_THROWS_WITH_AS(PipelineConfig::from_json(unknown), doctest::Contains("document"), ConfigError);
    CHECK(PipelineConfig::from_json(pipeline(dir, dir / "idx", true)).store.documents);
}

TEST_CASE("document store: the level is an integer from 0 to 12, 0 by default") {
    TempDir dir;
    auto description = pipeline(dir, dir / "idx", true);
    CHECK(PipelineConfig::from_json(description).store.level == 0);
    for (const nlohmann::json& bad : {nlohmann::json(13), nlohmann::json(-1), nlohmann::json("fast"), nlohmann::json(1.5)}) {
        CAPTURE(bad.dump());
        description["store"]["level"] = bad;
        CHECK_THROWS_WITH_AS(PipelineConfig::from_json(description), doctest::Contains("/store/level"), ConfigError);
    }
    description["store"]["level"] = 12;
    CHECK(PipelineConfig::from_json(description).store.level == 12);
    CHECK(PipelineConfig::from_json(pipeline(dir, dir / "idx", true), {"store.level=1"}).store.level == 1);
}

TEST_CASE("document store: level 0 stores the text uncompressed, level 1 compresses it, both read back") {
    TempDir dir;
    const auto expected = write_collection(dir);
    uint64_t text_bytes = 0;
    for (const auto& document : expected) text_bytes += document.text.size();
    for (const int level : {0, 1}) {
        CAPTURE(level);
        const fs::path output = dir / ("idx-" + std::to_string(level));
        build_index(pipeline(dir, output, true), {"store.level=" + std::to_string(level)});
        check_round_trip(output, expected);
        const uint64_t size = fs::file_size(output / layout::kDocumentTextFile);
        // The long documents (thousands of one letter) compress to little.
        if (level == 0) CHECK(size > text_bytes);
        if (level == 1) CHECK(size < text_bytes / 4);
    }
}
