// query_terms: distinct analyzed terms in first-occurrence order, looked up.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/query_terms.hpp"
#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// A word of letters only (the analyzer keeps it one token): n in base 26.
std::string letters(size_t n) {
    std::string word = "q";
    do {
        word += static_cast<char>('a' + n % 26);
        n /= 26;
    } while (n > 0);
    return word;
}

}  // namespace

TEST_CASE("query_terms: tens of thousands of distinct terms, duplicates dropped, first-occurrence order") {
    TempDir dir;
    const auto input = dir.write("in/docs.jsonl",
                                 "{\"id\": \"a\", \"contents\": \"apples zebras\"}\n"
                                 "{\"id\": \"b\", \"contents\": \"zebras running\"}\n");
    build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
    const IndexReader index(dir / "idx");
    Analyzer analyzer(index.analysis());

    // 30,000 distinct words, each given twice (the second copies in reverse
    // order), with the index's own words among them. The old linear scan per
    // term was quadratic in this (issue #28: 100,000 terms took 12 s).
    std::vector<std::string> words = {"zebras", "apples"};
    for (size_t n = 0; n < 30000; ++n) words.push_back(letters(n));
    std::string text;
    for (const auto& word : words) text += word + " ";
    for (auto it = words.rbegin(); it != words.rend(); ++it) text += *it + " ";

    // What the terms must be: the analyzed words, each kept at its first occurrence.
    std::vector<std::string> expected;
    std::set<std::string> seen;
    for (auto& term : analyzer.analyze_query(text)) {
        if (seen.insert(term).second) expected.push_back(term);
    }
    REQUIRE(expected.size() > 20000);  // stemming may merge a few words, not most

    const QueryTerms terms = query_terms(analyzer, index, text);
    REQUIRE(terms.terms.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        if (terms.terms[i].term != expected[i]) {
            FAIL("term " << i << " is '" << terms.terms[i].term << "', expected '" << expected[i] << "'");
        }
    }
    CHECK(terms.terms[0].term == "zebra");
    REQUIRE(terms.terms[0].index.has_value());
    CHECK(terms.terms[0].df == 2);
    CHECK(terms.terms[1].term == "appl");
    CHECK(terms.terms[1].df == 1);
    CHECK(terms.count_in_index() == 2);
    CHECK(!terms.all_in_index());
}
