#include "tools/common/flags.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <cstdint>
#include <utility>

namespace invidx::tools {

namespace {

std::string default_message(FlagError::Kind kind, const std::string& flag, const std::string& word) {
    switch (kind) {
        case FlagError::Kind::kUnknown: return "unknown option '" + word + "'";
        case FlagError::Kind::kMissingValue: return flag + " needs a value";
        case FlagError::Kind::kRepeated: return flag + " given more than once";
    }
    return word;
}

}  // namespace

FlagError::FlagError(Kind kind, std::string flag, std::string word)
    : UsageError(default_message(kind, flag, word)), kind(kind), flag(std::move(flag)), word(std::move(word)) {}

bool ParsedFlags::has(std::string_view name) const {
    for (const auto& given : given_) {
        if (given.name == name) return true;
    }
    return false;
}

std::optional<std::string> ParsedFlags::value(std::string_view name) const {
    std::optional<std::string> last;
    for (const auto& given : given_) {
        if (given.name == name) last = given.value;
    }
    return last;
}

std::vector<std::string> ParsedFlags::values(std::string_view name) const {
    std::vector<std::string> all;
    for (const auto& given : given_) {
        if (given.name == name) all.push_back(given.value);
    }
    return all;
}

Flags::Flags(size_t help_column) : help_column_(help_column) {}

Flags& Flags::add(FlagSpec spec) {
    specs_.push_back(std::move(spec));
    return *this;
}

Flags& Flags::add(std::span<const FlagSpec> specs) {
    for (const auto& spec : specs) add(spec);
    return *this;
}

const FlagSpec* Flags::find(std::string_view name_or_alias) const {
    for (const auto& spec : specs_) {
        if (spec.name == name_or_alias || (!spec.alias.empty() && spec.alias == name_or_alias)) return &spec;
    }
    return nullptr;
}

ParsedFlags Flags::parse(std::span<const std::string> words) const {
    ParsedFlags parsed;
    bool only_arguments = false;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (only_arguments || word == "-" || !word.starts_with("-")) {
            parsed.arguments_.push_back(word);
            continue;
        }
        if (word == "--") {
            only_arguments = true;
            continue;
        }
        const size_t equals = word.find('=');
        const std::string name = word.substr(0, equals);
        const FlagSpec* spec = find(name);
        // A switch given "=value" is no flag this program knows.
        if (spec == nullptr || (spec->value_name.empty() && equals != std::string::npos)) {
            throw FlagError(FlagError::Kind::kUnknown, name, word);
        }
        std::string value;
        if (!spec->value_name.empty()) {
            if (equals != std::string::npos) {
                value = word.substr(equals + 1);
            } else if (i + 1 < words.size()) {
                value = words[++i];
            } else {
                throw FlagError(FlagError::Kind::kMissingValue, spec->name, word);
            }
        }
        if (spec->repeats == Repeats::kError && parsed.has(spec->name)) {
            throw FlagError(FlagError::Kind::kRepeated, spec->name, word);
        }
        parsed.given_.push_back({spec->name, std::move(value)});
        if (spec->stops_parsing) break;
    }
    return parsed;
}

std::string Flags::options_help() const {
    std::string out;
    for (const auto& spec : specs_) {
        if (spec.hidden) continue;
        std::string left = "  " + spec.name;
        if (!spec.alias.empty()) left += ", " + spec.alias;
        if (!spec.value_name.empty()) left += " " + spec.value_name;
        // One space before the text where the flag fits its column, two where it runs past.
        left += left.size() + 1 <= help_column_ ? std::string(help_column_ - left.size(), ' ') : std::string(2, ' ');
        const std::string indent(help_column_, ' ');
        std::string_view help = spec.help;
        for (bool first = true; !help.empty() || first; first = false) {
            const size_t end = help.find('\n');
            out += (first ? left : indent) + std::string(help.substr(0, end)) + "\n";
            help = end == std::string_view::npos ? std::string_view() : help.substr(end + 1);
        }
    }
    return out;
}

std::string Flags::help(const HelpText& text) const {
    return text.usage + "\n\n" + text.description + "\n\n" + text.options_heading + options_help() + "\nExample:\n" +
           text.example + "\n" + text.footer;
}

size_t positive_integer(std::string_view flag, const std::string& text) {
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc() || end != text.data() + text.size() || number == 0) {
        throw UsageError(std::string(flag) + " must be a positive integer, not '" + text + "'");
    }
    return static_cast<size_t>(number);
}

uint64_t unsigned_integer(std::string_view flag, const std::string& text) {
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc() || end != text.data() + text.size()) {
        throw UsageError(std::string(flag) + " must be a non-negative integer, not '" + text + "'");
    }
    return number;
}

double positive_number(std::string_view flag, const std::string& text) {
    double number = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc() || end != text.data() + text.size() || !(number > 0.0) || !std::isfinite(number)) {
        throw UsageError(std::string(flag) + " must be positive, not '" + text + "'");
    }
    return number;
}

void exit_with_usage_error(std::string_view program, const std::string& message) {
    std::cerr << program << ": " << message << "\n(see " << program << " --help)\n";
    std::exit(2);
}

}  // namespace invidx::tools
