#include "query/query_syntax.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include "query/query_error.hpp"

namespace invidx {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// A word runs to a blank or to the next piece of syntax; `+` and `-` inside
// a word are part of it (`e-mail`), only at a clause's start are they operators.
bool ends_word(char c) { return is_blank(c) || c == '"' || c == '(' || c == ')' || c == '^'; }

// Characters (UTF-8 code points, or stray bytes) before `offset`, plus one.
size_t character_number(std::string_view text, size_t offset) {
    size_t number = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++number;
    }
    return number;
}

class SyntaxParser {
public:
    explicit SyntaxParser(std::string_view query) : query_(query) {}

    std::vector<QueryClause> parse() {
        size_t pos = 0;
        return parse_clauses(pos, 0, 0);
    }

private:
    // The clauses from `pos` to the end of the query (depth 0) or to the
    // ')' closing the '(' at `open` (depth > 0), which `pos` moves past.
    // AND, OR and NOT act within one group, as in Lucene's classic parser.
    std::vector<QueryClause> parse_clauses(size_t& pos, size_t depth, size_t open) {
        std::vector<QueryClause> clauses;
        std::string_view conjunction;  // AND or OR waiting for its right-hand clause
        size_t conjunction_at = 0;
        bool negated = false;  // NOT waiting for its clause
        size_t not_at = 0;
        const size_t size = query_.size();
        while (true) {
            while (pos < size && is_blank(query_[pos])) ++pos;
            if (pos == size) {
                if (depth > 0) fail(open, "'(' has no matching ')'");
                break;
            }
            if (query_[pos] == ')') {
                if (depth == 0) fail(pos, "')' has no matching '('");
                ++pos;
                break;
            }
            const size_t start = pos;
            check_clause_start(pos);
            std::optional<char> modifier;
            if (query_[pos] == '+' || query_[pos] == '-') {
                modifier = query_[pos++];
                const std::string op = quoted(*modifier);
                if (pos == size || is_blank(query_[pos]) || query_[pos] == ')') {
                    fail(start, op + " must be followed directly by a word, a phrase or a '('");
                }
                if (query_[pos] == '+' || query_[pos] == '-') fail(pos, "a clause takes one operator: " + quoted(query_[pos]) + " after " + op);
                check_clause_start(pos);
                if (negated) fail(start, "a clause takes one operator: " + op + " after NOT");
            }
            QueryClause clause;
            clause.offset = start;
            if (query_[pos] == '(') {
                if (depth + 1 > kMaxGroupDepth) {
                    fail(pos, "parentheses nest at most " + std::to_string(kMaxGroupDepth) + " deep");
                }
                const size_t opened = pos++;
                clause.group = true;
                clause.children = parse_clauses(pos, depth + 1, opened);
                if (clause.children.empty()) fail(opened, "a group needs a clause: '()' holds none");
            } else if (query_[pos] == '"') {
                const size_t close = query_.find('"', pos + 1);
                if (close == std::string_view::npos) {
                    // Worded as before the syntax existed: scripts match "unterminated quote".
                    throw QueryError("unterminated quote in " + query_position(query_, pos) + ": a phrase needs a closing '\"'");
                }
                clause.phrase = true;
                clause.text = std::string(query_.substr(pos + 1, close - pos - 1));
                pos = close + 1;
            } else {
                size_t end = pos;
                while (end < size && !ends_word(query_[end])) ++end;
                const std::string_view word = query_.substr(pos, end - pos);
                pos = end;
                if (word == "AND" || word == "OR" || word == "NOT") {
                    const std::string name(word);
                    if (modifier) fail(start, quoted(*modifier) + " must be followed by a word or a phrase, not " + name);
                    if (pos < size && query_[pos] == '^') fail(pos, name + " takes no boost");
                    if (negated) fail(start, name + " cannot follow NOT");
                    if (word == "NOT") {
                        negated = true;
                        not_at = start;
                        continue;
                    }
                    if (!conjunction.empty()) fail(start, name + " cannot follow " + std::string(conjunction));
                    if (clauses.empty()) fail(start, name + " must stand between two clauses: none comes before it");
                    conjunction = word;
                    conjunction_at = start;
                    continue;
                }
                clause.text = std::string(word);
            }
            if (pos < size && query_[pos] == '^') {
                clause.boost = read_boost(pos);
                clause.boosted = true;
            }
            clause.occur = Occur::kShould;
            if (modifier == '+') clause.occur = Occur::kMust;
            if (modifier == '-' || negated) clause.occur = Occur::kMustNot;
            // Lucene's classic parser: `a AND b` requires both sides, unless a side is prohibited.
            if (conjunction == "AND") {
                if (clauses.back().occur != Occur::kMustNot) clauses.back().occur = Occur::kMust;
                if (clause.occur == Occur::kShould) clause.occur = Occur::kMust;
            }
            clauses.push_back(std::move(clause));
            conjunction = {};
            negated = false;
        }
        if (negated) fail(not_at, "NOT must be followed by a word or a phrase");
        if (!conjunction.empty()) fail(conjunction_at, std::string(conjunction) + " must be followed by a word or a phrase");
        return clauses;
    }

    [[noreturn]] void fail(size_t offset, const std::string& what) const {
        throw QueryError("syntax error in " + query_position(query_, offset) + ": " + what);
    }

    static std::string quoted(char c) { return std::string("'") + c + "'"; }

    // What no clause may start with (a ')' ends the group before a clause starts).
    void check_clause_start(size_t pos) const {
        if (query_[pos] == '^') fail(pos, "'^' must follow a word, a phrase or a ')' directly (a boost, such as fox^2)");
    }

    // `^N` at `pos`: N is digits with an optional fraction (`2`, `0.5`),
    // positive, and ends the clause. `pos` moves past it.
    double read_boost(size_t& pos) const {
        const size_t caret = pos++;
        const size_t size = query_.size();
        const size_t first = pos;
        const std::string need = "'^' needs a positive decimal number after it (a boost, such as 2 or 0.5)";
        while (pos < size && is_digit(query_[pos])) ++pos;
        if (pos == first) fail(caret, need);
        if (pos < size && query_[pos] == '.') {
            const size_t fraction = ++pos;
            while (pos < size && is_digit(query_[pos])) ++pos;
            if (pos == fraction) fail(caret, need);
        }
        // A boost ends at a blank, a phrase's quote or the ')' closing its group.
        if (pos < size && !is_blank(query_[pos]) && query_[pos] != '"' && query_[pos] != ')') {
            fail(pos, "a boost ends at a space: '" + std::string(query_.substr(first, pos + 1 - first)) + "' is not a number");
        }
        double boost = 0.0;
        const char* begin = query_.data() + first;
        const auto [end, error] = std::from_chars(begin, query_.data() + pos, boost);
        if (error != std::errc() || end != query_.data() + pos || !std::isfinite(boost)) fail(caret, need);
        if (!(boost > 0.0)) fail(caret, "a boost must be positive, not " + std::string(query_.substr(first, pos - first)));
        return boost;
    }

    std::string_view query_;
};

}  // namespace

std::vector<QueryClause> parse_query_syntax(std::string_view query) { return SyntaxParser(query).parse(); }

std::string query_position(std::string_view query, size_t offset) {
    return "query '" + std::string(query) + "' at character " + std::to_string(character_number(query, offset));
}

namespace {

bool any_required_or_prohibited(const std::vector<QueryClause>& clauses) {
    for (const auto& clause : clauses) {
        if (clause.occur != Occur::kShould || any_required_or_prohibited(clause.children)) return true;
    }
    return false;
}

}  // namespace

bool has_boolean_syntax(std::string_view text) {
    if (is_vector_query(text)) return false;
    try {
        return any_required_or_prohibited(parse_query_syntax(text));
    } catch (const QueryError&) {
        return true;
    }
}

std::string plain_query_text(std::string_view text) {
    std::string out(text);
    bool in_phrase = false;
    size_t word_start = std::string::npos;  // of the current word outside quotes
    const auto end_word = [&](size_t end) {
        if (word_start == std::string::npos) return;
        const std::string_view word = std::string_view(out).substr(word_start, end - word_start);
        if (word == "AND" || word == "OR" || word == "NOT") {
            for (size_t i = word_start; i < end; ++i) out[i] = static_cast<char>(out[i] - 'A' + 'a');
        }
        word_start = std::string::npos;
    };
    for (size_t i = 0; i < out.size(); ++i) {
        char& c = out[i];
        if (c == '"') {
            end_word(i);
            in_phrase = !in_phrase;
            continue;
        }
        if (in_phrase) continue;
        if (c == '+' || c == '-' || c == '(' || c == ')' || c == '^') c = ' ';
        if (is_blank(c)) {
            end_word(i);
        } else if (word_start == std::string::npos) {
            word_start = i;
        }
    }
    if (!in_phrase) end_word(out.size());
    return out;
}

bool is_vector_query(std::string_view text) {
    for (const char c : text) {
        if (!is_blank(c)) return c == '{';
    }
    return false;
}

}  // namespace invidx
