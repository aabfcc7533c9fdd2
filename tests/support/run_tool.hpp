// Runs the built `invidx` tool as a user would, capturing its output.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <sys/wait.h>

#include "support/temp_dir.hpp"

namespace invidx::testing {

struct ToolResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// `arguments` are passed to the shell as written (quote paths yourself).
inline ToolResult run_invidx(const TempDir& dir, const std::string& arguments) {
    const auto out = dir / "tool.out";
    const auto err = dir / "tool.err";
    const std::string command = std::string("'") + INVIDX_TOOLS_DIR + "/invidx' " + arguments + " >'" + out.string() +
                                "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    return {WEXITSTATUS(status), read_file(out), read_file(err)};
}

}  // namespace invidx::testing
