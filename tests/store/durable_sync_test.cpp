#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/durable_sync.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

TEST_CASE("sync_files syncs every file and directory it is given, each once") {
    TempDir dir;
    std::vector<fs::path> paths;
    for (int i = 0; i < 40; ++i) {
        paths.push_back(dir / ("f" + std::to_string(i)));
        std::ofstream(paths.back()) << "bytes " << i;
    }
    paths.push_back(dir.path());  // a directory: its names
    const uint64_t calls = invidx::sync_calls();
    const double waited = invidx::sync_wait_seconds();
    invidx::sync_files(paths);
    CHECK(invidx::sync_calls() - calls == paths.size());
    CHECK(invidx::sync_wait_seconds() >= waited);
    invidx::sync_files({});  // nothing to do
    CHECK(invidx::sync_calls() - calls == paths.size());
}

TEST_CASE("sync_files names a file it cannot sync, after syncing the others") {
    TempDir dir;
    std::ofstream(dir / "present") << "x";
    const uint64_t calls = invidx::sync_calls();
    try {
        invidx::sync_files({dir / "present", dir / "missing", dir / "present"});
        FAIL("no error");
    } catch (const invidx::Error& error) {
        const std::string message = error.what();
        CHECK(message.find((dir / "missing").string()) != std::string::npos);
        CHECK(message.find("cannot open to sync") != std::string::npos);
    }
    CHECK(invidx::sync_calls() - calls == 2);
}
