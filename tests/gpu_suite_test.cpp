// The GPU test cases' skip (support/gpu_test.hpp): no test case passes
// silently by returning early where no CUDA device is; the GPU_TEST_CASEs
// of the sources are the doctest suite gpu that the executable lists, each
// labelled gpu in the ctest file the build writes; and where no device is,
// a run of them counts them as skipped and prints the line ctest matches.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace invidx::testing;

namespace {

// `if (condition) body` where the condition says that no GPU is there and
// the body returns, with no else: the test case checks nothing and passes.
bool skips_without_gpu(const std::string& condition, const std::string& body, bool has_else) {
    if (has_else || !std::regex_search(body, std::regex(R"(\breturn\b)"))) return false;
    std::string c = std::regex_replace(condition, std::regex(R"(\s+)"), "");
    if (!std::regex_search(c, std::regex("gpu", std::regex::icase))) return false;
    const bool negated = !c.empty() && c[0] == '!';
    if (negated) c.erase(0, 1);
    const bool says_absent =
        std::regex_search(c, std::regex(R"(empty\(\)$|size\(\)==0$|no_?gpu|gpu_?missing|without_?gpu)", std::regex::icase));
    return says_absent != negated;
}

// Line numbers of the early returns on a missing GPU in `text`.
std::vector<int> early_skips(const std::string& text) {
    // The condition may hold one level of calls; the body is one statement or a block without braces inside.
    static const std::regex if_statement(R"(\bif\s*\(((?:[^()]|\([^()]*\))*)\)\s*(\{[^{}]*\}|[^;{}]*;)(\s*else\b)?)");
    std::vector<int> lines;
    for (std::sregex_iterator it(text.begin(), text.end(), if_statement), end; it != end; ++it) {
        const std::smatch& match = *it;
        if (!skips_without_gpu(match[1], match[2], match[3].matched)) continue;
        lines.push_back(1 + static_cast<int>(std::count(text.begin(), text.begin() + match.position(0), '\n')));
    }
    return lines;
}

std::string unescape(const std::string& literal) {
    std::string out;
    for (size_t i = 0; i < literal.size(); ++i) {
        if (literal[i] == '\\' && i + 1 < literal.size()) ++i;
        out += literal[i];
    }
    return out;
}

struct Command {
    int exit_code = -1;
    std::string output;
};

// This test executable again, with `arguments` (quoted by the caller).
Command run_self(const TempDir& dir, const std::string& arguments) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    const fs::path out = dir / "self.out";
    const std::string command = "'" + self.string() + "' " + arguments + " >'" + out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    return {WEXITSTATUS(status), read_file(out)};
}

std::vector<std::string> listed_test_cases(const std::string& output) {
    std::vector<std::string> names;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.rfind("[doctest] ", 0) == 0 || line.find_first_not_of('=') == std::string::npos) continue;
        names.push_back(line);
    }
    return names;
}

}  // namespace

TEST_CASE("gpu suite: the check for early returns without a GPU finds the old idioms, and none is left") {
    // The idioms GPU tests skipped with before GPU_TEST_CASE, and checks that are no skip.
    CHECK(early_skips("if (!have_gpu()) {\n    MESSAGE(\"no device\");\n    return;\n}") == std::vector<int>{1});
    CHECK(early_skips("x;\nif (no_gpu()) return;") == std::vector<int>{2});
    CHECK(early_skips("if (gpu_missing()) return;").size() == 1);
    CHECK(early_skips("if (invidx::list_gpus().devices.empty()) { MESSAGE(\"x\"); return; }").size() == 1);
    CHECK(early_skips("if (!list_gpus().devices.empty()) return false;").empty());  // a helper's presence test
    CHECK(early_skips("if (have_gpu()) return;").empty());  // the error without a GPU, checked where none is
    CHECK(early_skips("if (!list_gpus().devices.empty()) device = make(0);").empty());
    CHECK(early_skips("if (list_gpus().devices.empty()) { CHECK(a); } else { CHECK(b); }").empty());

    const fs::path tests = fs::path(INVIDX_SOURCE_DIR) / "tests";
    REQUIRE(fs::is_directory(tests));
    size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(tests)) {
        const std::string extension = entry.path().extension().string();
        if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp")) continue;
        if (entry.path().filename() == "gpu_suite_test.cpp") continue;  // the idioms above
        ++files;
        for (const int line : early_skips(read_file(entry.path()))) {
            FAIL_CHECK(fs::relative(entry.path(), tests).string()
                           << ":" << line << " returns early without a GPU: make it a GPU_TEST_CASE (support/gpu_test.hpp)");
        }
    }
    CHECK(files > 50);
}

TEST_CASE("gpu suite: the GPU_TEST_CASEs are listed everywhere, labelled gpu for ctest, and skipped visibly without a device") {
    // Every GPU_TEST_CASE of the sources, by name.
    const fs::path tests = fs::path(INVIDX_SOURCE_DIR) / "tests";
    const std::regex gpu_test_case(R"re(^GPU_TEST_CASE\("((?:[^"\\]|\\.)*)"\))re");
    std::set<std::string> in_sources;
    for (const auto& entry : fs::recursive_directory_iterator(tests)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".cpp") continue;
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
            std::smatch match;
            if (std::regex_search(line, match, gpu_test_case)) in_sources.insert(unescape(match[1]));
        }
    }
    REQUIRE(in_sources.size() > 30);

    // The suite as ctest's discovery sees it: a listing never drops it, device or not.
    TempDir dir;
    const Command listing = run_self(dir, std::string("--test-suite=") + kGpuSuite + " --list-test-cases");
    INFO(listing.output);
    REQUIRE(listing.exit_code == 0);
    const std::vector<std::string> listed = listed_test_cases(listing.output);
    const std::set<std::string> in_suite(listed.begin(), listed.end());
    for (const std::string& name : in_sources) {
        if (in_suite.count(name) == 0) FAIL_CHECK("a GPU_TEST_CASE not in the suite " << kGpuSuite << ": " << name);
    }
    for (const std::string& name : in_suite) {
        if (in_sources.count(name) == 0) FAIL_CHECK("in the suite " << kGpuSuite << " but no GPU_TEST_CASE: " << name);
    }

    // The ctest file the build wrote beside the executable labels each (where the build tree is here).
    const fs::path labels = fs::path(INVIDX_TOOLS_DIR) / "invidx_tests_gpu.cmake";
    if (fs::exists(labels)) {
        const std::string written = read_file(labels);
        for (const std::string& name : in_sources) {
            CAPTURE(name);
            CHECK(written.find("set_tests_properties([==[" + name + "]==] PROPERTIES LABELS gpu") != std::string::npos);
        }
    }
    // ctest matches the line the skip prints.
    CHECK(read_file(fs::path(INVIDX_SOURCE_DIR) / "cmake" / "doctest_gpu_tests.cmake")
              .find(std::string("SKIP_REGULAR_EXPRESSION [==[") + kGpuSkipLine + "]==]") != std::string::npos);

    const invidx::GpuInventory gpus = invidx::list_gpus();
    const char* required = std::getenv("INVIDX_REQUIRE_GPU");
    if (!gpus.devices.empty() || (required != nullptr && *required != '\0' && std::string(required) != "0")) {
        MESSAGE("a CUDA device is here or required: the GPU test cases run, not skipped");
        return;
    }
    // One GPU test case as ctest runs it: not run, counted as skipped, the line printed, success.
    std::string argument = "--test-case=" + std::regex_replace(listed.front(), std::regex(","), "\\,");
    argument = "'" + std::regex_replace(argument, std::regex("'"), "'\\''") + "'";  // for the shell
    const Command skipped = run_self(dir, argument);
    INFO(skipped.output);
    CHECK(skipped.exit_code == 0);
    CHECK(skipped.output.find(std::string("[invidx] ") + kGpuSkipLine + ": 1 ") != std::string::npos);
    CHECK(std::regex_search(skipped.output, std::regex(R"(test cases:\s*0 \|\s*0 passed \|\s*0 failed \|\s*[1-9][0-9]* skipped)")));
}
