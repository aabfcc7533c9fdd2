// Query files: qid<TAB>text lines, classic TREC topics, Web Track XML topics.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "query/query_error.hpp"
#include "query/query_file.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::vector<std::string> qids(const std::vector<QueryLine>& queries) {
    std::vector<std::string> out;
    for (const auto& query : queries) out.push_back(query.qid);
    return out;
}

std::vector<std::string> texts(const std::vector<QueryLine>& queries) {
    std::vector<std::string> out;
    for (const auto& query : queries) out.push_back(query.text);
    return out;
}

// As the ad hoc and Robust04 topic files are laid out (tags never closed).
constexpr std::string_view kClassicTopics =
    "<top>\n"
    "<num> Number: 401\n"
    "<title> foreign minorities, Germany\n"
    "\n"
    "<desc> Description:\n"
    "What language and cultural differences impede\n"
    "the integration of foreign minorities in Germany?\n"
    "\n"
    "<narr> Narrative:\n"
    "A relevant document will focus on the causes.\n"
    "</top>\n"
    "\n"
    "<TOP>\n"
    "<NUM> Number: 051\n"
    "<TITLE> Topic:   Airbus   Subsidies\n"
    "<desc> Description: Document will discuss\n"
    "government assistance to Airbus.\n"
    "</TOP>\n";

constexpr std::string_view kWebTrackTopics =
    "<webtrack2009>\n"
    "<topic number=\"1\" type=\"faceted\">\n"
    "  <query>obama family tree</query>\n"
    "  <description>Find information on President\n   Barack Obama's family history.</description>\n"
    "  <subtopic number=\"1\" type=\"nav\">Find the TIME magazine photo essay.</subtopic>\n"
    "</topic>\n"
    "<topic number='2' type=\"single\">\n"
    "  <query>french lick &amp; resort</query>\n"
    "  <description>Find information about French Lick Resort and Casino.</description>\n"
    "</topic>\n"
    "</webtrack2009>\n";

}  // namespace

TEST_CASE("query file: qid-tab-text lines, blank lines and CRs skipped") {
    const auto queries = parse_query_file("q3\tzebras\n\n401\trunning apples\r\n  \nq1\tapples zebras", "f.tsv");
    CHECK(qids(queries) == std::vector<std::string>{"q3", "401", "q1"});
    CHECK(texts(queries) == std::vector<std::string>{"zebras", "running apples", "apples zebras"});
    CHECK_THROWS_WITH_AS(parse_query_file("q1\tfine\nno tab here\n", "f.tsv"),
                         doctest::Contains("f.tsv: line 2: expected 'qid<TAB>query text'"), QueryError);
}

TEST_CASE("query file: classic TREC topics give titles or descriptions") {
    const auto titles = parse_query_file(kClassicTopics, "topics.401");
    CHECK(qids(titles) == std::vector<std::string>{"401", "051"});
    CHECK(texts(titles) == std::vector<std::string>{"foreign minorities, Germany", "Airbus Subsidies"});
    const auto descriptions = parse_query_file(kClassicTopics, "topics.401", TopicField::kDescription);
    CHECK(texts(descriptions) ==
          std::vector<std::string>{
              "What language and cultural differences impede the integration of foreign minorities in Germany?",
              "Document will discuss government assistance to Airbus."});
}

TEST_CASE("query file: Web Track XML topics give queries or descriptions") {
    // A byte order mark and leading blank lines do not hide the format.
    const std::string content = "\xEF\xBB\xBF\n\n" + std::string(kWebTrackTopics);
    const auto titles = parse_query_file(content, "wt09.xml");
    CHECK(qids(titles) == std::vector<std::string>{"1", "2"});
    CHECK(texts(titles) == std::vector<std::string>{"obama family tree", "french lick & resort"});
    const auto descriptions = parse_query_file(content, "wt09.xml", TopicField::kDescription);
    CHECK(descriptions[0].text == "Find information on President Barack Obama's family history.");
}

TEST_CASE("query file: broken topics are errors naming the file and line") {
    CHECK_THROWS_WITH_AS(parse_query_file("<top>\n<num> Number: 7\n<title> x\n", "t"),
                         doctest::Contains("t: line 1: <top> without </top>"), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("\n<top>\n<title> x\n</top>\n", "t"),
                         doctest::Contains("t: line 2: topic without a <num>"), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<top>\n<num> Number: 7\n<title>\n<desc> d\n</top>\n", "t"),
                         doctest::Contains("topic 7 has no text in <title>"), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<topics>\n</topics>\n", "t"), doctest::Contains("no <top> topics"),
                         QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<topic type=\"x\">\n<query>a</query>\n</topic>\n", "t"),
                         doctest::Contains("without a number="), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<topic number=\"3\">\n<description>a</description>\n</topic>\n", "t"),
                         doctest::Contains("topic 3 has no <query>...</query>"), QueryError);
    CHECK_THROWS_AS(read_query_file("/nonexistent/topics.txt"), QueryError);
}

TEST_CASE("query file: each query keeps the line it starts on") {
    const auto tsv = parse_query_file("\nq1\tapples\n\nq2\tzebras\n", "f.tsv");
    REQUIRE(tsv.size() == 2);
    CHECK(tsv[0].line == 2);
    CHECK(tsv[1].line == 4);
    const auto classic = parse_query_file(kClassicTopics, "topics.401");
    REQUIRE(classic.size() == 2);
    CHECK(classic[0].line == 1);
    CHECK(classic[1].line == 13);
    const auto web = parse_query_file(kWebTrackTopics, "wt09.xml");
    REQUIRE(web.size() == 2);
    CHECK(web[0].line == 2);
    CHECK(web[1].line == 8);
}

TEST_CASE("query file: a qid that would break a TREC run line is an error naming the line") {
    CHECK_THROWS_WITH_AS(parse_query_file("q1\tfine\nq 2\tapples\n", "f.tsv"),
                         doctest::Contains("f.tsv: line 2: qid 'q 2' holds whitespace"), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("q\x1b[2J\tapples\n", "f.tsv"),
                         doctest::Contains("f.tsv: line 1: qid 'q\\x1b[2J' holds whitespace or a control character"),
                         QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<top>\n<num> Number: 7\n<title> x\n</top>\n\n<top>\n<num> Number: 8 9\n<title> y\n</top>\n", "t"),
                         doctest::Contains("t: line 6: qid '8 9'"), QueryError);
    CHECK_THROWS_WITH_AS(parse_query_file("<topic number=\"1 2\">\n<query>a</query>\n</topic>\n", "t"),
                         doctest::Contains("t: line 1: qid '1 2'"), QueryError);
    // Bytes that are not UTF-8 are no whitespace: such a qid is kept as it is.
    CHECK(parse_query_file("q\xff\tapples\n", "f.tsv")[0].qid == "q\xff");
}

TEST_CASE("invidx search reads a TREC topic file") {
    TempDir dir;
    const auto input = dir.write("in/docs.jsonl",
                                 "{\"id\": \"doc-a\", \"contents\": \"apples apples\"}\n"
                                 "{\"id\": \"doc-b\", \"contents\": \"running\"}\n"
                                 "{\"id\": \"7\", \"contents\": \"apples zebras zebras the zebras\"}\n");
    build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
    const auto topics = dir.write("topics.txt",
                                  "<top>\n<num> Number: 301\n<title> zebras\n<desc> Description:\nrunning\n</top>\n"
                                  "<top>\n<num> Number: 302\n<title> apples\n</top>\n");
    const std::string command = "search '" + (dir / "idx").string() + "' --queries '" + topics.string() + "' --format trec --k 1";
    const auto by_title = run_invidx(dir, command);
    CHECK(by_title.exit_code == 0);
    CHECK(by_title.out.starts_with("301 Q0 7 1 "));
    CHECK(by_title.out.find("\n302 Q0 doc-a 1 ") != std::string::npos);
    // 302 has no description: an error, exit 2, naming the file.
    const auto by_description = run_invidx(dir, command + " --topic-field description");
    CHECK(by_description.exit_code == 2);
    CHECK(by_description.err.find("topics.txt: line 7: topic 302 has no text in <desc>") != std::string::npos);
    CHECK(run_invidx(dir, command + " --topic-field narrative").exit_code == 2);
}
