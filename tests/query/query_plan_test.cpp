// A query's plan, made once before any evaluator runs: its distinct terms in
// order of first occurrence with their BM25 weights, its phrases, the
// options it was made with, the no-terms rule, and the checks that refuse a
// query the index cannot answer on any device.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/query_error.hpp"
#include "query/query_plan.hpp"
#include "query/scored_index.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::vector<std::string> term_texts(const QueryPlan& plan) {
    std::vector<std::string> out;
    for (const auto& term : plan.terms.terms) out.push_back(term.term);
    return out;
}

}  // namespace

TEST_CASE("query plan: terms in first-occurrence order with their idf, phrases, and the options") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear", "plum fig", "kiwi"}));
    const ScoredIndex scored(index, {});
    Analyzer analyzer(index.analysis());
    const SearchOptions options{.k = 7, .mode = QueryMode::kAnd, .algorithm = Algorithm::kExhaustive};

    const QueryPlan plan = analyze_query("zebra qqabsent \"plum zebra\" plum", options, scored, analyzer);
    CHECK(term_texts(plan) == std::vector<std::string>{"zebra", "qqabsent", "plum"});
    REQUIRE(plan.weights.size() == 3);
    CHECK(plan.weights[0] == scored.bm25().idf(2));  // zebra: two documents
    CHECK(plan.weights[1] == 0.0);                   // absent
    CHECK(plan.weights[2] == scored.bm25().idf(2));
    REQUIRE(plan.phrases.size() == 1);
    CHECK(plan.phrases[0].text == "plum zebra");
    CHECK(plan.mode == QueryMode::kAnd);
    CHECK(plan.k == 7);
    CHECK(plan.algorithm == Algorithm::kExhaustive);
    CHECK(plan.scoring == QueryScoring::kBm25);
    // AND with an absent term matches nothing; OR still has zebra and plum.
    CHECK(plan.matches_nothing());
    const QueryPlan disjunctive = plan.in_mode(QueryMode::kOr);
    CHECK(!disjunctive.matches_nothing());
    CHECK(term_texts(disjunctive) == term_texts(plan));
    CHECK(disjunctive.weights == plan.weights);

    const QueryPlan stop_words = analyze_query("the of and", {.mode = QueryMode::kOr}, scored, analyzer);
    CHECK(stop_words.terms.empty());
    CHECK(stop_words.matches_nothing());
    CHECK(!analyze_query("zebra pear", {.mode = QueryMode::kAnd}, scored, analyzer).matches_nothing());
}

TEST_CASE("query plan: the checks name why the index cannot answer") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear"}));  // no positions, no query layout
    const ScoredIndex scored(index, {});
    Analyzer analyzer(index.analysis());
    CHECK_THROWS_WITH_AS(analyze_query("zebra \"plum", {}, scored, analyzer), doctest::Contains("quote"), QueryError);
    CHECK_THROWS_WITH_AS(plan_query("\"zebra plum\"", {}, scored, analyzer), doctest::Contains("needs positions"),
                         QueryError);
    // Impacts are refused whatever the terms, even with none left.
    const SearchOptions impacts{.scoring = QueryScoring::kImpact};
    CHECK_THROWS_WITH_AS(plan_query("the", impacts, scored, analyzer), doctest::Contains("has no impacts"), QueryError);
    CHECK_NOTHROW(plan_query("zebra", {}, scored, analyzer));
}
