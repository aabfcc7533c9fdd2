// Formats per file and per archive entry (CONTENT.md §1-2): "auto" detects each file's
// and each tar/zip entry's format from its own name, compression suffixes
// stripped; the html format frames each page as one document with the HTML
// rules on; a format named in the pipeline JSON applies to every entry.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Entries of every format, named so that their byte-wise order (the order of
// loose files) is the order they are written into the archives.
std::vector<Member> mixed_entries() {
    return {
        Member{"a.warc", warc_response("w1", "<p>warc page one</p>") + warc_response("w2", "<div>warc two</div>")},
        Member{"b.trec", "<DOC>\n<DOCNO> T-1 </DOCNO>\n<p>trec first</p>\n</DOC>\n<DOC><DOCNO>T-2</DOCNO>trec "
                         "<b>second</b></DOC>\n"},
        Member{"c.jsonl", "{\"id\": \"j1\", \"contents\": \"json <p> contents\"}\n{\"id\": 7, \"contents\": \"seven\"}\n"},
        Member{"d/e.html", "<html><body><div>html page</div><p>words</p></body></html>"},
        Member{"f.txt", "plain <p> text"},
    };
}

nlohmann::json pipeline_with_inputs(nlohmann::json inputs, const std::filesystem::path& output) {
    nlohmann::json description = standard_pipeline({}, output, 2, 2);
    description["input"] = std::move(inputs);
    return description;
}

std::string build_ciff(const nlohmann::json& inputs, const std::filesystem::path& output) {
    build_index(pipeline_with_inputs(inputs, output));
    return ciff_bytes(output);
}

bool has_term(const std::filesystem::path& index_dir, std::string_view term) {
    return IndexReader(index_dir).find_term(term).has_value();
}

}  // namespace

TEST_CASE("auto: a tar, a tar.gz and a zip of mixed entries index as the same files loose in a folder") {
    TempDir dir;
    for (const auto& member : mixed_entries()) dir.write("loose/" + member.path, member.contents);
    dir.write("tar/all.tar", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_NONE, mixed_entries()));
    dir.write("tgz/all.tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP, mixed_entries()));
    dir.write("zip/all.zip", write_archive(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, mixed_entries()));

    const std::string loose = build_ciff(nlohmann::json::array({(dir / "loose").string()}), dir / "index-loose");
    {
        IndexReader index(dir / "index-loose");
        REQUIRE(index.num_documents() == 8);
        const std::vector<std::string> names = {"<urn:uuid:w1>", "<urn:uuid:w2>", "T-1", "T-2", "j1", "7", "d/e.html",
                                                "f.txt"};
        for (uint32_t docid = 0; docid < names.size(); ++docid) CHECK(index.document(docid).name == names[docid]);
    }
    // HTML rules where the entry's format has them: tags of warc, trec and
    // html text are no terms; jsonl and text keep "<p>" as text ("p").
    CHECK(has_term(dir / "index-loose", "p"));
    CHECK_FALSE(has_term(dir / "index-loose", "div"));
    CHECK(has_term(dir / "index-loose", "page"));

    for (const std::string archive : {"tar", "tgz", "zip"}) {
        CAPTURE(archive);
        const auto output = dir / ("index-" + archive);
        CHECK(build_ciff(nlohmann::json::array({(dir / archive).string()}), output) == loose);
        // The manifest says how the archive's format was chosen: per entry.
        CHECK(IndexReader(output).manifest().inputs.at(0).format == "auto");
    }
    CHECK(IndexReader(dir / "index-loose").manifest().inputs.at(0).format == "warc");
}

TEST_CASE("auto: a docs.trec inside a tar.gz is framed as trec, one document per DOC") {
    TempDir dir;
    const std::string trec = "<DOC><DOCNO>d1</DOCNO>first document</DOC>\n<DOC><DOCNO>d2</DOCNO>second</DOC>\n";
    dir.write("in/docs.tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
                                              {Member{"docs.trec", trec}}));
    build_index(pipeline_with_inputs(nlohmann::json::array({(dir / "in").string()}), dir / "index"));
    IndexReader index(dir / "index");
    REQUIRE(index.num_documents() == 2);
    CHECK(index.document(0).name == "d1");
    CHECK(index.document(1).name == "d2");
}

TEST_CASE("html: a folder of pages, each one document with the HTML rules on (.html, .htm, .xhtml, .html.gz)") {
    TempDir dir;
    dir.write("site/a.html", "<html><body><p>alpha</p><div>bravo</div></body></html>");
    dir.write("site/b.htm", "<P>charlie</P>");
    dir.write("site/c.xhtml", "<div class=\"x\">delta &amp; echo</div>");
    dir.write("site/d.html.gz", gzip("<p>foxtrot</p>"));
    dir.write("site/e.txt", "golf");
    build_index(pipeline_with_inputs(nlohmann::json::array({(dir / "site").string()}), dir / "index"));
    IndexReader index(dir / "index");
    REQUIRE(index.num_documents() == 5);
    CHECK(index.document(0).name == "a.html");
    CHECK(index.document(0).length == 2);
    CHECK(index.document(1).name == "b.htm");
    CHECK(index.document(1).length == 1);
    CHECK(index.document(2).length == 2);
    CHECK(index.document(3).name == "d.html.gz");
    CHECK(index.document(3).length == 1);
    for (const char* tag : {"p", "div", "html", "bodi", "body", "class", "amp"}) {
        CAPTURE(tag);
        CHECK_FALSE(index.find_term(tag).has_value());
    }
    for (const char* word : {"alpha", "bravo", "charli", "delta", "echo", "foxtrot", "golf"}) {
        CAPTURE(word);
        CHECK(index.find_term(word).has_value());
    }
    CHECK(index.manifest().inputs.at(0).format == "html");
}

TEST_CASE("an explicit format in the pipeline applies to every file and every archive entry") {
    TempDir dir;
    dir.write("site/a.html", "<p>alpha</p>");
    dir.write("arc/docs.tar.gz",
              write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
                            {Member{"docs.trec", "<DOC><DOCNO>d1</DOCNO>x</DOC>\n<DOC><DOCNO>d2</DOCNO>y</DOC>\n"}}));
    nlohmann::json inputs = nlohmann::json::array();
    inputs.push_back({{"path", (dir / "site").string()}, {"format", "text"}});
    inputs.push_back({{"path", (dir / "arc").string()}, {"format", "text"}});
    build_index(pipeline_with_inputs(inputs, dir / "index"));
    IndexReader index(dir / "index");
    REQUIRE(index.num_documents() == 2);  // the trec entry is one text document
    CHECK(index.document(0).name == "docs.trec");
    CHECK(index.document(1).name == "a.html");
    CHECK(index.find_term("p").has_value());  // text: the tags are words
    CHECK(index.find_term("docno").has_value());
    CHECK(index.manifest().inputs.at(0).format == "text");
}
