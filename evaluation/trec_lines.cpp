#include "evaluation/trec_lines.hpp"

namespace invidx::evaluation {

namespace {

// The bytes C's isspace() accepts in the "C" locale, as trec_eval splits on.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }

}  // namespace

void for_each_trec_line(std::istream& in,
                        const std::function<void(size_t line_number, const std::vector<std::string_view>& fields)>& on_line) {
    std::string line;
    std::vector<std::string_view> fields;
    for (size_t number = 1; std::getline(in, line); ++number) {
        fields.clear();
        const std::string_view text(line);
        size_t at = 0;
        while (at < text.size()) {
            while (at < text.size() && is_space(text[at])) ++at;
            const size_t start = at;
            while (at < text.size() && !is_space(text[at])) ++at;
            if (at > start) fields.push_back(text.substr(start, at - start));
        }
        if (fields.empty() || fields.front().starts_with('#')) continue;
        on_line(number, fields);
    }
}

std::string line_error(std::string_view source, size_t line_number, std::string_view message) {
    return std::string(source) + ": line " + std::to_string(line_number) + ": " + std::string(message);
}

}  // namespace invidx::evaluation
