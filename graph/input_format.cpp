#include "invidx/input_format.hpp"

#include "invidx/error.hpp"

namespace invidx {
namespace {

// Strictly longer: a suffix alone is no file name with that suffix.
bool ends_with(std::string_view name, std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

std::string ascii_lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

std::string input_format_names() {
    std::string names;
    for (const auto& row : kInputFormats) {
        if (!names.empty()) names += ", ";
        names += row.name;
    }
    return names;
}

std::optional<InputFormat> input_format_setting(std::string_view name, const std::string& json_pointer) {
    if (name == kAutoInputFormat) return std::nullopt;
    if (const auto format = find_input_format(name)) return *format;
    throw ConfigError(json_pointer, "unknown format '" + std::string(name) + "'; known: " + std::string(kAutoInputFormat) +
                                        ", " + input_format_names());
}

InputFormat input_format_of_file(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    std::string name = ascii_lowercase(slash == std::string_view::npos ? path : path.substr(slash + 1));
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view suffix : kCompressionSuffixes) {
            if (ends_with(name, suffix)) {
                name.resize(name.size() - suffix.size());
                stripped = true;
            }
        }
    }
    for (const auto& row : kInputFormats) {
        for (std::string_view suffix : row.suffixes)
            if (ends_with(name, suffix)) return row.format;
    }
    return kFallbackInputFormat;
}

}  // namespace invidx
