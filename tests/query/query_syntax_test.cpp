// The query language: Lucene's classic subset (+ - NOT AND OR "phrase" ^boost)
// split into clauses, and every malformed piece of syntax a QueryError that
// names the query and the character, never a word.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "query/query_error.hpp"
#include "query/query_syntax.hpp"

using namespace invidx;

namespace {

// One clause as "<occur><text>[^boost]": '+' must, '-' must not, ' ' should;
// a phrase's text keeps its quotes; a group is its clauses in parentheses,
// each shown so, separated by commas.
std::string shown_clause(const QueryClause& clause) {
    std::string one = clause.occur == Occur::kMust ? "+" : clause.occur == Occur::kMustNot ? "-" : " ";
    if (clause.group) {
        one += "(";
        for (size_t i = 0; i < clause.children.size(); ++i) one += (i ? "," : "") + shown_clause(clause.children[i]);
        one += ")";
    } else {
        one += clause.phrase ? "\"" + clause.text + "\"" : clause.text;
    }
    if (clause.boosted) {
        char boost[32];
        std::snprintf(boost, sizeof boost, "^%g", clause.boost);
        one += boost;
    }
    return one;
}

std::vector<std::string> shown(std::string_view query) {
    std::vector<std::string> out;
    for (const auto& clause : parse_query_syntax(query)) out.push_back(shown_clause(clause));
    return out;
}

using Clauses = std::vector<std::string>;

// The message of the QueryError that parsing `query` throws.
std::string error_of(std::string_view query) {
    try {
        (void)parse_query_syntax(query);
    } catch (const QueryError& error) {
        return error.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("query syntax: words, phrases, + and -, boosts") {
    CHECK(shown("fox dog") == Clauses{" fox", " dog"});
    CHECK(shown("  fox\t\tdog \n") == Clauses{" fox", " dog"});
    CHECK(shown("+fox -dog cat") == Clauses{"+fox", "-dog", " cat"});
    CHECK(shown("\"new york\" +\"big apple\" times") == Clauses{" \"new york\"", "+\"big apple\"", " times"});
    CHECK(shown("fox^2 dog^0.5 \"a b\"^3 +cat^1.25") == Clauses{" fox^2", " dog^0.5", " \"a b\"^3", "+cat^1.25"});
    // A hyphen or plus inside a word is part of it (analysis splits it as before).
    CHECK(shown("e-mail c++ x-") == Clauses{" e-mail", " c++", " x-"});
    // A quote ends a word and starts a phrase; after a phrase a clause may follow directly.
    CHECK(shown("foo\"bar baz\"qux") == Clauses{" foo", " \"bar baz\"", " qux"});
    CHECK(shown("\"a b\"-c") == Clauses{" \"a b\"", "-c"});
    CHECK(shown("").empty());
    CHECK(shown("   ").empty());
    // Lowercase and, or, not are words; other Lucene syntax is punctuation inside words.
    CHECK(shown("cats and dogs or not") == Clauses{" cats", " and", " dogs", " or", " not"});
    CHECK(shown("title:fox wild* fuzzy~ a&&b") == Clauses{" title:fox", " wild*", " fuzzy~", " a&&b"});
    CHECK(shown("ANDROID NOTE ORACLE") == Clauses{" ANDROID", " NOTE", " ORACLE"});
    const auto clauses = parse_query_syntax("ab  +cd");
    REQUIRE(clauses.size() == 2);
    CHECK(clauses[1].offset == 4);
    CHECK(!clauses[0].boosted);
    CHECK(clauses[0].boost == 1.0);
}

TEST_CASE("query syntax: AND, OR and NOT as Lucene's classic parser reads them") {
    CHECK(shown("fox NOT dog") == Clauses{" fox", "-dog"});
    CHECK(shown("NOT dog") == Clauses{"-dog"});
    CHECK(shown("fox AND dog") == Clauses{"+fox", "+dog"});
    CHECK(shown("fox AND dog cat") == Clauses{"+fox", "+dog", " cat"});
    CHECK(shown("fox OR dog") == Clauses{" fox", " dog"});
    CHECK(shown("fox AND NOT dog") == Clauses{"+fox", "-dog"});
    CHECK(shown("fox AND -dog") == Clauses{"+fox", "-dog"});
    CHECK(shown("-fox AND dog") == Clauses{"-fox", "+dog"});  // a prohibited side stays prohibited
    CHECK(shown("fox AND +dog") == Clauses{"+fox", "+dog"});
    CHECK(shown("a AND b OR c") == Clauses{"+a", "+b", " c"});
    CHECK(shown("a OR b AND c") == Clauses{" a", "+b", "+c"});
    CHECK(shown("+a OR b") == Clauses{"+a", " b"});
    CHECK(shown("fox OR NOT dog") == Clauses{" fox", "-dog"});
    CHECK(shown("NOT \"new york\" city") == Clauses{"-\"new york\"", " city"});
    CHECK(shown("fox AND \"new york\"^2") == Clauses{"+fox", "+\"new york\"^2"});
}

TEST_CASE("query syntax: every malformed piece is an error naming the query and the character") {
    const auto fails = [](const std::string& query, size_t character, std::string_view what) {
        CAPTURE(query);
        const std::string message = error_of(query);
        CHECK(message.find("syntax error in query '" + std::string(query) + "' at character " + std::to_string(character) + ": ") == 0);
        CHECK(message.find(what) != std::string::npos);
    };
    fails("fox +", 5, "'+' must be followed directly by a word, a phrase or a '('");
    fails("fox - dog", 5, "'-' must be followed directly");
    fails("-", 1, "'-' must be followed directly");
    fails("+-fox", 2, "one operator");
    fails("--fox", 2, "one operator");
    fails("NOT -fox", 5, "one operator");
    fails("+AND fox", 1, "not AND");
    fails("AND fox", 1, "AND must stand between two clauses");
    fails("OR fox", 1, "OR must stand between two clauses");
    fails("fox AND", 5, "AND must be followed by a word or a phrase");
    fails("fox OR", 5, "OR must be followed");
    fails("fox AND OR dog", 9, "OR cannot follow AND");
    fails("fox NOT", 5, "NOT must be followed by a word or a phrase");
    fails("NOT NOT fox", 5, "NOT cannot follow NOT");
    fails("fox NOT AND dog", 9, "AND cannot follow NOT");
    fails("fox^", 4, "'^' needs a positive decimal number");
    fails("fox^x", 4, "'^' needs a positive decimal number");
    fails("fox^.5", 4, "'^' needs a positive decimal number");
    fails("fox^2.", 4, "'^' needs a positive decimal number");
    fails("fox^0", 4, "a boost must be positive");
    fails("fox^0.0", 4, "a boost must be positive");
    fails("fox^2x", 6, "a boost ends at a space");
    fails("fox^2^3", 6, "a boost ends at a space");
    fails("fox^-1", 4, "'^' needs a positive decimal number");
    fails("^2 fox", 1, "'^' must follow a word, a phrase or a ')'");
    fails("fox ^2", 5, "'^' must follow a word, a phrase or a ')'");
    fails("AND^2 fox", 4, "AND takes no boost");
    CHECK(error_of("fox \"new york") == "unterminated quote in query 'fox \"new york' at character 5: a phrase needs a closing '\"'");
    CHECK(error_of("\"a\" \"b").find("unterminated quote in query '\"a\" \"b' at character 5") == 0);
    // Unbalanced parentheses name the unmatched one.
    fails("(fox dog", 1, "'(' has no matching ')'");
    fails("fox (dog (cat)", 5, "'(' has no matching ')'");
    fails("fox dog)", 8, "')' has no matching '('");
    fails("(fox) dog)", 10, "')' has no matching '('");
    fails("fox^2)", 6, "')' has no matching '('");
    fails(")", 1, "')' has no matching '('");
    fails("(\"a)\"", 1, "'(' has no matching ')'");  // a ')' inside quotes is text
    fails("()", 1, "a group needs a clause");
    fails("fox ( )", 5, "a group needs a clause");
    fails("+()", 2, "a group needs a clause");
    fails("+)", 1, "'+' must be followed directly");
    fails("(fox -)", 6, "'-' must be followed directly");
    fails("(fox AND)", 6, "AND must be followed by a word or a phrase");
    fails("(NOT) fox", 2, "NOT must be followed by a word or a phrase");
    fails("(AND fox)", 2, "AND must stand between two clauses");
    fails("(fox)^", 6, "'^' needs a positive decimal number");
    fails("(fox)^2x", 8, "a boost ends at a space");
    fails("(^2 fox)", 2, "'^' must follow");
    fails(std::string(101, '(') + "fox" + std::string(101, ')'), 101, "parentheses nest at most 100 deep");
    // Characters, not bytes: "ü" is two bytes and one character.
    fails("über +", 6, "'+' must be followed");
}

TEST_CASE("query syntax: parentheses group clauses, as Lucene's classic parser does") {
    CHECK(shown("(fox dog)") == Clauses{" ( fox, dog)"});
    CHECK(shown("+(fox dog) -(cat \"big bird\") (a)^2") == Clauses{"+( fox, dog)", "-( cat, \"big bird\")", " ( a)^2"});
    CHECK(shown("NOT (fox dog) cat") == Clauses{"-( fox, dog)", " cat"});
    // AND, OR and NOT act within their group; a group is a side of AND.
    CHECK(shown("(a AND b) OR (c NOT d)") == Clauses{" (+a,+b)", " ( c,-d)"});
    CHECK(shown("a AND (b c)") == Clauses{"+a", "+( b, c)"});
    CHECK(shown("(a b) AND NOT c") == Clauses{"+( a, b)", "-c"});
    // Nested, boosted at every depth; a clause may follow a ')' directly, a '(' a word.
    CHECK(shown("((a^2 +b)^3 -c)^0.5") == Clauses{" ( ( a^2,+b)^3,-c)^0.5"});
    CHECK(shown("f(x)y") == Clauses{" f", " ( x)", " y"});
    CHECK(shown("( fox )") == Clauses{" ( fox)"});
    // Inside quotes a parenthesis is text.
    CHECK(shown("\"a (b\" c \")\"") == Clauses{" \"a (b\"", " c", " \")\""});
    const auto clauses = parse_query_syntax("x +(ab cd)");
    REQUIRE(clauses.size() == 2);
    CHECK(clauses[1].group);
    CHECK(clauses[1].offset == 2);
    CHECK(clauses[1].children[1].offset == 7);
    CHECK(has_boolean_syntax("fox +(a b)"));
    CHECK(has_boolean_syntax("(fox (a -b))"));
    CHECK(has_boolean_syntax("fox (a b"));  // malformed: the CPU reports it
    CHECK(!has_boolean_syntax("(fox (a b)^2) \"c d\""));
    CHECK(shown(std::string(100, '(') + "fox" + std::string(100, ')')).size() == 1);
}

TEST_CASE("query syntax: natural-language text made plain, and weighted queries told apart") {
    CHECK(plain_query_text("U.S. - China (trade) AND tariffs^2 +x NOT y") == "U.S.   China  trade  and tariffs 2  x not y");
    CHECK(plain_query_text("e-mail \"-a (b) AND\" OR") == "e mail \"-a (b) AND\" or");
    CHECK(parse_query_syntax(plain_query_text("(a) - b AND c^ ^ NOT")).size() == 5);
    CHECK(is_vector_query("  {\"fox\": 2}"));
    CHECK(!is_vector_query("fox {x}"));
    CHECK(!is_vector_query(""));
    CHECK(has_boolean_syntax("fox -dog"));
    CHECK(has_boolean_syntax("fox AND dog"));
    CHECK(has_boolean_syntax("fox \"dog"));  // malformed: the CPU reports it
    CHECK(!has_boolean_syntax("fox dog^2 \"a b\""));
    CHECK(!has_boolean_syntax("{\"fox\": 1}"));
}
