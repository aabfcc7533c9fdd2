#include "nodes/read/input_files.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "tests/support/temp_dir.hpp"

namespace invidx {
namespace {

using testing::TempDir;

// Names the format after the extension, so tests see which path it was given.
std::string detect_by_extension(std::string_view path) {
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? "text" : std::string(path.substr(dot + 1));
}

std::vector<std::string> names_of(const std::vector<InputFile>& files) {
    std::vector<std::string> names;
    for (const auto& file : files) names.push_back(file.name);
    return names;
}

TEST_CASE("a directory is walked recursively in byte-wise order of the full path") {
    TempDir dir;
    // Per-directory order would visit "a/" before "a-b" and "a0"; byte-wise
    // order of full paths puts '-' (0x2d) < '/' (0x2f) < '0' (0x30).
    for (const char* name : {"a0", "a/c/d", "_x", "a/b", "Z/z", "a-b", "B"}) dir.write(name, name);
    const auto files = expand_inputs({InputSpec{dir.path().string()}}, detect_by_extension);
    CHECK(names_of(files) == std::vector<std::string>{"B", "Z/z", "_x", "a-b", "a/b", "a/c/d", "a0"});
    for (size_t i = 0; i < files.size(); ++i) {
        CHECK(files[i].ordinal == i);
        CHECK(files[i].path == (dir.path() / files[i].name).string());
        CHECK(files[i].size_bytes == files[i].name.size());  // each file holds its own name
        CHECK(files[i].format == "text");
    }
}

TEST_CASE("specs are merged into one sorted list without duplicates") {
    TempDir dir;
    dir.write("d/x.trec", "12345");
    dir.write("d/y.warc", "1");
    dir.write("c.jsonl", "{}");
    const auto files = expand_inputs(
        {InputSpec{(dir / "d").string()}, InputSpec{(dir / "d/x.trec").string(), "jsonl"},
         InputSpec{(dir / "c.jsonl").string(), "trec"}},
        detect_by_extension);
    REQUIRE(files.size() == 3);
    CHECK(files[0].path == (dir / "c.jsonl").string());
    CHECK(files[0].name == "c.jsonl");
    CHECK(files[0].format == "trec");  // an explicit format wins over the name
    CHECK(files[1].name == "x.trec");
    CHECK(files[1].format == "trec");  // the first spec naming the file decides
    CHECK(files[1].size_bytes == 5);
    CHECK(files[2].name == "y.warc");
    CHECK(files[2].format == "warc");
    CHECK(files[2].ordinal == 2);
}

TEST_CASE("glob patterns expand to files named by file name and directories keep their own name") {
    TempDir dir;
    dir.write("in/a1.txt", "a");
    dir.write("in/a2.txt", "b");
    dir.write("in/b.txt", "c");
    dir.write("in/a3/inner.txt", "d");
    const auto files = expand_inputs({InputSpec{(dir / "in/a*").string()}}, detect_by_extension);
    CHECK(names_of(files) == std::vector<std::string>{"a1.txt", "a2.txt", "a3/inner.txt"});
    CHECK(files[2].path == (dir / "in/a3/inner.txt").string());
}

TEST_CASE("a path that exists is taken literally even with glob characters") {
    TempDir dir;
    dir.write("x[1].txt", "literal");
    dir.write("x1.txt", "pattern match");
    const auto files = expand_inputs({InputSpec{(dir / "x[1].txt").string()}}, detect_by_extension);
    REQUIRE(files.size() == 1);
    CHECK(files[0].name == "x[1].txt");
}

TEST_CASE("inputs that match nothing are errors naming them") {
    TempDir dir;
    dir.write("present.txt", "x");
    const std::string missing = (dir / "missing.txt").string();
    CHECK_THROWS_WITH_AS(expand_inputs({InputSpec{missing}}, detect_by_extension),
                         doctest::Contains(("input not found: " + missing).c_str()), Error);
    const std::string pattern = (dir / "*.warc").string();
    CHECK_THROWS_WITH_AS(expand_inputs({InputSpec{pattern}}, detect_by_extension),
                         doctest::Contains(("input not found: " + pattern).c_str()), Error);
    std::filesystem::create_directories(dir / "empty");
    CHECK_THROWS_AS(expand_inputs({InputSpec{(dir / "empty").string()}}, detect_by_extension), Error);
}

TEST_CASE("symlink loops, dangling links and special files are skipped") {
    TempDir dir;
    dir.write("root/sub/file.txt", "data");
    std::filesystem::create_directory_symlink("..", dir / "root/sub/up");
    std::filesystem::create_directory_symlink(".", dir / "root/self");
    std::filesystem::create_symlink(dir / "root/nowhere", dir / "root/dangling");
    REQUIRE(::mkfifo((dir / "root/fifo").c_str(), 0600) == 0);
    const auto files = expand_inputs({InputSpec{(dir / "root").string()}}, detect_by_extension);
    CHECK(names_of(files) == std::vector<std::string>{"sub/file.txt"});
}

TEST_CASE("a symlink to a file is read as that file") {
    TempDir dir;
    dir.write("data/real.txt", "abc");
    std::filesystem::create_symlink(dir / "data/real.txt", dir / "data/link.txt");
    const auto files = expand_inputs({InputSpec{(dir / "data").string()}}, detect_by_extension);
    CHECK(names_of(files) == std::vector<std::string>{"link.txt", "real.txt"});
    CHECK(files[0].size_bytes == 3);
}

}  // namespace
}  // namespace invidx
