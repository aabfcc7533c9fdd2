// Query files of weighted queries ({"qid", "vector"} JSON lines, Anserini's
// JsonVectorCollection queries) and topics read as natural language.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "query/query_error.hpp"
#include "query/query_file.hpp"
#include "query/query_syntax.hpp"
#include "query/vector_query.hpp"

using namespace invidx;

TEST_CASE("query file: JSON lines of weighted queries, qid or id, checked line by line") {
    const auto queries = parse_query_file(
        "\n  {\"qid\": \"q1\", \"vector\": {\"zebra\": 2, \"appl\": 0.5}}\n\n"
        "{\"id\": 17, \"vector\": {\"caf\xC3\xA9\": 1.25, \"##ing\": 3}, \"other\": [1]}\r\n",
        "q.jsonl");
    REQUIRE(queries.size() == 2);
    CHECK(queries[0].qid == "q1");
    CHECK(queries[0].line == 2);
    CHECK(queries[1].qid == "17");
    CHECK(queries[1].line == 4);
    // The text is the vector's JSON: a weighted query, terms in file order.
    CHECK(is_vector_query(queries[0].text));
    const auto vector = parse_term_vector(queries[1].text);
    REQUIRE(vector.size() == 2);
    CHECK(vector[0].term == "caf\xC3\xA9");
    CHECK(vector[0].weight == 1.25);
    CHECK(vector[1].term == "##ing");
    CHECK(vector[1].weight == 3.0);

    const auto fails = [](std::string content, std::string_view what) {
        CAPTURE(content);
        CHECK_THROWS_WITH_AS(parse_query_file(content, "q.jsonl"), doctest::Contains(std::string(what).c_str()), QueryError);
    };
    const std::string good = "{\"qid\": \"1\", \"vector\": {\"a\": 1}}\n";
    fails(good + "{\"qid\": \"2\", \"vector\": {\"a\": 0}}\n", "q.jsonl: line 2: query 2: the weight of term 'a' must be a positive number");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"a\": \"x\"}}\n", "line 2: query 2: the weight of term 'a'");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"\": 1}}\n", "line 2: query 2: the term '' has 0 bytes");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"" + std::string(256, 'x') + "\": 1}}\n", "line 2: query 2: the term");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"\xFF\": 1}}\n", "line 2: not valid JSON");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"a\": 1, \"a\": 2}}\n", "line 2: the key 'a' is given twice");
    fails(good + "{\"qid\": \"2\", \"vector\": [1]}\n", "line 2: query 2: a weighted query's vector must be a JSON object");
    fails(good + "{\"vector\": {\"a\": 1}}\n", "line 2: a weighted query needs a \"qid\"");
    fails(good + "{\"qid\": \"two words\", \"vector\": {\"a\": 1}}\n", "line 2: qid 'two words'");
    fails(good + "{\"qid\": \"3\"}\n", "line 2: query 3 has no \"vector\"");
    fails(good + "3\tzebra\n", "line 2: not valid JSON");
    fails(good + "{\"qid\": \"2\", \"vector\": {\"a\": 1}\n", "line 2: not valid JSON");
}

TEST_CASE("query file: topics are natural language, their operators punctuation") {
    const auto titles = parse_query_file("<top>\n<num> Number: 9\n<title> U.S. - China (trade) AND tariffs\n</top>\n", "t");
    REQUIRE(titles.size() == 1);
    CHECK(titles[0].text == "U.S.   China  trade  and tariffs");
    CHECK_NOTHROW(parse_query_syntax(titles[0].text));
    // A tab-separated query is query syntax, as on the command line.
    const auto lines = parse_query_file("1\tfox -dog\n", "f.tsv");
    CHECK(lines[0].text == "fox -dog");
}
