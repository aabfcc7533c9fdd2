// The query language (docs/QUERY.md, "Query syntax"): Lucene's classic
// subset. A query is a sequence of clauses, each a word, a "phrase" or a
// parenthesized group of clauses, with an optional `+` (required) or `-` /
// `NOT` (prohibited) before it and an optional `^boost` after it; uppercase
// AND / OR between clauses mean what they mean in Lucene's classic query
// parser with OR as the default operator (within each group). Parsing only
// splits the text into clauses: each clause's text is analyzed later
// (query/query_plan.cpp), as documents are. Whatever is syntax but malformed
// (a dangling operator, a missing boost, an unbalanced quote or
// parenthesis) is a QueryError naming the query and the character, never
// read as a word.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

enum class Occur { kShould, kMust, kMustNot };

struct QueryClause {
    Occur occur = Occur::kShould;
    bool phrase = false;
    bool group = false;    // `( ... )`: the clauses are `children`, `text` is empty
    std::string text;      // the word as written, or the phrase's text between its quotes
    double boost = 1.0;    // `^N`; 1 when not boosted
    bool boosted = false;  // whether `^N` was written
    size_t offset = 0;     // byte offset of the clause (its operator, if any) in the query
    std::vector<QueryClause> children;  // a group's clauses, in order (never empty)
};

// How deep parentheses may nest: deeper is a syntax error, not a stack overflow.
inline constexpr size_t kMaxGroupDepth = 100;

// The clauses of `query` in order (a group's own clauses in it). Throws QueryError:
//   syntax error in query 'QUERY' at character N: WHAT
// (N counts characters from 1) for any malformed syntax.
std::vector<QueryClause> parse_query_syntax(std::string_view query);

// "query 'QUERY' at character N" for the byte `offset` of `query` (N
// counts characters from 1), to start a message about a clause.
std::string query_position(std::string_view query, size_t offset);

// True when `text` is not plain optional words and phrases: a clause, at
// any depth of parentheses, is required or prohibited (by `+`, `-`, NOT or
// AND), or the syntax is malformed. Such queries run on the CPU
// (query/boolean_search.hpp, query/clause_tree_search.hpp).
bool has_boolean_syntax(std::string_view text);

// `text` with every operator made punctuation, for natural-language text
// such as TREC topics: outside quotes, + - ( ) ^ become spaces and the words
// AND, OR, NOT are lowercased. Each of those characters separates tokens
// anyway and analysis lowercases, so the analyzed terms are unchanged;
// quotes still mark phrases.
std::string plain_query_text(std::string_view text);

// True for the first non-blank character '{': a weighted term vector in
// JSON (query/vector_query.hpp), not query syntax.
bool is_vector_query(std::string_view text);

}  // namespace invidx
