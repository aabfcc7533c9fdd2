// The flag reader every invidx program shares (PISA's tools/app.hpp does the
// same job with CLI11): a program declares the flags it accepts with their
// help texts; the reader parses argv into flags and arguments, reports a
// usage error naming the flag, and writes --help from the declarations with
// the program's worked example.
//
// Conventions, the same in every program: "--flag value" and "--flag=value"
// are one thing; a word that is "-" or does not start with '-' is an
// argument; after "--" every word is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::tools {

// A wrong command line: the programs exit with their usage code.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A word the declarations do not allow; a UsageError whose what() is a
// plain message, with the parts a program needs to word it its own way.
struct FlagError : UsageError {
    enum class Kind { kUnknown, kMissingValue, kRepeated };
    FlagError(Kind kind, std::string flag, std::string word);
    Kind kind;
    std::string flag;  // the flag's name ("--k"), or for kUnknown the word's part before any '='
    std::string word;  // the word as given ("--k=5")
};

// What a second occurrence of a flag does.
enum class Repeats {
    kError,     // a usage error: the flag is given once
    kLastWins,  // the last value counts
    kCollect,   // every value counts, in order (--input A --input B)
};

struct FlagSpec {
    std::string name;        // "--k"
    std::string value_name;  // "N"; empty: a switch, which takes no value
    // Help text; lines after the first are indented under the first.
    std::string help;
    Repeats repeats = Repeats::kError;
    std::string alias;  // "-h"; a switch's only
    // Parsing stops at this flag: what follows is not read (an action such
    // as --help that ignores the rest of the command line).
    bool stops_parsing = false;
    bool hidden = false;  // accepted, but not listed in the help
};

// A parsed command line.
class ParsedFlags {
public:
    bool has(std::string_view name) const;
    // The value of a flag (the last, for kLastWins); none if absent.
    std::optional<std::string> value(std::string_view name) const;
    // Every value of a flag, in command-line order.
    std::vector<std::string> values(std::string_view name) const;
    // The words that are not flags, in order.
    const std::vector<std::string>& arguments() const { return arguments_; }

private:
    friend class Flags;
    struct Given {
        std::string name;
        std::string value;
    };
    std::vector<Given> given_;
    std::vector<std::string> arguments_;
};

// The worked-example help a program prints for --help:
//   {usage}\n\n{description}\n\n{options_heading}{flags}\nExample:\n{example}\n{footer}
struct HelpText {
    std::string usage;            // "Usage: invidx stats IDX"
    std::string description;
    std::string options_heading;  // "Options:\n", or empty
    std::string example;          // lines, each ending in '\n'
    std::string footer;           // exit codes and the like
};

class Flags {
public:
    // Help texts start in column `help_column` (0-based), or two spaces
    // after a flag too long for that.
    explicit Flags(size_t help_column = 23);

    Flags& add(FlagSpec spec);
    Flags& add(std::span<const FlagSpec> specs);
    const std::vector<FlagSpec>& specs() const { return specs_; }
    const FlagSpec* find(std::string_view name_or_alias) const;

    // Parses the words after the program (and command) name; FlagError for
    // an unknown flag, a missing value, or a repeated kError flag.
    ParsedFlags parse(std::span<const std::string> words) const;

    // One line per flag ("  --k N                number of results...").
    std::string options_help() const;
    std::string help(const HelpText& text) const;

private:
    std::vector<FlagSpec> specs_;
    size_t help_column_;
};

// A number > 0 (the whole word), or a UsageError "FLAG must be a positive
// integer, not 'TEXT'".
size_t positive_integer(std::string_view flag, const std::string& text);
// A number >= 0 (the whole word), or a UsageError naming the flag.
uint64_t unsigned_integer(std::string_view flag, const std::string& text);
// A finite number > 0 (the whole word), or a UsageError naming the flag.
double positive_number(std::string_view flag, const std::string& text);

// How the benchmark programs end on a bad command line: "PROGRAM: MESSAGE",
// a pointer to --help, exit code 2.
[[noreturn]] void exit_with_usage_error(std::string_view program, const std::string& message);

}  // namespace invidx::tools
