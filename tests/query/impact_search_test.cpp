// search --scoring impact: block-max MaxScore (OR) and daat_and (AND) over
// ImpactBlockCursors must give exactly the brute-force top k of the same
// quantized scores (every matching document's stored impacts added up,
// sorted by score, then docid), and refuse what they cannot answer.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "query/query_error.hpp"
#include "query/searcher.hpp"
#include "query/long_lists.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Every matching document's impacts summed straight from the stored blocks.
std::vector<ScoredDocument> brute_force_impacts(const IndexReader& index, const QueryPostings& layout, std::string_view query,
                                                QueryMode mode, size_t k) {
    Analyzer analyzer(index.analysis());
    std::vector<std::string> terms;
    for (auto& term : analyzer.analyze_query(query)) {
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
    }
    std::vector<uint64_t> scores(index.num_documents(), 0);
    std::vector<size_t> matched(index.num_documents(), 0);
    size_t present = 0;
    for (const auto& term : terms) {
        const auto i = index.find_term(term);
        if (!i) continue;
        ++present;
        const auto list = layout.list(*i);
        std::vector<uint32_t> docids(128), impacts(128);
        for (size_t b = 0; b < list.blocks().size(); ++b) {
            const size_t n = list.blocks()[b].postings;
            list.decode_docids(b, std::span(docids.data(), n));
            list.decode_impacts(b, std::span(impacts.data(), n));
            for (size_t p = 0; p < n; ++p) {
                scores[docids[p]] += impacts[p];
                ++matched[docids[p]];
            }
        }
    }
    std::vector<ScoredDocument> all;
    if (present == 0 || (mode == QueryMode::kAnd && present < terms.size())) return all;
    for (uint32_t d = 0; d < scores.size(); ++d) {
        if (mode == QueryMode::kAnd ? matched[d] == present : matched[d] > 0) all.push_back({d, static_cast<double>(scores[d])});
    }
    std::sort(all.begin(), all.end(), [](const ScoredDocument& x, const ScoredDocument& y) {
        return x.score != y.score ? x.score > y.score : x.docid < y.docid;
    });
    if (all.size() > k) all.resize(k);
    return all;
}

// 1 to 6 words: frequent (long lists of many blocks), medium, skewed and rare.
std::string impact_query(std::mt19937& random, const LongListCollection& collection) {
    const int length = 1 + static_cast<int>(random() % 6);
    std::string query;
    for (int t = 0; t < length; ++t) {
        const std::vector<std::string>* pool = nullptr;
        switch (random() % 4) {
            case 0: pool = &collection.common; break;
            case 1: pool = &collection.medium; break;
            case 2: pool = &collection.skewed; break;
            default: pool = random() % 3 == 0 ? &collection.rare : &collection.skewed;
        }
        query += (t ? " " : "") + (*pool)[random() % pool->size()];
    }
    return query;
}

}  // namespace

TEST_CASE("impact search equals brute force over the quantized scores, AND and OR, k 1, 10, 1000") {
    TempDir dir;
    std::mt19937 random(41);
    const auto collection = long_list_collection(random, 12000);
    const auto standard = build_text_index(dir, collection.texts);
    const auto weighted = with_query_layout(dir, standard, "bp128");
    merge_runs(weighted, {.query_codec = "bp128", .impact_bits = 8});

    const IndexReader index(weighted);
    const Searcher searcher(index);
    REQUIRE(searcher.query_postings() != nullptr);
    REQUIRE(searcher.query_postings()->has_impacts());
    Analyzer analyzer(index.analysis());

    size_t nonempty_and = 0, nonempty_or = 0, full_or = 0, ties = 0;
    uint64_t postings = 0, scored = 0;
    for (int q = 0; q < 300; ++q) {
        const std::string query = impact_query(random, collection);
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                CAPTURE(query);
                CAPTURE(mode == QueryMode::kAnd);
                CAPTURE(k);
                const auto result = searcher.search(query, {.k = k, .mode = mode, .scoring = QueryScoring::kImpact}, analyzer);
                const auto expected = brute_force_impacts(index, *searcher.query_postings(), query, mode, k);
                CHECK(result.hits == expected);  // docids, integer scores and order exactly
                for (size_t r = 1; r < result.hits.size(); ++r) ties += result.hits[r].score == result.hits[r - 1].score;
                (mode == QueryMode::kAnd ? nonempty_and : nonempty_or) += !result.hits.empty();
                if (mode == QueryMode::kOr && k == 10) {
                    full_or += result.hits.size() == k;
                    postings += result.stats.postings;
                    scored += result.stats.documents_scored;
                }
            }
        }
    }
    CHECK(nonempty_and > 100);
    CHECK(nonempty_or > 500);
    CHECK(full_or > 200);
    CHECK(ties > 100);  // integer scores tie often: the docid order is exercised
    // The integer block maxima prune: far fewer documents scored than postings.
    CHECK(scored * 4 < postings);
}

TEST_CASE("impact search with and-or, duplicates, stop words and absent terms") {
    TempDir dir;
    std::mt19937 random(7);
    const auto words = random_words(random, 300);
    const auto path = build_text_index(dir, skewed_documents(random, words, 800, 3.0));
    merge_runs(path, {.query_codec = "pfor", .impact_bits = 6});
    const IndexReader index(path);
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());
    for (int q = 0; q < 100; ++q) {
        const std::string query = random_query(random, words);
        CAPTURE(query);
        const auto and_or = searcher.search(query, {.k = 10, .mode = QueryMode::kAndOr, .scoring = QueryScoring::kImpact}, analyzer);
        const auto conjunctive = brute_force_impacts(index, *searcher.query_postings(), query, QueryMode::kAnd, 10);
        const auto disjunctive = brute_force_impacts(index, *searcher.query_postings(), query, QueryMode::kOr, 10);
        CHECK(and_or.hits == (conjunctive.size() >= 10 ? conjunctive : disjunctive));
        CHECK(and_or.answered_as == (conjunctive.size() >= 10 ? QueryMode::kAnd : QueryMode::kOr));
    }
}

TEST_CASE("impact search refuses an index without impacts, phrases and the GPU") {
    TempDir dir;
    std::mt19937 random(13);
    const auto words = random_words(random, 100);
    const auto path = build_text_index(dir, skewed_documents(random, words, 200, 2.0));
    const SearchOptions impact{.k = 10, .scoring = QueryScoring::kImpact};
    {
        const IndexReader index(path);  // no query layout at all
        const Searcher searcher(index);
        CHECK_THROWS_WITH_AS(searcher.search(words[0], impact), doctest::Contains("invidx weight"), QueryError);
        CHECK(!searcher.search(words[0], {.k = 10}).hits.empty());
    }
    merge_runs(path, {.query_codec = "bp128"});
    {
        const IndexReader index(path);  // a query layout without impacts
        const Searcher searcher(index);
        CHECK_THROWS_WITH_AS(searcher.search(words[0], impact), doctest::Contains("has no impacts"), QueryError);
        CHECK_THROWS_AS(searcher.search("the", impact), QueryError);  // even with no term left
    }
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const Searcher searcher(index);
    CHECK(!searcher.search(words[0], impact).hits.empty());
    CHECK_THROWS_WITH_AS(searcher.search("\"" + words[0] + " " + words[1] + "\"", impact), doctest::Contains("phrase"), QueryError);
    // On the GPU: its answer where there is one (tests/query/gpu_search_test.cpp
    // holds it to the CPU's), a QueryError naming the GPU where there is none.
    const Searcher with_gpu(index, {}, GpuOptions{});
    SearchOptions on_gpu = impact;
    on_gpu.device = QueryDevice::kGpu;
    const std::vector<std::string> texts = {words[0]};
    if (list_gpus().devices.empty()) {
        CHECK_THROWS_WITH_AS(with_gpu.search(words[0], on_gpu), doctest::Contains("GPU"), QueryError);
        CHECK_THROWS_AS(with_gpu.search_gpu_batch(texts, on_gpu), QueryError);
    } else {
        CHECK(with_gpu.search(words[0], on_gpu).hits == searcher.search(words[0], impact).hits);
    }
    // BM25 scoring on the weighted index is unchanged.
    CHECK(searcher.search(words[0] + " " + words[1], {.k = 10}).hits == searcher.search(words[0] + " " + words[1], {.k = 10, .algorithm = Algorithm::kExhaustive}).hits);
}
