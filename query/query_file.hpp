// Query files for `invidx search --queries FILE`, in the three forms TREC
// experiments come in:
//  - tab-separated: one `qid<TAB>text` a line (blank lines skipped);
//  - classic TREC topics (ad hoc, Robust04): <top> <num> Number: 401
//    <title> ... <desc> Description: ... <narr> ... </top>, tags unclosed;
//  - Web Track XML topics: <topic number="1"> <query>...</query>
//    <description>...</description> </topic>.
//  - weighted queries: one JSON object {"qid": ..., "vector": {"term":
//    weight, ...}} a line ("id" for "qid"; Anserini's JsonVectorCollection
//    queries); the query's text is the vector's JSON (a weighted query).
// A file whose first non-blank character is '<' is read as topics, '{' as
// weighted queries. The text of a topic is its title (<title>, or <query>)
// or its description (<desc>, or <description>), whitespace runs folded
// into one space, and is natural language: its operators are punctuation
// (query/query_syntax.hpp's plain_query_text).
// A qid is one word: whitespace or a control byte in it would break the
// TREC run line it starts (`qid Q0 docno rank score tag`), so it is an error
// naming the line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

struct QueryLine {
    std::string qid;
    std::string text;
    size_t line = 0;  // where the query starts in its file, from 1; 0: not from a file
};

enum class TopicField { kTitle, kDescription };

// Throws QueryError naming the file, the line and what is wrong (a line
// without a tab, a topic without a number or without the field, a qid that
// is not one word). The path "-" reads standard input (named "stdin" in
// messages).
std::vector<QueryLine> read_query_file(const std::string& path, TopicField field = TopicField::kTitle);

// The same from text already read; `name` is used in error messages.
std::vector<QueryLine> parse_query_file(std::string_view content, const std::string& name,
                                        TopicField field = TopicField::kTitle);

}  // namespace invidx
