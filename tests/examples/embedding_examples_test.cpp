// The embedding examples, run as a user would run them on the bundled sample:
// a custom node kind and a custom indexer kind registered by the program,
// each giving the index a standard build gives.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <sys/wait.h>

#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;

namespace {

ToolResult run_example(const TempDir& dir, const std::string& program, const std::string& output) {
    const auto out = dir / (program + ".out");
    const auto err = dir / (program + ".err");
    const std::string command = std::string("'") + INVIDX_TOOLS_DIR + "/" + program + "' '" + INVIDX_SOURCE_DIR +
                                "/sample/debian-docs.warc.gz' '" + (dir / output).string() + "' >'" + out.string() +
                                "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    return {WEXITSTATUS(status), read_file(out), read_file(err)};
}

// The CIFF export of an index, through the invidx tool.
std::string ciff_of(const TempDir& dir, const std::string& index) {
    const ToolResult exported =
        run_invidx(dir, "export-ciff '" + (dir / index).string() + "' '" + (dir / (index + ".ciff")).string() + "'");
    REQUIRE(exported.exit_code == 0);
    return read_file(dir / (index + ".ciff"));
}

}  // namespace

TEST_CASE("examples: a custom indexer kind registered by the program indexes as cpu_btree does") {
    TempDir dir;
    const ToolResult custom = run_example(dir, "embed_custom_indexer", "custom");
    INFO(custom.err);
    REQUIRE(custom.exit_code == 0);
    CHECK(custom.out.find("the 2 counting_cpu indexers saw") != std::string::npos);
    CHECK(custom.out.find("saw 0 batches") == std::string::npos);
    const ToolResult node = run_example(dir, "embed_custom_node", "node");
    INFO(node.err);
    REQUIRE(node.exit_code == 0);
    CHECK(node.out.find("document length (terms)") != std::string::npos);
    // Both register kinds that change nothing in the index.
    CHECK(ciff_of(dir, "custom") == ciff_of(dir, "node"));
}
