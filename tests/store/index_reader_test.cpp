#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "store/crc32.hpp"
#include "store/ciff_export.hpp"
#include "store/index_check.hpp"
#include "store/index_reader.hpp"
#include "store/index_fixture.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"
#include "support/damage.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// Checks every answer of the reader against the collection's own postings.
void check_index_matches(const invidx::IndexReader& index, const Collection& collection, bool positional) {
    uint64_t postings = 0;
    uint64_t total_length = 0;
    for (const auto& doc : collection.docs) total_length += doc.tokens.size();
    for (const auto& [term, list] : collection.postings) postings += list.size();

    CHECK(index.num_documents() == collection.docs.size());
    CHECK(index.num_terms() == collection.postings.size());
    CHECK(index.term_count() == collection.postings.size());
    CHECK(index.num_postings() == postings);
    CHECK(index.total_length() == total_length);
    CHECK(index.average_length() == doctest::Approx(double(total_length) / double(collection.docs.size())));
    CHECK(index.positional() == positional);
    CHECK(index.analysis().stopwords == std::vector<std::string>{"a", "an", "the"});
    CHECK(index.analysis().stopwords_name == "custom");
    CHECK(index.analysis().html[invidx::InputFormat::jsonl]);
    CHECK(index.analysis().positions == positional);

    uint64_t i = 0;
    for (const auto& [term, expected] : collection.postings) {  // std::map: byte-wise order
        CAPTURE(term);
        const auto info = index.term(i);
        CHECK(info.term == term);
        CHECK(info.collection == fixture_collection(term));
        CHECK(info.df == expected.size());
        uint64_t cf = 0;
        for (const auto& posting : expected) cf += posting.tf;
        CHECK(info.cf == cf);
        CHECK(index.find_term(term) == std::optional<uint64_t>(i));
        const auto list = index.postings(i);
        REQUIRE(list.docids.size() == expected.size());
        std::vector<uint32_t> positions;
        for (size_t k = 0; k < expected.size(); ++k) {
            CHECK(list.docids[k] == expected[k].docid);
            CHECK(list.tfs[k] == expected[k].tf);
            positions.insert(positions.end(), expected[k].positions.begin(), expected[k].positions.end());
        }
        if (positional) {
            CHECK(list.positions == positions);
        } else {
            CHECK(list.positions.empty());
        }
        ++i;
    }
    for (const std::string absent : {"", "aaa", "apples", "zzzz", "\xff"}) CHECK_FALSE(index.find_term(absent));

    for (uint32_t docid = 0; docid < collection.docs.size(); ++docid) {
        const auto& expected = collection.docs[docid];
        const auto doc = index.document(docid);
        CHECK(doc.docid == docid);
        CHECK(doc.name == expected.name);
        CHECK(doc.length == expected.tokens.size());
        CHECK(doc.file_ordinal == expected.file_ordinal);
        CHECK(doc.file_path == collection.files[expected.file_ordinal].path);
        CHECK(doc.source_offset == expected.source_offset);
        CHECK(index.find_document_by_name(expected.name) == std::optional<uint32_t>(docid));
    }
    CHECK_FALSE(index.find_document_by_name("no-such-doc"));
    CHECK_THROWS_AS(index.document(static_cast<uint32_t>(collection.docs.size())), invidx::Error);

    REQUIRE(index.files().size() == collection.files.size());
    CHECK(index.files()[1].path == collection.files[1].path);
    CHECK(index.files()[1].format == "jsonl");
    CHECK(index.files()[1].size_bytes == 2000);
}

std::string open_error(const fs::path& dir) {
    try {
        invidx::IndexReader index(dir);
        return "";
    } catch (const invidx::FormatError& error) {
        return error.what();
    }
}

}  // namespace

TEST_CASE("an index of several runs and indexers reads back exactly") {
    TempDir dir;
    const auto collection = make_collection(40, 1);
    const nlohmann::json report = {{"throughput_mb_s", 12.5}, {"nodes", {"parse", "index"}}};
    write_index(collection, dir / "idx", {.runs = 3, .indexers = 2, .positional = false, .report = report, .publish = true});
    const invidx::IndexReader index(dir / "idx");
    check_index_matches(index, collection, false);
    for (uint32_t docid = 0; docid < index.num_documents(); ++docid) {
        CHECK(index.document_length(docid) == index.document(docid).length);
    }
    CHECK_THROWS_WITH(index.document_length(static_cast<uint32_t>(index.num_documents())), doctest::Contains("out of range"));
    REQUIRE(index.report());
    CHECK(*index.report() == report);
    CHECK(index.manifest().runs == std::vector<uint32_t>{0, 1, 2});
    // A term present in every run has one partial list per run, in run order.
    const auto lists = index.partial_lists(*index.find_term("apple"));
    REQUIRE(lists.size() == 3);
    CHECK(lists[0].run == 0);
    CHECK(lists[2].run == 2);
}

TEST_CASE("a positional index keeps every position") {
    TempDir dir;
    const auto collection = make_collection(25, 2);
    write_index(collection, dir / "idx", {.runs = 2, .indexers = 3, .positional = true, .report = {}, .publish = true});
    const invidx::IndexReader index(dir / "idx");
    check_index_matches(index, collection, true);
    CHECK_FALSE(index.report());
}

TEST_CASE("an index with one run, one indexer and no documents") {
    TempDir dir;
    const auto collection = make_collection(0, 3);
    write_index(collection, dir / "idx", {.runs = 1, .indexers = 1, .positional = false, .report = {}, .publish = true});
    const invidx::IndexReader index(dir / "idx");
    CHECK(index.num_documents() == 0);
    CHECK(index.num_terms() == 0);
    CHECK(index.average_length() == 0.0);
    CHECK_FALSE(index.find_term("apple"));
    CHECK_FALSE(index.find_document_by_name("doc-1"));
}

TEST_CASE("manifest.json lists the format, the counts and every file") {
    TempDir dir;
    const auto collection = make_collection(12, 4);
    write_index(collection, dir / "idx", {.runs = 2, .indexers = 2, .positional = true, .report = nlohmann::json{{"k", 1}}, .publish = true});
    const auto manifest = nlohmann::json::parse(read_file(dir / "idx" / "manifest.json"));
    CHECK(manifest["format"] == "invidx");
    CHECK(manifest["format_version"] == 1);
    CHECK(manifest["positional"] == true);
    CHECK(manifest["counts"]["documents"] == 12);
    CHECK(manifest["counts"]["terms"] == collection.postings.size());
    CHECK(manifest["counts"]["runs"] == 2);
    CHECK(manifest["inputs"].size() == 2);
    std::vector<std::string> paths;
    for (const auto& file : manifest["files"]) {
        paths.push_back(file["path"]);
        const std::string bytes = read_file(dir / "idx" / file["path"].get<std::string>());
        CHECK(file["size_bytes"] == bytes.size());
        CHECK(file["crc32"] == invidx::crc32(bytes));
    }
    CHECK(paths == std::vector<std::string>{"checksums.bin", "dictionary.bin", "documents.bin", "report.json", "runs/run-000000.post", "runs/run-000001.post"});
    // Nothing else is left in the directory (no scratch files).
    CHECK(entry_names(dir / "idx") == std::vector<std::string>{"checksums.bin", "dictionary.bin", "documents.bin", "manifest.json", "report.json", "runs"});
}

TEST_CASE("a damaged byte in any file is a FormatError naming that file") {
    TempDir dir;
    const auto collection = make_collection(20, 5);
    write_index(collection, dir / "pristine", {.runs = 2, .indexers = 2, .positional = true, .report = nlohmann::json{{"k", 1}}, .publish = true});
    const auto manifest = nlohmann::json::parse(read_file(dir / "pristine" / "manifest.json"));
    for (const auto& file : manifest["files"]) {
        const std::string name = file["path"];
        for (const uint64_t offset : {uint64_t{0}, file["size_bytes"].get<uint64_t>() / 2, file["size_bytes"].get<uint64_t>() - 1}) {
            CAPTURE(name);
            CAPTURE(offset);
            const auto copy = dir / "damaged";
            fs::remove_all(copy);
            fs::copy(dir / "pristine", copy, fs::copy_options::recursive);
            flip_byte(copy / name, offset);
            const std::string error = open_error(copy);
            CHECK(error.find(name) != std::string::npos);
            // invidx check finds it too, with or without --full.
            for (const bool full : {false, true}) {
                const auto report = invidx::check_index(copy, {.full = full});
                REQUIRE_FALSE(report.ok());
                CHECK(report.problems.front().find(name) != std::string::npos);
            }
        }
    }
}

TEST_CASE("a damaged file whose manifest entry was updated is still caught by its own checks") {
    TempDir dir;
    const auto collection = make_collection(20, 6);
    write_index(collection, dir / "idx", {.runs = 2, .indexers = 2, .positional = false, .report = {}, .publish = true});
    // Change a byte of the dictionary's first record and fix up the manifest
    // so only the block checksums or the file's trailing CRC-32 can notice.
    const auto path = dir / "idx" / "dictionary.bin";
    flip_byte(path, 24 + 8 * collection.postings.size() + 5);
    auto manifest = nlohmann::json::parse(read_file(dir / "idx" / "manifest.json"));
    for (auto& file : manifest["files"]) {
        if (file["path"] == "dictionary.bin") file["crc32"] = invidx::crc32(read_file(path));
    }
    write_manifest(dir / "idx", manifest);
    SUBCASE("checksums.bin notices, at open") {
        const std::string error = open_error(dir / "idx");
        CHECK(error.find("dictionary.bin") != std::string::npos);
        CHECK(error.find("block 0") != std::string::npos);
    }
    SUBCASE("with checksums.bin made to match too, invidx check --full notices") {
        refresh_checksums(dir / "idx");
        CHECK(open_error(dir / "idx").empty());  // open reads no whole-file CRC
        CHECK(invidx::check_index(dir / "idx", {.full = false}).ok());
        const auto report = invidx::check_index(dir / "idx", {.full = true});
        REQUIRE_FALSE(report.ok());
        CHECK(report.problems.front().find("dictionary.bin") != std::string::npos);
        CHECK(report.problems.front().find("crc32") != std::string::npos);
    }
    SUBCASE("an index without checksums.bin: at open, as always") {
        drop_checksums(dir / "idx");
        const std::string error = open_error(dir / "idx");
        CHECK(error.find("dictionary.bin") != std::string::npos);
        CHECK(error.find("crc32") != std::string::npos);
    }
}

TEST_CASE("a truncated file, a missing file and a bad manifest are refused") {
    TempDir dir;
    const auto collection = make_collection(10, 7);
    write_index(collection, dir / "idx", {.runs = 2, .indexers = 1, .positional = false, .report = {}, .publish = true});
    const std::string manifest = read_file(dir / "idx" / "manifest.json");

    SUBCASE("truncated run file") {
        const auto run = dir / "idx" / "runs" / "run-000001.post";
        fs::resize_file(run, fs::file_size(run) - 3);
        CHECK(open_error(dir / "idx").find("run-000001.post") != std::string::npos);
    }
    SUBCASE("missing documents file") {
        fs::remove(dir / "idx" / "documents.bin");
        CHECK(open_error(dir / "idx").find("documents.bin") != std::string::npos);
    }
    SUBCASE("no manifest") {
        fs::remove(dir / "idx" / "manifest.json");
        CHECK(open_error(dir / "idx").find("not a complete invidx index") != std::string::npos);
    }
    SUBCASE("manifest of another format") {
        auto json = nlohmann::json::parse(manifest);
        json["format"] = "lucene";
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("/format") != std::string::npos);
    }
    SUBCASE("manifest of a later version") {
        auto json = nlohmann::json::parse(manifest);
        json["format_version"] = 3;
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("format_version") != std::string::npos);
    }
    SUBCASE("manifest of version 2 without run docid bases") {
        auto json = nlohmann::json::parse(manifest);
        json["format_version"] = 2;
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("run_docid_bases") != std::string::npos);
    }
    SUBCASE("manifest of version 1 with run docid bases") {
        auto json = nlohmann::json::parse(manifest);
        json["run_docid_bases"] = std::vector<uint64_t>(json["runs"].size(), 0);
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("needs format_version 2") != std::string::npos);
    }
    SUBCASE("manifest without counts") {
        auto json = nlohmann::json::parse(manifest);
        json.erase("counts");
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("/counts") != std::string::npos);
    }
    SUBCASE("manifest that is not JSON") {
        dir.write("idx/manifest.json", "{ not json");
        CHECK(open_error(dir / "idx").find("manifest.json") != std::string::npos);
    }
    SUBCASE("manifest naming a path outside the index") {
        auto json = nlohmann::json::parse(manifest);
        json["files"][0]["path"] = "../elsewhere";
        write_manifest(dir / "idx", json);
        CHECK(open_error(dir / "idx").find("outside the index") != std::string::npos);
    }
    SUBCASE("not a directory") {
        CHECK(open_error(dir / "nothing-here").find("nothing-here") != std::string::npos);
    }
}

TEST_CASE("partial lists out of run order are a FormatError when read") {
    TempDir dir;
    {
        invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {});
        for (uint32_t run = 0; run < 2; ++run) {
            invidx::RunPostings postings{.run = run, .indexer = 0, .indexer_count = 1, .lists = {}, .positional = false, .end_of_input = run == 1, .documents = {}};
            postings.lists.push_back({.slot = 0, .docids = {run}, .tfs = {1}, .positions = {}});
            writer.write_run(run, {invidx::run_list::encode_run(postings)});
        }
        writer.append_documents({{.name = "d0", .length = 1, .file_ordinal = 0, .source_offset = 0},
                                 {.name = "d1", .length = 1, .file_ordinal = 0, .source_offset = 0}});
        // Refs name run 1 before run 0: docid 1 then docid 0.
        writer.write_dictionary({{.term = "t", .collection = 0, .df = 2, .cf = 2, .lists = {{1, 0, 0}, {0, 0, 0}}}});
        writer.publish();
    }
    const invidx::IndexReader index(dir / "idx");
    CHECK_THROWS_WITH_AS(index.postings(0), doctest::Contains("docids must increase"), invidx::FormatError);
}

namespace {

std::string ciff_of(const fs::path& index_dir) {
    const invidx::IndexReader index(index_dir);
    std::ostringstream out;
    invidx::export_ciff(index, out, "test");
    return out.str();
}

}  // namespace

TEST_CASE("runs with docid bases read, check, merge, export and lay out as the same index with absolute docids") {
    for (const bool positional : {false, true}) {
        CAPTURE(positional);
        TempDir dir;
        const Collection collection = make_collection(60, 11);
        write_index(collection, dir / "absolute", {.runs = 3, .indexers = 2, .positional = positional});
        write_index(collection, dir / "based", {.runs = 3, .indexers = 2, .positional = positional, .docid_bases = true});

        // An index without bases keeps version 1 and no key; one with bases says so.
        const auto absolute_manifest = nlohmann::json::parse(read_whole(dir / "absolute" / "manifest.json"));
        const auto based_manifest = nlohmann::json::parse(read_whole(dir / "based" / "manifest.json"));
        CHECK(absolute_manifest["format_version"] == 1);
        CHECK_FALSE(absolute_manifest.contains("run_docid_bases"));
        CHECK(based_manifest["format_version"] == 2);
        CHECK(based_manifest["run_docid_bases"] == std::vector<uint64_t>{0, 20, 40});
        // The lists themselves differ: run 2's first docids are small.
        CHECK(read_whole(dir / "absolute" / "runs/run-000002.post") != read_whole(dir / "based" / "runs/run-000002.post"));
        CHECK(read_whole(dir / "absolute" / "runs/run-000000.post") == read_whole(dir / "based" / "runs/run-000000.post"));

        {
            const invidx::IndexReader based(dir / "based");
            check_index_matches(based, collection, positional);
            const invidx::IndexReader absolute(dir / "absolute");
            for (uint64_t term = 0; term < based.term_count(); ++term) {
                const auto a = absolute.postings(term);
                const auto b = based.postings(term);
                CHECK(a.docids == b.docids);
                CHECK(a.tfs == b.tfs);
                CHECK(a.positions == b.positions);
            }
        }
        const auto report = invidx::check_index(dir / "based", {.full = true});
        CHECK(report.problems.empty());
        CHECK(ciff_of(dir / "based") == ciff_of(dir / "absolute"));

        // merge --layout query: the same merged run and query.post; the merged
        // index has absolute docids again (version 1).
        for (const char* name : {"absolute", "based"}) invidx::merge_runs(dir / name, {.query_codec = "bp128"});
        CHECK(read_whole(dir / "based" / "runs/run-000000.post") == read_whole(dir / "absolute" / "runs/run-000000.post"));
        CHECK(read_whole(dir / "based" / "query.post") == read_whole(dir / "absolute" / "query.post"));
        CHECK(read_whole(dir / "based" / "manifest.json") == read_whole(dir / "absolute" / "manifest.json"));
        CHECK(ciff_of(dir / "based") == ciff_of(dir / "absolute"));
    }
}

TEST_CASE("a run docid base past the documents, or that takes docids past them, is a FormatError") {
    TempDir dir;
    const Collection collection = make_collection(30, 5);
    write_index(collection, dir / "idx", {.runs = 3, .indexers = 1, .docid_bases = true});
    auto manifest = nlohmann::json::parse(read_whole(dir / "idx" / "manifest.json"));
    SUBCASE("past the documents") {
        manifest["run_docid_bases"][2] = 31;
        write_manifest(dir / "idx", manifest);
        CHECK_THROWS_WITH_AS(invidx::IndexReader(dir / "idx"), doctest::Contains("run_docid_bases"), invidx::FormatError);
    }
    SUBCASE("docids of the run past the documents") {
        manifest["run_docid_bases"][2] = 30;
        write_manifest(dir / "idx", manifest);
        const auto report = invidx::check_index(dir / "idx", {.full = true});
        REQUIRE_FALSE(report.problems.empty());
        CHECK(report.problems.front().find("is not a document of this index") != std::string::npos);
    }
    SUBCASE("runs whose bases overlap") {
        manifest["run_docid_bases"][2] = 10;
        write_manifest(dir / "idx", manifest);
        const auto report = invidx::check_index(dir / "idx", {.full = true});
        REQUIRE_FALSE(report.problems.empty());
        CHECK(report.problems.front().find("docids must increase") != std::string::npos);
    }
}
