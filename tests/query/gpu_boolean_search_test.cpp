// Boosted, weighted and boolean queries on the GPU against the CPU: boosts
// and weighted vectors run in the GPU's kernels (idf · query weight, the
// same weights the CPU multiplies), required and prohibited clauses are
// handed to the CPU's evaluator; either way the hits, the scores bit for bit
// and the tie order are the CPU's, one at a time and in batches.
// GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "long_lists.hpp"
#include "query/searcher.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/same_hits.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Boosts, weighted vectors, + - NOT AND and groups over frequent, rare and absent words.
std::vector<std::string> operator_queries(std::mt19937& random, const std::vector<std::string>& words) {
    std::vector<std::string> queries;
    const auto word = [&] { return random() % 4 == 0 ? words[random() % 15] : words[random() % words.size()]; };
    for (int q = 0; q < 60; ++q) {
        std::string query;
        const int clauses = 1 + static_cast<int>(random() % 5);
        for (int c = 0; c < clauses; ++c) {
            if (c > 0) query += " ";
            switch (random() % 6) {
                case 0: query += "+"; break;
                case 1: query += "-"; break;
                case 2: query += c > 0 ? "AND " : ""; break;
                default: break;
            }
            query += word();
            if (random() % 2) query += "^" + std::to_string(1 + random() % 4) + ".5";
        }
        queries.push_back(query);
        // Groups: a clause tree the CPU evaluates, or made flat (the last: a plain OR for the GPU's kernels).
        queries.push_back("+(" + word() + " " + word() + ") " + word() + " -(+" + word() + " +" + word() + ")");
        queries.push_back("(" + word() + " (" + word() + " " + word() + ")^2)^1.5 " + word());
        // The same kind of query as a weighted vector (distinct verbatim terms).
        nlohmann::json vector = nlohmann::json::object();
        for (int c = 0; c < clauses; ++c) vector[word()] = 0.25 * static_cast<double>(1 + random() % 12);
        queries.push_back(vector.dump());
    }
    return queries;
}

}  // namespace

GPU_TEST_CASE("gpu search: boosted, weighted and boolean queries give the CPU's hits and scores") {
    TempDir dir;
    std::mt19937 random(77);
    const auto words = random_words(random, 300);
    const auto standard = build_text_index(dir, skewed_documents(random, words, 3000, 2.5));
    const auto layout = with_query_layout(dir, standard, "bp128");
    const auto queries = operator_queries(random, words);
    for (const auto& path : {standard, layout}) {
        const IndexReader index(path);
        const Searcher cpu(index);
        const Searcher gpu(index, {}, GpuOptions{});
        for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd, QueryMode::kAndOr}) {
            for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                CAPTURE(path.filename().string());
                CAPTURE(k);
                SearchOptions options{.k = k, .mode = mode};
                options.device = QueryDevice::kGpu;
                const auto batch = gpu.search_gpu_batch(queries, options);
                REQUIRE(batch.size() == queries.size());
                for (size_t q = 0; q < queries.size(); ++q) {
                    CAPTURE(queries[q]);
                    const auto expected = cpu.search(queries[q], {.k = k, .mode = mode});
                    require_same(batch[q].hits, expected.hits);
                    require_same(gpu.search(queries[q], options).hits, expected.hits);
                    CHECK(batch[q].answered_as == expected.answered_as);
                }
            }
        }
    }
}

GPU_TEST_CASE("gpu search: weighted queries with impact scoring give the CPU's hits and scores") {
    TempDir dir;
    std::mt19937 random(78);
    const auto words = random_words(random, 300);
    const auto standard = build_text_index(dir, skewed_documents(random, words, 3000, 2.5));
    const auto weighted = with_query_layout(dir, standard, "bp128");
    merge_runs(weighted, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(weighted);
    const Searcher cpu(index);
    const Searcher gpu(index, {}, GpuOptions{});
    const auto queries = operator_queries(random, words);
    for (const size_t k : {size_t{10}, size_t{1000}}) {
        SearchOptions options{.k = k, .scoring = QueryScoring::kImpact};
        const auto expected = cpu.search_all(queries, options);
        options.device = QueryDevice::kGpu;
        const auto batch = gpu.search_gpu_batch(queries, options);
        for (size_t q = 0; q < queries.size(); ++q) {
            CAPTURE(queries[q]);
            require_same(batch[q].hits, expected[q].hits);
        }
    }
}
