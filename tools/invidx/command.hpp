// What every `invidx` command shares: the command table's entry, the parsed
// command line it runs with, exit codes, and the common help texts.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/common/flags.hpp"

namespace invidx::cli {

// kQueriesFailed: search --queries answered what it could, but some
// queries could not run (each named on stderr).
enum ExitCode : int { kOk = 0, kNotFound = 1, kUsage = 2, kFailure = 3, kQueriesFailed = 4 };

using tools::UsageError;

// Something asked for is not in the index: a message and exit code 1.
struct NotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Command;

// One command's parsed command line.
struct Invocation {
    const Command& command;
    std::vector<std::string> args;  // IDX first
    tools::ParsedFlags flags;
    bool json = false;  // --format json
    bool trec = false;  // --format trec (search only)
};

struct Command {
    std::string_view name;
    std::string_view synopsis;
    std::string_view description;
    std::string_view example;
    size_t min_args;
    size_t max_args;
    // Its own flags, after the common --format and --help.
    std::vector<tools::FlagSpec> flags;
    bool trec_format = false;  // --format also takes trec
    // Checks its flags' values (a UsageError naming the flag), before --help
    // is looked at; may be empty.
    void (*check)(const Invocation& invocation) = nullptr;
    int (*run)(const Invocation& invocation) = nullptr;
};

// The commands, one file each, in the order of the general help.
Command stats_command();
Command term_command();
Command doc_command();
Command search_command();
Command export_ciff_command();
Command merge_command();
Command check_command();
Command weight_command();
Command import_ciff_command();
Command eval_command();

// --format and --help, which every command takes.
std::vector<tools::FlagSpec> common_flags();

inline constexpr std::string_view kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  not found (term or document)\n"
    "  2  usage error (search: also a bad quote, or a phrase on an index without positions)\n"
    "  3  bad or damaged index, or any other error\n"
    "  4  search --queries: some queries could not run (a bad quote, a phrase without\n"
    "     positions), each named on stderr by qid and line; the others were answered\n";

// The words of args[from...] joined by spaces (a query given as several words).
std::string join_words(const std::vector<std::string>& args, size_t from);

// Pretty-printed JSON on stdout; bytes that are not UTF-8 (in names, terms,
// qids) become U+FFFD.
void print_json(const nlohmann::json& value);

}  // namespace invidx::cli
