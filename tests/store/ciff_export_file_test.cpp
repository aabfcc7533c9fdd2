// export_ciff_file: never into an index, whole or not at all.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <sys/resource.h>

#include "invidx/error.hpp"
#include "store/ciff_export.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/replacing_file.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// Every file of an index directory and its bytes.
std::map<std::string, std::string> index_files(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = read_file(entry.path());
    return files;
}

std::vector<std::string> partial_files(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& name : entry_names(dir))
        if (name.find(".partial-") != std::string::npos) found.push_back(name);
    return found;
}

// Writes fail past `bytes` (EFBIG) while it lives, as a full disk would.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved_;
        limited.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        std::signal(SIGXFSZ, previous_handler_);
    }

private:
    rlimit saved_{};
    void (*previous_handler_)(int) = nullptr;
};

}  // namespace

TEST_CASE("CIFF export into an index directory is refused and the index stays intact") {
    TempDir dir;
    write_index(make_collection(20, 9), dir / "idx", {.runs = 2});
    fs::create_directory_symlink("idx", dir / "current");
    fs::create_symlink("idx/manifest.json", dir / "manifest-link");
    const auto before = index_files(dir / "idx");
    const invidx::IndexReader index(dir / "idx");
    for (const fs::path target : {dir / "idx" / "runs" / "run-000000.post", dir / "idx" / "dictionary.bin",
                                  dir / "idx" / "manifest.json", dir / "idx" / "export.ciff", dir / "idx",
                                  dir / "current" / "documents.bin", dir / "manifest-link"}) {
        CAPTURE(target);
        CHECK_THROWS_WITH_AS(invidx::export_ciff_file(index, target, "test"),
                             doctest::Contains("refusing to write the CIFF file into the index directory"), invidx::Error);
    }
    CHECK(index_files(dir / "idx") == before);
    CHECK(invidx::check_index(dir / "idx", {.full = true}).ok());
    CHECK(fs::is_symlink(dir / "manifest-link"));
}

TEST_CASE("CIFF export replaces an existing file whole: a new file renamed over it, never truncated") {
    TempDir dir;
    write_index(make_collection(20, 10), dir / "idx", {});
    const invidx::IndexReader index(dir / "idx");
    std::ostringstream expected;
    invidx::export_ciff(index, expected, "test");
    dir.write("out.ciff", "the old export");
    fs::permissions(dir / "out.ciff", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    // A second name for the old file: a truncating writer would change it too.
    fs::create_hard_link(dir / "out.ciff", dir / "old-name.ciff");
    invidx::export_ciff_file(index, dir / "out.ciff", "test");
    CHECK(read_file(dir / "out.ciff") == expected.str());
    CHECK(read_file(dir / "old-name.ciff") == "the old export");
    CHECK(fs::status(dir / "out.ciff").permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(partial_files(dir.path()).empty());
    // Through a link to a file: the file is replaced, the link stays.
    fs::create_symlink("out.ciff", dir / "link.ciff");
    dir.write("out.ciff", "older");
    invidx::export_ciff_file(index, dir / "link.ciff", "test");
    CHECK(fs::is_symlink(dir / "link.ciff"));
    CHECK(read_file(dir / "out.ciff") == expected.str());
}

TEST_CASE("a CIFF export that cannot be written whole leaves no partial file and the old file as it was") {
    TempDir dir;
    write_index(make_collection(200, 11), dir / "idx", {});
    const invidx::IndexReader index(dir / "idx");
    dir.write("out.ciff", "the old export");
    {
        const FileSizeLimit limit(4096);  // a disk that fills after 4 KiB
        CHECK_THROWS_WITH_AS(invidx::export_ciff_file(index, dir / "out.ciff", "test"), doctest::Contains("File too large"),
                             invidx::Error);
        CHECK_THROWS_AS(invidx::export_ciff_file(index, dir / "new.ciff", "test"), invidx::Error);
    }
    CHECK(read_file(dir / "out.ciff") == "the old export");
    CHECK_FALSE(fs::exists(dir / "new.ciff"));
    CHECK(partial_files(dir.path()).empty());
    CHECK_THROWS_WITH_AS(invidx::export_ciff_file(index, dir.path(), "test"), doctest::Contains("is a directory"),
                         invidx::Error);
}

TEST_CASE("a replacing file not committed is removed; the target is untouched until commit") {
    TempDir dir;
    dir.write("target", "old");
    {
        invidx::ReplacingFile file(dir / "target");
        file.stream() << "new";
        CHECK(fs::exists(file.partial()));
        CHECK(read_file(dir / "target") == "old");
    }
    CHECK(read_file(dir / "target") == "old");
    CHECK(partial_files(dir.path()).empty());
    invidx::ReplacingFile file(dir / "target");
    file.stream() << "new";
    file.commit();
    CHECK(read_file(dir / "target") == "new");
    CHECK(partial_files(dir.path()).empty());
}
