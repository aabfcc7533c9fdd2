// An output that is a symbolic link to an index (`ln -s idx-v1 current`):
// a writer writes through it, the link stays, and the lock is the real
// directory's.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>

#include "invidx/error.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

bool full_check_passes(const fs::path& index) {
    const auto report = invidx::check_index(index, {.full = true});
    for (const auto& problem : report.problems) MESSAGE(problem);
    return report.ok();
}

// One document, one term, published by exchange or by two renames;
// `before_publish` runs just before publish().
void write_one_document_index(const fs::path& final_dir, bool exchange, const std::function<void()>& before_publish = {}) {
    invidx::IndexWriter writer(final_dir, fixture_settings(false),
                               {{.ordinal = 0, .path = "/data/in.jsonl", .name = "in.jsonl", .format = "jsonl", .size_bytes = 9}},
                               {.notice = [](const std::string&) {}, .at_step = {}, .exchange = exchange});
    invidx::RunPostings postings{.run = 0, .indexer = 0, .indexer_count = 1, .lists = {}, .positional = false,
                                 .end_of_input = true, .documents = {}};
    postings.lists.push_back({.slot = 0, .docids = {0}, .tfs = {1}, .positions = {}});
    writer.write_run(0, {invidx::run_list::encode_run(postings)});
    writer.append_documents({{.name = "new", .length = 1, .file_ordinal = 0, .source_offset = 0}});
    writer.write_dictionary({{.term = "t", .collection = 0, .df = 1, .cf = 1, .lists = {{0, 0, 0}}}});
    if (before_publish) before_publish();
    writer.publish();
}

}  // namespace

TEST_CASE("publishing through a link to an index replaces that index in place and keeps the link") {
    for (const bool exchange : {true, false}) {
        CAPTURE(exchange);
        TempDir dir;
        write_index(make_collection(10, 1), dir / "idx-v1", {});
        fs::create_directory_symlink("idx-v1", dir / "current");
        write_one_document_index(dir / "current", exchange);
        REQUIRE(fs::is_symlink(dir / "current"));
        CHECK(fs::read_symlink(dir / "current") == "idx-v1");
        CHECK(invidx::IndexReader(dir / "idx-v1").num_documents() == 1);
        CHECK(invidx::IndexReader(dir / "current").num_documents() == 1);
        CHECK(full_check_passes(dir / "idx-v1"));
        // Locked and published as idx-v1: nothing named after the link.
        CHECK(entry_names(dir.path()) == std::vector<std::string>({"current", "idx-v1", "idx-v1.lock"}));
    }
}

TEST_CASE("a link to an index not built yet: the index is built at its target") {
    TempDir dir;
    fs::create_directory_symlink("idx-v2", dir / "next");
    write_index(make_collection(4, 3), dir / "next", {});
    REQUIRE(fs::is_symlink(dir / "next"));
    CHECK(fs::is_directory(fs::symlink_status(dir / "idx-v2")));
    CHECK(invidx::IndexReader(dir / "next").num_documents() == 4);
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx-v2", "idx-v2.lock", "next"}));
}

TEST_CASE("a writer through a link and one through its target take one lock") {
    TempDir dir;
    write_index(make_collection(3, 4), dir / "idx-v1", {});
    fs::create_directory_symlink("idx-v1", dir / "current");
    const std::string held = "is held by process " + std::to_string(::getpid());
    {
        invidx::IndexWriter through_link(dir / "current", fixture_settings(false), {});
        CHECK_THROWS_WITH_AS(invidx::IndexWriter(dir / "idx-v1", fixture_settings(false), {}), doctest::Contains(held.c_str()),
                             invidx::Error);
    }
    invidx::IndexWriter direct(dir / "idx-v1", fixture_settings(false), {});
    CHECK_THROWS_WITH_AS(invidx::IndexWriter(dir / "current", fixture_settings(false), {}), doctest::Contains(held.c_str()),
                         invidx::Error);
}

TEST_CASE("merge through a link rewrites the index it points at and keeps the link") {
    TempDir dir;
    write_index(make_collection(30, 5), dir / "idx-v1", {.runs = 3});
    fs::create_directory_symlink("idx-v1", dir / "current");
    const std::string before = ciff_bytes(dir / "idx-v1");
    invidx::merge_runs(dir / "current", {.query_codec = "bp128"});
    REQUIRE(fs::is_symlink(dir / "current"));
    CHECK(invidx::IndexReader(dir / "idx-v1").manifest().runs.size() == 1);
    CHECK(ciff_bytes(dir / "idx-v1") == before);
    CHECK(full_check_passes(dir / "idx-v1"));
    // weight's rewrite: impacts stored the same way.
    invidx::merge_runs(dir / "current", {.query_codec = "bp128", .impact_bits = 8});
    REQUIRE(fs::is_symlink(dir / "current"));
    CHECK(full_check_passes(dir / "idx-v1"));
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"current", "idx-v1", "idx-v1.lock"}));
}

TEST_CASE("a link named like a writer's leftover is not followed when leftovers are removed") {
    TempDir dir;
    write_index(make_collection(6, 6), dir / "other", {});
    write_index(make_collection(3, 7), dir / "idx", {});
    fs::create_directory_symlink("other", dir / "idx.tmp-77-0");
    fs::create_directory_symlink("other", dir / "idx.old-77-1");
    write_index(make_collection(2, 8), dir / "idx", {});
    CHECK(invidx::IndexReader(dir / "other").num_documents() == 6);
    CHECK(full_check_passes(dir / "other"));
    CHECK(invidx::IndexReader(dir / "idx").num_documents() == 2);
}

TEST_CASE("an output that becomes a link while the index is built is refused at publish, its target untouched") {
    for (const bool exchange : {true, false}) {
        CAPTURE(exchange);
        TempDir dir;
        write_index(make_collection(6, 9), dir / "idx", {});
        write_index(make_collection(5, 10), dir / "other", {});
        const std::string other = ciff_bytes(dir / "other");
        CHECK_THROWS_WITH_AS(write_one_document_index(dir / "idx", exchange,
                                                      [&] {
                                                          fs::rename(dir / "idx", dir / "idx-moved");
                                                          fs::create_directory_symlink("other", dir / "idx");
                                                      }),
                             doctest::Contains("became a symbolic link"), invidx::Error);
        CHECK(fs::is_symlink(dir / "idx"));
        CHECK(ciff_bytes(dir / "other") == other);
        CHECK(full_check_passes(dir / "other"));
        CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx-moved", "idx.lock", "other", "other.lock"}));
    }
}
