// End to end: the same input under several configurations gives byte-identical
// CIFF exports, equal to a straightforward reference index.
#include <doctest/doctest.h>

#include <zlib.h>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"
#include "store/merge.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("every configuration gives the same CIFF export, equal to the reference index") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(7, 150, 5);
    write_parts(dir, "many", warc);
    std::string single;
    for (const auto& part : warc.file_contents) single += part;
    dir.write("one/all.warc.gz", single);

    struct Configuration {
        std::string label;
        std::string input;
        unsigned parsers, indexers;
        std::vector<std::string> overrides;
    };
    const std::vector<Configuration> configurations = {
        {"1:1 many files", (dir / "many").string(), 1, 1, {}},
        {"2:1 many files, small batches and runs, 2 tokens", (dir / "many").string(), 2, 1,
         {"memory.batch_bytes=3000", "memory.run_bytes=20000", "memory.tokens=2", "memory.read_block_bytes=777",
          "memory.text_block_bytes=1000"}},
        {"6:2 many files", (dir / "many").string(), 6, 2, {"memory.batch_bytes=10000"}},
        {"3:5 one file, one run per batch", (dir / "one").string(), 3, 5,
         {"memory.batch_bytes=5000", "memory.run_bytes=1"}},
        {"2:3 glob, sampler off", (dir / "many" / "part-*.warc.gz").string(), 2, 3, {"sampler.enabled=false"}},
    };
    std::string first_ciff;
    for (size_t i = 0; i < configurations.size(); ++i) {
        const auto& c = configurations[i];
        CAPTURE(c.label);
        const auto output = dir / ("index-" + std::to_string(i));
        build_index(standard_pipeline({c.input}, output, c.parsers, c.indexers), c.overrides);
        IndexReader index(output);
        check_index_equals(index, warc.reference);
        const std::string ciff = ciff_bytes(output);
        if (i == 0) {
            first_ciff = ciff;
            CHECK(ciff.size() > 1000);
        } else {
            CHECK(ciff == first_ciff);
        }
    }
}

TEST_CASE("merging the per-run partial lists keeps the content") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(11, 60, 2);
    write_parts(dir, "in", warc);
    const auto output = dir / "index";
    build_index(standard_pipeline({(dir / "in").string()}, output, 2, 2), {"memory.run_bytes=4000", "memory.batch_bytes=2000"});
    const std::string before = ciff_bytes(output);
    {
        IndexReader index(output);
        CHECK(index.manifest().runs.size() > 3);
    }
    merge_runs(output);
    IndexReader merged(output);
    CHECK(merged.manifest().runs.size() == 1);
    check_index_equals(merged, warc.reference);
    CHECK(ciff_bytes(output) == before);
}

TEST_CASE("positions: a positional build stores every kept token's position") {
    TempDir dir;
    const std::string html = "<p>The cat and the Cats.</p> cat <b>dog</b> the cat";
    // positions count stop words: the0 cat1 and2 the3 cats4 cat5 dog6 the7 cat8
    dir.write("in/a.warc", warc_response("a", html) + warc_response("b", "dog cat"));
    const auto output = dir / "index";
    build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1), {"positions=true"});
    IndexReader index(output);
    REQUIRE(index.positional());
    const auto cat = index.find_term("cat");
    REQUIRE(cat.has_value());
    const auto postings = index.postings(*cat);
    REQUIRE(postings.docids == std::vector<uint32_t>{0, 1});
    CHECK(postings.tfs == std::vector<uint32_t>{4, 1});
    CHECK(postings.positions == std::vector<uint32_t>{1, 4, 5, 8, 1});
}

TEST_CASE("jsonl, trec, text and tar members in one collection, in byte-wise path order") {
    TempDir dir;
    Analyzer analyzer(AnalysisSettings::defaults(), TokenScan::scalar);  // the reference scan; the pipeline runs the default (vector) one
    ReferenceIndex reference;
    // Sorted order: "B.txt" < "a.jsonl" < "b.trec" < "c.tar.gz" < "d/e.txt"
    dir.write("in/B.txt", "Plain <b>text</b> is not HTML");
    dir.write("in/a.jsonl", "{\"id\": \"j1\", \"contents\": \"Running runners ran\"}\n\n{\"id\": 42, \"contents\": \"numbers 42\"}\n");
    dir.write("in/b.trec", "<DOC>\n<DOCNO> T-1 </DOCNO>\n<TEXT><p>Trec &amp; text</p></TEXT>\n</DOC>\n<DOC><DOCNO>T-2</DOCNO>second</DOC>\n");
    dir.write("in/c.tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
                                            {Member{"docs/one.txt", "first member"}, Member{"docs", "", AE_IFDIR},
                                             Member{"docs/two.txt", "second member words"}}));
    dir.write("in/d/e.txt", "");
    reference.add("B.txt", "Plain <b>text</b> is not HTML", false, analyzer);
    reference.add("j1", "Running runners ran", false, analyzer);
    reference.add("42", "numbers 42", false, analyzer);
    reference.add("T-1", "\n<TEXT><p>Trec &amp; text</p></TEXT>\n", true, analyzer);
    reference.add("T-2", "second", true, analyzer);
    reference.add("docs/one.txt", "first member", false, analyzer);
    reference.add("docs/two.txt", "second member words", false, analyzer);
    reference.add("d/e.txt", "", false, analyzer);
    const auto output = dir / "index";
    build_index(standard_pipeline({(dir / "in").string()}, output, 3, 2));
    IndexReader index(output);
    check_index_equals(index, reference);
}

namespace {

// An independent reading of a WARC.gz (zlib's gzread reads every member):
// records split by Content-Length, response records only, HTTP headers skipped.
ReferenceIndex reference_from_warc_gz(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    REQUIRE(file != nullptr);
    std::string data;
    char buffer[1 << 16];
    for (int n; (n = gzread(file, buffer, sizeof buffer)) > 0;) data.append(buffer, static_cast<size_t>(n));
    gzclose(file);
    Analyzer analyzer(AnalysisSettings::defaults(), TokenScan::scalar);  // the reference scan; the pipeline runs the default (vector) one
    ReferenceIndex reference;
    size_t pos = 0;
    while (true) {
        while (pos < data.size() && (data[pos] == '\r' || data[pos] == '\n')) ++pos;
        if (pos >= data.size()) break;
        std::map<std::string, std::string> headers;
        while (true) {
            const size_t end = data.find('\n', pos);
            REQUIRE(end != std::string::npos);
            std::string line = data.substr(pos, end - pos);
            pos = end + 1;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) break;
            const size_t colon = line.find(':');
            if (colon == std::string::npos) continue;
            std::string key = line.substr(0, colon);
            for (auto& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            std::string value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(" \t"));
            value.erase(value.find_last_not_of(" \t") + 1);
            headers[key] = value;
        }
        const size_t length = std::stoull(headers.at("content-length"));
        const std::string block = data.substr(pos, length);
        pos += length;
        if (headers["warc-type"] != "response") continue;
        const std::string name = headers.count("warc-trec-id") ? headers["warc-trec-id"] : headers["warc-record-id"];
        size_t body = std::string::npos;
        for (size_t line_start = 0; line_start < block.size();) {
            const size_t end = block.find('\n', line_start);
            if (end == std::string::npos) break;
            if (end == line_start || (end == line_start + 1 && block[line_start] == '\r')) {
                body = end + 1;
                break;
            }
            line_start = end + 1;
        }
        reference.add(name, body == std::string::npos ? std::string_view() : std::string_view(block).substr(body), true,
                      analyzer);
    }
    return reference;
}

}  // namespace

TEST_CASE("the bundled sample collection (real Debian documentation HTML) equals an independent reading") {
    const std::string sample = std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz";
    REQUIRE(std::filesystem::exists(sample));
    const ReferenceIndex reference = reference_from_warc_gz(sample);
    REQUIRE(reference.documents.size() > 50);
    TempDir dir;
    build_index(standard_pipeline({sample}, dir / "a", 2, 1));
    build_index(standard_pipeline({sample}, dir / "b", 3, 4), {"memory.batch_bytes=65536", "memory.run_bytes=1000000"});
    IndexReader index(dir / "a");
    check_index_equals(index, reference);
    CHECK(ciff_bytes(dir / "a") == ciff_bytes(dir / "b"));
}
