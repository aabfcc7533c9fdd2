// Lazy verification on an index of many blocks: open reads a few, a lookup
// the blocks of its term, damage fails where it is read (naming the term),
// and check_index finds every damaged block and term.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/damage.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kBlock = invidx::layout::kChecksumBlockBytes;

// One run, one indexer: every term's list in runs/run-000000.post.
const Collection& large_collection() {
    static const Collection collection = make_collection(60000, 11);
    return collection;
}

void write_large_index(const fs::path& dir) {
    write_index(large_collection(), dir, {.runs = 1, .indexers = 1, .positional = false, .report = {}, .publish = true});
}

uint64_t index_bytes(const fs::path& dir) {
    uint64_t total = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) total += entry.is_regular_file() ? entry.file_size() : 0;
    return total;
}

struct ListBytes {
    uint64_t offset = 0;
    uint64_t length = 0;
};

// Where term `term`'s list lies in the run file (docs/FORMAT.md: the part
// descriptor's table offset, then 20 bytes per slot).
ListBytes list_bytes(const fs::path& dir, const invidx::IndexReader& index, const std::string& term) {
    const auto refs = index.partial_lists(*index.find_term(term));
    REQUIRE(refs.size() == 1);
    const std::string run = read_whole(dir / invidx::layout::run_file_name(0));
    const uint64_t table = invidx::load_u64(run.data() + invidx::layout::kRunHeaderBytes + 8);
    const char* entry = run.data() + table + invidx::layout::kListEntryBytes * refs[0].slot;
    return {invidx::load_u64(entry), invidx::load_u64(entry + 8)};
}

bool mentions(const invidx::IndexCheckReport& report, const std::string& text) {
    for (const auto& problem : report.problems) {
        if (problem.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("opening an index and looking up one term verifies a few blocks, not the index") {
    TempDir dir;
    write_large_index(dir / "idx");
    const uint64_t total = index_bytes(dir / "idx");
    REQUIRE(total > 40 * kBlock);  // big enough that "a few blocks" means something
    const invidx::IndexReader index(dir / "idx");
    CHECK(index.verifies_lazily());
    // Headers and footers: the first block of each binary file, documents.bin's last.
    CHECK(index.bytes_verified() <= 5 * kBlock);
    const auto term = index.find_term("mm");  // a rare term (the fixture picks late words seldom)
    REQUIRE(term);
    const auto list = index.postings(*term);
    CHECK(list.docids.size() == large_collection().postings.at("mm").size());
    const uint64_t list_length = list_bytes(dir / "idx", index, "mm").length;
    CHECK(index.bytes_verified() <= 7 * kBlock + list_length);
    CHECK(index.bytes_verified() * 4 < total);
    (void)index.document(1234);
    CHECK(index.bytes_verified() <= 9 * kBlock + list_length);
}

TEST_CASE("flipped bytes in one list: that term's lookup names the file and the term, the others answer") {
    TempDir dir;
    write_large_index(dir / "idx");
    std::string damaged_term, healthy_term;
    uint64_t flip_at = 0;
    {
        const invidx::IndexReader index(dir / "idx");
        // The longest list past block 0 is damaged; a term whose list shares
        // no block with that byte must still answer.
        uint64_t longest = 0;
        for (const auto& [term, postings] : large_collection().postings) {
            const auto where = list_bytes(dir / "idx", index, term);
            // Past block 0, which open reads (the header and mapping table).
            const uint64_t at = std::max(where.offset + where.length / 2, kBlock + 100);
            if (at < where.offset + where.length && where.length > longest) {
                longest = where.length;
                damaged_term = term;
                flip_at = at;
            }
        }
        for (const auto& [term, postings] : large_collection().postings) {
            const auto where = list_bytes(dir / "idx", index, term);
            if (term != damaged_term && where.offset / kBlock > flip_at / kBlock) healthy_term = term;
            if (term != damaged_term && (where.offset + where.length) / kBlock < flip_at / kBlock) healthy_term = term;
        }
        REQUIRE(flip_at / kBlock > 0);  // not the header's block, which open reads
    }
    REQUIRE_FALSE(healthy_term.empty());
    const auto run_file = dir / "idx" / invidx::layout::run_file_name(0);
    flip_byte(run_file, flip_at);

    const invidx::IndexReader index(dir / "idx");  // opens: the damage is not in what open reads
    CAPTURE(damaged_term);
    CHECK_THROWS_WITH_AS(index.postings(*index.find_term(damaged_term)),
                         doctest::Contains(("term '" + damaged_term + "'").c_str()), invidx::FormatError);
    CHECK_THROWS_WITH_AS(index.postings(*index.find_term(damaged_term)), doctest::Contains("run-000000.post"), invidx::FormatError);
    CHECK_THROWS_WITH_AS(index.postings(*index.find_term(damaged_term)),
                         doctest::Contains(("block " + std::to_string(flip_at / kBlock)).c_str()), invidx::FormatError);
    const auto healthy = index.postings(*index.find_term(healthy_term));
    const auto& expected = large_collection().postings.at(healthy_term);
    REQUIRE(healthy.docids.size() == expected.size());
    for (size_t k = 0; k < expected.size(); ++k) CHECK(healthy.docids[k] == expected[k].docid);

    // check finds the block, and --full the term as well.
    const auto quick = invidx::check_index(dir / "idx", {.full = false});
    CHECK_FALSE(quick.ok());
    CHECK(mentions(quick, "block " + std::to_string(flip_at / kBlock) + " ("));
    CHECK(quick.terms == 0);
    const auto full = invidx::check_index(dir / "idx", {.full = true});
    CHECK(mentions(full, "term '" + damaged_term + "'"));
    CHECK_FALSE(mentions(full, "term '" + healthy_term + "'"));
    CHECK(full.terms == large_collection().postings.size());
    CHECK(full.documents == large_collection().docs.size());
}

TEST_CASE("check_index names every damaged block of every file, not the first") {
    TempDir dir;
    write_large_index(dir / "idx");
    CHECK(invidx::check_index(dir / "idx", {.full = true}).ok());
    const auto documents = dir / "idx" / "documents.bin";
    const auto run = dir / "idx" / invidx::layout::run_file_name(0);
    REQUIRE(fs::file_size(documents) > 4 * kBlock);
    flip_byte(documents, 2 * kBlock + 9);
    flip_byte(documents, 3 * kBlock + 9);
    flip_byte(run, fs::file_size(run) - kBlock / 2);
    uint64_t progress_calls = 0;
    const auto report = invidx::check_index(dir / "idx", {.full = true, .progress = [&](const invidx::CheckProgress&) { ++progress_calls; }, .max_listed = 1000});
    CHECK(report.opened);
    CHECK(mentions(report, "documents.bin: block 2 ("));
    CHECK(mentions(report, "documents.bin: block 3 ("));
    CHECK(mentions(report, "run-000000.post: block " + std::to_string((fs::file_size(run) - kBlock / 2) / kBlock) + " ("));
    CHECK(mentions(report, "(document "));  // records in the damaged blocks
    CHECK(progress_calls > 3);
}

TEST_CASE("an index without checksums.bin opens, reads back, and is verified whole at open") {
    TempDir dir;
    write_large_index(dir / "idx");
    drop_checksums(dir / "idx");
    {
        const invidx::IndexReader index(dir / "idx");
        CHECK_FALSE(index.verifies_lazily());
        const auto list = index.postings(*index.find_term("apple"));
        CHECK(list.docids.size() == large_collection().postings.at("apple").size());
    }
    const auto report = invidx::check_index(dir / "idx", {.full = true});
    CHECK(report.ok());
    CHECK_FALSE(report.block_checksums);
    // Damage anywhere is found at open, as before block checksums.
    flip_byte(dir / "idx" / "documents.bin", 3 * kBlock + 1);
    CHECK_THROWS_WITH_AS(invidx::IndexReader(dir / "idx"), doctest::Contains("documents.bin"), invidx::FormatError);
    CHECK(mentions(invidx::check_index(dir / "idx", {.full = false}), "documents.bin"));
}

TEST_CASE("INVIDX_VERIFY_ALL_AT_OPEN=1 verifies every file whole at open") {
    TempDir dir;
    write_large_index(dir / "idx");
    flip_byte(dir / "idx" / "documents.bin", 3 * kBlock + 1);
    CHECK_NOTHROW(invidx::IndexReader(dir / "idx"));
    ::setenv("INVIDX_VERIFY_ALL_AT_OPEN", "1", 1);
    CHECK_THROWS_WITH_AS(invidx::IndexReader(dir / "idx"), doctest::Contains("documents.bin"), invidx::FormatError);
    ::unsetenv("INVIDX_VERIFY_ALL_AT_OPEN");
}

TEST_CASE("checksums.bin must cover exactly the files of the manifest") {
    TempDir dir;
    write_index(make_collection(30, 12), dir / "idx", {.runs = 2, .indexers = 1, .positional = false, .report = {}, .publish = true});
    SUBCASE("damaged checksums.bin") {
        flip_byte(dir / "idx" / "checksums.bin", 20);
        CHECK_THROWS_WITH_AS(invidx::IndexReader(dir / "idx"), doctest::Contains("checksums.bin"), invidx::FormatError);
        CHECK(mentions(invidx::check_index(dir / "idx"), "checksums.bin"));
    }
    SUBCASE("a file the manifest lists but checksums.bin does not") {
        dir.write("idx/extra.bin", "extra bytes");
        auto manifest = nlohmann::json::parse(read_whole(dir / "idx" / "manifest.json"));
        manifest["files"].push_back({{"path", "extra.bin"}, {"size_bytes", 11}, {"crc32", invidx::crc32("extra bytes")}});
        write_manifest(dir / "idx", manifest);
        CHECK_THROWS_WITH_AS(invidx::IndexReader(dir / "idx"), doctest::Contains("no block checksums for extra.bin"), invidx::FormatError);
        CHECK(mentions(invidx::check_index(dir / "idx"), "extra.bin"));
    }
}
