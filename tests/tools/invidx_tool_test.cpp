// Runs the invidx program (built beside the tests) on a small index written
// through IndexWriter, and checks output and exit codes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "devices/gpu_devices.hpp"
#include "invidx/analysis_settings.hpp"
#include "store/run_list.hpp"
#include "store/ciff_export.hpp"
#include "store/index_reader.hpp"
#include "store/index_fixture.hpp"
#include "store/index_writer.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using invidx::testing::TempDir;
using invidx::testing::read_file;
using invidx::testing::run_invidx;
using invidx::testing::ToolResult;
namespace fs = std::filesystem;

namespace {


std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Three documents in two runs. The index holds stemmed terms, as the
// engine writes them: "appl" (apples), "run" (running), "zebra".
//   doc-a (0): apples x2 at 0,3 ; doc-b (1): running at 1 ; "7" (2): apples at 0, zebras x3 at 1,2,4
void write_small_index(const fs::path& dir, bool positional) {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.positions = positional;
    invidx::IndexWriter writer(dir, settings, {{.ordinal = 0, .path = "/data/in.jsonl", .name = "in.jsonl", .format = "jsonl", .size_bytes = 99}});
    auto part = [&](uint32_t run, std::vector<invidx::TermRunList> lists) {
        invidx::RunPostings postings{.run = run, .indexer = 0, .indexer_count = 1, .lists = std::move(lists),
                                     .positional = positional, .end_of_input = run == 1, .documents = {}};
        return invidx::run_list::encode_run(postings);
    };
    writer.write_run(0, {part(0, {{.slot = 0, .docids = {0}, .tfs = {2}, .positions = {0, 3}},
                                  {.slot = 1, .docids = {1}, .tfs = {1}, .positions = {1}}})});
    writer.write_run(1, {part(1, {{.slot = 0, .docids = {2}, .tfs = {1}, .positions = {0}},
                                  {.slot = 1, .docids = {2}, .tfs = {3}, .positions = {1, 2, 4}}})});
    writer.append_documents({{.name = "doc-a", .length = 2, .file_ordinal = 0, .source_offset = 0},
                             {.name = "doc-b", .length = 1, .file_ordinal = 0, .source_offset = 40},
                             {.name = "7", .length = 4, .file_ordinal = 0, .source_offset = 80}});
    writer.write_dictionary({{.term = "appl", .collection = 1, .df = 2, .cf = 3, .lists = {{0, 0, 0}, {1, 0, 0}}},
                             {.term = "run", .collection = 2, .df = 1, .cf = 1, .lists = {{0, 0, 1}}},
                             {.term = "zebra", .collection = 3, .df = 1, .cf = 3, .lists = {{1, 0, 1}}}});
    writer.publish();
}

}  // namespace

TEST_CASE("invidx stats, in text and json") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const auto text = run_invidx(dir, "stats " + quoted(dir / "idx"));
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("documents       3\n") != std::string::npos);
    CHECK(text.out.find("runs            2\n") != std::string::npos);
    const auto json = run_invidx(dir, "stats --format json " + quoted(dir / "idx"));
    REQUIRE(json.exit_code == 0);
    const auto stats = nlohmann::json::parse(json.out);
    CHECK(stats["documents"] == 3);
    CHECK(stats["terms"] == 3);
    CHECK(stats["postings"] == 4);
    CHECK(stats["total_length"] == 7);
    CHECK(stats["runs"] == 2);
    CHECK(stats["stopword_count"] == 33);
    // A text index: no pre-weighted line, no scale.
    CHECK(text.out.find("analysis ") == std::string::npos);
    CHECK(stats["pre_weighted"] == false);
    CHECK_FALSE(stats.contains("vector_scale"));
}

TEST_CASE("invidx term analyzes the word and prints its postings") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const auto apples = run_invidx(dir, "term " + quoted(dir / "idx") + " Apples");
    CHECK(apples.exit_code == 0);
    CHECK(apples.out == "term: appl\ndf: 2\ncf: 3\npostings: 0:2 2:1\n");

    const auto json = run_invidx(dir, "term --format=json " + quoted(dir / "idx") + " running zebras");
    REQUIRE(json.exit_code == 0);
    const auto result = nlohmann::json::parse(json.out);
    REQUIRE(result["terms"].size() == 2);
    CHECK(result["terms"][0]["term"] == "run");
    CHECK(result["terms"][0]["postings"][0]["docid"] == 1);
    CHECK(result["terms"][1]["term"] == "zebra");
    CHECK(result["terms"][1]["cf"] == 3);
    CHECK(result["terms"][1]["postings"][0]["tf"] == 3);

    const auto stopword = run_invidx(dir, "term " + quoted(dir / "idx") + " The");
    CHECK(stopword.exit_code == 1);
    CHECK(stopword.out.find("no term") != std::string::npos);

    const auto missing = run_invidx(dir, "term " + quoted(dir / "idx") + " quasar");
    CHECK(missing.exit_code == 1);
    CHECK(missing.out.find("not in the index") != std::string::npos);
}

TEST_CASE("invidx term shows positions of a positional index") {
    TempDir dir;
    write_small_index(dir / "idx", true);
    const auto apples = run_invidx(dir, "term " + quoted(dir / "idx") + " apple");
    CHECK(apples.exit_code == 0);
    CHECK(apples.out.find("postings: 0:2[0,3] 2:1[0]\n") != std::string::npos);
    const auto json = run_invidx(dir, "term --format json " + quoted(dir / "idx") + " zebra");
    CHECK(nlohmann::json::parse(json.out)["terms"][0]["postings"][0]["positions"] == std::vector<int>{1, 2, 4});
}

TEST_CASE("invidx doc finds a document by docid, then by name") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const auto by_id = run_invidx(dir, "doc " + quoted(dir / "idx") + " 1");
    CHECK(by_id.exit_code == 0);
    CHECK(by_id.out == "docid: 1\nname: doc-b\nlength: 1\nfile: /data/in.jsonl\nsource_offset: 40\n");
    // "7" is not a docid of this index, so it is a name.
    const auto by_name = run_invidx(dir, "doc --format json " + quoted(dir / "idx") + " 7");
    REQUIRE(by_name.exit_code == 0);
    CHECK(nlohmann::json::parse(by_name.out)["docid"] == 2);
    const auto missing = run_invidx(dir, "doc " + quoted(dir / "idx") + " doc-z");
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.starts_with("invidx: "));
}

TEST_CASE("invidx export-ciff writes what export_ciff writes, to a file or stdout") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    std::ostringstream expected;
    {
        const invidx::IndexReader index(dir / "idx");
        invidx::export_ciff(index, expected, invidx::default_ciff_description(index));
    }
    const auto to_file = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " " + quoted(dir / "out.ciff"));
    CHECK(to_file.exit_code == 0);
    CHECK(read_file(dir / "out.ciff") == expected.str());
    const auto to_stdout = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " -");
    CHECK(to_stdout.exit_code == 0);
    CHECK(to_stdout.out == expected.str());
    const auto described = run_invidx(dir, "export-ciff --description 'my run' " + quoted(dir / "idx") + " -");
    CHECK(described.out.find("my run") != std::string::npos);
}

TEST_CASE("invidx merge leaves one run and the same CIFF") {
    TempDir dir;
    write_small_index(dir / "idx", true);
    const auto before = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " -").out;
    const auto merged = run_invidx(dir, "merge " + quoted(dir / "idx"));
    CHECK(merged.exit_code == 0);
    CHECK(merged.out.find("merged 2 runs into 1") != std::string::npos);
    CHECK(nlohmann::json::parse(run_invidx(dir, "stats --format json " + quoted(dir / "idx")).out)["runs"] == 1);
    CHECK(run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " -").out == before);
}

TEST_CASE("invidx merge --layout query adds the query layout and search answers the same") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const std::string idx = quoted(dir / "idx");
    const auto before = run_invidx(dir, "search " + idx + " apples zebras running --format json");
    REQUIRE(before.exit_code == 0);
    CHECK(run_invidx(dir, "merge " + idx + " --codec pfor").exit_code == 2);  // --codec needs --layout query
    CHECK(run_invidx(dir, "merge --layout columns " + idx).exit_code == 2);
    CHECK(run_invidx(dir, "stats --layout query " + idx).exit_code == 2);
    const auto bad_codec = run_invidx(dir, "merge " + idx + " --layout query --codec zip");
    CHECK(bad_codec.exit_code == 2);
    CHECK(bad_codec.err.find("unknown codec 'zip'; known: vbyte, pfor, rice, bp128") != std::string::npos);

    const auto merged = run_invidx(dir, "merge " + idx + " --layout query --codec rice");
    CHECK(merged.exit_code == 0);
    CHECK(merged.out == "merged 2 runs into 1 in " + (dir / "idx").string() + "; query layout with codec rice\n");
    CHECK(fs::exists(dir / "idx" / "query.post"));
    CHECK(run_invidx(dir, "search " + idx + " apples zebras running --format json").out == before.out);

    const auto json = nlohmann::json::parse(run_invidx(dir, "merge --format json --layout query " + idx).out);
    CHECK(json["layout"] == "query");
    CHECK(json["codec"] == "bp128");  // the default
    CHECK(run_invidx(dir, "search " + idx + " apples zebras running --format json").out == before.out);
}

TEST_CASE("invidx weight stores impacts, search --scoring impact ranks by them, check --full passes") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const std::string idx = quoted(dir / "idx");
    const auto bm25 = run_invidx(dir, "search " + idx + " apples zebras running --format json");
    REQUIRE(bm25.exit_code == 0);
    // No query layout yet: nothing to store impacts in, nothing to score with.
    const auto no_layout = run_invidx(dir, "weight " + idx);
    CHECK(no_layout.exit_code == 2);
    CHECK(no_layout.err.find("merge") != std::string::npos);
    REQUIRE(run_invidx(dir, "merge " + idx + " --layout query").exit_code == 0);
    const auto unweighted = run_invidx(dir, "search " + idx + " apples --scoring impact");
    CHECK(unweighted.exit_code == 2);
    CHECK(unweighted.err.find("invidx weight") != std::string::npos);
    // Without a usable GPU (no CUDA in the build, no device) the GPU is
    // refused naming it, never run on the CPU instead, and nothing is
    // written; bad values too.
    const std::string unweighted_layout = read_file(dir / "idx" / "query.post");
    if (invidx::list_gpus().devices.empty()) {
        for (const std::string device : {"gpu", "gpu:0", "gpu:3"}) {
            CAPTURE(device);
            const auto gpu = run_invidx(dir, "weight " + idx + " --device " + device);
            CHECK(gpu.exit_code == 2);
            CHECK(gpu.err.find("--device gpu:" + std::string(device == "gpu:3" ? "3" : "0")) != std::string::npos);
            CHECK(gpu.out.empty());
            CHECK(read_file(dir / "idx" / "query.post") == unweighted_layout);
        }
    }
    CHECK(run_invidx(dir, "weight " + idx + " --device tpu").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --device gpu:x").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --device gpu:-1").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --device-memory 1000000").exit_code == 2);  // needs --device gpu
    CHECK(run_invidx(dir, "weight " + idx + " --device gpu --device-memory 0").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --bits 0").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --bits 17").exit_code == 2);
    CHECK(run_invidx(dir, "weight").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx + " apples --scoring tfidf").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx + " apples --scoring impact --device gpu").exit_code == 2);
    CHECK(run_invidx(dir, "stats " + idx + " --bits 8").exit_code == 2);

    const auto weighted = run_invidx(dir, "weight " + idx + " --bits 4 --device cpu --format json");
    REQUIRE(weighted.exit_code == 0);
    const auto summary = nlohmann::json::parse(weighted.out);
    CHECK(summary["bits"] == 4);
    CHECK(summary["postings"] == 4);
    CHECK(summary["codec"] == "bp128");
    CHECK(summary["max_weight"].get<double>() > 0.0);
    // zebra (df 1, tf 3 in doc "7") has the largest weight: 2^4 - 1.
    const auto hits = nlohmann::json::parse(run_invidx(dir, "search " + idx + " zebras apples --scoring impact --format json").out);
    REQUIRE(hits.size() == 1);
    REQUIRE(hits[0]["results"].size() == 2);
    CHECK(hits[0]["results"][0]["name"] == "7");
    const double top = hits[0]["results"][0]["score"].get<double>();
    CHECK(top > 15.0);
    CHECK(top <= 30.0);
    CHECK(top == std::floor(top));  // integer scores
    CHECK(hits[0]["results"][1]["name"] == "doc-a");
    CHECK(run_invidx(dir, "search " + idx + " zebras apples --scoring impact --mode and").out.find("7") != std::string::npos);
    // BM25 scoring is unchanged, and the weighted index checks out whole.
    CHECK(run_invidx(dir, "search " + idx + " apples zebras running --format json").out == bm25.out);
    const auto check = run_invidx(dir, "check " + idx + " --full");
    CHECK(check.exit_code == 0);
    CHECK(check.out.starts_with("ok: "));
    CHECK(run_invidx(dir, "weight " + idx).exit_code == 0);  // again, with the default 8 bits
    CHECK(nlohmann::json::parse(run_invidx(dir, "weight --format json " + idx).out)["bits"] == 8);
}

TEST_CASE("invidx merge keeps impacts: equal to weighting the merged index afresh") {
    using namespace invidx;
    using namespace invidx::testing;
    TempDir dir;
    std::mt19937 random(29);
    const auto words = random_words(random, 300);
    const auto path = build_text_index(dir, skewed_documents(random, words, 500, 2.5));
    const std::string idx = quoted(path);
    REQUIRE(run_invidx(dir, "merge " + idx + " --layout query").exit_code == 0);
    REQUIRE(run_invidx(dir, "weight " + idx + " --bits 6").exit_code == 0);
    // The reference: the same index's query layout in pfor without impacts, then weighted.
    const auto fresh = dir / "fresh";
    fs::copy(path, fresh, fs::copy_options::recursive);
    merge_runs(fresh, {.query_codec = "pfor"});
    REQUIRE_FALSE(QueryPostings(IndexReader(fresh)).has_impacts());
    REQUIRE(run_invidx(dir, "weight " + quoted(fresh) + " --bits 6").exit_code == 0);

    const auto merged = run_invidx(dir, "merge " + idx + " --layout query --codec pfor");
    REQUIRE(merged.exit_code == 0);
    CHECK(merged.out.find("6-bit impacts kept") != std::string::npos);
    {
        const IndexReader kept_index(path), fresh_index(fresh);
        const QueryPostings kept(kept_index), reference(fresh_index);
        REQUIRE(kept.has_impacts());
        CHECK(kept.impact_bits() == 6);
        CHECK(kept.codec().name == "pfor");
        CHECK(kept.max_weight() == reference.max_weight());
        REQUIRE(kept_index.term_count() == fresh_index.term_count());
        std::vector<uint32_t> kept_impacts(128), fresh_impacts(128);
        uint64_t compared = 0;
        for (uint64_t term = 0; term < kept_index.term_count(); ++term) {
            const auto a = kept.list(term);
            const auto b = reference.list(term);
            REQUIRE(a.blocks().size() == b.blocks().size());
            CHECK(a.max_impact() == b.max_impact());
            for (size_t k = 0; k < a.blocks().size(); ++k) {
                REQUIRE(a.blocks()[k].postings == b.blocks()[k].postings);
                CHECK(a.blocks()[k].max_impact == b.blocks()[k].max_impact);
                a.decode_impacts(k, std::span(kept_impacts.data(), a.blocks()[k].postings));
                b.decode_impacts(k, std::span(fresh_impacts.data(), b.blocks()[k].postings));
                CHECK(kept_impacts == fresh_impacts);
                compared += a.blocks()[k].postings;
            }
        }
        CHECK(compared == kept_index.num_postings());
    }
    CHECK(nlohmann::json::parse(run_invidx(dir, "merge --format json --layout query " + idx).out)["impact_bits"] == 6);
    // The standard layout has no query.post, so no impacts either.
    REQUIRE(run_invidx(dir, "merge " + idx).exit_code == 0);
    CHECK_FALSE(fs::exists(path / "query.post"));
}

TEST_CASE("invidx weight --documents writes one JSONL line of BM25 weights per document, unknown terms listed") {
    using namespace invidx;
    using namespace invidx::testing;
    TempDir dir;
    // appl df 2, banana df 2, cherri df 1, date df 1; N 4, avgdl 7/4.
    const auto path = build_text_index(dir, {"apple banana", "apple cherry cherry", "banana", "date"});
    const std::string idx = quoted(path);
    const auto documents = dir.write("new.jsonl", "{\"id\":\"n1\",\"contents\":\"Apple apples, the zebra!\"}\n\n"
                                                  "{\"id\":42,\"contents\":\"\"}\n"
                                                  "{\"id\":\"n3\",\"contents\":\"date date cherry quokka\"}\n");
    const auto hashed = run_invidx(dir, "weight " + idx + " --documents " + quoted(documents));
    REQUIRE(hashed.exit_code == 0);
    CHECK(hashed.err.find("weighted 3 documents") != std::string::npos);
    std::vector<nlohmann::json> lines;
    std::istringstream in(hashed.out);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    REQUIRE(lines.size() == 3);
    // Analyzed as the index's documents were: "Apple apples" -> appl tf 2.
    CHECK(lines[0]["id"] == "n1");
    CHECK(lines[0]["length"] == 3);  // apple, apples, zebra ("the" is a stop word)
    const auto norm = [](double dl) { return 0.9 * (0.6 + 0.4 * dl / 1.75); };
    REQUIRE(lines[0]["weights"].size() == 1);
    CHECK(lines[0]["weights"]["appl"].get<double>() == doctest::Approx(std::log(1.0 + 2.5 / 2.5) * 2 * 1.9 / (2 + norm(3))).epsilon(1e-12));
    CHECK(lines[0]["unknown"] == nlohmann::json::array({"zebra"}));
    CHECK(lines[1]["id"] == "42");
    CHECK(lines[1]["length"] == 0);
    CHECK(lines[1]["weights"].empty());
    CHECK(lines[2]["weights"]["date"].get<double>() == doctest::Approx(std::log(1.0 + 3.5 / 1.5) * 2 * 1.9 / (2 + norm(4))).epsilon(1e-12));
    CHECK(lines[2]["weights"]["cherri"].get<double>() == doctest::Approx(std::log(1.0 + 3.5 / 1.5) * 1.9 / (1 + norm(4))).epsilon(1e-12));
    CHECK(lines[2]["unknown"] == nlohmann::json::array({"quokka"}));

    // The XBW dictionary gives the same lines; --out takes them, the summary goes to stdout.
    const auto out = dir / "weights.jsonl";
    const auto xbw = run_invidx(dir, "weight " + idx + " --documents " + quoted(documents) + " --dictionary xbw --out " + quoted(out) +
                                         " --format json");
    REQUIRE(xbw.exit_code == 0);
    CHECK(read_file(out) == hashed.out);
    const auto summary = nlohmann::json::parse(xbw.out);
    CHECK(summary["documents"] == 3);
    CHECK(summary["terms"] == 3);
    CHECK(summary["unknown_terms"] == 2);
    CHECK(summary["dictionary"] == "xbw");

    // Usage errors exit 2; a bad document file is an error naming its line, exit 3.
    CHECK(run_invidx(dir, "weight " + idx + " --documents " + quoted(documents) + " --bits 8").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --documents " + quoted(documents) + " --dictionary trie").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --out " + quoted(out)).exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --documents " + quoted(dir / "absent.jsonl")).exit_code == 3);
    const auto broken = dir.write("broken.jsonl", "{\"id\":\"a\",\"contents\":\"apple\"}\nnot json\n");
    const auto failed = run_invidx(dir, "weight " + idx + " --documents " + quoted(broken));
    CHECK(failed.exit_code == 3);
    CHECK(failed.err.find("line 2") != std::string::npos);
}

TEST_CASE("invidx usage errors exit 2, damaged indexes exit 3") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    CHECK(run_invidx(dir, "").exit_code == 2);
    CHECK(run_invidx(dir, "frobnicate").exit_code == 2);
    CHECK(run_invidx(dir, "stats").exit_code == 2);
    CHECK(run_invidx(dir, "stats --format xml " + quoted(dir / "idx")).exit_code == 2);
    CHECK(run_invidx(dir, "stats --colour " + quoted(dir / "idx")).exit_code == 2);
    CHECK(run_invidx(dir, "doc " + quoted(dir / "idx") + " 1 2").exit_code == 2);

    const auto dictionary = dir / "idx" / "dictionary.bin";
    std::string bytes = read_file(dictionary);
    bytes[bytes.size() / 2] ^= 0x20;
    dir.write("idx/dictionary.bin", bytes);
    const auto damaged = run_invidx(dir, "stats " + quoted(dir / "idx"));
    CHECK(damaged.exit_code == 3);
    CHECK(damaged.err.starts_with("invidx: "));
    CHECK(damaged.err.find("dictionary.bin") != std::string::npos);
    const auto no_index = run_invidx(dir, "term " + quoted(dir / "nothing") + " apple");
    CHECK(no_index.exit_code == 3);
}

TEST_CASE("invidx check: exit 0 on a sound index, 3 naming every damage, 2 on usage") {
    TempDir dir;
    write_small_index(dir / "idx", false);
    const auto ok = run_invidx(dir, "check " + quoted(dir / "idx") + " --full");
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.starts_with("ok: 5 files"));
    CHECK(ok.out.find("3 terms, 3 documents") != std::string::npos);
    CHECK(run_invidx(dir, "check").exit_code == 2);
    CHECK(run_invidx(dir, "check " + quoted(dir / "idx") + " --fast").exit_code == 2);
    CHECK(run_invidx(dir, "stats " + quoted(dir / "idx") + " --full").exit_code == 2);

    // zebra's list (run 1: header 24, one descriptor 32, two table entries 40,
    // then appl's 2 bytes): its docid becomes 88, past the 3 documents.
    const auto run = dir / "idx" / "runs" / "run-000001.post";
    std::string bytes = read_file(run);
    bytes[98] ^= 0x5A;
    std::ofstream(run, std::ios::binary | std::ios::trunc) << bytes;
    // Block checksums see it: check names the file and the block.
    const auto damaged = run_invidx(dir, "check " + quoted(dir / "idx"));
    CHECK(damaged.exit_code == 3);
    CHECK(damaged.out.find("run-000001.post: block 0 (bytes 0-") != std::string::npos);
    CHECK(damaged.out.find("DAMAGED") != std::string::npos);
    // With every checksum made to match, only --full's decoding and the
    // file's trailing CRC-32 can: both are listed, and the term named.
    invidx::testing::refresh_checksums(dir / "idx");
    CHECK(run_invidx(dir, "check " + quoted(dir / "idx")).exit_code == 0);
    const auto full = run_invidx(dir, "check " + quoted(dir / "idx") + " --full");
    CHECK(full.exit_code == 3);
    CHECK(full.out.find("run-000001.post: field 'crc32'") != std::string::npos);
    CHECK(full.out.find("term 'zebra'") != std::string::npos);
    CHECK(full.out.find("term 'appl'") == std::string::npos);
    const auto lookup = run_invidx(dir, "term " + quoted(dir / "idx") + " zebra");
    CHECK(lookup.exit_code == 3);
    CHECK(lookup.err.find("zebra") != std::string::npos);
    CHECK(run_invidx(dir, "term " + quoted(dir / "idx") + " apples").exit_code == 0);
}

TEST_CASE("every invidx command has --help with an example and the exit codes") {
    TempDir dir;
    for (const std::string command : {"", "stats ", "term ", "doc ", "export-ciff ", "merge ", "weight "}) {
        CAPTURE(command);
        const auto help = run_invidx(dir, command + "--help");
        CHECK(help.exit_code == 0);
        CHECK(help.out.find("Example") != std::string::npos);
        CHECK(help.out.find("3  bad or damaged index") != std::string::npos);
    }
}
