// CIFF import (store/ciff_import.hpp, store/ciff_reader.hpp): an exported
// index comes back with the same postings, documents and CIFF bytes; files
// that are not canonical are imported and exported in invidx's order; every
// broken promise of a bad file is an error naming its byte, and nothing is
// published.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "invidx/error.hpp"
#include "store/ciff_export.hpp"
#include "store/ciff_import.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/protobuf_wire.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

CiffImportOptions import_options(uint64_t run_bytes = uint64_t{64} << 20) {
    CiffImportOptions options;
    options.term_collection = [](std::string_view term) { return static_cast<uint32_t>(term.size()); };
    options.run_bytes = run_bytes;
    options.read_buffer_bytes = 16;  // messages cross buffer refills everywhere
    options.notice = [](const std::string&) {};
    return options;
}

std::string exported(const IndexReader& index) {
    std::ostringstream out;
    export_ciff(index, out, default_ciff_description(index));
    return out.str();
}

// CIFF messages built by hand with the exporter's wire helpers.
struct CiffBytes {
    std::string bytes;
    // Appends one length-delimited message; returns its offset.
    uint64_t add(const std::string& message) {
        const uint64_t at = bytes.size();
        protobuf::put_varint(bytes, message.size());
        bytes += message;
        return at;
    }
};

std::string header(int64_t lists, int64_t documents, int64_t total_terms, double average, const std::string& description = "test") {
    std::string m;
    protobuf::put_int(m, 1, 1);
    protobuf::put_int(m, 2, lists);
    protobuf::put_int(m, 3, documents);
    protobuf::put_int(m, 4, lists);
    protobuf::put_int(m, 5, documents);
    protobuf::put_int(m, 6, total_terms);
    protobuf::put_double(m, 7, average);
    protobuf::put_bytes(m, 8, description);
    return m;
}

// Postings as (docid gap, tf) pairs, written as given.
std::string postings_list(const std::string& term, int64_t df, int64_t cf, const std::vector<std::pair<int64_t, int64_t>>& postings) {
    std::string m;
    protobuf::put_bytes(m, 1, term);
    protobuf::put_int(m, 2, df);
    protobuf::put_int(m, 3, cf);
    for (const auto& [gap, tf] : postings) {
        std::string posting;
        protobuf::put_int(posting, 1, gap);
        protobuf::put_int(posting, 2, tf);
        protobuf::put_bytes(m, 4, posting, true);
    }
    return m;
}

std::string doc_record(int64_t docid, const std::string& name, int64_t length) {
    std::string m;
    protobuf::put_int(m, 1, docid);
    protobuf::put_bytes(m, 2, name);
    protobuf::put_int(m, 3, length);
    return m;
}

// A good file: 3 documents of lengths 2, 1, 4 ("cat": 0:1 2:1, "dog": 0:1 1:1 2:3).
CiffBytes good_file() {
    CiffBytes file;
    file.add(header(2, 3, 7, 7.0 / 3.0));
    file.add(postings_list("cat", 2, 2, {{0, 1}, {2, 1}}));
    file.add(postings_list("dog", 3, 5, {{0, 1}, {1, 1}, {1, 3}}));
    file.add(doc_record(0, "d0", 2));
    file.add(doc_record(1, "d1", 1));
    file.add(doc_record(2, "d2", 4));
    return file;
}

// Imports `bytes`; the error's message, which must name `offset`, and checks
// that nothing was published.
std::string import_error(const std::string& bytes, uint64_t offset) {
    TempDir dir;
    const auto file = dir.write("bad.ciff", bytes);
    std::string message;
    try {
        import_ciff(file, dir / "idx", import_options());
        FAIL("the import should have failed");
    } catch (const Error& error) {
        message = error.what();
        REQUIRE(error.context().byte_offset.has_value());
        CHECK(*error.context().byte_offset == offset);
        CHECK(error.context().file == file.string());
    }
    CHECK_FALSE(fs::exists(dir / "idx"));
    // No temporary directory left either.
    for (const auto& entry : fs::directory_iterator(dir.path())) CHECK(entry.path().filename().string().find("idx.tmp") == std::string::npos);
    return message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("CIFF import: an exported index comes back with the same postings, documents and bytes") {
    TempDir dir;
    const Collection collection = make_collection(60, 7);
    WriteOptions write;
    write.runs = 3;
    write.indexers = 2;
    write_index(collection, dir / "built", write);
    const IndexReader built(dir / "built");
    const std::string ciff = exported(built);
    const auto file = dir.write("built.ciff", ciff);

    // 64 bytes a run: lists continue across runs.
    for (const uint64_t run_bytes : {uint64_t{64}, uint64_t{64} << 20}) {
        CAPTURE(run_bytes);
        const auto summary = import_ciff(file, dir / "imported", import_options(run_bytes));
        CHECK(summary.canonicality.canonical);
        CHECK(summary.terms == built.num_terms());
        CHECK(summary.documents == built.num_documents());
        CHECK(summary.postings == built.num_postings());
        CHECK(summary.analysis_source == "default");  // the fixture's custom stop words are not in the description
        if (run_bytes == 64) CHECK(summary.runs > 3);
        if (run_bytes != 64) CHECK(summary.runs == 1);

        const IndexReader imported(dir / "imported");
        CHECK(imported.total_length() == built.total_length());
        CHECK(imported.average_length() == built.average_length());
        CHECK_FALSE(imported.positional());
        REQUIRE(imported.term_count() == built.term_count());
        for (uint64_t t = 0; t < built.term_count(); ++t) {
            CHECK(imported.term(t).term == built.term(t).term);
            CHECK(imported.term(t).df == built.term(t).df);
            const auto a = imported.postings(t);
            const auto b = built.postings(t);
            CHECK(a.docids == b.docids);
            CHECK(a.tfs == b.tfs);
        }
        for (uint32_t d = 0; d < built.num_documents(); ++d) {
            CHECK(imported.document(d).name == built.document(d).name);
            CHECK(imported.document(d).length == built.document(d).length);
        }
        CHECK(imported.files().at(0).format == "ciff");
        CHECK(exported(imported) == ciff);
        CheckOptions full;
        full.full = true;
        const auto check = check_index(dir / "imported", full);
        CHECK(check.ok());
        for (const auto& problem : check.problems) MESSAGE(problem);
    }
}

TEST_CASE("CIFF import: an invidx description gives the analysis; a reader restores none it cannot") {
    CHECK_FALSE(analysis_from_ciff_description("Anserini Lucene index").has_value());
    CHECK_FALSE(analysis_from_ciff_description("invidx index, format 1; stemmer porter, stopwords custom").has_value());
    const auto none = analysis_from_ciff_description("invidx index, format 1; stemmer none, stopwords none");
    REQUIRE(none.has_value());
    CHECK(none->stemmer == "none");
    CHECK(none->stopwords.empty());
    const auto positional = analysis_from_ciff_description("invidx index, format 1; stemmer porter, stopwords english, positional");
    REQUIRE(positional.has_value());
    CHECK(*positional == AnalysisSettings::defaults());

    TempDir dir;
    CiffBytes file;
    file.add(header(1, 1, 1, 1.0, "invidx index, format 1; stemmer none, stopwords none"));
    file.add(postings_list("the", 1, 1, {{0, 1}}));
    file.add(doc_record(0, "only", 1));
    const auto path = dir.write("x.ciff", file.bytes);
    const auto summary = import_ciff(path, dir / "idx", import_options());
    CHECK(summary.analysis_source == "description");
    CHECK(IndexReader(dir / "idx").analysis().stemmer == "none");
    CHECK(summary.canonicality.canonical);
    CHECK(exported(IndexReader(dir / "idx")) == file.bytes);
}

TEST_CASE("CIFF import: a file out of invidx's order is imported and exported in it") {
    TempDir dir;
    CiffBytes file;
    file.add(header(2, 3, 7, 7.0 / 3.0, "another engine"));
    file.add(postings_list("dog", 3, 5, {{0, 1}, {1, 1}, {1, 3}}));
    file.add(postings_list("cat", 2, 2, {{0, 1}, {2, 1}}));
    file.add(doc_record(0, "d0", 2));
    file.add(doc_record(1, "d1", 1));
    file.add(doc_record(2, "d2", 4));
    const auto summary = import_ciff(dir.write("x.ciff", file.bytes), dir / "idx", import_options());
    CHECK_FALSE(summary.canonicality.canonical);
    CHECK(contains(summary.canonicality.reason, "byte-wise order"));
    const IndexReader index(dir / "idx");
    CHECK(index.term(0).term == "cat");
    // The same content in invidx's order.
    CiffBytes rebuilt;
    rebuilt.add(header(2, 3, 7, 7.0 / 3.0, "another engine"));
    rebuilt.add(postings_list("cat", 2, 2, {{0, 1}, {2, 1}}));
    rebuilt.add(postings_list("dog", 3, 5, {{0, 1}, {1, 1}, {1, 3}}));
    rebuilt.add(doc_record(0, "d0", 2));
    rebuilt.add(doc_record(1, "d1", 1));
    rebuilt.add(doc_record(2, "d2", 4));
    CHECK(exported(index) == rebuilt.bytes);

    // Header totals other than the DocRecords' are not kept: the lengths rule.
    CiffBytes totals;
    totals.add(header(2, 3, 99, 33.0, "another engine"));
    totals.add(postings_list("cat", 2, 2, {{0, 1}, {2, 1}}));
    totals.add(postings_list("dog", 3, 5, {{0, 1}, {1, 1}, {1, 3}}));
    totals.add(doc_record(0, "d0", 2));
    totals.add(doc_record(1, "d1", 1));
    totals.add(doc_record(2, "d2", 4));
    const auto other = import_ciff(dir.write("totals.ciff", totals.bytes), dir / "idx2", import_options());
    CHECK_FALSE(other.canonicality.canonical);
    CHECK(contains(other.canonicality.reason, "total_terms_in_collection"));
    CHECK(exported(IndexReader(dir / "idx2")) == rebuilt.bytes);
    CHECK(IndexReader(dir / "idx2").average_length() == 7.0 / 3.0);
}

TEST_CASE("CIFF import: a failed import leaves the index at OUT as it was") {
    TempDir dir;
    const auto good = dir.write("good.ciff", good_file().bytes);
    import_ciff(good, dir / "idx", import_options());
    const std::string before = exported(IndexReader(dir / "idx"));
    std::string bad = good_file().bytes;
    bad.push_back('\x01');  // a trailing byte
    CHECK_THROWS_AS(import_ciff(dir.write("bad.ciff", bad), dir / "idx", import_options()), Error);
    CHECK(exported(IndexReader(dir / "idx")) == before);
    // A CIFF file inside OUT is refused (publishing would remove it).
    const auto inside = dir.write("idx/copy.ciff", good_file().bytes);
    CHECK_THROWS_WITH_AS(import_ciff(inside, dir / "idx", import_options()), doctest::Contains("inside the output directory"), Error);
}

TEST_CASE("CIFF import: an empty file and a truncated varint name their byte") {
    CHECK(contains(import_error("", 0), "empty file"));
    // The first PostingsList's length prefix is cut inside its varint.
    CiffBytes file;
    file.add(header(1, 1, 1, 1.0));
    const uint64_t at = file.bytes.size();
    file.bytes.push_back('\x85');
    CHECK(contains(import_error(file.bytes, at), "truncated varint"));
    // Inside a message: a tag's varint runs past the message's end.
    CiffBytes inner;
    inner.add(header(1, 1, 1, 1.0));
    const uint64_t message_at = inner.bytes.size();
    inner.bytes += std::string("\x01\x8a", 2);  // a 1-byte message holding half a varint
    inner.bytes += std::string(4, '\0');
    CHECK(contains(import_error(inner.bytes, message_at + 1), "truncated varint"));
}

TEST_CASE("CIFF import: a message past the end of the file") {
    CiffBytes file;
    file.add(header(1, 1, 1, 1.0));
    const std::string list = postings_list("cat", 1, 1, {{0, 1}});
    const uint64_t at = file.add(list);
    file.bytes.resize(file.bytes.size() - 2);
    CHECK(contains(import_error(file.bytes, at), "past the end of the file"));
}

TEST_CASE("CIFF import: df that does not match the postings") {
    CiffBytes file;
    file.add(header(1, 2, 2, 1.0));
    const uint64_t at = file.add(postings_list("cat", 3, 2, {{0, 1}, {1, 1}}));
    file.add(doc_record(0, "a", 1));
    file.add(doc_record(1, "b", 1));
    CHECK(contains(import_error(file.bytes, at), "df 3 does not match its 2 postings"));
}

TEST_CASE("CIFF import: cf that does not match the tfs") {
    CiffBytes file;
    file.add(header(1, 2, 2, 1.0));
    const uint64_t at = file.add(postings_list("cat", 2, 5, {{0, 1}, {1, 1}}));
    file.add(doc_record(0, "a", 1));
    file.add(doc_record(1, "b", 1));
    CHECK(contains(import_error(file.bytes, at), "cf 5 does not match the sum of its tfs, 2"));
}

TEST_CASE("CIFF import: docids that do not increase") {
    CiffBytes file;
    file.add(header(1, 3, 3, 1.0));
    const uint64_t list_at = file.add(postings_list("cat", 2, 2, {{1, 1}, {0, 1}}));
    file.add(doc_record(0, "a", 1));
    // The second Posting: the list's length prefix (1 byte), the term field
    // (2 + 3 bytes), df and cf (2 bytes each), the first Posting (2 + 4 bytes).
    const uint64_t posting_at = list_at + 1 + 5 + 2 + 2 + 6;
    CHECK(contains(import_error(file.bytes, posting_at), "again (gap 0): docids must increase"));

    CiffBytes negative;
    negative.add(header(1, 3, 3, 1.0));
    const uint64_t negative_at = negative.add(postings_list("cat", 2, 2, {{2, 1}, {-1, 1}}));
    CHECK(contains(import_error(negative.bytes, negative_at + 16), "negative: docids must increase"));
}

TEST_CASE("CIFF import: docids beyond num_doc_records") {
    CiffBytes file;
    file.add(header(1, 2, 2, 1.0));
    const uint64_t at = file.add(postings_list("cat", 2, 2, {{0, 1}, {2, 1}}));
    file.add(doc_record(0, "a", 1));
    file.add(doc_record(1, "b", 1));
    // The first Posting holds only its tf (a gap of 0 is not written): 2 + 2 bytes.
    CHECK(contains(import_error(file.bytes, at + 1 + 5 + 2 + 2 + 4), "docid 2 is beyond the 2 documents"));
}

TEST_CASE("CIFF import: DocRecords whose docids are not 0..n-1 in order") {
    CiffBytes file;
    file.add(header(1, 2, 2, 1.0));
    file.add(postings_list("cat", 2, 2, {{0, 1}, {1, 1}}));
    const uint64_t at = file.add(doc_record(1, "b", 1));
    file.add(doc_record(0, "a", 1));
    CHECK(contains(import_error(file.bytes, at), "docid 1, expected 0"));
}

TEST_CASE("CIFF import: a zero or negative tf") {
    for (const int64_t tf : {int64_t{0}, int64_t{-2}}) {
        CAPTURE(tf);
        CiffBytes file;
        file.add(header(1, 1, 1, 1.0));
        const uint64_t at = file.add(postings_list("cat", 1, 1, {{0, tf}}));
        file.add(doc_record(0, "a", 1));
        // The Posting's tag: after the length prefix, term, df and cf.
        CHECK(contains(import_error(file.bytes, at + 1 + 5 + 2 + 2), "tf " + std::to_string(tf) + ": must be at least 1"));
    }
}

TEST_CASE("CIFF import: num_postings_lists that does not match the file") {
    // Too large: the first DocRecord is read as a PostingsList.
    CiffBytes more;
    more.add(header(2, 1, 1, 1.0));
    more.add(postings_list("cat", 1, 1, {{0, 1}}));
    const uint64_t record_at = more.add(doc_record(0, "a", 1));
    CHECK(contains(import_error(more.bytes, record_at + 1), "num_postings_lists says 2"));
    // Too small: the second PostingsList is read as a DocRecord.
    CiffBytes fewer;
    fewer.add(header(1, 1, 1, 1.0));
    fewer.add(postings_list("cat", 1, 1, {{0, 1}}));
    const uint64_t list_at = fewer.add(postings_list("dog", 1, 1, {{0, 1}}));
    fewer.add(doc_record(0, "a", 1));
    CHECK(contains(import_error(fewer.bytes, list_at + 1), "num_postings_lists says 1"));
    // Too large with nothing after the lists: the file ends.
    CiffBytes ended;
    ended.add(header(3, 1, 1, 1.0));
    ended.add(postings_list("cat", 1, 1, {{0, 1}}));
    const uint64_t end = ended.bytes.size();
    CHECK(contains(import_error(ended.bytes, end), "the file ends after 1 PostingsLists, but the Header's num_postings_lists says 3"));
}

TEST_CASE("CIFF import: trailing bytes after the last DocRecord") {
    std::string bytes = good_file().bytes;
    const uint64_t end = bytes.size();
    bytes += "xyz";
    CHECK(contains(import_error(bytes, end), "3 trailing bytes after the last DocRecord"));
}

TEST_CASE("CIFF import: a term twice, a list without postings, an unsupported version") {
    CiffBytes twice;
    twice.add(header(3, 1, 1, 1.0));
    twice.add(postings_list("dog", 1, 1, {{0, 1}}));
    twice.add(postings_list("cat", 1, 1, {{0, 1}}));
    const uint64_t again = twice.add(postings_list("dog", 1, 1, {{0, 1}}));
    twice.add(doc_record(0, "a", 1));
    CHECK(contains(import_error(twice.bytes, again), "term 'dog' again"));

    CiffBytes empty;
    empty.add(header(1, 1, 1, 1.0));
    const uint64_t at = empty.add(postings_list("cat", 0, 0, {}));
    empty.add(doc_record(0, "a", 1));
    CHECK(contains(import_error(empty.bytes, at), "no postings"));

    std::string version;
    protobuf::put_int(version, 1, 2);
    CiffBytes future;
    future.add(version);
    CHECK(contains(import_error(future.bytes, 0), "CIFF version 2 is not supported"));
}

TEST_CASE("CIFF import: a tf above the largest allowed is refused before publishing") {
    TempDir dir;
    CiffBytes file;
    file.add(header(1, 1, 70000, 70000.0));
    const uint64_t at = file.add(postings_list("cat", 1, 70000, {{0, 70000}}));
    file.add(doc_record(0, "a", 70000));
    auto options = import_options();
    options.max_tf = 65535;
    try {
        import_ciff(dir.write("x.ciff", file.bytes), dir / "idx", options);
        FAIL("the import should have failed");
    } catch (const Error& error) {
        CHECK(contains(error.what(), "tf 70000"));
        CHECK(error.context().byte_offset == at);
    }
    CHECK_FALSE(fs::exists(dir / "idx"));
    options.max_tf.reset();
    CHECK(import_ciff(dir / "x.ciff", dir / "idx", options).largest_tf == 70000);
}

TEST_CASE("CIFF import: unknown fields and explicit defaults are read as protobuf reads them, not canonical") {
    TempDir dir;
    CiffBytes file;
    file.add(header(1, 1, 1, 1.0));
    std::string list = postings_list("cat", 1, 1, {{0, 1}});
    protobuf::put_int(list, 9, 42);                      // a field this CIFF version does not have
    const uint64_t at = file.add(list);
    std::string record;
    protobuf::put_tag(record, 1, protobuf::WireType::varint);  // docid 0, written anyway
    protobuf::put_varint(record, 0);
    protobuf::put_bytes(record, 2, "a");
    protobuf::put_int(record, 3, 1);
    file.add(record);
    const auto summary = import_ciff(dir.write("x.ciff", file.bytes), dir / "idx", import_options());
    CHECK_FALSE(summary.canonicality.canonical);
    CHECK(contains(summary.canonicality.reason, "unknown field 9"));
    CHECK(summary.canonicality.offset == at + 1 + list.size() - 2);
    const IndexReader index(dir / "idx");
    CHECK(index.document(0).name == "a");
    CHECK(index.postings(0).docids == std::vector<uint32_t>{0});
    // Its export is canonical: importing it again says so.
    const auto again = dir.write("y.ciff", exported(index));
    CHECK(import_ciff(again, dir / "idx2", import_options()).canonicality.canonical);
}
