// Query files for `invidx search --queries FILE`, in the three forms TREC
// experiments come in:
//  - tab-separated: one `qid<TAB>text` a line (blank lines skipped);
//  - classic TREC topics (ad hoc, Robust04): <top> <num> Number: 401
//    <title> ... <desc> Description: ... <narr> ... </top>, tags unclosed;
//  - Web Track XML topics: <topic number="1"> <query>...</query>
//    <description>...</description> </topic>.
// A file whose first non-blank character is '<' is read as topics. The text
// of a topic is its title (<title>, or <query>) or its description
// (<desc>, or <description>), whitespace runs folded into one space.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace invidx {

struct QueryLine {
    std::string qid;
    std::string text;
};

enum class TopicField { kTitle, kDescription };

// Throws QueryError naming the file, the line and what is wrong (a line
// without a tab, a topic without a number or without the field).
std::vector<QueryLine> read_query_file(const std::string& path, TopicField field = TopicField::kTitle);

// The same from text already read; `name` is used in error messages.
std::vector<QueryLine> parse_query_file(std::string_view content, const std::string& name,
                                        TopicField field = TopicField::kTitle);

}  // namespace invidx
