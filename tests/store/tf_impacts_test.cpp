// Impacts that are the tfs (store/tf_impacts.hpp, query.post version 3):
// the bits chosen, every impact equal to its posting's tf and every block
// maximum the block's largest tf; `invidx weight --impacts tf`, `stats` and
// `merge` keeping them; `check --full` passing, and catching layouts forged
// (every CRC made to match) where an impact or a block maximum is not the tf.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/crc32.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "store/tf_impacts.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// "rare": 3 postings, tf 1; "common": every document, tf 1, 2, 3 by turns;
// "heavy": one document, tf `heavy_tf`.
std::vector<std::string> texts(int heavy_tf) {
    std::vector<std::string> out(300);
    for (size_t d = 0; d < out.size(); ++d) {
        out[d] = "common";
        for (size_t r = 0; r < d % 3; ++r) out[d] += " common";
        out[d] += " filler" + std::to_string(d % 7);
        if (d == 5 || d == 50 || d == 100) out[d] += " rare";
    }
    for (int i = 0; i < heavy_tf; ++i) out[42] += " heavy";
    return out;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Every list's impacts against its run-file tfs, and each block maximum against them.
void require_impacts_are_tfs(const fs::path& path) {
    const IndexReader index(path);
    const QueryPostings layout(index);
    REQUIRE(layout.impacts_are_tfs());
    std::vector<uint32_t> impacts(128);
    uint64_t compared = 0;
    uint32_t largest = 0;
    for (uint64_t term = 0; term < index.term_count(); ++term) {
        const auto runs = index.postings(term);
        const auto list = layout.list(term);
        size_t start = 0;
        for (size_t k = 0; k < list.blocks().size(); ++k) {
            const size_t n = list.blocks()[k].postings;
            list.decode_impacts(k, std::span(impacts.data(), n));
            uint32_t block_max = 0;
            for (size_t i = 0; i < n; ++i) {
                REQUIRE(impacts[i] == runs.tfs[start + i]);
                block_max = std::max(block_max, impacts[i]);
            }
            CHECK(list.blocks()[k].max_impact == block_max);
            largest = std::max(largest, block_max);
            start += n;
            compared += n;
        }
    }
    CHECK(compared == index.num_postings());
    CHECK(layout.max_weight() == static_cast<double>(largest));
}

// Writes `bytes` as query.post with its trailing CRC-32, the manifest's entry
// and checksums.bin made to match.
void install(const fs::path& index_dir, std::string bytes) {
    const uint32_t inner = crc32(std::string_view(bytes).substr(0, bytes.size() - 4));
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>((inner >> (8 * i)) & 0xFF);
    std::ofstream(index_dir / "query.post", std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    refresh_checksums(index_dir);
}

// Where term's list starts in query.post (its first block entry).
uint64_t list_begin(const fs::path& index_dir, const std::string& bytes, const std::string& term) {
    const IndexReader index(index_dir);
    const auto found = index.find_term(term);
    REQUIRE(found);
    const uint64_t table = load_u64(bytes.data() + bytes.size() - 12);
    return load_u64(bytes.data() + table + 8 * *found);
}

bool any_mentions(const std::vector<std::string>& problems, const std::string& text) {
    for (const auto& problem : problems) {
        if (problem.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("tf impacts: the fewest bits that hold the largest tf; above 65535 an error") {
    CHECK(tf_impact_bits(0) == 1);
    CHECK(tf_impact_bits(1) == 1);
    CHECK(tf_impact_bits(2) == 2);
    CHECK(tf_impact_bits(3) == 2);
    CHECK(tf_impact_bits(4) == 3);
    CHECK(tf_impact_bits(255) == 8);
    CHECK(tf_impact_bits(256) == 9);
    CHECK(tf_impact_bits(65535) == 16);
    CHECK_THROWS_WITH_AS(tf_impact_bits(65536), doctest::Contains("65535"), Error);
}

TEST_CASE("tf impacts: written through the library, every impact is its tf, check --full passes, merge keeps them") {
    TempDir dir;
    const auto path = build_text_index(dir, texts(40));
    // Made on an index with a BM25-impact layout of another codec: its codec and k1, b are kept.
    merge_runs(path, {.query_codec = "vbyte", .query_parameters = {.k1 = 1.2, .b = 0.75}, .impact_bits = 8});
    CHECK(write_tf_impact_layout(path) == 6);  // 40 → 6 bits
    {
        const IndexReader index(path);
        const QueryPostings layout(index);
        CHECK(layout.impacts_are_tfs());
        CHECK(layout.impact_bits() == 6);
        CHECK(layout.max_weight() == 40.0);
        CHECK(layout.codec().name == "vbyte");
        CHECK(layout.parameters().k1 == 1.2);
        CHECK(layout.parameters().b == 0.75);
    }
    require_impacts_are_tfs(path);
    const auto report = check_index(path, {.full = true});
    CHECK(report.problems == std::vector<std::string>{});

    // A BM25-impact layout stays version 2, impacts not tfs.
    const auto bm25 = dir / "bm25";
    fs::copy(path, bm25, fs::copy_options::recursive);
    merge_runs(bm25, {.query_codec = "bp128", .impact_bits = 8});
    CHECK_FALSE(QueryPostings(IndexReader(bm25)).impacts_are_tfs());
    CHECK(load_u32(read_whole(bm25 / "query.post").data() + 8) == 2);
    CHECK(load_u32(read_whole(path / "query.post").data() + 8) == 3);

    // `invidx merge --layout query` keeps impacts that are tfs.
    const auto merged = run_invidx(dir, "merge " + quoted(path) + " --layout query --codec bp128");
    REQUIRE(merged.exit_code == 0);
    CHECK(merged.out.find("impacts that are tfs kept") != std::string::npos);
    require_impacts_are_tfs(path);
    CHECK(check_index(path, {.full = true}).ok());
}

TEST_CASE("invidx weight --impacts tf: stored, shown by stats, searchable by impact; bad flags refused") {
    TempDir dir;
    const auto path = build_text_index(dir, texts(300));
    const std::string idx = quoted(path);
    // No query layout yet: one is made.
    const auto weighted = run_invidx(dir, "weight " + idx + " --impacts tf");
    REQUIRE(weighted.exit_code == 0);
    CHECK(weighted.out.find("9-bit impacts, largest tf 300") != std::string::npos);
    require_impacts_are_tfs(path);
    CHECK(run_invidx(dir, "check " + idx + " --full").exit_code == 0);

    const auto stats = run_invidx(dir, "stats --format json " + idx);
    REQUIRE(stats.exit_code == 0);
    const auto json = nlohmann::json::parse(stats.out);
    CHECK(json["query_layout"]["impact_bits"] == 9);
    CHECK(json["query_layout"]["impact_source"] == "tf");
    CHECK(run_invidx(dir, "stats " + idx).out.find("9-bit impacts (the tfs)") != std::string::npos);

    // The heaviest document first: its one "heavy" scores 300.
    const auto search = run_invidx(dir, "search --format json " + idx + " heavy common --scoring impact");
    REQUIRE(search.exit_code == 0);
    CHECK(search.out.find("\"d42\"") != std::string::npos);

    CHECK(run_invidx(dir, "weight " + idx + " --impacts tf --bits 8").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --impacts tf --device gpu").exit_code == 2);
    CHECK(run_invidx(dir, "weight " + idx + " --impacts idf").exit_code == 2);
}

TEST_CASE("tf impacts: a tf above 65535 is an error naming the term, and nothing is written") {
    TempDir dir;
    std::vector<std::string> documents = {"small words here", ""};
    for (int i = 0; i < 65536; ++i) documents[1] += "huge ";
    const auto path = build_text_index(dir, documents);
    const std::string before = read_whole(path / "manifest.json");
    CHECK_THROWS_WITH_AS(write_tf_impact_layout(path), doctest::Contains("term 'huge' has tf 65536"), Error);
    CHECK(read_whole(path / "manifest.json") == before);
    const auto weighted = run_invidx(dir, "weight " + quoted(path) + " --impacts tf");
    CHECK(weighted.exit_code != 0);
    CHECK(weighted.err.find("'huge'") != std::string::npos);
}

TEST_CASE("tf impacts, forged (CRCs made to match): check --full names what is not the tf") {
    TempDir dir;
    const auto path = build_text_index(dir, texts(3));  // largest tf 3: 2 bits
    merge_runs(path, {.query_codec = "vbyte", .tf_impacts = true});
    REQUIRE(check_index(path, {.full = true}).ok());
    std::string bytes = read_whole(path / "query.post");
    constexpr uint64_t kEntry = 28;  // version 1's 20 bytes, impact bytes, max_impact

    SUBCASE("a block maximum above its largest tf (still within the bits)") {
        const uint64_t rare = list_begin(path, bytes, "rare");
        REQUIRE(load_u32(bytes.data() + rare + 24) == 1);
        bytes[rare + 24] = 2;
        install(path, bytes);
        CHECK(any_mentions(check_index(path, {.full = true}).problems, "field 'max_impact' is 2 but its postings' largest tf is 1"));
    }
    SUBCASE("an impact that is not its posting's tf (within the block maximum)") {
        // "common": 3 blocks; block 0's impacts follow its docid and tf bytes; posting 0 has tf 1 (vbyte 0x80).
        const uint64_t common = list_begin(path, bytes, "common");
        const uint32_t docid_bytes = load_u32(bytes.data() + common + 4);
        const uint32_t tf_bytes = load_u32(bytes.data() + common + 8);
        const uint64_t impacts = common + 3 * kEntry + docid_bytes + tf_bytes;
        REQUIRE(static_cast<unsigned char>(bytes[impacts]) == 0x80);
        bytes[impacts] = static_cast<char>(0x81);  // impact 2
        install(path, bytes);
        CHECK(any_mentions(check_index(path, {.full = true}).problems, "posting 0 has impact 2 but tf 1"));
    }
    SUBCASE("an impact source that is neither") {
        // Header: magic 8, version 4, block_postings 4, k1 8, b 8, codec (u32 length + "vbyte"), bits 4, max_weight 8.
        const uint64_t source = 8 + 4 + 4 + 8 + 8 + 4 + 5 + 4 + 8;
        REQUIRE(load_u32(bytes.data() + source) == 1);
        bytes[source] = 7;
        install(path, bytes);
        CHECK(any_mentions(check_index(path, {.full = true}).problems, "impact_source"));
        CHECK_THROWS_WITH_AS(QueryPostings(IndexReader(path)), doctest::Contains("7 is not 0 (quantized BM25) or 1 (tf)"),
                             FormatError);
    }
}
