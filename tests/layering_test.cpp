// The source folders are layers, and a layer includes only the layers below
// it: public types (include/invidx) at the bottom, then the analyzer and the
// on-disk format, the engine, device code, node kinds, queries, and the
// standard pipelines on top. Checked on the sources so that a stray include
// fails here instead of tangling the next refactoring.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

// Folder -> the folders its files may include (itself included).
const std::map<std::string, std::set<std::string>>& allowed_includes() {
    static const std::map<std::string, std::set<std::string>> allowed = {
        {"include", {"invidx"}},
        {"analysis", {"invidx", "analysis"}},
        // The term dictionaries' flat structures, host and device alike: the
        // store builds them from an index's dictionary, kernels look terms up.
        {"lexicon", {"invidx", "lexicon"}},
        {"store", {"invidx", "lexicon", "store"}},
        {"graph", {"invidx", "graph"}},
        // Device code runs the analyzer's shared host/device functions (the
        // byte classes, stop words, the stemmer) so GPU analysis equals the CPU's.
        {"devices", {"invidx", "analysis", "lexicon", "devices"}},
        {"nodes", {"invidx", "analysis", "lexicon", "store", "graph", "devices", "nodes"}},
        {"query", {"invidx", "analysis", "lexicon", "store", "devices", "query"}},
        {"pipelines", {"invidx", "analysis", "lexicon", "store", "graph", "devices", "nodes", "pipelines"}},
        // Scoring runs against relevance judgments (invidx eval): text files only.
        {"evaluation", {"invidx", "evaluation"}},
    };
    return allowed;
}

bool is_source(const fs::path& path) {
    static const std::set<std::string> extensions = {".cpp", ".hpp", ".cu", ".cuh"};
    return extensions.count(path.extension().string()) > 0;
}

}  // namespace

TEST_CASE("layers include only the layers below them") {
    const fs::path root = INVIDX_SOURCE_DIR;
    const std::regex include_line(R"(^\s*#\s*include\s+"([A-Za-z_]+)/)");
    size_t files_checked = 0;
    for (const auto& [layer, allowed] : allowed_includes()) {
        REQUIRE(fs::is_directory(root / layer));
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file() || !is_source(entry.path())) continue;
            ++files_checked;
            std::ifstream in(entry.path());
            std::string line;
            for (int number = 1; std::getline(in, line); ++number) {
                std::smatch match;
                if (!std::regex_search(line, match, include_line)) continue;
                const std::string target = match[1];
                INFO(fs::relative(entry.path(), root).string() << ":" << number << " includes " << target << "/");
                CHECK(allowed.count(target) == 1);
            }
        }
    }
    CHECK(files_checked > 100);
}

TEST_CASE("public headers include only public headers") {
    // What `cmake --install` copies is include/invidx/ alone, so an installed
    // header that reached into another folder would not compile for a consumer.
    const fs::path root = INVIDX_SOURCE_DIR;
    const std::regex quoted_include(R"(^\s*#\s*include\s+"([^"]+)\")");
    for (const auto& entry : fs::directory_iterator(root / "include" / "invidx")) {
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            std::smatch match;
            if (!std::regex_search(line, match, quoted_include)) continue;
            const std::string target = match[1];
            INFO(entry.path().filename().string() << " includes " << target);
            CHECK(target.rfind("invidx/", 0) == 0);
            CHECK(fs::exists(root / "include" / target));
        }
    }
}

TEST_CASE("only pipelines/cluster/mpi/ includes MPI") {
    // CMake builds that folder only where MPI was found, so an MPI header
    // anywhere else would break every build without MPI.
    const fs::path root = INVIDX_SOURCE_DIR;
    const fs::path mpi_folder = root / "pipelines" / "cluster" / "mpi";
    const std::regex mpi_include(R"(^\s*#\s*include\s+<mpi\.h>)");
    size_t mpi_files = 0;
    for (const char* layer : {"include", "analysis", "lexicon", "store", "graph", "devices", "nodes", "query",
                              "pipelines", "tools"}) {
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file() || !is_source(entry.path())) continue;
            std::ifstream in(entry.path());
            std::string line;
            while (std::getline(in, line)) {
                if (!std::regex_search(line, mpi_include)) continue;
                const bool in_mpi_folder = entry.path().parent_path() == mpi_folder;
                INFO(fs::relative(entry.path(), root).string() << " includes <mpi.h>");
                CHECK(in_mpi_folder);
                mpi_files += in_mpi_folder;
            }
        }
    }
    CHECK(mpi_files > 0);
}
