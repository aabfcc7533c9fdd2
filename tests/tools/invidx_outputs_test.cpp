// The tools' outputs as users name them: a symbolic link to an index
// (invidx-run --output, merge, weight), export-ciff's FILE, and merge and
// weight interrupted. Nothing is lost, and nothing is left behind.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <sys/wait.h>

#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/spawn_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

std::string tool(const char* name) { return std::string(INVIDX_TOOLS_DIR) + "/" + name; }
std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// invidx-run of a small generated WARC into `output`; its exit code, stderr in build.err.
int run_build(const TempDir& dir, const fs::path& output) {
    if (!fs::exists(dir / "in.warc")) {
        std::mt19937 random(5);
        const auto words = test_vocabulary(random, 500);
        std::string warc;
        for (int i = 0; i < 12; ++i) warc += warc_response("doc-" + std::to_string(i), random_html(random, words, 60));
        dir.write("in.warc", warc);
        dir.write("pipeline.json", standard_pipeline({(dir / "in.warc").string()}, dir / "unused", 1, 1).dump(2));
    }
    SpawnedTool run(tool("invidx-run"), {(dir / "pipeline.json").string(), "--output", output.string(), "--quiet"},
                    dir / "build.err");
    const int status = run.wait();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> leftovers(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& name : entry_names(dir))
        if (name.find(".tmp-") != std::string::npos || name.find(".old-") != std::string::npos ||
            name.find(".partial-") != std::string::npos)
            found.push_back(name);
    return found;
}

void check_full(const TempDir& dir, const fs::path& index) {
    const auto result = run_invidx(dir, "check --full " + quoted(index));
    INFO(result.out << result.err);
    CHECK(result.exit_code == 0);
}

// Starts `invidx ARGS` stopped at "merge:writing" (its temporary directory
// made), signals it and lets it go on; its wait status and stderr.
std::pair<int, std::string> interrupt_rewrite(const TempDir& dir, const std::vector<std::string>& arguments, int signal_number) {
    SpawnedTool run(tool("invidx"), arguments, dir / "rewrite.err", {"INVIDX_TEST_STOP_AT=merge:writing"});
    REQUIRE(run.wait_until_stopped());
    CHECK_FALSE(leftovers(dir.path()).empty());  // the temporary directory, while it works
    run.signal(signal_number);
    run.signal(SIGCONT);
    const int status = run.wait();
    return {status, read_file(dir / "rewrite.err")};
}

}  // namespace

TEST_CASE("invidx-run --output through a link to an index rebuilds that index and keeps the link") {
    TempDir dir;
    write_index(make_collection(30, 1), dir / "idx-v1", {});
    fs::create_directory_symlink("idx-v1", dir / "current");
    REQUIRE(run_build(dir, dir / "current") == 0);
    REQUIRE(fs::is_symlink(dir / "current"));
    CHECK(fs::read_symlink(dir / "current") == "idx-v1");
    CHECK(invidx::IndexReader(dir / "idx-v1").num_documents() == 12);
    check_full(dir, dir / "idx-v1");
    // Locked and published as idx-v1: nothing named after the link.
    CHECK(fs::exists(dir / "idx-v1.lock"));
    CHECK_FALSE(fs::exists(dir / "current.lock"));
    CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("a writer through a link and one through its target conflict: the lock is the real directory's") {
    TempDir dir;
    write_index(make_collection(30, 2), dir / "idx-v1", {});
    fs::create_directory_symlink("idx-v1", dir / "current");
    const std::string before = ciff_bytes(dir / "idx-v1");
    {
        // This process writes idx-v1; the tools, through the link, must wait their turn.
        invidx::IndexWriter writer(dir / "idx-v1", fixture_settings(false), {});
        CHECK(run_build(dir, dir / "current") == 1);
        CHECK(read_file(dir / "build.err").find("another build is writing") != std::string::npos);
        const auto merge = run_invidx(dir, "merge " + quoted(dir / "current"));
        CHECK(merge.exit_code == 3);
        CHECK(merge.err.find("is held by process") != std::string::npos);
    }
    CHECK(ciff_bytes(dir / "idx-v1") == before);
    CHECK(fs::is_symlink(dir / "current"));
}

TEST_CASE("invidx merge and weight through a link rewrite the index it points at and keep the link") {
    TempDir dir;
    write_index(make_collection(40, 3), dir / "idx-v1", {.runs = 3});
    fs::create_directory_symlink("idx-v1", dir / "current");
    const std::string before = ciff_bytes(dir / "idx-v1");
    const auto merge = run_invidx(dir, "merge " + quoted(dir / "current") + " --layout query");
    INFO(merge.err);
    REQUIRE(merge.exit_code == 0);
    REQUIRE(fs::is_symlink(dir / "current"));
    CHECK(invidx::IndexReader(dir / "idx-v1").manifest().runs.size() == 1);
    const auto weight = run_invidx(dir, "weight " + quoted(dir / "current") + " --bits 8");
    INFO(weight.err);
    REQUIRE(weight.exit_code == 0);
    REQUIRE(fs::is_symlink(dir / "current"));
    CHECK(ciff_bytes(dir / "idx-v1") == before);
    check_full(dir, dir / "idx-v1");
    CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("invidx export-ciff into the index is refused with exit 3 and the index passes check --full") {
    TempDir dir;
    write_index(make_collection(30, 4), dir / "idx", {.runs = 2});
    const std::string before = ciff_bytes(dir / "idx");
    for (const std::string inside : {"runs/run-000000.post", "dictionary.bin", "manifest.json", "idx.ciff"}) {
        CAPTURE(inside);
        const auto result = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " " + quoted(dir / "idx" / inside));
        CHECK(result.exit_code == 3);
        CHECK(result.err.find("refusing to write the CIFF file into the index directory") != std::string::npos);
        check_full(dir, dir / "idx");
    }
    CHECK(ciff_bytes(dir / "idx") == before);
}

TEST_CASE("invidx export-ciff replaces an existing file by renaming a new one over it") {
    TempDir dir;
    write_index(make_collection(30, 5), dir / "idx", {});
    dir.write("out.ciff", "the old export");
    fs::create_hard_link(dir / "out.ciff", dir / "old-name.ciff");
    const auto result = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " " + quoted(dir / "out.ciff"));
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(read_file(dir / "old-name.ciff") == "the old export");  // not truncated in place
    const auto again = run_invidx(dir, "export-ciff " + quoted(dir / "idx") + " -");
    CHECK(read_file(dir / "out.ciff") == again.out);
    CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("SIGINT or SIGTERM stops invidx merge and weight: exit 130 or 143, no temporary directory, the index as it was") {
    TempDir dir;
    write_index(make_collection(40, 6), dir / "idx", {.runs = 3});
    const std::string before = ciff_bytes(dir / "idx");
    const auto check_stopped = [&](const std::pair<int, std::string>& outcome, int signal_number, const char* command) {
        const auto& [status, messages] = outcome;
        INFO(messages);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 128 + signal_number);
        CHECK(messages.find(std::string(command) + " interrupted by " + (signal_number == SIGINT ? "SIGINT" : "SIGTERM")) !=
              std::string::npos);
        CHECK(leftovers(dir.path()).empty());
        CHECK(ciff_bytes(dir / "idx") == before);
    };
    for (const int signal_number : {SIGINT, SIGTERM}) {
        CAPTURE(signal_number);
        check_stopped(interrupt_rewrite(dir, {"merge", (dir / "idx").string()}, signal_number), signal_number, "merge");
        CHECK(invidx::IndexReader(dir / "idx").manifest().runs.size() == 3);
    }
    invidx::merge_runs(dir / "idx", {.query_codec = "bp128"});
    const std::string query_post = read_file(dir / "idx" / "query.post");
    for (const int signal_number : {SIGINT, SIGTERM}) {
        CAPTURE(signal_number);
        check_stopped(interrupt_rewrite(dir, {"weight", (dir / "idx").string(), "--bits", "8"}, signal_number), signal_number,
                      "weight");
        CHECK(read_file(dir / "idx" / "query.post") == query_post);  // no impacts stored
    }
    check_full(dir, dir / "idx");
}
