// The line format trec_eval's qrels and run files share: fields separated by
// white space (spaces, tabs, a CR before the newline); blank lines and lines
// whose first field starts with '#' carry nothing.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::evaluation {

// Calls `on_line` with the 1-based line number and the fields of every line
// that has fields.
void for_each_trec_line(std::istream& in,
                        const std::function<void(size_t line_number, const std::vector<std::string_view>& fields)>& on_line);

// "SOURCE: line N: MESSAGE"
std::string line_error(std::string_view source, size_t line_number, std::string_view message);

}  // namespace invidx::evaluation
