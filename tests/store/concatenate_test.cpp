// Joining indexes of consecutive file ranges gives the single build's index:
// what a cluster build does after its ranks have indexed their shares.
#include <doctest/doctest.h>

#include "pipelines/cluster/file_ranges.hpp"
#include "store/concatenate.hpp"
#include "store/run_list.hpp"
#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("concatenated part indexes export the single build's CIFF, positions on") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(23, 120, 5);
    write_parts(dir, "in", warc);
    const std::vector<std::string> overrides = {"positions=true", "memory.batch_bytes=4000", "memory.run_bytes=30000"};
    build_index(standard_pipeline({(dir / "in").string()}, dir / "single", 2, 2), overrides);
    const std::string single_ciff = ciff_bytes(dir / "single");

    const PipelineConfig whole = PipelineConfig::from_json(standard_pipeline({(dir / "in").string()}, dir / "x", 2, 2), overrides);
    const std::vector<InputFile> files = expand_pipeline_inputs(whole);
    REQUIRE(files.size() == 5);
    // Ranges as 3 ranks of a cluster build would take them (and an empty one).
    const std::vector<FileRange> ranges = {{0, 2}, {2, 2}, {2, 3}, {3, 5}};
    std::vector<IndexPart> parts;
    for (size_t r = 0; r < ranges.size(); ++r) {
        if (ranges[r].begin == ranges[r].end) continue;
        PipelineConfig config = whole;
        config.output = dir / ("part-" + std::to_string(r));
        RunOptions options;
        options.files = files_of_range(files, ranges[r]);
        Pipeline(std::move(config)).run(options);
        parts.push_back(IndexPart{.directory = dir / ("part-" + std::to_string(r)), .first_file = ranges[r].begin});
    }
    ConcatenatedIndex joined;
    {
        IndexWriter writer(dir / "joined", whole.analysis, files);
        joined = concatenate_indexes(parts, writer);
        writer.publish();
    }
    REQUIRE(joined.parts.size() == 3);
    CHECK(joined.parts[0].first_docid == 0);
    CHECK(joined.parts[1].first_docid == joined.parts[0].documents);
    CHECK(joined.parts[2].first_docid == joined.parts[0].documents + joined.parts[1].documents);
    CHECK(joined.documents == warc.reference.documents.size());
    IndexReader index(dir / "joined");
    check_index_equals(index, warc.reference);
    CHECK(ciff_bytes(dir / "joined") == single_ciff);
    // Documents name their file in the whole list, not in their part's.
    const DocumentInfo last = index.document(static_cast<uint32_t>(index.num_documents() - 1));
    CHECK(last.file_ordinal == 4);
    CHECK(last.file_path == files[4].path);
}

TEST_CASE("parts built with other analysis settings are not joined") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(3, 20, 2);
    const auto paths = write_parts(dir, "in", warc);
    build_index(standard_pipeline({paths[0]}, dir / "a", 1, 1));
    build_index(standard_pipeline({paths[1]}, dir / "b", 1, 1), {"positions=true"});
    IndexWriter writer(dir / "joined", AnalysisSettings::defaults(), {});
    CHECK_THROWS_WITH_AS(concatenate_indexes({{dir / "a", 0}, {dir / "b", 1}}, writer),
                         doctest::Contains("other analysis settings"), Error);
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
