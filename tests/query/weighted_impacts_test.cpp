// Weighted queries scored by impacts (query/impact_weights.hpp), against
// brute force: an index of pre-weighted documents whose impacts are their
// tfs (store/tf_impacts.hpp), random queries of 1 to 300 terms with plain,
// integer, fractional and zero weights, OR and AND, k 1 to 1000; every CPU
// path (the evaluator's choice, accumulator windows wide and narrow,
// integer block-max MaxScore, the generic MaxScore in doubles, daat_and)
// must give exactly the top k of Σ round(256 · w) · tf / 256, ties by
// smaller docid. The GPU evaluator must give the CPU's hits and scores bit
// for bit, one plan at a time and in batches (a GPU test case).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "query/cpu_evaluator.hpp"
#include "query/daat_and.hpp"
#include "query/gpu_evaluator.hpp"
#include "query/impact_block_cursor.hpp"
#include "query/impact_maxscore_or.hpp"
#include "query/impact_taat_or.hpp"
#include "query/impact_topk.hpp"
#include "query/impact_weights.hpp"
#include "query/maxscore_or.hpp"
#include "query/query_error.hpp"
#include "query/query_plan.hpp"
#include "query/scored_index.hpp"
#include "store/query_postings.hpp"
#include "store/tf_impacts.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "support/weighted_texts.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Weights 1 to 24, mostly small; document 7 holds a word 300 times, so
// impacts need 9 bits.
std::vector<std::string> weighted_documents(std::mt19937& random, const std::vector<std::string>& words, size_t count) {
    return weighted_texts(random, words, count, {.heavy_document = 7});
}

// An index of weighted_documents with impacts that are the tfs.
struct WeightedIndex {
    WeightedIndex(uint32_t seed, size_t documents) {
        std::mt19937 random(seed);
        const auto words = random_words(random, 2500);
        path = build_text_index(dir, weighted_documents(random, words, documents));
        bits = write_tf_impact_layout(path);
    }

    TempDir dir;
    std::filesystem::path path;
    unsigned bits = 0;
};

enum class Weights { kOnes, kIntegers, kFractions, kWithZeros };

// A plan of `count` distinct dictionary terms (frequent ones more often),
// an absent term now and then, weighted as `kind` says.
QueryPlan random_plan(std::mt19937& random, const IndexReader& index, size_t count, Weights kind, QueryMode mode, size_t k) {
    QueryPlan plan;
    plan.mode = mode;
    plan.k = k;
    plan.scoring = QueryScoring::kImpact;
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::set<uint64_t> used;
    count = std::min<size_t>(count, index.term_count());
    while (plan.terms.terms.size() < count) {
        const auto term = std::min<uint64_t>(index.term_count() - 1,
                                             static_cast<uint64_t>(static_cast<double>(index.term_count()) * uniform(random)));
        if (!used.insert(term).second) continue;
        const auto info = index.term(term);
        plan.terms.terms.push_back(QueryTerm{std::string(info.term), term, info.df});
    }
    if (mode == QueryMode::kOr && random() % 4 == 0) plan.terms.terms.push_back(QueryTerm{"zz9absent", std::nullopt, 0});
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        double weight = 1.0;
        switch (kind) {
            case Weights::kOnes: break;
            case Weights::kIntegers: weight = static_cast<double>(1 + random() % 255); break;
            case Weights::kFractions: weight = 3.0 * uniform(random); break;
            case Weights::kWithZeros: weight = random() % 3 == 0 ? 0.0 : std::round(uniform(random) * 40.0) / 8.0; break;
        }
        plan.query_weights.push_back(weight);
        plan.weights.push_back(1.0);  // BM25's; unused by impact scoring
    }
    return plan;
}

// round(w · 256), ties away from zero: the rule of query/impact_weights.hpp, written out again.
uint64_t grid_weight(double w) { return static_cast<uint64_t>(std::floor(w * 256.0 + 0.5)); }

// The top k by Σ grid_weight(w) · tf over the run files' postings (integer
// scores); OR: documents holding a term of weight > 0; AND: every term.
std::vector<ScoredDocument> brute_force(const IndexReader& index, const QueryPlan& plan) {
    std::vector<uint64_t> scores(index.num_documents(), 0);
    std::vector<size_t> matched(index.num_documents(), 0);
    std::vector<bool> any(index.num_documents(), false);
    size_t present = 0;
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const auto& term = plan.terms.terms[i];
        if (!term.index) continue;
        ++present;
        const uint64_t q = grid_weight(plan.query_weights[i]);
        const auto list = index.postings(*term.index);
        for (size_t p = 0; p < list.docids.size(); ++p) {
            scores[list.docids[p]] += q * list.tfs[p];
            ++matched[list.docids[p]];
            if (q > 0) any[list.docids[p]] = true;
        }
    }
    std::vector<ScoredDocument> all;
    if (plan.conjunctive() && present < plan.terms.terms.size()) return all;
    for (uint32_t d = 0; d < index.num_documents(); ++d) {
        if (plan.conjunctive() ? matched[d] == present : any[d]) all.push_back({d, static_cast<double>(scores[d])});
    }
    std::sort(all.begin(), all.end(), ranks_before);
    if (all.size() > plan.k) all.resize(plan.k);
    return all;
}

std::vector<ScoredDocument> scaled(std::vector<ScoredDocument> hits) {
    for (auto& hit : hits) hit.score /= 256.0;  // exact: a power of two
    return hits;
}

}  // namespace

TEST_CASE("impact weights: a 1/256 grid, reduced to the smallest scale; bad weights are query errors") {
    QueryPlan plan;
    plan.scoring = QueryScoring::kImpact;
    for (const char* term : {"a", "b", "c"}) plan.terms.terms.push_back(QueryTerm{term, 0, 1});
    plan.query_weights = {1.0, 1.0, 1.0};
    auto weights = impact_weights(plan, 8);
    CHECK(weights.by_term == std::vector<uint64_t>{1, 1, 1});
    CHECK(weights.scale_bits == 0);
    plan.query_weights = {2.0, 0.5, 0.0};
    weights = impact_weights(plan, 8);
    CHECK(weights.by_term == std::vector<uint64_t>{4, 1, 0});
    CHECK(weights.scale_bits == 1);
    CHECK(weights.score(9.0) == 4.5);
    plan.query_weights = {0.1, 1.0 / 512.0, 3.0 / 1024.0};  // 25.6 → 26; 0.5 → 1 (half away from zero); 0.75 → 1
    weights = impact_weights(plan, 8);
    CHECK(weights.by_term == std::vector<uint64_t>{26, 1, 1});
    CHECK(weights.scale_bits == 8);
    plan.query_weights = {};  // a plan without query weights: all 1
    CHECK(impact_weights(plan, 8).by_term == std::vector<uint64_t>{1, 1, 1});
    plan.query_weights = {1.0, -1.0, 1.0};
    CHECK_THROWS_WITH_AS(impact_weights(plan, 8), doctest::Contains("term 'b' has weight -1"), QueryError);
    plan.query_weights = {1.0, NAN, 1.0};
    CHECK_THROWS_AS(impact_weights(plan, 8), QueryError);
    plan.query_weights = {1e10, 1.0, 1.0};
    CHECK_THROWS_WITH_AS(impact_weights(plan, 8), doctest::Contains("below 2^32"), QueryError);
    plan.query_weights = {4e9 + 1.0 / 256.0, 4e9, 4e9};  // each allowed; on the 1/256 grid the sums pass 2^53
    CHECK_THROWS_WITH_AS(impact_weights(plan, 16), doctest::Contains("2^53"), QueryError);
}

TEST_CASE("WideImpactTopK: scores past 2^32 ranked as ImpactTopK ranks, ties by smaller docid, in any arrival order") {
    std::mt19937 random(41);
    std::vector<ScoredDocument> documents;
    for (uint32_t d = 0; d < 500; ++d) {
        const uint64_t score = (uint64_t{1} << 40) + (random() % 50) * (uint64_t{1} << 33) + random() % 3;
        documents.push_back({d, static_cast<double>(score)});
    }
    for (const size_t k : {size_t{1}, size_t{10}, size_t{499}, size_t{600}}) {
        std::vector<ScoredDocument> expected = documents;
        std::sort(expected.begin(), expected.end(), ranks_before);
        expected.resize(std::min(k, expected.size()));
        std::vector<ScoredDocument> shuffled = documents;
        std::shuffle(shuffled.begin(), shuffled.end(), random);
        WideImpactTopK top(k);
        for (const auto& document : shuffled) top.push(document.docid, static_cast<uint64_t>(document.score));
        CHECK(top.take_sorted() == expected);
    }
}

TEST_CASE("weighted impact queries of 1 to 300 terms: every CPU path equals brute force") {
    const WeightedIndex built(131, 4000);
    const IndexReader index(built.path);
    const QueryPostings layout(index);
    REQUIRE(layout.impacts_are_tfs());
    CHECK(built.bits == 9);  // the 300
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    std::mt19937 random(7);
    const std::vector<size_t> lengths = {1, 2, 3, 5, 8, 13, 30, 60, 100, 200, 300};
    size_t queries = 0, taat = 0, nonempty = 0;
    for (const size_t length : lengths) {
        for (const Weights kind : {Weights::kOnes, Weights::kIntegers, Weights::kFractions, Weights::kWithZeros}) {
            for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd}) {
                if (mode == QueryMode::kAnd && length > 3) continue;  // longer ANDs match nothing
                const size_t k = std::vector<size_t>{1, 10, 100, 1000}[random() % 4];
                const QueryPlan plan = random_plan(random, index, length, kind, mode, k);
                CAPTURE(length);
                CAPTURE(static_cast<int>(kind));
                CAPTURE(k);
                CAPTURE(mode == QueryMode::kAnd ? "AND" : "OR");
                const auto expected = brute_force(index, plan);
                ++queries;
                nonempty += expected.empty() ? 0 : 1;
                CHECK(cpu.evaluate(plan).hits == scaled(expected));

                // Each path on its own, with the unreduced integer weights (scores: integer sums).
                std::vector<QueryList> lists;
                lists.reserve(plan.terms.terms.size());
                std::vector<const QueryList*> pointers;
                std::vector<uint64_t> weights;
                for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
                    const auto& term = plan.terms.terms[i];
                    if (!term.index) continue;
                    const uint64_t q = grid_weight(plan.query_weights[i]);
                    if (q == 0 && mode == QueryMode::kOr) continue;
                    lists.push_back(layout.list(*term.index));
                    pointers.push_back(&lists.back());
                    weights.push_back(q);
                }
                const auto cursors = [&] {
                    std::vector<ImpactBlockCursor> out;
                    for (size_t j = 0; j < lists.size(); ++j) out.emplace_back(lists[j], weights[j]);
                    return out;
                };
                if (mode == QueryMode::kAnd) {
                    if (lists.size() == plan.terms.terms.size()) {
                        auto all = cursors();
                        CHECK(daat_and(std::span<ImpactBlockCursor>(all), {}, Bm25({}, 1, 1.0), k) == expected);
                    }
                    continue;
                }
                taat += impact_taat_suits(pointers, weights, index.num_documents()) ? 1 : 0;
                CHECK(impact_taat_or(pointers, weights, k) == expected);
                CHECK(impact_taat_or(pointers, weights, k, nullptr, 300) == expected);  // blocks straddle windows
                auto integer = cursors();
                CHECK(impact_maxscore_or(integer, k) == expected);
                auto generic = cursors();
                CHECK(maxscore_or(std::span<ImpactBlockCursor>(generic), {}, Bm25({}, 1, 1.0), k) == expected);
            }
        }
    }
    CHECK(queries == 56);
    CHECK(nonempty > 40);
    CHECK(taat > 0);  // long queries take the windows, short rare ones MaxScore
}

TEST_CASE("weighted impact queries: 32-bit and 64-bit integer sums, scores past 2^32 exact") {
    const WeightedIndex built(17, 600);
    const IndexReader index(built.path);
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    std::mt19937 random(3);
    for (const double big : {1.0, 65536.0, 1e6, 1e8}) {
        CAPTURE(big);
        for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd}) {
            QueryPlan plan = random_plan(random, index, mode == QueryMode::kOr ? 40 : 2, Weights::kIntegers, mode, 20);
            for (double& weight : plan.query_weights) weight = big * static_cast<double>(1 + random() % 7);
            CHECK(cpu.evaluate(plan).hits == scaled(brute_force(index, plan)));
        }
    }
}

TEST_CASE("weighted impact queries: a plan whose every weight is 0 matches nothing in OR, everything in AND at 0") {
    const WeightedIndex built(5, 300);
    const IndexReader index(built.path);
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    std::mt19937 random(11);
    QueryPlan plan = random_plan(random, index, 5, Weights::kOnes, QueryMode::kOr, 10);
    for (double& weight : plan.query_weights) weight = 0.0;
    CHECK(cpu.evaluate(plan).hits.empty());
    plan = random_plan(random, index, 1, Weights::kOnes, QueryMode::kAnd, 1000);
    plan.query_weights = {0.0};
    const auto hits = cpu.evaluate(plan).hits;
    CHECK(hits.size() == std::min<size_t>(1000, plan.terms.terms[0].df));
    CHECK(hits == scaled(brute_force(index, plan)));
}

GPU_TEST_CASE("gpu search: weighted impact queries of 1 to 300 terms give the CPU's hits and scores, one at a time and batched") {
    const WeightedIndex built(131, 4000);
    const IndexReader index(built.path);
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    const GpuEvaluator gpu(scored, GpuOptions{});
    std::mt19937 random(23);
    for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd}) {
        for (const size_t k : {size_t{10}, size_t{1000}}) {
            CAPTURE(k);
            CAPTURE(mode == QueryMode::kAnd ? "AND" : "OR");
            std::vector<QueryPlan> plans;
            for (int q = 0; q < 140; ++q) {  // more than one device batch of 128
                const size_t length = mode == QueryMode::kAnd ? 1 + q % 3 : std::vector<size_t>{1, 5, 30, 100, 300}[q % 5];
                const auto kind = static_cast<Weights>(q % 4);
                plans.push_back(random_plan(random, index, length, kind, mode, k));
            }
            const auto batch = gpu.evaluate_batch(plans);
            REQUIRE(batch.size() == plans.size());
            for (size_t q = 0; q < plans.size(); ++q) {
                CAPTURE(q);
                const auto expected = cpu.evaluate(plans[q]).hits;
                CHECK(expected == scaled(brute_force(index, plans[q])));
                CHECK(batch[q].hits == expected);
                if (q % 7 == 0) CHECK(gpu.evaluate(plans[q]).hits == expected);
            }
        }
    }
}
