#include <doctest/doctest.h>

#include <filesystem>

#include "invidx/error.hpp"
#include "store/index_fixture.hpp"
#include "store/output_path.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

TEST_CASE("an output path without links comes back as given, lexically normal") {
    TempDir dir;
    CHECK(invidx::resolve_output_path(dir / "a" / "." / "idx") == dir / "a" / "idx");
    CHECK(invidx::resolve_output_path((dir / "idx").string() + "/") == dir / "idx");
    CHECK(invidx::resolve_output_path("relative/idx") == fs::path("relative/idx"));
}

TEST_CASE("an output path is followed through links, a dangling last one included") {
    TempDir dir;
    const fs::path real = fs::weakly_canonical(dir.path());
    fs::create_directory(dir / "idx-v1");
    fs::create_directory_symlink("idx-v1", dir / "current");
    CHECK(invidx::resolve_output_path(dir / "current") == real / "idx-v1");
    // A link to an index still to be built: its target is where it goes.
    fs::create_directory_symlink("idx-v2", dir / "next");
    CHECK(invidx::resolve_output_path(dir / "next") == real / "idx-v2");
    // Links to links, and a link above the last component.
    fs::create_directory_symlink(dir / "next", dir / "next-next");
    CHECK(invidx::resolve_output_path(dir / "next-next") == real / "idx-v2");
    fs::create_directory(dir / "data");
    fs::create_directory_symlink("data", dir / "data-link");
    CHECK(invidx::resolve_output_path(dir / "data-link" / "idx") == real / "data" / "idx");
    fs::create_directory_symlink("loop-b", dir / "loop-a");
    fs::create_directory_symlink("loop-a", dir / "loop-b");
    CHECK_THROWS_WITH_AS(invidx::resolve_output_path(dir / "loop-a"), doctest::Contains("too many levels of symbolic links"),
                         invidx::Error);
}

TEST_CASE("the index a path lies in is found through links") {
    TempDir dir;
    write_index(make_collection(5, 3), dir / "idx", {});
    fs::create_directory_symlink("idx", dir / "current");
    const fs::path index = fs::weakly_canonical(dir / "idx");
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "idx" / "manifest.json")) == index);
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "idx" / "runs" / "run-000000.post")) == index);
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "idx" / "new.ciff")) == index);
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "idx")) == index);
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "current" / "dictionary.bin")) == index);
    fs::create_symlink("idx/dictionary.bin", dir / "dictionary-link");
    CHECK(fs::weakly_canonical(invidx::enclosing_index(dir / "dictionary-link")) == index);
    CHECK(invidx::enclosing_index(dir / "idx.ciff").empty());
    CHECK(invidx::enclosing_index(dir / "elsewhere" / "idx.ciff").empty());
}
