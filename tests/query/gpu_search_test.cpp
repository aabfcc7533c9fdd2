// The GPU query path against the CPU: the same documents, bit-identical
// scores, the same tie order (devices/gpu_query.hpp), on the run files and on
// every codec's query layout (bp128 kept compressed on the device, the others
// decoded on the host), one query at a time and in batches, with a cache far
// smaller than a batch's lists; lists of 1, 127, 128 and 129 postings; and an
// AND whose block selection must skip most of a long list's blocks.
// GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "long_lists.hpp"
#include "query/searcher.hpp"
#include "store/codecs/registry.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/same_hits.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// The CPU's answer (exhaustive OR: the reference every CPU path equals).
std::vector<ScoredDocument> cpu_hits(const Searcher& searcher, const std::string& query, QueryMode mode, size_t k) {
    return searcher.search(query, {.k = k, .mode = mode, .algorithm = mode == QueryMode::kOr ? Algorithm::kExhaustive : Algorithm::kBlockMaxMaxscore}).hits;
}

// Every query one at a time and as one batch (split by the processor when it
// holds more than max_gpu_batch()), against the CPU's answers.
void check_against_cpu(const Searcher& cpu, const Searcher& gpu, const std::vector<std::string>& queries,
                       bool one_at_a_time) {
    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
        for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}, size_t{3000}}) {  // 3000: the radix sort path
            CAPTURE(k);
            CAPTURE(mode == QueryMode::kAnd ? "AND" : "OR");
            SearchOptions options{.k = k, .mode = mode};
            options.device = QueryDevice::kGpu;
            const auto batch = gpu.search_gpu_batch(queries, options);
            REQUIRE(batch.size() == queries.size());
            for (size_t q = 0; q < queries.size(); ++q) {
                CAPTURE(queries[q]);
                const auto expected = cpu_hits(cpu, queries[q], mode, k);
                require_same(batch[q].hits, expected);
                if (one_at_a_time) require_same(gpu.search(queries[q], options).hits, expected);
            }
        }
    }
}

// `count` documents of 5 to 4 + `spread` words, frequent words far more
// often (u² over the vocabulary); with copy_every > 0 every copy_every-th
// document is an exact copy of an earlier one, so that scores tie.
std::vector<std::string> skewed_texts(std::mt19937& random, const std::vector<std::string>& words, int count, int spread,
                                      int copy_every) {
    std::vector<std::string> documents;
    for (int d = 0; d < count; ++d) {
        std::string text;
        const int length = 5 + static_cast<int>(random() % static_cast<unsigned>(spread));
        for (int t = 0; t < length; ++t) {
            const double u = std::uniform_real_distribution<double>(0, 1)(random);
            text += words[static_cast<size_t>(u * u * static_cast<double>(words.size()))] + " ";
        }
        if (copy_every > 0 && d % copy_every == 0 && !documents.empty()) {
            text = documents[static_cast<size_t>(random() % documents.size())];
        }
        documents.push_back(text);
    }
    return documents;
}

// A vocabulary word as a plain query word: uppercase AND, OR and NOT are
// operators in query text (docs/QUERY.md), and analysis lowercases anyway,
// so the lowercase word means what the document word does.
std::string plain_word(std::string word) {
    for (char& c : word) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return word;
}

}  // namespace

GPU_TEST_CASE("gpu search: the CPU's hits and scores on the run files and every codec's layout, batches, tiny cache") {
    TempDir dir;
    std::mt19937 random(77);
    const auto words = test_vocabulary(random, 300);
    const auto documents = skewed_texts(random, words, 3000, 60, 50);  // some exact copies: ties
    const auto standard = build_text_index(dir, documents);
    std::vector<std::string> queries;
    for (int q = 0; q < 150; ++q) {  // more than one batch of 128
        std::string query;
        const int terms = 1 + q % 6;
        for (int t = 0; t < terms; ++t) query += plain_word(words[random() % (t == 0 ? 20 : words.size())]) + " ";
        queries.push_back(query);
    }
    queries.push_back("the");             // stop words only: no results
    queries.push_back(words[0] + " zzqqabsent");  // AND: nothing; OR: the first word's
    const IndexReader plain(standard);
    const Searcher cpu(plain);

    SUBCASE("run files") {
        const Searcher gpu(plain, {}, GpuOptions{});
        check_against_cpu(cpu, gpu, queries, true);
        const Searcher tiny(plain, {}, GpuOptions{.cache_bytes = 4096});  // every list evicted, even within a batch
        check_against_cpu(cpu, tiny, queries, false);
    }
    for (const auto& codec : codecs::all_codecs()) {
        SUBCASE(("query layout " + std::string(codec.name)).c_str()) {
            const auto merged = with_query_layout(dir, standard, codec.name);
            const IndexReader index(merged);
            const Searcher gpu(index, {}, GpuOptions{});
            REQUIRE(gpu.query_postings() != nullptr);
            check_against_cpu(cpu, gpu, queries, codec.name == "bp128");
            const Searcher tiny(index, {}, GpuOptions{.cache_bytes = 4096});  // every list evicted, even within a batch
            check_against_cpu(cpu, tiny, queries, false);
        }
    }
}

GPU_TEST_CASE("gpu search: impact scoring gives the CPU's hits and scores, bp128 kept compressed and vbyte decoded") {
    TempDir dir;
    std::mt19937 random(79);
    const auto words = test_vocabulary(random, 250);
    const auto documents = skewed_texts(random, words, 2500, 50, 0);
    const auto standard = build_text_index(dir, documents);
    std::vector<std::string> queries;
    for (int q = 0; q < 140; ++q) {  // more than one batch of 128
        std::string query;
        for (int t = 0; t < 1 + q % 5; ++t) query += plain_word(words[random() % (t == 0 ? 15 : words.size())]) + " ";
        queries.push_back(query);
    }
    for (const std::string codec : {"bp128", "vbyte"}) {
        CAPTURE(codec);
        const auto path = dir / ("impacts-" + codec);
        std::filesystem::copy(standard, path, std::filesystem::copy_options::recursive);
        merge_runs(path, {.query_codec = codec, .impact_bits = 8});
        const IndexReader index(path);
        const Searcher cpu(index), gpu(index, {}, GpuOptions{});
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            for (const size_t k : {size_t{10}, size_t{1000}}) {
                CAPTURE(k);
                CAPTURE(mode == QueryMode::kAnd ? "AND" : "OR");
                const SearchOptions on_cpu{.k = k, .mode = mode, .scoring = QueryScoring::kImpact};
                SearchOptions on_gpu = on_cpu;
                on_gpu.device = QueryDevice::kGpu;
                const auto batch = gpu.search_gpu_batch(queries, on_gpu);
                for (size_t q = 0; q < queries.size(); ++q) {
                    CAPTURE(queries[q]);
                    const auto expected = cpu.search(queries[q], on_cpu).hits;
                    require_same(batch[q].hits, expected);
                    require_same(gpu.search(queries[q], on_gpu).hits, expected);
                }
                // BM25 on the same searcher afterwards: a term's tf list is not its impact list in the cache.
                SearchOptions bm25 = on_gpu;
                bm25.scoring = QueryScoring::kBm25;
                require_same(gpu.search(queries[0], bm25).hits, cpu_hits(cpu, queries[0], mode, k));
            }
        }
    }
}

GPU_TEST_CASE("gpu search: lists of 1, 127, 128 and 129 postings, compressed and decoded") {
    TempDir dir;
    std::mt19937 random(5);
    const auto filler = random_words(random, 200);
    const std::vector<std::pair<std::string, int>> sized = {
        {"onlyonex", 1}, {"sevenx", 127}, {"eightx", 128}, {"ninex", 129}, {"manyx", 300}};
    std::vector<std::string> documents(400);
    for (size_t d = 0; d < documents.size(); ++d) {
        for (int t = static_cast<int>(random() % 12); t >= 0; --t) documents[d] += filler[random() % filler.size()] + " ";
    }
    for (const auto& [word, count] : sized) {
        // Spread over the collection, each document once, tfs 1-3.
        std::vector<size_t> order(documents.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), random);
        for (int i = 0; i < count; ++i) {
            for (int tf = 1 + static_cast<int>(random() % 3); tf > 0; --tf) documents[order[static_cast<size_t>(i)]] += word + " ";
        }
    }
    const auto standard = build_text_index(dir, documents);
    std::vector<std::string> queries;
    for (const auto& [a, x] : sized) {
        queries.push_back(a);
        for (const auto& [b, y] : sized) {
            if (a != b) queries.push_back(a + " " + b);
        }
    }
    queries.push_back("sevenx eightx ninex manyx");
    queries.push_back("onlyonex sevenx eightx ninex manyx");
    const IndexReader plain(standard);
    const Searcher cpu(plain);
    {
        const Searcher gpu(plain, {}, GpuOptions{});
        check_against_cpu(cpu, gpu, queries, true);
    }
    const auto merged = with_query_layout(dir, standard, "bp128");
    const IndexReader index(merged);
    const Searcher gpu(index, {}, GpuOptions{});
    check_against_cpu(cpu, gpu, queries, true);
    // and-or in a batch: AND where it finds k, OR for the others, as search() answers each.
    SearchOptions and_or{.k = 10, .mode = QueryMode::kAndOr};
    and_or.device = QueryDevice::kGpu;
    const auto batch = gpu.search_gpu_batch(queries, and_or);
    for (size_t q = 0; q < queries.size(); ++q) {
        CAPTURE(queries[q]);
        const auto expected = cpu.search(queries[q], {.k = 10, .mode = QueryMode::kAndOr});
        require_same(batch[q].hits, expected.hits);
        CHECK(batch[q].answered_as == expected.answered_as);
    }
}

GPU_TEST_CASE("gpu search: AND decodes only the blocks of the long list that can hold a candidate") {
    TempDir dir;
    std::mt19937 random(9);
    const auto filler = random_words(random, 300);
    std::vector<std::string> documents(20000);
    for (size_t d = 0; d < documents.size(); ++d) {
        documents[d] = "everyx ";  // 157 blocks
        if (d % 2 == 0) documents[d] += "halfx ";
        if (d == 100 || d == 7000 || d == 19990) documents[d] += "scarcex scarcex ";
        for (int t = static_cast<int>(random() % 6); t >= 0; --t) documents[d] += filler[random() % filler.size()] + " ";
    }
    const auto standard = build_text_index(dir, documents);
    const auto merged = with_query_layout(dir, standard, "bp128");
    const IndexReader index(merged);
    const Searcher cpu(index);
    const Searcher gpu(index, {}, GpuOptions{});
    for (const std::string query : {"scarcex everyx", "everyx halfx scarcex", "halfx scarcex"}) {
        CAPTURE(query);
        SearchOptions options{.k = 10, .mode = QueryMode::kAnd};
        options.device = QueryDevice::kGpu;
        const auto result = gpu.search(query, options);
        require_same(result.hits, cpu_hits(cpu, query, QueryMode::kAnd, 10));
        CHECK(!result.hits.empty());
        // The scarce list's one block, then at most one block per candidate in each longer list.
        CHECK(result.stats.blocks >= 80);  // halfx 79 blocks, everyx 157
        CHECK(result.stats.docid_blocks_decoded <= 1 + 3 * (result.terms.terms.size() - 1));
        CHECK(result.stats.docid_blocks_decoded < result.stats.blocks / 10);
    }
    // OR reads every block.
    SearchOptions options{.k = 10, .mode = QueryMode::kOr};
    options.device = QueryDevice::kGpu;
    const auto result = gpu.search("scarcex everyx", options);
    require_same(result.hits, cpu_hits(cpu, "scarcex everyx", QueryMode::kOr, 10));
    CHECK(result.stats.docid_blocks_decoded == result.stats.blocks);
}
