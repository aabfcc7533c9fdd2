// The GPU query path against the CPU's exhaustive evaluation: the same
// documents, bit-identical scores, the same tie order (devices/gpu_query.hpp).
// Skipped without a CUDA device; run on the GPU machine.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "query/searcher.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("gpu search: every query gives the CPU's hits and scores, AND and OR, k 1, 10, 1000") {
    if (list_gpus().devices.empty()) {
        MESSAGE("no CUDA device here: GPU test skipped");
        return;
    }
    TempDir dir;
    std::mt19937 random(77);
    const auto words = test_vocabulary(random, 300);
    std::vector<std::string> documents;
    for (int d = 0; d < 3000; ++d) {
        std::string text;
        const int length = 5 + static_cast<int>(random() % 60);
        for (int t = 0; t < length; ++t) {
            const double u = std::uniform_real_distribution<double>(0, 1)(random);
            text += words[static_cast<size_t>(u * u * static_cast<double>(words.size()))] + " ";
        }
        if (d % 50 == 0) text = documents.empty() ? text : documents[static_cast<size_t>(random() % documents.size())];
        documents.push_back(text);  // some exact copies: ties
    }
    const auto index_dir = build_text_index(dir, documents);
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    const Searcher small_cache(index);  // lists evicted all the time
    for (int q = 0; q < 150; ++q) {
        std::string query;
        const int terms = 1 + q % 6;
        for (int t = 0; t < terms; ++t) query += words[random() % (t == 0 ? 20 : words.size())] + " ";
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                CAPTURE(query);
                CAPTURE(k);
                SearchOptions cpu_options{.k = k, .mode = mode, .exhaustive = mode == QueryMode::kOr};
                SearchOptions gpu_options = cpu_options;
                gpu_options.gpu = true;
                const auto expected = searcher.search(query, cpu_options).hits;
                SearchOptions tiny = gpu_options;
                tiny.gpu_cache_bytes = 4096;
                for (const auto& got : {searcher.search(query, gpu_options).hits, small_cache.search(query, tiny).hits}) {
                    REQUIRE(got.size() == expected.size());
                    for (size_t i = 0; i < got.size(); ++i) {
                        REQUIRE(got[i].docid == expected[i].docid);
                        REQUIRE(got[i].score == expected[i].score);  // bit for bit
                    }
                }
            }
        }
    }
}
