#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "invidx/error.hpp"
#include "store/durable_sync.hpp"
#include "store/index_reader.hpp"
#include "store/index_fixture.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

invidx::CompressedRun one_list_part(uint32_t run, uint32_t indexer, std::vector<uint32_t> docids) {
    invidx::RunPostings postings{.run = run, .indexer = indexer, .indexer_count = 1, .lists = {}, .positional = false, .end_of_input = false, .documents = {}};
    std::vector<uint32_t> tfs(docids.size(), 1);
    postings.lists.push_back({.slot = 0, .docids = std::move(docids), .tfs = std::move(tfs), .positions = {}});
    return invidx::run_list::encode_run(postings);
}

// A writer of one small index (one run, one document, one term) into `final_dir`.
void write_small_index(const fs::path& final_dir, invidx::PublishOptions options) {
    invidx::IndexWriter writer(final_dir, fixture_settings(false), {}, std::move(options));
    writer.write_run(0, {one_list_part(0, 0, {0})});
    writer.append_documents({{.name = "new", .length = 1, .file_ordinal = 0, .source_offset = 0}});
    writer.write_dictionary({{.term = "t", .collection = 0, .df = 1, .cf = 1, .lists = {{0, 0, 0}}}});
    writer.publish();
}

std::vector<fs::path> siblings_tagged(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> found;
    for (const auto& name : entry_names(dir))
        if (name.starts_with(prefix)) found.push_back(dir / name);
    return found;
}

}  // namespace

TEST_CASE("a durable index is synced once, at publish, all files at once; a part that is not durable is not") {
    TempDir dir;
    for (const bool durable : {true, false}) {
        CAPTURE(durable);
        const fs::path final_dir = dir / (durable ? "durable" : "part");
        const uint64_t at_start = invidx::sync_calls();
        invidx::IndexWriter writer(final_dir, fixture_settings(false), {}, {.durable = durable});
        writer.write_run(0, {one_list_part(0, 0, {0})});  // not synced here: its writeback starts, publish syncs it
        writer.append_documents({{.name = "d", .length = 1, .file_ordinal = 0, .source_offset = 0}});
        writer.write_dictionary({{.term = "t", .collection = 0, .df = 1, .cf = 1, .lists = {{0, 0, 0}}}});
        writer.write_report({{"format", "invidx build report"}});
        CHECK(invidx::sync_calls() - at_start == 0);
        const uint64_t before_publish = invidx::sync_calls();
        writer.publish();
        // The run file, documents.bin, dictionary.bin, report.json,
        // checksums.bin, manifest.json, runs/ and the index directory, then
        // its parent after the rename.
        CHECK(invidx::sync_calls() - before_publish == (durable ? 9u : 0u));
        const invidx::IndexReader index(final_dir);
        CHECK(index.num_documents() == 1);
    }
}

TEST_CASE("nothing appears at the final directory before publish") {
    TempDir dir;
    const auto collection = make_collection(10, 11);
    write_index(collection, dir / "idx", {.runs = 2, .indexers = 2, .positional = false, .report = {}, .publish = false});
    // The writer is gone unpublished: no index and no temporary directory.
    CHECK_FALSE(fs::exists(dir / "idx"));
    CHECK(entry_names(dir.path()) == std::vector<std::string>{"idx.lock"});  // the lock file stays
}

TEST_CASE("the writer works in a temporary directory beside the final one") {
    TempDir dir;
    invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {});
    const auto temp = writer.temporary_directory();
    CHECK(temp.parent_path() == dir.path());
    CHECK(temp.filename().string().starts_with("idx.tmp-"));
    CHECK(fs::is_directory(temp));
    writer.write_run(0, {one_list_part(0, 0, {0})});
    writer.append_documents({{.name = "d", .length = 1, .file_ordinal = 0, .source_offset = 0}});
    writer.write_dictionary({{.term = "t", .collection = 0, .df = 1, .cf = 1, .lists = {{0, 0, 0}}}});
    CHECK_FALSE(fs::exists(dir / "idx"));
    writer.publish();
    CHECK(fs::exists(dir / "idx" / "manifest.json"));
    CHECK_FALSE(fs::exists(temp));
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock"}));
}

TEST_CASE("publish replaces an invidx index or an empty directory, nothing else") {
    TempDir dir;
    const auto first = make_collection(10, 12);
    const auto second = make_collection(15, 13);

    SUBCASE("existing index is replaced") {
        write_index(first, dir / "idx", {});
        write_index(second, dir / "idx", {});
        const invidx::IndexReader index(dir / "idx");
        CHECK(index.num_documents() == 15);
        CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock"}));  // old one deleted
    }
    SUBCASE("empty directory is replaced") {
        fs::create_directory(dir / "idx");
        write_index(first, dir / "idx", {});
        CHECK(invidx::IndexReader(dir / "idx").num_documents() == 10);
    }
    SUBCASE("a directory with other files is refused and left alone") {
        dir.write("idx/notes.txt", "mine");
        CHECK_THROWS_WITH_AS(write_index(first, dir / "idx", {}), doctest::Contains("refusing to overwrite"), invidx::Error);
        CHECK(read_file(dir / "idx" / "notes.txt") == "mine");
        CHECK(entry_names(dir.path()) == std::vector<std::string>{"idx"});
    }
    SUBCASE("a regular file is refused") {
        dir.write("idx", "plain");
        CHECK_THROWS_WITH_AS(write_index(first, dir / "idx", {}), doctest::Contains("not an invidx index"), invidx::Error);
        CHECK(read_file(dir / "idx") == "plain");
    }
    SUBCASE("a directory that became foreign while writing is refused at publish") {
        invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {});
        writer.write_dictionary({});
        dir.write("idx/other.txt", "appeared meanwhile");
        CHECK_THROWS_WITH_AS(writer.publish(), doctest::Contains("refusing to overwrite"), invidx::Error);
        CHECK(read_file(dir / "idx" / "other.txt") == "appeared meanwhile");
    }
}

TEST_CASE("an unwritable location is an error naming the directory") {
    TempDir dir;
    dir.write("blocker", "a file, not a directory");
    CHECK_THROWS_WITH_AS(invidx::IndexWriter(dir / "blocker" / "idx", fixture_settings(false), {}),
                         doctest::Contains("blocker/idx"), invidx::Error);
}

TEST_CASE("the writer rejects inconsistent input") {
    TempDir dir;
    invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {});
    writer.write_run(0, {one_list_part(0, 0, {0, 1})});

    SUBCASE("same run twice") {
        CHECK_THROWS_WITH_AS(writer.write_run(0, {one_list_part(0, 0, {2})}), doctest::Contains("twice"), invidx::Error);
    }
    SUBCASE("part of another run") {
        CHECK_THROWS_WITH_AS(writer.write_run(1, {one_list_part(5, 0, {2})}), doctest::Contains("run 5"), invidx::Error);
    }
    SUBCASE("two parts of one indexer") {
        CHECK_THROWS_WITH_AS(writer.write_run(1, {one_list_part(1, 0, {2}), one_list_part(1, 0, {3})}),
                             doctest::Contains("two parts"), invidx::Error);
    }
    SUBCASE("offsets that do not cover the bytes") {
        auto part = one_list_part(1, 0, {2});
        part.list_offsets.back() += 1;
        CHECK_THROWS_AS(writer.write_run(1, {part}), invidx::Error);
    }
    SUBCASE("a pointer to a slot that was never written") {
        CHECK_THROWS_WITH_AS(writer.write_dictionary({{.term = "t", .collection = 0, .df = 2, .cf = 2, .lists = {{0, 0, 1}}}}),
                             doctest::Contains("slot 1"), invidx::Error);
    }
    SUBCASE("df that disagrees with the lists") {
        CHECK_THROWS_WITH_AS(writer.write_dictionary({{.term = "t", .collection = 0, .df = 3, .cf = 3, .lists = {{0, 0, 0}}}}),
                             doctest::Contains("df 3"), invidx::Error);
    }
    SUBCASE("the same term twice") {
        CHECK_THROWS_WITH_AS(writer.write_dictionary({{.term = "t", .collection = 0, .df = 2, .cf = 2, .lists = {{0, 0, 0}}},
                                                      {.term = "t", .collection = 0, .df = 0, .cf = 0, .lists = {}}}),
                             doctest::Contains("twice"), invidx::Error);
    }
    SUBCASE("publish without a dictionary") {
        CHECK_THROWS_WITH_AS(writer.publish(), doctest::Contains("write_dictionary"), invidx::Error);
    }
    SUBCASE("runs with postings the dictionary does not point at") {
        writer.write_dictionary({});
        CHECK_THROWS_WITH_AS(writer.publish(), doctest::Contains("runs hold 2"), invidx::Error);
    }
    CHECK_FALSE(fs::exists(dir / "idx"));
}

TEST_CASE("a second writer into the same directory fails at once naming the first one's pid") {
    TempDir dir;
    invidx::IndexWriter first(dir / "idx", fixture_settings(false), {});
    CHECK_THROWS_WITH_AS(invidx::IndexWriter(dir / "idx", fixture_settings(false), {}),
                         doctest::Contains(("is held by process " + std::to_string(::getpid())).c_str()), invidx::Error);
    CHECK(fs::is_directory(first.temporary_directory()));  // the first one's work is untouched
    // Another directory beside it is another lock.
    CHECK_NOTHROW(invidx::IndexWriter(dir / "idx2", fixture_settings(false), {}));
}

TEST_CASE("the lock goes with its writer") {
    TempDir dir;
    { invidx::IndexWriter first(dir / "idx", fixture_settings(false), {}); }
    CHECK_NOTHROW(invidx::IndexWriter(dir / "idx", fixture_settings(false), {}));
}

TEST_CASE("a writer removes what killed writers left beside its directory") {
    TempDir dir;
    write_index(make_collection(10, 12), dir / "idx", {});
    {
        TempDir elsewhere;
        write_index(make_collection(4, 13), elsewhere / "old", {});
        fs::rename(elsewhere / "old", dir / "idx.old-77-1");  // killed before removing the old index
    }
    dir.write("idx.tmp-76-0/runs/run-000000.post", "half written");  // killed while building
    dir.write("idx.tmp-x-0/mine.txt", "not a writer's name");
    dir.write("idx2.tmp-75-0/mine.txt", "another output's");
    std::vector<std::string> notices;
    {
        invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {},
                                   {.notice = [&](const std::string& line) { notices.push_back(line); }, .at_step = {}, .exchange = true});
    }
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock", "idx.tmp-x-0", "idx2.tmp-75-0"}));
    CHECK(invidx::IndexReader(dir / "idx").num_documents() == 10);
    REQUIRE(notices.size() == 2);
    CHECK(notices[0].find("idx.old-77-1") != std::string::npos);
    CHECK(notices[0].find("process 77") != std::string::npos);
    CHECK(notices[1].find("idx.tmp-76-0") != std::string::npos);
    CHECK(notices[1].find("did not finish") != std::string::npos);
}

TEST_CASE("a writer restores the old index a writer killed between its two renames left aside") {
    TempDir dir;
    write_index(make_collection(10, 12), dir / "idx", {});
    fs::rename(dir / "idx", dir / "idx.old-77-3");
    dir.write("idx.tmp-77-2/manifest.json", "{}");  // the new one, never renamed in
    std::vector<std::string> notices;
    {
        invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {},
                                   {.notice = [&](const std::string& line) { notices.push_back(line); }, .at_step = {}, .exchange = true});
        // Restored before any work: a build that then fails leaves the old index.
    }
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock"}));
    CHECK(invidx::IndexReader(dir / "idx").num_documents() == 10);
    REQUIRE(notices.size() == 2);
    CHECK(notices[0].find("restored") != std::string::npos);
    CHECK(notices[0].find("idx.old-77-3") != std::string::npos);
}

TEST_CASE("publishing over an index: a complete index at the final path at every step") {
  for (const bool exchange : {true, false}) {
    CAPTURE(exchange);
    TempDir dir;
    write_index(make_collection(10, 12), dir / "idx", {});
    std::vector<std::string> steps;
    const auto check_step = [&](const std::string& step) {
        CAPTURE(step);
        steps.push_back(step);
        const auto old_aside = siblings_tagged(dir.path(), "idx.old-");
        const auto temporary = siblings_tagged(dir.path(), "idx.tmp-");
        if (step == "publish:1") {
            CHECK(invidx::IndexReader(dir / "idx").num_documents() == 10);
            REQUIRE(temporary.size() == 1);
            CHECK(invidx::IndexReader(temporary[0]).num_documents() == 1);
        } else if (step == "publish:2") {
            // Two renames only: the old index complete under the name the next writer restores.
            CHECK_FALSE(fs::exists(dir / "idx"));
            REQUIRE(old_aside.size() == 1);
            CHECK(invidx::IndexReader(old_aside[0]).num_documents() == 10);
        } else if (step == "publish:3") {
            CHECK(invidx::IndexReader(dir / "idx").num_documents() == 1);
            REQUIRE(old_aside.size() + temporary.size() == 1);  // the old one, not yet removed
            CHECK(invidx::IndexReader(old_aside.empty() ? temporary[0] : old_aside[0]).num_documents() == 10);
        }
    };
    write_small_index(dir / "idx", {.notice = {}, .at_step = check_step, .exchange = exchange});
    if (exchange) CHECK((steps == std::vector<std::string>{"publish:1", "publish:3"} ||
                         steps == std::vector<std::string>{"publish:1", "publish:2", "publish:3"}));  // no RENAME_EXCHANGE here
    else CHECK(steps == std::vector<std::string>{"publish:1", "publish:2", "publish:3"});
    CHECK(invidx::IndexReader(dir / "idx").num_documents() == 1);
    CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock"}));
  }
}
