// `invidx weight --device gpu` (query/device_weights.hpp) run whole on the
// CPU, the host reference standing in for the GPU: its query.post is the
// CPU path's byte for byte at 1, 8 and 16 bits, also when small device
// memory budgets split the index into many chunks of terms, and the index
// checks out whole; without a usable GPU it is an error naming the device
// and the index is left as it was.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>

#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"
#include "query/device_weights.hpp"
#include "store/index_check.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kPlenty = uint64_t{1} << 34;
const Bm25Parameters kParameters{.k1 = 1.1, .b = 0.6};

// A generated index with a query layout without impacts, as `merge --layout query` leaves it.
fs::path unweighted_index(const TempDir& dir, uint32_t seed) {
    std::mt19937 random(seed);
    const auto words = random_words(random, 500);
    const auto path = build_text_index(dir, skewed_documents(random, words, 1200, 2.5));
    merge_runs(path, {.query_codec = "bp128", .query_parameters = kParameters});
    return path;
}

fs::path copy_of(const fs::path& index, const fs::path& to) {
    fs::copy(index, to, fs::copy_options::recursive);
    return to;
}

std::string query_post(const fs::path& index) { return read_file(index / "query.post"); }

// What `invidx weight --device cpu --bits N` writes.
std::string cpu_query_post(const fs::path& index, const fs::path& to, unsigned bits) {
    const auto cpu = copy_of(index, to);
    merge_runs(cpu, {.query_codec = "bp128", .query_parameters = kParameters, .impact_bits = bits});
    return query_post(cpu);
}

}  // namespace

TEST_CASE("weighting on the host stand-in for a GPU writes the CPU's query.post at 1, 8 and 16 bits") {
    TempDir dir;
    const auto index = unweighted_index(dir, 41);
    const ScopedDeviceWeightBackend pretend(host_reference_device_weight_backend(1, kPlenty));
    for (const unsigned bits : {1u, 8u, 16u}) {
        CAPTURE(bits);
        const auto gpu = copy_of(index, dir / ("gpu" + std::to_string(bits)));
        const DeviceImpacts result = weight_index_on_device(gpu, {.device = 0, .bits = bits});
        CHECK(result.chunks == 1);
        CHECK(result.source == "query.post");  // bp128 and plenty of memory: the layout's own bytes
        CHECK(result.device == "host reference");
        CHECK(result.memory_budget == static_cast<uint64_t>(kPlenty * kDeviceWeightMemoryShare));
        const std::string written = query_post(gpu);
        CHECK(written == cpu_query_post(index, dir / ("cpu" + std::to_string(bits)), bits));
        const IndexReader reader(gpu);
        const QueryPostings layout(reader);
        CHECK(layout.has_impacts());
        CHECK(layout.impact_bits() == bits);
        CHECK(layout.parameters().k1 == kParameters.k1);  // the layout's own, not the defaults
        const auto check = check_index(gpu, {.full = true});
        CHECK(check.ok());
    }
}

TEST_CASE("chunks of terms under small device budgets give the same query.post as one chunk") {
    TempDir dir;
    const auto index = unweighted_index(dir, 43);
    const std::string cpu = cpu_query_post(index, dir / "cpu", 8);
    uint64_t largest_df = 0, documents = 0, terms = 0;
    {
        const IndexReader reader(index);
        for (uint64_t t = 0; t < reader.term_count(); ++t) largest_df = std::max(largest_df, reader.term(t).df);
        documents = reader.num_documents();
        terms = reader.term_count();
    }
    const ScopedDeviceWeightBackend pretend(host_reference_device_weight_backend(2, kPlenty));
    // The least budget that holds the longest list, then a few times it.
    const uint64_t least = gpu_weight_device_bytes(1, largest_df, documents);
    for (const uint64_t budget : {least, least + 16 * largest_df, least + 64 * largest_df}) {
        CAPTURE(budget);
        {
            const IndexReader reader(index);
            const auto chunks = weight_chunks(reader, budget);
            REQUIRE(chunks.size() > 1);
            uint64_t next = 0;
            for (const TermChunk& chunk : chunks) {
                CHECK(chunk.first_term == next);
                CHECK(chunk.terms > 0);
                CHECK(gpu_weight_device_bytes(chunk.terms, chunk.postings, documents) <= budget);
                next += chunk.terms;
            }
            CHECK(next == terms);
        }
        const auto gpu = copy_of(index, dir / ("gpu" + std::to_string(budget)));
        const DeviceImpacts result = weight_index_on_device(gpu, {.device = 1, .bits = 8, .memory_budget = budget});
        CHECK(result.chunks > 1);
        CHECK(result.source == "run files");  // query.post's bytes do not fit these budgets
        CHECK(result.memory_budget == budget);
        CHECK(query_post(gpu) == cpu);
    }
    CHECK(weight_chunks(IndexReader(index), least).size() > 10);

    // A budget below the longest list's need names that term; nothing is written.
    const auto small = copy_of(index, dir / "small");
    CHECK_THROWS_WITH_AS(weight_index_on_device(small, {.memory_budget = least - 1}), doctest::Contains("postings, which need"),
                         Error);
    CHECK(query_post(small) == query_post(index));
}

TEST_CASE("weighting on a GPU without a usable one names the device and leaves the index as it was") {
    TempDir dir;
    const auto index = unweighted_index(dir, 47);
    const std::string before = query_post(index);
    {
        const ScopedDeviceWeightBackend none(host_reference_device_weight_backend(0, kPlenty));
        CHECK_THROWS_WITH_AS(weight_device(0), doctest::Contains("gpu:0: no usable GPU: no CUDA device present"), Error);
        CHECK_THROWS_WITH_AS(weight_index_on_device(index, {.device = 0}), doctest::Contains("gpu:0"), Error);
        CHECK(query_post(index) == before);
    }
    {
        const ScopedDeviceWeightBackend one(host_reference_device_weight_backend(1, kPlenty));
        CHECK(weight_device(0).name == "host reference");
        CHECK_THROWS_WITH_AS(weight_device(2), doctest::Contains("gpu:2: no such GPU: this machine has gpu:0"), Error);
        CHECK_THROWS_AS(weight_index_on_device(index, {.device = 2}), Error);
        CHECK(query_post(index) == before);
    }
    CHECK(device_weight_backend()->name == "cuda");  // the stand-in is gone with its scope
#ifndef INVIDX_HAVE_CUDA
    CHECK_THROWS_WITH_AS(weight_device(0), doctest::Contains("gpu:0: no usable GPU: invidx was built without CUDA"), Error);
    CHECK_THROWS_AS(weight_index_on_device(index, {}), Error);
    CHECK(query_post(index) == before);
#endif
}

TEST_CASE("a query layout in another codec is weighted from the run files, with the CPU's result") {
    TempDir dir;
    std::mt19937 random(53);
    const auto words = random_words(random, 300);
    const auto index = build_text_index(dir, skewed_documents(random, words, 600, 2.5));
    merge_runs(index, {.query_codec = "vbyte", .query_parameters = kParameters});
    const auto cpu = copy_of(index, dir / "cpu");
    merge_runs(cpu, {.query_codec = "vbyte", .query_parameters = kParameters, .impact_bits = 8});
    const ScopedDeviceWeightBackend pretend(host_reference_device_weight_backend(1, kPlenty));
    const DeviceImpacts result = weight_index_on_device(index, {.device = 0, .bits = 8});
    CHECK(result.source == "run files");
    CHECK(query_post(index) == query_post(cpu));
}
