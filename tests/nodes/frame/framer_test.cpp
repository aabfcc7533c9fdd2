#include <doctest/doctest.h>

#include <string>

#include "invidx/error.hpp"
#include "nodes/frame/framer.hpp"
#include "support/temp_dir.hpp"

TEST_CASE("detect_format: from the name, container suffixes stripped") {
    CHECK(invidx::detect_format("a.warc") == "warc");
    CHECK(invidx::detect_format("/data/cc/CC-MAIN-1.warc.gz") == "warc");
    CHECK(invidx::detect_format("0000.WARC.GZ") == "warc");
    CHECK(invidx::detect_format("x.warc.zst") == "warc");
    CHECK(invidx::detect_format("x.warc.tar.xz") == "warc");
    CHECK(invidx::detect_format("robust04.trec.bz2") == "trec");
    CHECK(invidx::detect_format("fbis.trectext") == "trec");
    CHECK(invidx::detect_format("la.sgml.lz4") == "trec");
    CHECK(invidx::detect_format("msmarco.jsonl") == "jsonl");
    CHECK(invidx::detect_format("part-0.json.gz") == "jsonl");
    CHECK(invidx::detect_format("part-0.ndjson.zstd") == "jsonl");
    CHECK(invidx::detect_format("notes.txt") == "text");
    CHECK(invidx::detect_format("page.xml") == "text");
    CHECK(invidx::detect_format("books.tgz") == "text");
    CHECK(invidx::detect_format("archive.zip") == "text");
    CHECK(invidx::detect_format("README") == "text");
    CHECK(invidx::detect_format("dir.warc/file.txt") == "text");  // only the file name counts
    CHECK(invidx::detect_format("") == "text");
}

TEST_CASE("make_framer: unknown formats are errors that list the known ones") {
    try {
        invidx::make_framer("wark", "in.wark", invidx::AnalysisSettings::defaults());
        FAIL("no error");
    } catch (const invidx::Error& e) {
        CHECK(std::string(e.what()).find("wark") != std::string::npos);
        CHECK(std::string(e.what()).find("warc, trec, jsonl, text") != std::string::npos);
    }
}

TEST_CASE("make_framer: every format of the table has a framer, by enum and by name") {
    for (const auto& row : invidx::kInputFormats) {
        CAPTURE(row.name);
        CHECK(invidx::make_framer(row.format, "in", invidx::AnalysisSettings::defaults()) != nullptr);
        CHECK(invidx::make_framer(std::string(row.name), "in", invidx::AnalysisSettings::defaults()) != nullptr);
    }
}

TEST_CASE("framers: a file read back in odd-sized pieces frames like the whole") {
    // The way the pipeline sees an entry: bytes from disk, in blocks.
    invidx::testing::TempDir dir;
    std::string jsonl;
    for (int i = 0; i < 200; ++i) {
        jsonl += "{\"id\": " + std::to_string(i) + ", \"contents\": \"" + std::string(i % 37, 'x') + "\"}\n";
    }
    const auto path = dir.write("d/docs.jsonl", jsonl);
    const std::string bytes = invidx::testing::read_file(path);
    REQUIRE(invidx::detect_format(path.string()) == "jsonl");
    auto framer = invidx::make_framer("jsonl", path.string(), invidx::AnalysisSettings::defaults());
    uint64_t count = 0;
    const invidx::EmitRecord emit = [&](const invidx::FramedRecord& r) {
        CHECK(r.name == std::to_string(count));
        CHECK(r.text == std::string(count % 37, 'x'));
        CHECK(r.record_number == count);
        ++count;
    };
    for (size_t start = 0, piece = 1; start < bytes.size(); start += piece, piece = piece * 3 % 101 + 1) {
        framer->feed(std::string_view(bytes).substr(start, piece), emit);
    }
    framer->finish(emit);
    CHECK(count == 200);
}
