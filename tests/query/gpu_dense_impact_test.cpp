// The GPU's dense impact OR path (devices/cuda/query/dense_impact.cu):
// batches of long weighted impact queries, every (query, term) pair scattered
// at once with integer atomics, then a radix select per query. Against
// brute force (Σ weight · impact, ties by smaller docid) and the CPU: on the
// processor with decoded lists (32-bit and 64-bit sums, many ties, duplicate
// terms, k past the matches, a query whose sums could pass 2^53 left to the
// term-at-a-time path), and through the evaluator on a bp128 impact layout
// kept compressed on the device (queries of 20 to 150 terms with weights 1 to
// 255, absent and duplicate terms, short queries mixed in). GPU test cases
// (support/gpu_test.hpp); the CPU half of the evaluator check runs everywhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "devices/gpu_query.hpp"
#include "query/cpu_evaluator.hpp"
#include "query/gpu_evaluator.hpp"
#include "query/query_plan.hpp"
#include "query/scored_index.hpp"
#include "store/tf_impacts.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "support/weighted_texts.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// ---- Processor level: decoded lists made here.

struct TermList {
    std::vector<uint32_t> docids;  // increasing
    std::vector<uint32_t> values;  // impacts, >= 1
};

// `count` lists over `documents`: a fifth long (a third to all documents),
// the rest short; values 1 to max_value, or 1 to 3 for every third list (ties).
std::vector<TermList> term_lists(std::mt19937& random, size_t count, uint32_t documents, uint32_t max_value) {
    std::vector<TermList> lists(count);
    for (size_t t = 0; t < count; ++t) {
        const bool long_list = random() % 5 == 0;
        const double density = long_list ? 0.33 + 0.67 * std::uniform_real_distribution<double>(0, 1)(random)
                                         : (1.0 + static_cast<double>(random() % 200)) / documents;
        const uint32_t top = t % 3 == 0 ? 3 : max_value;
        for (uint32_t d = 0; d < documents; ++d) {
            if (std::uniform_real_distribution<double>(0, 1)(random) >= density) continue;
            lists[t].docids.push_back(d);
            lists[t].values.push_back(1 + static_cast<uint32_t>(random() % top));
        }
        if (lists[t].docids.empty()) {
            lists[t].docids.push_back(static_cast<uint32_t>(random() % documents));
            lists[t].values.push_back(1);
        }
    }
    return lists;
}

struct ListQuery {
    std::vector<size_t> terms;  // into the lists; may repeat
    std::vector<uint64_t> weights;
};

GpuQuery gpu_query(const std::vector<TermList>& lists, const ListQuery& query) {
    GpuQuery out;
    for (size_t i = 0; i < query.terms.size(); ++i) {
        const size_t t = query.terms[i];
        out.push_back(GpuQueryTerm{t, static_cast<double>(query.weights[i]), lists[t].docids.size(),
                                   [&lists, t](GpuList& list) {
                                       list.docids = lists[t].docids;
                                       list.tfs = lists[t].values;
                                   }});
    }
    return out;
}

// Every document a list of the query holds, by Σ weight · value, best first.
std::vector<std::pair<uint32_t, double>> brute_force(const std::vector<TermList>& lists, const ListQuery& query,
                                                     uint32_t documents) {
    std::vector<uint64_t> scores(documents, 0);
    std::vector<bool> held(documents, false);
    for (size_t i = 0; i < query.terms.size(); ++i) {
        const TermList& list = lists[query.terms[i]];
        for (size_t p = 0; p < list.docids.size(); ++p) {
            scores[list.docids[p]] += query.weights[i] * list.values[p];
            held[list.docids[p]] = true;
        }
    }
    std::vector<std::pair<uint32_t, double>> all;
    for (uint32_t d = 0; d < documents; ++d) {
        if (held[d]) all.emplace_back(d, static_cast<double>(scores[d]));  // below 2^53: exact
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.second > b.second || (a.second == b.second && a.first < b.first);
    });
    return all;
}

// The largest sum the processor can prove (decoded lists: their exact largest values).
unsigned __int128 sum_bound(const std::vector<TermList>& lists, const ListQuery& query) {
    unsigned __int128 bound = 0;
    for (size_t i = 0; i < query.terms.size(); ++i) {
        const auto& values = lists[query.terms[i]].values;
        bound += static_cast<unsigned __int128>(query.weights[i]) * *std::max_element(values.begin(), values.end());
    }
    return bound;
}

void require_top(const std::vector<std::pair<uint32_t, double>>& got, const std::vector<std::pair<uint32_t, double>>& ranking,
                 size_t k) {
    REQUIRE(got.size() == std::min(k, ranking.size()));
    for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        REQUIRE(got[i].first == ranking[i].first);
        REQUIRE(got[i].second == ranking[i].second);
    }
}

// ---- Evaluator level: an index whose impacts are the tfs.

// Documents of 5 to 60 distinct words (frequent ones far more often), each
// written as often as its weight 1 to 39, so the tf is the weight.
std::vector<std::string> dense_texts(std::mt19937& random, const std::vector<std::string>& words, size_t count) {
    return weighted_texts(random, words, count, {.vocabulary_skew = 2.5, .max_weight = 39, .weight_skew = 3.0});
}

// A weighted impact plan of `count` dictionary terms (the frequent half of
// the time), weights 1 to 255 times `scale`; an absent term now and then, and
// with `duplicate` one term twice (its two weights add up).
QueryPlan weighted_plan(std::mt19937& random, const IndexReader& index, const std::vector<uint64_t>& frequent, size_t count,
                        double scale, bool duplicate, size_t k) {
    QueryPlan plan;
    plan.k = k;
    plan.scoring = QueryScoring::kImpact;
    std::set<uint64_t> used;
    count = std::min<size_t>(count, index.term_count());
    while (plan.terms.terms.size() < count) {
        const uint64_t term = random() % 2 ? frequent[random() % frequent.size()] : random() % index.term_count();
        if (!used.insert(term).second) continue;
        const auto info = index.term(term);
        plan.terms.terms.push_back(QueryTerm{std::string(info.term), term, info.df});
    }
    if (random() % 3 == 0) plan.terms.terms.push_back(QueryTerm{"zz9absent", std::nullopt, 0});
    if (duplicate) plan.terms.terms.push_back(plan.terms.terms[random() % count]);
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        plan.query_weights.push_back(scale * static_cast<double>(1 + random() % 255));
        plan.weights.push_back(1.0);  // BM25's: unused by impact scoring
    }
    return plan;
}

// Σ weight · tf over the run files' postings, ties by smaller docid: integer
// weights, so the impact score is the plain sum (no 1/256 scale left).
std::vector<ScoredDocument> brute_force(const IndexReader& index, const QueryPlan& plan) {
    std::vector<uint64_t> scores(index.num_documents(), 0);
    std::vector<bool> held(index.num_documents(), false);
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        if (!plan.terms.terms[i].index) continue;
        const auto list = index.postings(*plan.terms.terms[i].index);
        const auto weight = static_cast<uint64_t>(plan.query_weights[i]);
        for (size_t p = 0; p < list.docids.size(); ++p) {
            scores[list.docids[p]] += weight * list.tfs[p];
            held[list.docids[p]] = true;
        }
    }
    std::vector<ScoredDocument> all;
    for (uint32_t d = 0; d < index.num_documents(); ++d) {
        if (held[d]) all.push_back({d, static_cast<double>(scores[d])});
    }
    std::sort(all.begin(), all.end(), ranks_before);
    if (all.size() > plan.k) all.resize(plan.k);
    return all;
}

struct ImpactIndex {
    explicit ImpactIndex(uint32_t seed) {
        std::mt19937 random(seed);
        const auto words = random_words(random, 1500);
        path = build_text_index(dir, dense_texts(random, words, 3000));
        bits = write_tf_impact_layout(path);  // bp128
    }
    TempDir dir;
    std::filesystem::path path;
    unsigned bits = 0;
};

// The terms of the 200 longest lists.
std::vector<uint64_t> frequent_terms(const IndexReader& index) {
    std::vector<uint64_t> terms(index.term_count());
    for (uint64_t t = 0; t < terms.size(); ++t) terms[t] = t;
    std::sort(terms.begin(), terms.end(), [&](uint64_t a, uint64_t b) { return index.term(a).df > index.term(b).df; });
    terms.resize(std::min<size_t>(200, terms.size()));
    return terms;
}

// 101 plans of 20 to 150 terms (every fourth with a duplicate term) and 11
// of 1 or 2 rare terms, which the dense path leaves to the term-at-a-time one.
std::vector<QueryPlan> long_plans(std::mt19937& random, const IndexReader& index, double scale, size_t k) {
    const auto frequent = frequent_terms(index);
    std::vector<QueryPlan> plans;
    for (int q = 0; q < 112; ++q) {
        if (q % 10 == 9) {  // 1 or 2 terms of lists too short for the dense path together
            QueryPlan plan;
            plan.k = k;
            plan.scoring = QueryScoring::kImpact;
            while (plan.terms.terms.size() < static_cast<size_t>(1 + q % 2)) {
                const uint64_t term = random() % index.term_count();
                const auto info = index.term(term);
                if (info.df * 16 >= index.num_documents()) continue;
                plan.terms.terms.push_back(QueryTerm{std::string(info.term), term, info.df});
                plan.query_weights.push_back(scale * static_cast<double>(1 + random() % 255));
                plan.weights.push_back(1.0);
            }
            plans.push_back(std::move(plan));
            continue;
        }
        plans.push_back(weighted_plan(random, index, frequent, 20 + random() % 131, scale, q % 4 == 0, k));
    }
    return plans;
}

}  // namespace

TEST_CASE("weighted impact queries of 20 to 150 terms with duplicate and absent terms: the CPU equals brute force") {
    const ImpactIndex built(57);
    const IndexReader index(built.path);
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    std::mt19937 random(5);
    for (const size_t k : {size_t{10}, size_t{1000}, size_t{100000}}) {
        CAPTURE(k);
        const auto plans = long_plans(random, index, 1.0, k);
        CHECK(plans.size() > 100);
        for (size_t q = 0; q < plans.size(); q += 3) {
            CAPTURE(q);
            CHECK(cpu.evaluate(plans[q]).hits == brute_force(index, plans[q]));
        }
    }
}

GPU_TEST_CASE("gpu dense impact path: batches of long weighted impact queries on a bp128 layout give the CPU's hits and scores") {
    const ImpactIndex built(57);
    const IndexReader index(built.path);
    const ScoredIndex scored(index, {});
    const CpuEvaluator cpu(scored);
    const GpuEvaluator gpu(scored, GpuOptions{});
    std::mt19937 random(9);
    // 1e6: sums past 2^32 (64-bit accumulators); 3000 and 100000 > kBlockTopK (the radix sort), 100000 > every match count.
    for (const double scale : {1.0, 1e6}) {
        for (const size_t k : {size_t{10}, size_t{1000}, size_t{3000}, size_t{100000}}) {
            CAPTURE(scale);
            CAPTURE(k);
            const auto plans = long_plans(random, index, scale, k);
            const auto before = gpu.stats();
            const auto batch = gpu.evaluate_batch(plans);
            const auto after = gpu.stats();
            REQUIRE(batch.size() == plans.size());
            CHECK(after.queries - before.queries == plans.size());
            CHECK(after.dense_queries - before.dense_queries >= 100);  // the long ones
            CHECK(after.dense_queries - before.dense_queries < plans.size());  // not the short ones
            for (size_t q = 0; q < plans.size(); ++q) {
                CAPTURE(q);
                const auto expected = cpu.evaluate(plans[q]).hits;
                CHECK(expected == brute_force(index, plans[q]));  // integer weights: integer sums, exact
                CHECK(batch[q].hits == expected);
                if (q % 9 == 0) CHECK(gpu.evaluate(plans[q]).hits == expected);  // one at a time: a batch of one
            }
        }
    }
}

GPU_TEST_CASE("gpu dense impact path: 32-bit and 64-bit sums, ties, duplicate terms and k past the matches against brute force") {
    constexpr uint32_t kDocuments = 5000;
    std::mt19937 random(31);
    const std::vector<double> norms(kDocuments, 1.0);
    for (const bool wide : {false, true}) {
        CAPTURE(wide);
        // Wide: values to 65535 and weights to 2^20, so sums pass 2^32.
        const auto lists = term_lists(random, 300, kDocuments, wide ? 65535 : 255);
        std::vector<ListQuery> queries;
        for (int q = 0; q < 100; ++q) {
            ListQuery query;
            const size_t terms = 20 + random() % 131;
            for (size_t t = 0; t < terms; ++t) {
                query.terms.push_back(random() % lists.size());
                const uint64_t weight = q % 5 == 0 ? 1 + random() % 3 : 1 + random() % 255;  // small: more ties
                query.weights.push_back(wide ? weight << (random() % 13) : weight);
            }
            if (q % 4 == 0) {  // the same term again, with another weight
                query.terms.push_back(query.terms[random() % query.terms.size()]);
                query.weights.push_back(1 + random() % 255);
            }
            queries.push_back(std::move(query));
        }
        for (int q = 0; q < 8; ++q) queries.push_back({{random() % lists.size()}, {1 + random() % 255}});  // short: mostly term at a time
        // Sums that could pass 2^53 (the lists never share a document, so each
        // document's is exact): left to the term-at-a-time path.
        std::vector<TermList> huge(2);
        for (uint32_t d = 0; d < kDocuments; ++d) {
            huge[d % 2].docids.push_back(d);
            huge[d % 2].values.push_back(d == 17 ? (1u << 22) - 1 : 1 + d % 1000);
        }
        const ListQuery beyond{{0, 1}, {(uint64_t{1} << 31) - 1, (uint64_t{1} << 31) - 1}};
        REQUIRE(sum_bound(huge, beyond) > (uint64_t{1} << 53));

        std::vector<GpuQuery> gpu_queries;
        uint64_t dense = 0;
        for (const auto& query : queries) {
            gpu_queries.push_back(gpu_query(lists, query));
            if (dense_impact_suits(gpu_queries.back(), kDocuments) && sum_bound(lists, query) < (uint64_t{1} << 53)) ++dense;
        }
        CHECK(dense >= 100);
        CHECK(wide == std::any_of(queries.begin(), queries.end(), [&](const ListQuery& q) { return sum_bound(lists, q) > UINT32_MAX; }));
        GpuQuery beyond_query = gpu_query(huge, beyond);
        for (GpuQueryTerm& term : beyond_query) term.term += 1000;  // other cache keys than `lists`'
        CHECK(dense_impact_suits(beyond_query, kDocuments));
        gpu_queries.push_back(beyond_query);

        std::vector<std::vector<std::pair<uint32_t, double>>> rankings;
        for (const auto& query : queries) rankings.push_back(brute_force(lists, query, kDocuments));
        const auto beyond_ranking = brute_force(huge, beyond, kDocuments);

        for (const size_t cache : {size_t{1} << 30, size_t{4096}}) {  // 4096: lists evicted within a batch
            CAPTURE(cache);
            const auto processor = create_gpu_query_processor(0, norms, 1.2, cache);
            REQUIRE(processor->max_batch() >= 1);
            for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}, size_t{3000}, size_t{kDocuments + 1}}) {
                CAPTURE(k);
                const auto before = processor->stats();
                const auto results = processor->top_k_batch(gpu_queries, false, k, true);
                const auto after = processor->stats();
                REQUIRE(results.size() == gpu_queries.size());
                CHECK(after.dense_queries - before.dense_queries == dense);
                for (size_t q = 0; q < queries.size(); ++q) {
                    CAPTURE(q);
                    const auto& ranking = rankings[q];
                    require_top(results[q].hits, ranking, k);
                    CHECK(results[q].matches == ranking.size());
                    if (q % 25 == 0) require_top(processor->top_k(gpu_queries[q], false, k, true).hits, ranking, k);
                }
                require_top(results.back().hits, beyond_ranking, k);
            }
        }
    }
}
