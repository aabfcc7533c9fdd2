// Forged query.post lists (every CRC made to match, so only the layout's own
// checks can notice): what `invidx check --full` rejects, search refuses
// where the check costs O(blocks) per list opened or rides on a block it
// decodes anyway (docs/FORMAT.md, "What is checked when"); what only
// decoding every posting can see, check --full still does.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "query/searcher.hpp"
#include "store/binary_io.hpp"
#include "store/crc32.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// "rare": 3 postings, tf 1 each (cf − df + 1 = 1); "common": every document, tf 1..3.
std::vector<std::string> texts() {
    std::vector<std::string> out(300);
    for (size_t d = 0; d < out.size(); ++d) {
        out[d] = "common";
        for (size_t r = 0; r < d % 3; ++r) out[d] += " common";
        out[d] += " filler" + std::to_string(d % 7);
        if (d == 5 || d == 50 || d == 100) out[d] += " rare";
    }
    return out;
}

// query.post (vbyte: one byte a small value, 0x80 | value) and where a term's list starts.
struct Layout {
    std::string bytes;
    uint64_t list_begin = 0;  // the term's first block entry
};

Layout locate(const fs::path& index_dir, const std::string& term) {
    const IndexReader index(index_dir);
    const auto found = index.find_term(term);
    REQUIRE(found);
    Layout layout{read_whole(index_dir / "query.post"), 0};
    const uint64_t table = load_u64(layout.bytes.data() + layout.bytes.size() - 12);
    layout.list_begin = load_u64(layout.bytes.data() + table + 8 * *found);
    return layout;
}

// Writes `bytes` as query.post with its trailing CRC-32, the manifest's entry
// and checksums.bin made to match.
void install(const fs::path& index_dir, std::string bytes) {
    const uint32_t inner = crc32(std::string_view(bytes).substr(0, bytes.size() - 4));
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>((inner >> (8 * i)) & 0xFF);
    std::ofstream(index_dir / "query.post", std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    refresh_checksums(index_dir);
}

void set_max_tf_part(std::string& bytes, uint64_t entry, double value) {
    const auto bits = std::bit_cast<uint64_t>(value);
    std::memcpy(bytes.data() + entry + 12, &bits, 8);  // little-endian host, as the file
}

std::vector<std::string> check_problems(const fs::path& index_dir) { return check_index(index_dir, {.full = true}).problems; }

bool any_mentions(const std::vector<std::string>& problems, const std::string& text) {
    for (const auto& problem : problems) {
        if (problem.find(text) != std::string::npos) return true;
    }
    return false;
}

fs::path query_index(const TempDir& dir) {
    const auto index_dir = build_text_index(dir, texts());
    merge_runs(index_dir, {.query_codec = "vbyte"});
    REQUIRE(check_index(index_dir, {.full = true}).ok());
    return index_dir;
}

}  // namespace

TEST_CASE("forged query.post: a tf more than the term's cf and df allow is refused by search, not answered") {
    TempDir dir;
    const auto index_dir = query_index(dir);
    auto layout = locate(index_dir, "rare");
    // One block: 20-byte entry, 3 docid bytes, then 3 tf bytes (0x80: tf 1).
    const uint64_t tfs = layout.list_begin + 20 + 3;
    REQUIRE(static_cast<unsigned char>(layout.bytes[tfs + 1]) == 0x80);
    layout.bytes[tfs + 1] = static_cast<char>(0x81);  // tf 2: cf would be 4, not 3
    install(index_dir, layout.bytes);

    CHECK(any_mentions(check_problems(index_dir), "list of term 'rare'"));
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    for (const auto algorithm : {Algorithm::kBlockMaxMaxscore, Algorithm::kBlockMaxWand, Algorithm::kExhaustive}) {
        CAPTURE(static_cast<int>(algorithm));
        CHECK_THROWS_WITH_AS(searcher.search("rare", {.k = 10, .algorithm = algorithm}),
                             doctest::Contains("query.post: list of term 'rare', block 0: tfs"), FormatError);
    }
    CHECK(searcher.search("common", {}).hits.size() == 10);  // other lists still answer
}

TEST_CASE("forged query.post: a block maximum that is no BM25 tf part is refused when the list is opened") {
    TempDir dir;
    const auto index_dir = query_index(dir);
    auto layout = locate(index_dir, "rare");
    double value = 0.0;
    SUBCASE("above k1 + 1") { value = 100.0; }
    SUBCASE("zero") { value = 0.0; }
    CAPTURE(value);
    set_max_tf_part(layout.bytes, layout.list_begin, value);
    install(index_dir, layout.bytes);

    CHECK(any_mentions(check_problems(index_dir), "max_tf_part"));
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    CHECK_THROWS_WITH_AS(searcher.search("rare common", {}), doctest::Contains("max_tf_part"), FormatError);
}

TEST_CASE("forged query.post: what search cannot see cheaply, check --full rejects") {
    TempDir dir;
    const auto index_dir = query_index(dir);
    SUBCASE("a block maximum lowered: pruning would drop documents") {
        auto layout = locate(index_dir, "common");
        set_max_tf_part(layout.bytes, layout.list_begin,
                        std::bit_cast<double>(load_u64(layout.bytes.data() + layout.list_begin + 12)) / 2);
        install(index_dir, layout.bytes);
        CHECK(any_mentions(check_problems(index_dir), "field 'max_tf_part'"));
    }
    SUBCASE("two docid gaps swapped: the block still ends at its last docid") {
        auto layout = locate(index_dir, "rare");
        const uint64_t docids = layout.list_begin + 20;  // gaps − 1: 5, 44, 49
        std::swap(layout.bytes[docids + 1], layout.bytes[docids + 2]);
        install(index_dir, layout.bytes);
        CHECK(any_mentions(check_problems(index_dir), "differs from the run files' postings"));
    }
    SUBCASE("a tf changed within what cf and df allow") {
        auto layout = locate(index_dir, "common");
        const uint32_t docid_bytes = load_u32(layout.bytes.data() + layout.list_begin + 4);
        const uint64_t blocks = (300 + 127) / 128;
        const uint64_t tfs = layout.list_begin + 20 * blocks + docid_bytes;
        layout.bytes[tfs] = static_cast<char>(static_cast<unsigned char>(layout.bytes[tfs]) ^ 0x01);
        install(index_dir, layout.bytes);
        CHECK(any_mentions(check_problems(index_dir), "list of term 'common'"));
    }
}
