// The GPU indexer kinds against the same std::map reference as the CPU
// indexer, and against the CPU indexer itself: GPU test cases
// (support/gpu_test.hpp), but for the clear error of a device that does not
// exist, checked everywhere.
#include "nodes/index/gpu_indexer.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "nodes/index/cpu_btree_indexer.hpp"
#include "invidx/indexer.hpp"
#include "support/gpu_test.hpp"
#include "support/indexer_check.hpp"

namespace {

using namespace invidx;
using namespace invidx::test;

static_assert(Indexer<GpuIndexer>, "the GPU indexer must satisfy the indexer contract");

bool have_gpu() { return !list_gpus().devices.empty(); }

struct Variant {
    const char* label;
    GpuDictionaryAlgorithm algorithm;
    size_t staging_occurrences;  // tiny: many chunks per batch, growth on the way
    size_t staging_term_bytes;
};

const Variant kVariants[] = {
    {"hash, default staging", GpuDictionaryAlgorithm::hash, size_t{1} << 20, size_t{16} << 20},
    {"hash, 7-occurrence staging", GpuDictionaryAlgorithm::hash, 7, 300},
    {"btree, default staging", GpuDictionaryAlgorithm::btree, size_t{1} << 20, size_t{16} << 20},
    {"btree, 7-occurrence staging", GpuDictionaryAlgorithm::btree, 7, 300},
};

GpuTermIndexerOptions options_for(const Variant& variant) {
    GpuTermIndexerOptions options;
    options.algorithm = variant.algorithm;
    options.staging_occurrences = variant.staging_occurrences;
    options.staging_term_bytes = variant.staging_term_bytes;
    return options;
}

// term -> (docid -> tf), gathered from exported terms and the runs' lists.
using Flattened = std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>>;

template <class IndexerType>
Flattened run_and_flatten(IndexerType& indexer, const std::vector<RegroupedBatch>& batches, size_t batches_per_run,
                          std::map<std::string, std::pair<uint64_t, uint64_t>>& df_cf) {
    std::vector<RunPostings> runs;
    uint32_t run = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
        indexer.index(batches[b]);
        if ((b + 1) % batches_per_run == 0 || b + 1 == batches.size()) {
            runs.push_back(indexer.end_run(run++, 1, b + 1 == batches.size()));
            runs.push_back(indexer.end_run(run++, 1, false));  // and an empty run
        }
    }
    Flattened out;
    for (const DictionaryTerm& term : indexer.export_terms()) {
        df_cf[term.term] = {term.df, term.cf};
        auto& postings = out[term.term];
        for (const PartialListRef& ref : term.lists) {
            const TermRunList& list = runs.at(ref.run).lists.at(ref.slot);
            for (size_t i = 0; i < list.docids.size(); ++i) postings.emplace_back(list.docids[i], list.tfs[i]);
        }
    }
    return out;
}

}  // namespace

GPU_TEST_CASE("gpu indexer: one indexer owning everything matches a std::map index") {
    for (const Variant& variant : kVariants) {
        CAPTURE(std::string(variant.label));
        const std::vector<uint32_t> owner_of(kCollections, 0);
        std::vector<GpuIndexer> indexers;
        indexers.emplace_back(0, owned_by(owner_of, 0), false, options_for(variant));
        check_indexers(indexers, owner_of, false, 21, /*export_sorted=*/false);
    }
}

GPU_TEST_CASE("gpu indexer: three indexers split the collections, with positional lists") {
    for (const Variant& variant : kVariants) {
        CAPTURE(std::string(variant.label));
        std::vector<uint32_t> owner_of(kCollections);
        for (uint32_t c = 0; c < kCollections; ++c) owner_of[c] = (c * 7 + c / 5) % 3;
        std::vector<GpuIndexer> indexers;
        for (uint32_t i = 0; i < 3; ++i) indexers.emplace_back(i, owned_by(owner_of, i), true, options_for(variant));
        check_indexers(indexers, owner_of, true, 22, /*export_sorted=*/false, 40);
    }
}

GPU_TEST_CASE("gpu indexer: one huge collection and a large vocabulary give what the CPU indexer gives") {
    // 60,000 distinct terms, half in the single collection "the": B-tree
    // nodes split many levels deep, the hash table grows several times.
    std::mt19937 random(5);
    std::vector<RegroupedBatch> batches;
    uint64_t docid = 0;
    for (int b = 0; b < 12; ++b) {
        std::vector<Document> docs(50);
        for (auto& doc : docs) {
            for (int t = 0; t < 200; ++t) {
                const uint32_t n = random() % 30000;
                doc.push_back(random() % 2 ? "the" + std::to_string(n) : "w" + std::to_string(n) + "x");
            }
            if (random() % 5 == 0) doc.push_back(std::string(255, static_cast<char>('a' + random() % 3)));
            if (random() % 5 == 0) doc.push_back("\xe6\x97\xa5\xe6\x9c\xac" + std::to_string(random() % 50));
        }
        batches.push_back(regroup(parse(static_cast<uint64_t>(b), docid, docs)));
        docid += docs.size();
    }
    const std::vector<bool> all(kCollections, true);
    CpuBtreeIndexer cpu(0, all, false);
    std::map<std::string, std::pair<uint64_t, uint64_t>> cpu_counts;
    const Flattened expected = run_and_flatten(cpu, batches, 5, cpu_counts);
    CHECK(expected.size() > 50000);
    for (const Variant& variant : kVariants) {
        CAPTURE(std::string(variant.label));
        if (variant.staging_occurrences < 100) continue;  // 7-occurrence chunks: too slow at this size
        GpuIndexer gpu(0, all, false, options_for(variant));
        std::map<std::string, std::pair<uint64_t, uint64_t>> gpu_counts;
        const Flattened got = run_and_flatten(gpu, batches, 5, gpu_counts);
        CHECK(got == expected);
        CHECK(gpu_counts == cpu_counts);
        CHECK(gpu.stats().terms == cpu.stats().terms);
        CHECK(gpu.stats().characters == cpu.stats().characters);
        CHECK(gpu.stats().tokens == cpu.stats().tokens);
        CHECK(gpu.stats().postings == cpu.stats().postings);
        const auto extra = gpu.extra_stats();
        CHECK(extra.at("peak_device_bytes").get<uint64_t>() > 0);
    }
}

GPU_TEST_CASE("gpu indexer: bad input is an error, not a crash") {
    GpuIndexer indexer(0, std::vector<bool>(kCollections, true), false, GpuTermIndexerOptions{});
    SUBCASE("batches out of docid order") {
        indexer.index(regroup(parse(0, 100, {{"apple"}})));
        CHECK_THROWS_WITH_AS(indexer.index(regroup(parse(1, 50, {{"apple"}}))), doctest::Contains("batch 1"), Error);
    }
    // Occurrences are checked on the device: the error comes at the next
    // synchronization (here the end of the run), naming batch and docid.
    SUBCASE("a term outside its collection") {
        RegroupedBatch batch = regroup(parse(7, 40, {{"apple"}}));
        batch.terms = "pearl";
        const auto index_and_close = [&] {
            indexer.index(batch);
            indexer.end_run(0, 1, true);
        };
        CHECK_THROWS_WITH_AS(index_and_close(), doctest::Contains("batch 7: docid 40: term 'pearl' does not belong"),
                             Error);
    }
    SUBCASE("term bytes past the arena, tf 0, a document outside the batch") {
        for (int damage = 0; damage < 3; ++damage) {
            CAPTURE(damage);
            GpuIndexer fresh(0, std::vector<bool>(kCollections, true), false, GpuTermIndexerOptions{});
            RegroupedBatch batch = regroup(parse(0, 0, {{"apple", "pear"}}));
            if (damage == 0) batch.occurrences[0].term_offset = 3;
            if (damage == 1) batch.occurrences[0].tf = 0;
            if (damage == 2) batch.occurrences[0].local_docid = 5;
            const auto index_and_close = [&] {
                fresh.index(batch);
                fresh.end_run(0, 1, true);
            };
            CHECK_THROWS_AS(index_and_close(), Error);
        }
    }
    SUBCASE("slice past the occurrences") {
        RegroupedBatch batch = regroup(parse(0, 0, {{"apple"}}));
        batch.slices[0].end = 5;
        CHECK_THROWS_AS(indexer.index(batch), Error);
    }
    SUBCASE("runs that do not increase") {
        indexer.end_run(2, 1, false);
        CHECK_THROWS_AS(indexer.end_run(1, 1, false), Error);
    }
}

TEST_CASE("gpu indexer: a device that does not exist is a clear error, at its first use") {
    GpuTermIndexerOptions options;
    options.device = 99;
    // Made without touching the device: the build's start does not wait for
    // a GPU's context; the indexer's first call makes it, or fails.
    GpuIndexer indexer(0, std::vector<bool>(kCollections, true), false, options);
    if (have_gpu()) {
        CHECK_THROWS_WITH_AS(indexer.stats(), doctest::Contains("gpu:99: no such GPU"), Error);
    } else {  // built without CUDA, or no device: said so
        CHECK_THROWS_AS(indexer.stats(), Error);
    }
}
