#include "tools/invidx/command.hpp"

#include <iostream>

namespace invidx::cli {

std::vector<tools::FlagSpec> common_flags() {
    return {
        {.name = "--format", .value_name = "text|json", .help = "output format (default text; search also takes trec)",
         .repeats = tools::Repeats::kLastWins},
        {.name = "--help", .help = "this help", .repeats = tools::Repeats::kLastWins, .alias = "-h"},
    };
}

std::string join_words(const std::vector<std::string>& args, size_t from) {
    std::string text;
    for (size_t i = from; i < args.size(); ++i) text += (i > from ? " " : "") + args[i];
    return text;
}

// Names, terms and qids are bytes: JSON strings must be UTF-8, so bytes that
// are not are replaced by U+FFFD rather than failing the whole output.
void print_json(const nlohmann::json& value) {
    std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace invidx::cli
