// The flag reader the tools and benchmarks share (tools/common/flags.hpp):
// flags and arguments apart, usage errors that name the flag, repeats as
// declared, and --help made from the declarations.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tools/common/flags.hpp"

using namespace invidx::tools;

namespace {

Flags example_flags() {
    Flags flags;
    flags.add({.name = "--k", .value_name = "N", .help = "results per query"});
    flags.add({.name = "--input", .value_name = "PATH", .help = "a file to read;\nmay be repeated", .repeats = Repeats::kCollect});
    flags.add({.name = "--format", .value_name = "text|json", .help = "output format", .repeats = Repeats::kLastWins});
    flags.add({.name = "--device", .value_name = "cpu|gpu|auto", .help = "where queries run"});
    flags.add({.name = "--quiet", .help = "no summary"});
    flags.add({.name = "--secret", .help = "not listed", .hidden = true});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

ParsedFlags parse(const Flags& flags, std::vector<std::string> words) { return flags.parse(words); }

// The FlagError a command line raises.
FlagError error_of(const Flags& flags, std::vector<std::string> words) {
    try {
        (void)flags.parse(words);
    } catch (const FlagError& error) {
        return error;
    }
    FAIL("no FlagError for the command line");
    return FlagError(FlagError::Kind::kUnknown, "", "");
}

}  // namespace

TEST_CASE("flags: values, switches and arguments apart") {
    const Flags flags = example_flags();
    const ParsedFlags given = parse(flags, {"idx", "--k", "5", "--format=json", "-", "--quiet", "--input", "a", "--input=b", "--", "--k"});
    CHECK(given.value("--k") == "5");
    CHECK(given.value("--format") == "json");
    CHECK(given.has("--quiet"));
    CHECK_FALSE(given.has("--device"));
    CHECK_FALSE(given.value("--device").has_value());
    CHECK(given.values("--input") == std::vector<std::string>{"a", "b"});
    // "-" is an argument; after "--" every word is.
    CHECK(given.arguments() == std::vector<std::string>{"idx", "-", "--k"});
}

TEST_CASE("flags: an unknown flag is a usage error naming it") {
    const Flags flags = example_flags();
    const FlagError unknown = error_of(flags, {"idx", "--colour", "red"});
    CHECK(unknown.kind == FlagError::Kind::kUnknown);
    CHECK(unknown.flag == "--colour");
    CHECK(std::string(unknown.what()) == "unknown option '--colour'");
    const FlagError with_value = error_of(flags, {"--kk=3"});
    CHECK(with_value.flag == "--kk");
    CHECK(with_value.word == "--kk=3");
    // A switch takes no value.
    CHECK(error_of(flags, {"--quiet=yes"}).kind == FlagError::Kind::kUnknown);
    CHECK(error_of(flags, {"-x"}).kind == FlagError::Kind::kUnknown);
}

TEST_CASE("flags: a missing value is a usage error naming the flag") {
    const Flags flags = example_flags();
    const FlagError missing = error_of(flags, {"idx", "--k"});
    CHECK(missing.kind == FlagError::Kind::kMissingValue);
    CHECK(std::string(missing.what()) == "--k needs a value");
    // The next word is the value, even one that looks like a flag.
    CHECK(parse(flags, {"--k", "--quiet"}).value("--k") == "--quiet");
    CHECK(parse(flags, {"--k="}).value("--k") == "");
}

TEST_CASE("flags: a repeated flag is an error unless declared repeatable") {
    const Flags flags = example_flags();
    const FlagError twice = error_of(flags, {"--k", "1", "--k=2"});
    CHECK(twice.kind == FlagError::Kind::kRepeated);
    CHECK(twice.flag == "--k");
    CHECK(std::string(twice.what()) == "--k given more than once");
    CHECK(error_of(flags, {"--quiet", "--quiet"}).kind == FlagError::Kind::kRepeated);
    CHECK(parse(flags, {"--format", "text", "--format", "json"}).value("--format") == "json");  // kLastWins
    CHECK(parse(flags, {"--format", "text", "--format", "json"}).values("--format").size() == 2);
    CHECK(parse(flags, {"--input", "a", "--input", "a"}).values("--input").size() == 2);  // kCollect
}

TEST_CASE("flags: --help stops parsing and prints the declarations with the worked example") {
    const Flags flags = example_flags();
    const ParsedFlags given = parse(flags, {"-h", "--colour"});  // what follows --help is not read
    CHECK(given.has("--help"));
    CHECK(error_of(flags, {"--colour", "--help"}).kind == FlagError::Kind::kUnknown);

    const std::string help = flags.help({.usage = "usage: demo IDX [--k N]",
                                         .description = "Demonstrates the flag reader.",
                                         .options_heading = "Options:\n",
                                         .example = "  $ demo idx --k 3\n  3 results\n",
                                         .footer = "Exit codes: 0 ok, 2 usage.\n"});
    CHECK(help ==
          "usage: demo IDX [--k N]\n\n"
          "Demonstrates the flag reader.\n\n"
          "Options:\n"
          "  --k N                results per query\n"
          "  --input PATH         a file to read;\n"
          "                       may be repeated\n"
          "  --format text|json   output format\n"
          "  --device cpu|gpu|auto  where queries run\n"  // too long for the column: two spaces
          "  --quiet              no summary\n"
          "  --help, -h           this help\n"
          "\nExample:\n"
          "  $ demo idx --k 3\n  3 results\n"
          "\nExit codes: 0 ok, 2 usage.\n");
    CHECK(help.find("--secret") == std::string::npos);  // hidden
    CHECK(parse(flags, {"--secret"}).has("--secret"));
}

TEST_CASE("flags: number readers name the flag") {
    CHECK(positive_integer("--k", "12") == 12);
    CHECK_THROWS_WITH_AS(positive_integer("--k", "0"), "--k must be a positive integer, not '0'", UsageError);
    CHECK_THROWS_AS(positive_integer("--k", "3x"), UsageError);
    CHECK(unsigned_integer("--seed", "0") == 0);
    CHECK_THROWS_AS(unsigned_integer("--seed", "-1"), UsageError);
    CHECK(positive_number("--max-seconds", "0.5") == 0.5);
    CHECK_THROWS_WITH_AS(positive_number("--max-seconds", "0"), "--max-seconds must be positive, not '0'", UsageError);
}
