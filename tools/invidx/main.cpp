// invidx: look inside a built index, search it, export it, merge its runs.
//   invidx stats IDX | term IDX WORD | doc IDX (--docid N | --name NAME | KEY) | search IDX QUERY... |
//   export-ciff IDX FILE | merge IDX [--layout standard|query] [--codec NAME] | check IDX [--full] |
//   weight IDX [--bits N] [--device cpu] | eval QRELS RUN [-m MEASURE ...] [-q] |
//   import-ciff FILE.ciff OUT [--analysis NAME] [--impacts tf]
// One file per command (tools/invidx/*.cpp); this one reads the command
// line by the table below and runs the command.
// Exit codes: 0 ok, 1 not found, 2 usage error, 3 bad or damaged index / other error,
// 4 search --queries: some queries could not run (the others answered).
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "query/query_error.hpp"
#include "tools/invidx/command.hpp"

namespace invidx::cli {
namespace {

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {stats_command(),  term_command(),        doc_command(),
                                               search_command(), export_ciff_command(), merge_command(),
                                               check_command(),  weight_command(),      eval_command(),
                                               import_ciff_command()};
    return table;
}

const Command* find_command(std::string_view name) {
    for (const auto& command : commands()) {
        if (command.name == name) return &command;
    }
    return nullptr;
}

std::string general_help() {
    std::string description = "Looks inside an index built by invidx-run, searches it, exports it, merges its runs,\nweights its postings.\n\nCommands:";
    for (const auto& command : commands()) description += "\n  " + std::string(command.synopsis);
    tools::Flags flags;
    flags.add(common_flags()).add({.name = "--version", .help = "print the version"});
    return flags.help({.usage = "Usage: invidx COMMAND [options] ARGS",
                       .description = description,
                       .options_heading = "Options:\n",
                       .example = "  $ invidx term idx zebras\n  term: zebra\n  df: 1\n  cf: 2\n  postings: 7:2\n",
                       .footer = "'invidx COMMAND --help' describes one command.\n\n" + std::string(kExitCodes)});
}

tools::Flags command_flags(const Command& command) {
    tools::Flags flags;
    flags.add(common_flags()).add(command.flags);
    return flags;
}

std::string command_help(const Command& command) {
    return command_flags(command).help({.usage = "Usage: " + std::string(command.synopsis),
                                        .description = std::string(command.description),
                                        .options_heading = "Options:\n",
                                        .example = std::string(command.example),
                                        .footer = std::string(kExitCodes)});
}

// An unknown flag: another command's, or none at all.
[[noreturn]] void unknown_flag(const Command& command, const tools::FlagError& error) {
    for (const auto& other : commands()) {
        for (const auto& spec : other.flags) {
            if (spec.name == error.flag) throw UsageError(error.flag + " is an option of " + std::string(other.name) + " only");
        }
    }
    throw UsageError("unknown option '" + error.word + "' for " + std::string(command.name));
}

// Runs the command line (the words after "invidx"); its exit code.
int run(const std::vector<std::string>& words) {
    if (words.empty()) throw UsageError("no command given");
    const std::string& name = words[0];
    if (name == "--help" || name == "-h" || name == "help") {
        std::cout << general_help();
        return kOk;
    }
    const Command* command = find_command(name);
    if (command == nullptr) throw UsageError("unknown command '" + name + "'; known: stats, term, doc, search, export-ciff, merge, check, weight, eval, import-ciff");

    Invocation invocation{.command = *command, .args = {}, .flags = {}};
    try {
        invocation.flags = command_flags(*command).parse(std::span(words).subspan(1));
    } catch (const tools::FlagError& error) {
        if (error.kind != tools::FlagError::Kind::kUnknown) throw;
        unknown_flag(*command, error);
    }
    invocation.args = invocation.flags.arguments();
    if (auto format = invocation.flags.value("--format")) {
        if (*format != "text" && *format != "json" && !(command->trec_format && *format == "trec")) {
            throw UsageError(std::string("--format must be text") + (command->trec_format ? ", json or trec" : " or json") +
                             ", not '" + *format + "'");
        }
        invocation.json = *format == "json";
        invocation.trec = *format == "trec";
    }
    if (command->check) command->check(invocation);
    if (invocation.flags.has("--help")) {
        std::cout << command_help(*command);
        return kOk;
    }
    if (invocation.args.size() < command->min_args || invocation.args.size() > command->max_args) {
        throw UsageError("usage: " + std::string(command->synopsis));
    }
    return command->run(invocation);
}

}  // namespace
}  // namespace invidx::cli

int main(int argc, char** argv) {
    using namespace invidx::cli;
    try {
        if (argc == 2 && std::string_view(argv[1]) == "--version") {
            std::cout << "invidx 0.1.0\n";
            return kOk;
        }
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const UsageError& error) {
        std::cerr << "invidx: " << error.what() << "\n(run 'invidx --help' for usage)\n";
        return kUsage;
    } catch (const invidx::QueryError& error) {
        // The query must change (a quote) or the index be rebuilt (positions).
        std::cerr << "invidx: " << error.what() << "\n";
        return kUsage;
    } catch (const NotFound& error) {
        std::cerr << "invidx: " << error.what() << "\n";
        return kNotFound;
    } catch (const std::exception& error) {
        std::cerr << "invidx: " << error.what() << "\n";
        return kFailure;
    }
}
