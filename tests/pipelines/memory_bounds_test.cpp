// The two memory knobs hold: never more read blocks in flight than
// memory.tokens, and runs cut at memory.run_bytes of document text, each a
// contiguous docid range, without changing the index.
#include <doctest/doctest.h>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("memory.tokens bounds the read blocks in flight, whatever the bound") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(11, 120, 4);
    write_parts(dir, "in", warc);
    std::string first_ciff;
    for (const unsigned tokens : {2u, 3u, 16u}) {
        CAPTURE(tokens);
        const auto output = dir / ("index-" + std::to_string(tokens));
        // Small read blocks and batches, so that many blocks are in the
        // graph at once and the bound is what stops more.
        const BuildReport report =
            build_index(standard_pipeline({(dir / "in").string()}, output, 3, 2),
                        {"memory.tokens=" + std::to_string(tokens), "memory.read_block_bytes=512",
                         "memory.text_block_bytes=1024", "memory.batch_bytes=2000", "memory.run_bytes=20000"});
        CHECK(report.json["memory_tokens"] == tokens);
        const auto peak = report.json["peak_tokens_in_flight"].get<uint32_t>();
        CHECK(peak >= 1);
        CHECK(peak <= tokens);
        check_index_equals(IndexReader(output), warc.reference);
        const std::string ciff = ciff_bytes(output);
        if (first_ciff.empty()) first_ciff = ciff;
        CHECK(ciff == first_ciff);
    }
}

TEST_CASE("a small memory.run_bytes cuts several contiguous runs within the bound, and the index is unchanged") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(13, 200, 3);
    write_parts(dir, "in", warc);
    const uint64_t run_bytes = 20000;
    const uint64_t batch_bytes = 16384;  // more than any one generated document
    const BuildReport cut = build_index(standard_pipeline({(dir / "in").string()}, dir / "cut", 2, 2),
                                        {"memory.run_bytes=" + std::to_string(run_bytes),
                                         "memory.batch_bytes=" + std::to_string(batch_bytes)});
    const BuildReport whole = build_index(standard_pipeline({(dir / "in").string()}, dir / "whole", 2, 2),
                                          {"memory.run_bytes=1000000000",
                                           "memory.batch_bytes=" + std::to_string(batch_bytes)});

    const nlohmann::json& runs = cut.json["run_cuts"];
    REQUIRE(runs.is_array());
    CHECK(runs.size() >= 5);
    CHECK(cut.json["runs"] == runs.size());
    CHECK(whole.json["runs"] == 1);
    IndexReader index(dir / "cut");
    CHECK(index.manifest().runs.size() == runs.size());

    uint64_t next_docid = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
        CAPTURE(r);
        const nlohmann::json& run = runs[r];
        CHECK(run["run"] == r);
        // Contiguous: each run starts where the one before ended.
        CHECK(run["first_docid"] == next_docid);
        CHECK(run["documents"].get<uint64_t>() > 0);
        next_docid += run["documents"].get<uint64_t>();
        // A run closes with the batch that reaches run_bytes: it holds less
        // than run_bytes plus one batch, and all but the last reach run_bytes.
        const auto text_bytes = run["text_bytes"].get<uint64_t>();
        CHECK(text_bytes < run_bytes + batch_bytes);
        if (r + 1 < runs.size()) CHECK(text_bytes >= run_bytes);
    }
    CHECK(next_docid == index.num_documents());
    CHECK(next_docid == warc.reference.documents.size());

    // Every term's partial lists decode to increasing docids across the runs
    // (IndexReader::postings checks), and the content equals the one-run build.
    check_index_equals(index, warc.reference);
    CHECK(ciff_bytes(dir / "cut") == ciff_bytes(dir / "whole"));
}
