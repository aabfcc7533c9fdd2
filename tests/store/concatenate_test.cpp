// Joining indexes of consecutive file ranges gives the single build's index:
// what a cluster build does after its ranks have indexed their shares.
#include <doctest/doctest.h>

#include "pipelines/build_hooks.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>

#include "store/concatenate.hpp"
#include "store/index_check.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/manifest.hpp"
#include "store/merge.hpp"
#include "store/run_list.hpp"
#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

TEST_CASE("parts built with other analysis settings are not joined") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(3, 20, 2);
    const auto paths = write_parts(dir, "in", warc);
    build_index(standard_pipeline({paths[0]}, dir / "a", 1, 1));
    nlohmann::json other = standard_pipeline({paths[1]}, dir / "b", 1, 1);
    other["analysis"]["stemmer"] = "none";
    build_index(other);
    IndexWriter writer(dir / "joined", AnalysisSettings::defaults(), {});
    CHECK_THROWS_WITH_AS(adopt_source_parts({SourcePart{.directory = dir / "a", .first_docid = 0},
                                             SourcePart{.directory = dir / "b", .first_docid = 10}},
                                            0, writer.temporary_directory()),
                         doctest::Contains("other analysis settings"), Error);
    // Nothing was moved: the parts are whole.
    CHECK(IndexReader(dir / "a").num_documents() > 0);
    CHECK(IndexReader(dir / "b").num_documents() > 0);
}

TEST_CASE("a run written by another process is adopted only as its writer reported it") {
    TempDir dir;
    IndexWriter writer(dir / "idx", AnalysisSettings::defaults(), {});
    CompressedRun part;
    part.indexer_count = 1;
    const TermRunList list{.slot = 0, .docids = {0}, .tfs = {2}, .positions = {}};
    part.list_offsets = {0};
    run_list::encode(list, false, part.bytes);
    part.list_offsets.push_back(part.bytes.size());
    part.list_counts = {1};
    part.postings = 1;
    WrittenRun written = write_run_file(writer.temporary_directory(), 0, false, {part});
    CHECK(written.slots.at(0) == std::vector<uint32_t>{1});
    WrittenRun wrong_size = written;
    wrong_size.size_bytes += 1;
    CHECK_THROWS_WITH_AS(writer.adopt_run(wrong_size), doctest::Contains("not the size its writer reported"), Error);
    writer.adopt_run(written);
    CHECK_THROWS_WITH_AS(writer.adopt_run(written), doctest::Contains("written twice"), Error);
}

namespace {

std::string file_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Per-source parts as a partition cluster build's rank holds them: each
// file range indexed alone (docids from 0), several runs each.
struct SourceParts {
    std::vector<InputFile> files;
    AnalysisSettings analysis;
    std::vector<SourcePart> parts;
    std::vector<uint32_t> first_files;
    // With keep_dictionaries: each part's BuildReport::dictionary, which
    // parts[p].dictionary points at.
    std::vector<std::vector<DictionaryTerm>> dictionaries;
};

SourceParts build_source_parts(const TempDir& dir, const std::vector<std::string>& overrides,
                               bool keep_dictionaries = false) {
    const PipelineConfig whole = PipelineConfig::from_json(standard_pipeline({(dir / "in").string()}, dir / "x", 2, 2), overrides);
    SourceParts out{.files = expand_pipeline_inputs(whole), .analysis = whole.analysis, .parts = {}, .first_files = {}};
    const std::vector<FileRange> ranges = {{0, 2}, {2, 3}, {3, 5}};
    uint64_t first_docid = 0;
    for (size_t r = 0; r < ranges.size(); ++r) {
        PipelineConfig config = whole;
        config.output = dir / ("part-" + std::to_string(r));
        BuildHooks hooks;
        hooks.files = files_of_range(out.files, ranges[r]);
        hooks.keep_dictionary = keep_dictionaries;
        out.dictionaries.push_back(run_pipeline(config, RunOptions{}, hooks).dictionary);
        out.parts.push_back(SourcePart{.directory = dir / ("part-" + std::to_string(r)), .first_docid = first_docid});
        out.first_files.push_back(ranges[r].begin);
        first_docid += IndexReader(out.parts.back().directory).num_documents();
    }
    if (keep_dictionaries)
        for (size_t p = 0; p < out.parts.size(); ++p) out.parts[p].dictionary = &out.dictionaries[p];
    return out;
}

void check_same_terms(const std::vector<DictionaryTerm>& a, const std::vector<DictionaryTerm>& b) {
    REQUIRE(a.size() == b.size());
    for (size_t t = 0; t < a.size(); ++t) {
        CAPTURE(t);
        CHECK(a[t].term == b[t].term);
        CHECK(a[t].collection == b[t].collection);
        CHECK(a[t].df == b[t].df);
        CHECK(a[t].cf == b[t].cf);
        REQUIRE(a[t].lists.size() == b[t].lists.size());
        for (size_t l = 0; l < a[t].lists.size(); ++l) {
            CHECK(a[t].lists[l].run == b[t].lists[l].run);
            CHECK(a[t].lists[l].indexer == b[t].lists[l].indexer);
            CHECK(a[t].lists[l].slot == b[t].lists[l].slot);
        }
    }
}

}  // namespace

TEST_CASE("per-source parts' runs adopted with docid bases give the single build's index, no list rewritten") {
    for (const bool positions : {false, true}) {
        CAPTURE(positions);
        TempDir dir;
        const GeneratedWarc warc = generate_warc(31, 400, 5);
        write_parts(dir, "in", warc);
        const std::vector<std::string> overrides = {positions ? "positions=true" : "positions=false",
                                                    "memory.batch_bytes=4000",
                                                    positions ? "memory.run_bytes=500000" : "memory.run_bytes=30000"};
        build_index(standard_pipeline({(dir / "in").string()}, dir / "single", 2, 2), overrides);
        const SourceParts sources = build_source_parts(dir, overrides);
        // What the run files hold, to see them moved unchanged but for their header and CRC-32.
        std::vector<std::string> part_lists;
        uint64_t largest_run = 0;
        for (const auto& part : sources.parts)
            for (const uint32_t run : read_manifest(part.directory).runs) {
                const std::string bytes = file_bytes(part.directory / layout::run_file_name(run));
                part_lists.push_back(bytes.substr(16, bytes.size() - 20));
                largest_run = std::max<uint64_t>(largest_run, bytes.size());
            }
        // Positions on: larger runs, over several checksum blocks, so the
        // trailing CRC-32 lies in another block than the header.
        if (positions) CHECK(largest_run > layout::kChecksumBlockBytes);
        const uint32_t runs = count_part_runs(sources.parts);
        CHECK(runs == part_lists.size());
        if (!positions) CHECK(runs > sources.parts.size());  // several runs per part
        {
            IndexWriter writer(dir / "joined", sources.analysis, sources.files);
            std::vector<std::unique_ptr<IndexReader>> documents;
            for (const auto& part : sources.parts) documents.push_back(std::make_unique<IndexReader>(part.directory));
            const uint32_t first_run = 5;  // as a rank after others' runs
            const OwnedTerms owned = adopt_source_parts(sources.parts, first_run, writer.temporary_directory());
            REQUIRE(owned.runs.size() == runs);
            for (uint32_t k = 0; k < runs; ++k) CHECK(owned.runs[k].run == first_run + k);
            CHECK(owned.runs.front().docid_base == 0);
            CHECK(owned.runs.back().docid_base == sources.parts.back().first_docid);
            for (size_t p = 0; p < sources.parts.size(); ++p)
                append_part_documents(*documents[p], sources.first_files[p], writer);
            for (const auto& run : owned.runs) writer.adopt_run(run);
            writer.write_dictionary(owned.dictionary);
            writer.publish();
        }
        for (uint32_t k = 0; k < runs; ++k) {
            const std::string bytes = file_bytes(dir / "joined" / layout::run_file_name(5 + k));
            CHECK(bytes.substr(16, bytes.size() - 20) == part_lists[k]);
        }
        const auto manifest = read_manifest(dir / "joined");
        CHECK(manifest.format_version == 2);
        CHECK(manifest.run_docid_bases.size() == runs);
        check_index_equals(IndexReader(dir / "joined"), warc.reference);
        CHECK(check_index(dir / "joined", {.full = true}).problems.empty());
        CHECK(ciff_bytes(dir / "joined") == ciff_bytes(dir / "single"));
        // Merged, it is the single build's merged index, file for file.
        merge_runs(dir / "joined", {.query_codec = "pfor"});
        merge_runs(dir / "single", {.query_codec = "pfor"});
        for (const char* file : {"runs/run-000000.post", "query.post", "dictionary.bin"})
            CHECK(file_bytes(dir / "joined" / file) == file_bytes(dir / "single" / file));
    }
}

TEST_CASE("parts' dictionaries kept in memory by their builds merge as those read back from the parts") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(17, 300, 5);
    write_parts(dir, "in", warc);
    SourceParts kept = build_source_parts(dir, {"memory.batch_bytes=4000", "memory.run_bytes=30000"}, true);
    std::vector<SourcePart> copies;
    for (size_t p = 0; p < kept.parts.size(); ++p) {
        // The kept dictionary is dictionary.bin's, term for term.
        const IndexReader part(kept.parts[p].directory);
        REQUIRE(kept.dictionaries[p].size() == part.term_count());
        CHECK(!kept.dictionaries[p].empty());
        for (uint64_t t = 0; t < part.term_count(); ++t) {
            const TermInfo info = part.term(t);
            CHECK(kept.dictionaries[p][t].term == info.term);
            CHECK(kept.dictionaries[p][t].df == info.df);
            CHECK(part.partial_lists(t).size() == kept.dictionaries[p][t].lists.size());
        }
        // Adopting moves the runs: the other way round works on a copy.
        const fs::path copy = dir / ("copy-" + std::to_string(p));
        fs::copy(kept.parts[p].directory, copy, fs::copy_options::recursive);
        copies.push_back(SourcePart{.directory = copy, .first_docid = kept.parts[p].first_docid});
    }
    IndexWriter from_memory(dir / "a", kept.analysis, kept.files);
    IndexWriter from_files(dir / "b", kept.analysis, kept.files);
    const OwnedTerms merged = adopt_source_parts(kept.parts, 3, from_memory.temporary_directory());
    const OwnedTerms read = adopt_source_parts(copies, 3, from_files.temporary_directory());
    CHECK(merged.runs.size() == read.runs.size());
    check_same_terms(merged.dictionary, read.dictionary);
}

TEST_CASE("a part whose run file is damaged is not adopted") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(7, 60, 5);
    write_parts(dir, "in", warc);
    const SourceParts sources = build_source_parts(dir, {});
    const fs::path run = sources.parts[1].directory / layout::run_file_name(read_manifest(sources.parts[1].directory).runs.back());
    {
        std::fstream file(run, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(-6, std::ios::end);
        file.put('\x7f');
    }
    IndexWriter writer(dir / "joined", sources.analysis, sources.files);
    CHECK_THROWS_WITH_AS(adopt_source_parts(sources.parts, 0, writer.temporary_directory()),
                         doctest::Contains("does not match its CRC-32 in checksums.bin"), FormatError);
}

TEST_CASE("a run file whose trailing CRC-32 straddles two checksum blocks is adopted intact") {
    TempDir dir;
    // Run file: 24-byte header, one 32-byte part descriptor, one 20-byte
    // mapping entry, the list, the CRC-32. A list of n postings with docids
    // 0..n-1 and tf 1 is 2n bytes, so n = 32729 makes the file 65538 bytes:
    // its CRC-32 begins 2 bytes before the second 64 KiB block.
    const std::vector<uint32_t> postings = {32729, 3};
    const std::vector<InputFile> files = {InputFile{.ordinal = 0, .path = "/in/a", .name = "a", .format = "text", .size_bytes = 1}};
    std::vector<SourcePart> parts;
    uint64_t first_docid = 0;
    for (size_t p = 0; p < postings.size(); ++p) {
        const fs::path part_dir = dir / ("part-" + std::to_string(p));
        IndexWriter writer(part_dir, AnalysisSettings::defaults(), files);
        RunPostings run{.run = 0, .indexer = 0, .indexer_count = 1, .lists = {}, .positional = false, .end_of_input = true, .documents = {}};
        TermRunList list{.slot = 0, .docids = {}, .tfs = {}, .positions = {}};
        std::vector<ParsedDoc> documents;
        for (uint32_t d = 0; d < postings[p]; ++d) {
            list.docids.push_back(d);
            list.tfs.push_back(1);
            documents.push_back(ParsedDoc{.name = "d" + std::to_string(first_docid + d), .length = 1, .file_ordinal = 0, .source_offset = d});
        }
        run.lists.push_back(std::move(list));
        writer.write_run(0, {run_list::encode_run(run)});
        writer.append_documents(documents);
        writer.write_dictionary({DictionaryTerm{.term = "t", .collection = 0, .df = postings[p], .cf = postings[p], .lists = {{0, 0, 0}}}});
        writer.publish();
        parts.push_back(SourcePart{.directory = part_dir, .first_docid = first_docid});
        first_docid += postings[p];
    }
    REQUIRE(fs::file_size(parts[0].directory / layout::run_file_name(0)) == layout::kChecksumBlockBytes + 2);
    {
        IndexWriter writer(dir / "joined", AnalysisSettings::defaults(), files);
        std::vector<std::unique_ptr<IndexReader>> documents;
        for (const auto& part : parts) documents.push_back(std::make_unique<IndexReader>(part.directory));
        const OwnedTerms owned = adopt_source_parts(parts, 0, writer.temporary_directory());
        REQUIRE(owned.runs.size() == 2);
        CHECK(owned.runs[0].block_crcs.size() == 2);
        for (const auto& reader : documents) append_part_documents(*reader, 0, writer);
        for (const auto& run : owned.runs) writer.adopt_run(run);
        writer.write_dictionary(owned.dictionary);
        writer.publish();
    }
    CHECK(check_index(dir / "joined", {.full = true}).problems.empty());
    const IndexReader joined(dir / "joined");
    const auto list = joined.postings(0);
    REQUIRE(list.docids.size() == first_docid);
    for (uint32_t d = 0; d < first_docid; ++d) CHECK(list.docids[d] == d);
}
