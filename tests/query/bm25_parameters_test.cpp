// BM25's k1 and b chosen per query (SearchOptions::k1, b): every CPU
// algorithm returns exactly the brute-force top k of that BM25 (same
// documents, same scores bit for bit, same order), on the run files and on
// query layouts whose block maxima were made with the same or other k1 and b;
// the bounds that replace those block maxima never fall below a block's true
// maximum; bad values and impact scoring are refused. The GPU's answers are
// the CPU's (GPU test cases, support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "query/bm25_weighting.hpp"
#include "query/query_error.hpp"
#include "query/searcher.hpp"
#include "store/merge.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// k1, b pairs: the index's own (0.9, 0.4), b = 0, b = 1, k1 = 0, and others.
const std::vector<Bm25Parameters> kParameterPairs = {{0.9, 0.4}, {1.2, 0.75}, {0.9, 0.0}, {2.0, 1.0},
                                                     {0.0, 0.5}, {0.5, 0.2},  {3.0, 0.9}};

// The top k by BM25 with `parameters`, computed from the run files' postings
// posting by posting: every document with the query's terms (OR: any; AND:
// all) scored in query-term order, as CONTENT.md §10 defines it.
std::vector<ScoredDocument> brute_force(const IndexReader& index, const QueryTerms& terms, Bm25Parameters parameters,
                                        QueryMode mode, size_t k) {
    const Bm25 bm25(parameters, index.num_documents(), index.average_length());
    std::vector<double> scores(index.num_documents(), 0.0);
    std::vector<size_t> matched(index.num_documents(), 0);
    size_t present = 0;
    for (const QueryTerm& term : terms.terms) {
        if (!term.index) continue;
        ++present;
        const double idf = bm25.idf(term.df);
        const run_list::DecodedList list = index.postings(*term.index);
        for (size_t i = 0; i < list.docids.size(); ++i) {
            const uint32_t d = list.docids[i];
            scores[d] += bm25.score(idf, list.tfs[i], bm25.length_norm(index.document_length(d)));
            ++matched[d];
        }
    }
    std::vector<ScoredDocument> hits;
    if (present == 0) return hits;
    if (mode == QueryMode::kAnd && present != terms.terms.size()) return hits;
    for (uint32_t d = 0; d < index.num_documents(); ++d) {
        if (mode == QueryMode::kAnd ? matched[d] == present : matched[d] > 0) hits.push_back({d, scores[d]});
    }
    std::sort(hits.begin(), hits.end(), ranks_before);
    if (hits.size() > k) hits.resize(k);
    return hits;
}

struct Index {
    std::filesystem::path path;
    std::string name;
};

// One collection as: run files only; a bp128 query layout made with k1 0.9,
// b 0.4; a pfor layout made with k1 1.2, b 0.75 (so that the Searcher's own
// BM25 does not fit its maxima either).
std::vector<Index> indexes_of(TempDir& dir, const std::filesystem::path& standard) {
    std::vector<Index> indexes = {{standard, "run files"}};
    const auto bp128 = dir / "idx-bp128";
    std::filesystem::copy(standard, bp128, std::filesystem::copy_options::recursive);
    merge_runs(bp128, {.query_codec = std::string("bp128")});
    indexes.push_back({bp128, "bp128 layout, k1 0.9 b 0.4"});
    const auto other = dir / "idx-pfor-other";
    std::filesystem::copy(standard, other, std::filesystem::copy_options::recursive);
    merge_runs(other, {.query_codec = std::string("pfor"), .query_parameters = {.k1 = 1.2, .b = 0.75}});
    indexes.push_back({other, "pfor layout, k1 1.2 b 0.75"});
    return indexes;
}

std::vector<std::string> test_queries(std::mt19937& random, const std::vector<std::string>& words) {
    std::vector<std::string> queries;
    for (int q = 0; q < 40; ++q) queries.push_back(random_query(random, words));
    queries.push_back(words[0] + " " + words[1]);  // two of the longest lists
    queries.push_back(words[0] + " " + words[1] + " " + words[2] + " " + words[3]);
    return queries;
}

SearchOptions options_for(Bm25Parameters parameters, QueryMode mode, size_t k, Algorithm algorithm) {
    SearchOptions options{.k = k, .mode = mode, .algorithm = algorithm};
    options.k1 = parameters.k1;
    options.b = parameters.b;
    return options;
}

}  // namespace

TEST_CASE("every CPU algorithm returns the brute-force BM25 top k for any k1 and b, with and without a query layout") {
    TempDir dir;
    std::mt19937 random(31);
    const auto [words, standard] = skewed_collection(dir, random, 300, 900, 3.0);
    const auto queries = test_queries(random, words);
    struct Case {
        QueryMode mode;
        size_t k;
        Algorithm algorithm;
    };
    const std::vector<Case> cases = {
        {QueryMode::kOr, 10, Algorithm::kBlockMaxMaxscore}, {QueryMode::kOr, 1, Algorithm::kBlockMaxMaxscore},
        {QueryMode::kOr, 1000, Algorithm::kBlockMaxMaxscore}, {QueryMode::kOr, 10, Algorithm::kBlockMaxWand},
        {QueryMode::kOr, 10, Algorithm::kMaxscore},          {QueryMode::kOr, 10, Algorithm::kExhaustive},
        {QueryMode::kAnd, 10, Algorithm::kBlockMaxMaxscore}, {QueryMode::kAnd, 3, Algorithm::kMaxscore},
    };
    size_t nonempty = 0;
    for (const Index& index_case : indexes_of(dir, standard)) {
        CAPTURE(index_case.name);
        const IndexReader index(index_case.path);
        const Searcher searcher(index);
        Analyzer analyzer(index.analysis());
        for (const Bm25Parameters parameters : kParameterPairs) {
            CAPTURE(parameters.k1);
            CAPTURE(parameters.b);
            for (const Case& c : cases) {
                CAPTURE(static_cast<int>(c.algorithm));
                CAPTURE(c.k);
                CAPTURE(c.mode == QueryMode::kAnd ? "AND" : "OR");
                const SearchOptions options = options_for(parameters, c.mode, c.k, c.algorithm);
                // Twice: the first query of a term computes its exact block maxima, the second reuses them.
                for (int pass = 0; pass < 2; ++pass) {
                    const auto results = searcher.search_all(queries, options);
                    for (size_t q = 0; q < queries.size(); ++q) {
                        CAPTURE(queries[q]);
                        const QueryTerms terms = searcher.plan(queries[q], options, analyzer).terms;
                        CHECK(results[q].hits == brute_force(index, terms, parameters, c.mode, c.k));
                        nonempty += !results[q].hits.empty();
                    }
                }
            }
        }
    }
    CHECK(nonempty > 3000);
}

TEST_CASE("absent k1 and b are the Searcher's own; given ones change the scores") {
    TempDir dir;
    std::mt19937 random(5);
    const auto [words, standard] = skewed_collection(dir, random, 100, 300, 2.0);
    merge_runs(standard, {.query_codec = std::string("bp128")});
    const IndexReader index(standard);
    const Searcher searcher(index);
    const std::string query = words[0] + " " + words[5] + " " + words[40];
    const auto plain = searcher.search(query, {.k = 20}).hits;
    REQUIRE(!plain.empty());
    CHECK(searcher.search(query, options_for({0.9, 0.4}, QueryMode::kOr, 20, Algorithm::kBlockMaxMaxscore)).hits == plain);
    SearchOptions only_k1{.k = 20};
    only_k1.k1 = 0.9;  // b stays the Searcher's 0.4
    CHECK(searcher.search(query, only_k1).hits == plain);
    const auto other = searcher.search(query, options_for({1.5, 1.0}, QueryMode::kOr, 20, Algorithm::kBlockMaxMaxscore)).hits;
    REQUIRE(other.size() == plain.size());
    CHECK(other != plain);
    // k1 = 0: every present term adds its idf alone, whatever tf and length.
    const auto flat = searcher.search(words[0], options_for({0.0, 0.3}, QueryMode::kOr, 5, Algorithm::kBlockMaxMaxscore)).hits;
    REQUIRE(flat.size() == 5);
    for (const auto& hit : flat) CHECK(hit.score == flat.front().score);
}

TEST_CASE("the bounds that replace block maxima of another k1 and b never fall below a block's true maximum") {
    TempDir dir;
    std::mt19937 random(8);
    const auto [words, standard] = skewed_collection(dir, random, 200, 800, 3.0);
    merge_runs(standard, {.query_codec = std::string("bp128")});
    const IndexReader index(standard);
    const QueryPostings layout(index);
    size_t tighter_than_the_cap = 0;
    for (const Bm25Parameters parameters : kParameterPairs) {
        CAPTURE(parameters.k1);
        CAPTURE(parameters.b);
        const Bm25Weighting derived(index, parameters, &layout);
        const Bm25Weighting exact(index, parameters, &layout);
        const bool own = parameters.k1 == 0.9 && parameters.b == 0.4;
        CHECK(derived.stored_maxima_fit() == own);
        if (own) {
            CHECK(derived.exact_maxima(0, layout.list(0)) == nullptr);
            continue;
        }
        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const QueryList list = layout.list(t);
            const auto bounds = derived.cheap_maxima(t, list);  // nothing exact computed in `derived`
            const auto truth = exact.exact_maxima(t, list);
            REQUIRE(bounds->blocks.size() == list.blocks().size());
            REQUIRE(truth->blocks.size() == list.blocks().size());
            // The exact maxima: each block's largest tf part, recomputed here posting by posting.
            const run_list::DecodedList postings = list.decode();
            for (size_t k = 0, at = 0; k < list.blocks().size(); ++k) {
                double largest = 0.0;
                for (uint32_t i = 0; i < list.blocks()[k].postings; ++i, ++at) {
                    largest = std::max(largest, exact.bm25().tf_part(postings.tfs[at], exact.length_norms()[postings.docids[at]]));
                }
                CHECK(truth->blocks[k] == largest);
                CHECK(bounds->blocks[k] >= largest);
                tighter_than_the_cap += bounds->blocks[k] < parameters.k1 + 1.0;
            }
            CHECK(truth->list == *std::max_element(truth->blocks.begin(), truth->blocks.end()));
            // Once computed, the exact maxima are what cheap_maxima gives too.
            CHECK(exact.cheap_maxima(t, list) == truth);
        }
    }
    CHECK(tighter_than_the_cap > 0);  // the derived bounds are not all the trivial k1 + 1
}

TEST_CASE("pruning with another k1 and b scores fewer documents than exhaustive evaluation, for the same top k") {
    TempDir dir;
    std::mt19937 random(12);
    const auto [words, standard] = skewed_collection(dir, random, 300, 1500, 3.0);
    merge_runs(standard, {.query_codec = std::string("bp128")});
    const IndexReader index(standard);
    const Searcher searcher(index);
    const std::vector<std::string> queries = {words[0] + " " + words[1] + " " + words[2], words[0] + " " + words[150],
                                              words[1] + " " + words[3] + " " + words[250]};
    const Bm25Parameters other{1.2, 0.75};
    uint64_t pruned_scored = 0, exhaustive_scored = 0;
    for (const auto& query : queries) {
        const auto exhaustive = searcher.search(query, options_for(other, QueryMode::kOr, 10, Algorithm::kExhaustive));
        const auto pruned = searcher.search(query, options_for(other, QueryMode::kOr, 10, Algorithm::kBlockMaxMaxscore));
        CHECK(pruned.hits == exhaustive.hits);
        pruned_scored += pruned.stats.documents_scored;
        exhaustive_scored += exhaustive.stats.documents_scored;
    }
    CHECK(pruned_scored < exhaustive_scored);
}

TEST_CASE("k1 and b outside their ranges, or with impact scoring, are QueryErrors before any query runs") {
    TempDir dir;
    std::mt19937 random(3);
    const auto [words, standard] = skewed_collection(dir, random, 50, 50, 2.0);
    const IndexReader index(standard);
    const Searcher searcher(index);
    const std::vector<std::string> queries = {words[0], words[1]};
    const auto refused = [&](SearchOptions options, const std::string& words_of_message) {
        CAPTURE(words_of_message);
        CHECK_THROWS_WITH_AS(searcher.search(queries[0], options), doctest::Contains(words_of_message.c_str()), QueryError);
        CHECK_THROWS_AS(searcher.search_each(queries, options), QueryError);
    };
    SearchOptions options;
    options.k1 = -0.1;
    refused(options, "k1 must be a finite number >= 0, not -0.1");
    options.k1 = std::numeric_limits<double>::infinity();
    refused(options, "k1 must be a finite number >= 0");
    options.k1 = std::numeric_limits<double>::quiet_NaN();
    refused(options, "k1 must be a finite number >= 0");
    options.k1.reset();
    options.b = 1.5;
    refused(options, "b must be a number from 0 to 1, not 1.5");
    options.b = -0.01;
    refused(options, "b must be a number from 0 to 1");
    options.b = 0.5;
    options.scoring = QueryScoring::kImpact;
    refused(options, "impact scoring");
}

GPU_TEST_CASE("the GPU returns the CPU's top k for other k1 and b, one query at a time and in batches") {
    TempDir dir;
    std::mt19937 random(41);
    const auto [words, standard] = skewed_collection(dir, random, 300, 1500, 3.0);
    const auto queries = test_queries(random, words);
    for (const Index& index_case : indexes_of(dir, standard)) {
        CAPTURE(index_case.name);
        const IndexReader index(index_case.path);
        const Searcher cpu(index);
        const Searcher gpu(index, {}, GpuOptions{});
        // Alternating parameter sets: the device's second norms array is replaced and key 0's kept.
        for (const Bm25Parameters parameters : {kParameterPairs[1], kParameterPairs[0], kParameterPairs[3], kParameterPairs[1],
                                                kParameterPairs[4], kParameterPairs[2]}) {
            CAPTURE(parameters.k1);
            CAPTURE(parameters.b);
            for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd}) {
                for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                    CAPTURE(k);
                    SearchOptions options = options_for(parameters, mode, k, Algorithm::kBlockMaxMaxscore);
                    const auto expected = cpu.search_all(queries, options);
                    options.device = QueryDevice::kGpu;
                    const auto batch = gpu.search_gpu_batch(queries, options);
                    REQUIRE(batch.size() == queries.size());
                    for (size_t q = 0; q < queries.size(); ++q) {
                        CAPTURE(queries[q]);
                        CHECK(batch[q].hits == expected[q].hits);
                        CHECK(gpu.search(queries[q], options).hits == expected[q].hits);
                    }
                }
            }
        }
    }
}

GPU_TEST_CASE("a GPU batch mixing plans of different k1 and b answers each with its own") {
    TempDir dir;
    std::mt19937 random(43);
    const auto [words, standard] = skewed_collection(dir, random, 200, 800, 3.0);
    merge_runs(standard, {.query_codec = std::string("bp128")});
    const IndexReader index(standard);
    const Searcher cpu(index);
    const Searcher gpu(index, {}, GpuOptions{});
    const auto queries = test_queries(random, words);
    std::vector<QueryPlan> plans;
    std::vector<std::vector<ScoredDocument>> expected;
    Analyzer analyzer(index.analysis());
    for (size_t q = 0; q < queries.size(); ++q) {
        const Bm25Parameters parameters = kParameterPairs[q % kParameterPairs.size()];
        const SearchOptions options = options_for(parameters, QueryMode::kOr, 10, Algorithm::kBlockMaxMaxscore);
        plans.push_back(gpu.plan(queries[q], options, analyzer));
        expected.push_back(cpu.search(queries[q], options).hits);
    }
    const auto results = gpu.evaluator(QueryDevice::kGpu).evaluate_batch(plans);
    REQUIRE(results.size() == queries.size());
    for (size_t q = 0; q < queries.size(); ++q) {
        CAPTURE(queries[q]);
        CHECK(results[q].hits == expected[q]);
    }
}
