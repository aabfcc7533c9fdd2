#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/frame/framer.hpp"
#include "support/temp_dir.hpp"

TEST_CASE("detect_format: from the name, compression suffixes stripped (CONTENT.md §1-2)") {
    CHECK(invidx::detect_format("a.warc") == "warc");
    CHECK(invidx::detect_format("/data/cc/CC-MAIN-1.warc.gz") == "warc");
    CHECK(invidx::detect_format("0000.WARC.GZ") == "warc");
    CHECK(invidx::detect_format("x.warc.zst") == "warc");
    CHECK(invidx::detect_format("robust04.trec.bz2") == "trec");
    CHECK(invidx::detect_format("fbis.trectext") == "trec");
    CHECK(invidx::detect_format("la.sgml.lz4") == "trec");
    CHECK(invidx::detect_format("la.sgm") == "text");  // not in the table
    CHECK(invidx::detect_format("msmarco.jsonl") == "jsonl");
    CHECK(invidx::detect_format("part-0.json.gz") == "jsonl");
    CHECK(invidx::detect_format("part-0.ndjson.xz") == "jsonl");
    CHECK(invidx::detect_format("part-0.ndjson.zstd") == "text");  // .zstd is no compression suffix of CONTENT.md §1-2
    CHECK(invidx::detect_format("page.html") == "html");
    CHECK(invidx::detect_format("page.HTM") == "html");
    CHECK(invidx::detect_format("page.xhtml") == "html");
    CHECK(invidx::detect_format("page.html.gz") == "html");
    CHECK(invidx::detect_format("notes.txt") == "text");
    CHECK(invidx::detect_format("page.xml") == "text");
    CHECK(invidx::detect_format("README") == "text");
    CHECK(invidx::detect_format("dir.warc/file.txt") == "text");  // only the file name counts
    CHECK(invidx::detect_format("") == "text");
}

TEST_CASE("detect_format: an archive is no format; its entries are detected when framed") {
    CHECK(invidx::detect_format("x.warc.tar.xz") == "auto");
    CHECK(invidx::detect_format("books.tgz") == "auto");
    CHECK(invidx::detect_format("archive.zip") == "auto");
    CHECK(invidx::detect_format("docs.tar.gz") == "auto");
    CHECK(invidx::input_format_of_file("docs.tar.gz") == invidx::InputFormat::text);
}

TEST_CASE("make_framer: auto frames an entry by its own name") {
    const auto settings = invidx::AnalysisSettings::defaults();
    const auto frame = [&](const std::string& format, const std::string& entry, const std::string& bytes) {
        auto framer = invidx::make_framer(format, entry, settings);
        std::vector<std::pair<std::string, bool>> records;  // name, html
        const invidx::EmitRecord emit = [&](const invidx::FramedRecord& r) { records.emplace_back(r.name, r.html); };
        framer->feed(bytes, emit);
        framer->finish(emit);
        return records;
    };
    const std::string trec = "<DOC><DOCNO>a</DOCNO>x</DOC>\n<DOC><DOCNO>b</DOCNO>y</DOC>\n";
    CHECK(frame("auto", "sub/docs.trec", trec).size() == 2);
    CHECK(frame("auto", "sub/docs.trec.gz", trec).size() == 2);
    CHECK(frame("text", "sub/docs.trec", trec).size() == 1);  // explicit wins
    const auto page = frame("auto", "site/index.htm", "<p>hello</p>");
    REQUIRE(page.size() == 1);
    CHECK(page[0].first == "site/index.htm");
    CHECK(page[0].second);  // html rules on
    CHECK_FALSE(frame("auto", "notes.txt", "<p>hello</p>")[0].second);
}

TEST_CASE("make_framer: unknown formats are errors that list the known ones") {
    try {
        invidx::make_framer("wark", "in.wark", invidx::AnalysisSettings::defaults());
        FAIL("no error");
    } catch (const invidx::Error& e) {
        CHECK(std::string(e.what()).find("wark") != std::string::npos);
        CHECK(std::string(e.what()).find("warc, trec, jsonl, text, html") != std::string::npos);
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
