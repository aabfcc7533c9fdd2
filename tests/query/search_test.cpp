// Ranked retrieval against a brute-force reference: every document scored
// straight from the postings with CONTENT.md §10's formula, sorted by (score desc,
// docid asc). MaxScore must equal exhaustive OR exactly, and must prune.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/bm25.hpp"
#include "query/exhaustive_or.hpp"
#include "query/maxscore_or.hpp"
#include "query/posting_cursor.hpp"
#include "query/long_lists.hpp"
#include "query/searcher.hpp"
#include "query/topk.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// The reference (query/long_lists.hpp): every matching document scored from
// the postings with CONTENT.md §10 written out, cut to k.
std::vector<ScoredDocument> brute_force(const IndexReader& index, std::string_view query, QueryMode mode, size_t k) {
    auto all = exhaustive_ranking(index, query, mode);
    if (all.size() > k) all.resize(k);
    return all;
}

void check_same_ranking(const std::vector<ScoredDocument>& got, const std::vector<ScoredDocument>& expected) {
    REQUIRE(got.size() == expected.size());
    for (size_t r = 0; r < got.size(); ++r) {
        CAPTURE(r);
        CHECK(got[r].docid == expected[r].docid);
        CHECK(std::abs(got[r].score - expected[r].score) <= 1e-9 * std::abs(expected[r].score));
    }
}

}  // namespace

TEST_CASE("TopK keeps the k best, higher score first, then smaller docid") {
    TopK top(3);
    CHECK(top.threshold() == -std::numeric_limits<double>::infinity());
    for (const ScoredDocument d : {ScoredDocument{5, 1.0}, {2, 1.0}, {9, 3.0}, {1, 0.5}, {7, 1.0}, {0, 1.0}}) top.push(d);
    CHECK(top.full());
    const auto kept = top.take_sorted();
    CHECK(kept == std::vector<ScoredDocument>{{9, 3.0}, {0, 1.0}, {2, 1.0}});
    TopK none(0);
    CHECK_FALSE(none.push({1, 1.0}));
    CHECK(none.take_sorted().empty());
}

TEST_CASE("PostingCursor gallops to the first docid at or past the target") {
    std::vector<uint32_t> docids, tfs;
    for (uint32_t d = 0; d < 1000; ++d) {
        docids.push_back(d * 3 + 1);
        tfs.push_back(1);
    }
    const ScoredList list{.docids = docids, .tfs = tfs, .idf = 1.0, .max_score = 1.0};
    PostingCursor cursor(list);
    for (const uint32_t target : {0u, 1u, 2u, 5u, 6u, 100u, 101u, 1500u, 2997u, 2998u}) {
        cursor.next_geq(target);
        const auto expected = std::lower_bound(docids.begin(), docids.end(), target);
        CAPTURE(target);
        if (expected == docids.end()) {
            CHECK(cursor.at_end());
            CHECK(cursor.docid() == kNoDocument);
        } else {
            CHECK(cursor.docid() == *expected);
        }
    }
    cursor.next_geq(5);  // never backwards
    CHECK(cursor.docid() == 2998);
    cursor.next_geq(2999);
    CHECK(cursor.at_end());
}

TEST_CASE("search equals the brute-force reference for random queries, AND and OR, k 1, 10, 1000") {
    TempDir dir;
    std::mt19937 random(11);
    const auto words = random_words(random, 600);
    const auto index_dir = build_text_index(dir, skewed_documents(random, words, 700, 3.0));
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());

    size_t nonempty_and = 0, nonempty_or = 0;
    for (int q = 0; q < 150; ++q) {
        const std::string query = random_query(random, words);
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                CAPTURE(query);
                CAPTURE(mode == QueryMode::kAnd);
                CAPTURE(k);
                const auto result = searcher.search(query, {.k = k, .mode = mode}, analyzer);
                check_same_ranking(result.hits, brute_force(index, query, mode, k));
                if (mode == QueryMode::kOr) {
                    // MaxScore is exactly the exhaustive top k: docids, scores (bit for bit), order.
                    const auto exhaustive = searcher.search(query, {.k = k, .mode = mode, .algorithm = Algorithm::kExhaustive}, analyzer);
                    CHECK(result.hits == exhaustive.hits);
                    nonempty_or += !result.hits.empty();
                } else {
                    nonempty_and += !result.hits.empty();
                }
            }
        }
    }
    // The queries exercised both modes with results.
    CHECK(nonempty_and > 20);
    CHECK(nonempty_or > 100);
}

TEST_CASE("equal scores rank by smaller docid, in AND and OR, at the k boundary too") {
    TempDir dir;
    // Identical documents score identically; docs 1, 3, 4, 6, 8 are the same.
    const std::vector<std::string> texts = {
        "apple banana cherry", "apple apple banana date", "banana", "apple apple banana date",
        "apple apple banana date", "cherry cherry", "apple apple banana date", "date", "apple apple banana date",
        "apple banana date apple"};  // 9: the same terms, tfs and length in another order
    const IndexReader index(build_text_index(dir, texts));
    const Searcher searcher(index);
    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
        for (const size_t k : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{6}, size_t{10}}) {
            CAPTURE(k);
            const auto result = searcher.search("apple banana date the date", {.k = k, .mode = mode});
            check_same_ranking(result.hits, brute_force(index, "apple banana date", mode, k));
            const std::vector<uint32_t> tied = {1, 3, 4, 6, 8, 9};
            for (size_t r = 0; r < std::min(k, tied.size()); ++r) {
                CHECK(result.hits[r].docid == tied[r]);
                CHECK(result.hits[r].score == result.hits[0].score);
            }
        }
    }
}

TEST_CASE("query terms: stop words only, absent terms, duplicates") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"apple banana", "banana cherry", "cherry"}));
    const Searcher searcher(index);
    // All terms analyze away: nothing, in both modes.
    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
        const auto result = searcher.search("the and OF", {.k = 10, .mode = mode});
        CHECK(result.terms.empty());
        CHECK(result.hits.empty());
    }
    // An absent term: AND has no result, OR ignores it.
    CHECK(searcher.search("banana zzzabsent", {.k = 10, .mode = QueryMode::kAnd}).hits.empty());
    const auto or_result = searcher.search("banana zzzabsent", {.k = 10, .mode = QueryMode::kOr});
    CHECK(or_result.hits.size() == 2);
    CHECK(or_result.hits == searcher.search("banana", {.k = 10, .mode = QueryMode::kOr}).hits);
    // Duplicates count once: "banana banana" scores like "banana".
    const auto twice = searcher.search("banana Banana bananas", {.k = 10, .mode = QueryMode::kOr});
    CHECK(twice.terms.terms.size() == 1);
    CHECK(twice.hits == or_result.hits);
}

TEST_CASE("MaxScore prunes on a skewed collection and still equals the exhaustive top k") {
    TempDir dir;
    std::mt19937 random(5);
    const auto words = random_words(random, 3000);
    const IndexReader index(build_text_index(dir, skewed_documents(random, words, 4000, 4.0)));
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());
    QueryStats pruned_total, exhaustive_total;
    for (int q = 0; q < 40; ++q) {
        // Frequent terms with a rarer one: the usual shape where MaxScore wins.
        const std::string query = words[random() % 5] + " " + words[random() % 10] + " " + words[50 + random() % 200] +
                                  " " + words[300 + random() % 1000];
        for (const size_t k : {size_t{1}, size_t{10}}) {
            CAPTURE(query);
            const auto pruned = searcher.search(query, {.k = k, .mode = QueryMode::kOr}, analyzer);
            const auto exhaustive = searcher.search(query, {.k = k, .mode = QueryMode::kOr, .algorithm = Algorithm::kExhaustive}, analyzer);
            REQUIRE(pruned.hits == exhaustive.hits);
            check_same_ranking(pruned.hits, brute_force(index, query, QueryMode::kOr, k));
            CHECK(pruned.stats.documents_scored <= exhaustive.stats.documents_scored);
            pruned_total += pruned.stats;
            exhaustive_total += exhaustive.stats;
        }
    }
    MESSAGE("documents fully scored: MaxScore " << pruned_total.documents_scored << ", exhaustive "
                                                << exhaustive_total.documents_scored << " (considered "
                                                << pruned_total.documents_considered << ")");
    CHECK(pruned_total.documents_scored * 2 < exhaustive_total.documents_scored);
    CHECK(pruned_total.documents_considered < exhaustive_total.documents_considered);
}

TEST_CASE("search_all runs queries in parallel, results in input order") {
    TempDir dir;
    std::mt19937 random(3);
    const auto words = random_words(random, 300);
    const IndexReader index(build_text_index(dir, skewed_documents(random, words, 300, 2.0)));
    const Searcher searcher(index);
    std::vector<std::string> queries;
    for (int q = 0; q < 64; ++q) queries.push_back(random_query(random, words));
    const auto results = searcher.search_all(queries, {.k = 10, .mode = QueryMode::kOr});
    REQUIRE(results.size() == queries.size());
    for (size_t q = 0; q < queries.size(); ++q) CHECK(results[q].hits == searcher.search(queries[q], {.k = 10}).hits);
}

TEST_CASE("and-or mode: the AND hits when AND finds k documents, else the OR top k") {
    TempDir dir;
    std::mt19937 random(17);
    const auto words = random_words(random, 400);
    const IndexReader index(build_text_index(dir, skewed_documents(random, words, 500, 3.0)));
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());
    size_t answered_by_and = 0, answered_by_or = 0;
    for (int q = 0; q < 120; ++q) {
        const std::string query = random_query(random, words);
        for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
            CAPTURE(query);
            CAPTURE(k);
            const auto conjunctive = searcher.search(query, {.k = k, .mode = QueryMode::kAnd}, analyzer);
            const auto both = searcher.search(query, {.k = k, .mode = QueryMode::kAndOr}, analyzer);
            if (conjunctive.hits.size() >= k) {
                CHECK(both.answered_as == QueryMode::kAnd);
                CHECK(both.hits == conjunctive.hits);
                ++answered_by_and;
            } else {
                CHECK(both.answered_as == QueryMode::kOr);
                check_same_ranking(both.hits, brute_force(index, query, QueryMode::kOr, k));
                ++answered_by_or;
            }
        }
    }
    // Both branches ran, or this test proves nothing.
    CHECK(answered_by_and > 10);
    CHECK(answered_by_or > 10);
}
