// GPU BM25 weighting (devices/gpu_weights.hpp) against the CPU's
// (store/impacts.hpp): every posting's weight within 1e-6 relative, the same
// largest weight, and impacts identical to the ImpactQuantizer's and to the
// impacts `invidx weight` stored in query.post, at 8 and 16 bits. Malformed
// inputs are refused in every build; a build without CUDA refuses all.
// And `invidx weight --device gpu` whole (query/device_weights.hpp): its
// query.post equals the CPU path's, in one chunk of terms and in many.
// The device comparisons are GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <random>
#include <span>
#include <vector>

#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"
#include "query/device_weights.hpp"
#include "store/index_check.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "support/weight_input.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

GpuWeightInput tiny_input() {
    GpuWeightInput input;
    input.term_offsets = {0, 2, 3};
    input.docids = {0, 1, 1};
    input.tfs = {1, 3, 2};
    input.document_lengths = {4, 6};
    input.average_length = 5.0;
    return input;
}

}  // namespace

TEST_CASE("gpu_posting_weights refuses malformed inputs, and everything without CUDA") {
    auto bad_offsets = tiny_input();
    bad_offsets.term_offsets = {0, 2, 2};  // does not end at the postings' count
    CHECK_THROWS_AS(gpu_posting_weights(bad_offsets), Error);
    auto bad_docid = tiny_input();
    bad_docid.docids[2] = 7;
    CHECK_THROWS_AS(gpu_posting_weights(bad_docid), Error);
    auto zero_tf = tiny_input();
    zero_tf.tfs[0] = 0;
    CHECK_THROWS_AS(gpu_posting_weights(zero_tf), Error);
    auto bad_bits = tiny_input();
    bad_bits.bits = 17;
    CHECK_THROWS_AS(gpu_posting_weights(bad_bits), Error);
#ifndef INVIDX_HAVE_CUDA
    CHECK_THROWS_WITH_AS(gpu_posting_weights(tiny_input()), doctest::Contains("without CUDA"), Error);
#endif
}

GPU_TEST_CASE("GPU weights equal the CPU's within 1e-6 and GPU impacts equal the stored ones, 8 and 16 bits") {
    TempDir dir;
    std::mt19937 random(23);
    const auto words = random_words(random, 400);
    const auto path = build_text_index(dir, skewed_documents(random, words, 1500, 2.5));
    for (const unsigned bits : {8u, 16u}) {
        CAPTURE(bits);
        merge_runs(path, {.query_codec = "bp128", .impact_bits = bits});
        const IndexReader index(path);
        const QueryPostings layout(index);
        const Bm25 bm25(layout.parameters(), index.num_documents(), index.average_length());
        const GpuWeightInput input = weight_input(index, layout.parameters(), bits);
        const GpuWeights gpu = gpu_posting_weights(input, 0, true);
        REQUIRE(gpu.weights.size() == input.docids.size());
        REQUIRE(gpu.impacts.size() == input.docids.size());

        // The CPU's weights, its largest weight and its quantizer.
        const std::vector<double> norms = length_norms(index, bm25);
        const double cpu_max = max_posting_weight(index, bm25, norms);
        CHECK(std::abs(gpu.max_weight - cpu_max) <= 1e-6 * cpu_max);
        CHECK(layout.max_weight() == cpu_max);
        const ImpactQuantizer quantizer(cpu_max, bits);
        size_t mismatched_weights = 0, mismatched_impacts = 0, mismatched_stored = 0;
        std::vector<uint32_t> stored(128);
        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const uint64_t first = input.term_offsets[t];
            const uint64_t count = input.term_offsets[t + 1] - first;
            std::vector<double> cpu(count);
            posting_weights(bm25, index.term(t).df, std::span(input.docids).subspan(first, count),
                            std::span(input.tfs).subspan(first, count), norms, cpu);
            for (uint64_t i = 0; i < count; ++i) {
                mismatched_weights += std::abs(gpu.weights[first + i] - cpu[i]) > 1e-6 * cpu[i];
                mismatched_impacts += gpu.impacts[first + i] != quantizer(cpu[i]);
            }
            // The impacts invidx weight stored, block by block.
            const QueryList list = layout.list(t);
            uint64_t at = first;
            for (size_t b = 0; b < list.blocks().size(); ++b) {
                const size_t n = list.blocks()[b].postings;
                list.decode_impacts(b, std::span(stored.data(), n));
                for (size_t i = 0; i < n; ++i) mismatched_stored += gpu.impacts[at + i] != stored[i];
                at += n;
            }
        }
        CHECK(mismatched_weights == 0);
        CHECK(mismatched_impacts == 0);
        CHECK(mismatched_stored == 0);
    }
}

GPU_TEST_CASE("invidx weight on the GPU writes the CPU's query.post, in one chunk and in many") {
    TempDir dir;
    std::mt19937 random(31);
    const auto words = random_words(random, 400);
    const auto index = build_text_index(dir, skewed_documents(random, words, 1500, 2.5));
    const Bm25Parameters parameters{.k1 = 1.1, .b = 0.6};
    merge_runs(index, {.query_codec = "bp128", .query_parameters = parameters});
    uint64_t largest_df = 0, documents = 0;
    {
        const IndexReader reader(index);
        for (uint64_t t = 0; t < reader.term_count(); ++t) largest_df = std::max(largest_df, reader.term(t).df);
        documents = reader.num_documents();
    }
    const uint64_t many_chunks = gpu_weight_device_bytes(1, largest_df, documents);
    for (const unsigned bits : {8u, 16u}) {
        const auto cpu = dir / ("cpu" + std::to_string(bits));
        std::filesystem::copy(index, cpu, std::filesystem::copy_options::recursive);
        merge_runs(cpu, {.query_codec = "bp128", .query_parameters = parameters, .impact_bits = bits});
        const IndexReader cpu_reader(cpu);
        const QueryPostings cpu_layout(cpu_reader);
        for (const std::optional<uint64_t> budget : {std::optional<uint64_t>{}, std::optional<uint64_t>{many_chunks}}) {
            CAPTURE(bits);
            CAPTURE(budget.value_or(0));
            const auto gpu = dir / ("gpu" + std::to_string(bits) + "-" + std::to_string(budget.value_or(0)));
            std::filesystem::copy(index, gpu, std::filesystem::copy_options::recursive);
            const DeviceImpacts result = weight_index_on_device(gpu, {.device = 0, .bits = bits, .memory_budget = budget});
            CHECK(result.device.starts_with("gpu:0 ("));
            CHECK((budget ? result.chunks > 1 : result.chunks == 1));
            const IndexReader gpu_reader(gpu);
            const QueryPostings gpu_layout(gpu_reader);
            // The largest weight differs at most in the device's log (an ulp); the impacts not at all.
            CHECK(std::abs(gpu_layout.max_weight() - cpu_layout.max_weight()) <= 1e-12 * cpu_layout.max_weight());
            size_t other_impacts = 0;
            std::vector<uint32_t> a(128), b(128);
            for (uint64_t t = 0; t < cpu_reader.term_count(); ++t) {
                const QueryList cpu_list = cpu_layout.list(t), gpu_list = gpu_layout.list(t);
                REQUIRE(cpu_list.blocks().size() == gpu_list.blocks().size());
                for (size_t k = 0; k < cpu_list.blocks().size(); ++k) {
                    const size_t n = cpu_list.blocks()[k].postings;
                    cpu_list.decode_impacts(k, std::span(a.data(), n));
                    gpu_list.decode_impacts(k, std::span(b.data(), n));
                    for (size_t i = 0; i < n; ++i) other_impacts += a[i] != b[i];
                }
            }
            CHECK(other_impacts == 0);
            if (gpu_layout.max_weight() != cpu_layout.max_weight()) {
                MESSAGE("the device's largest weight differs from the CPU's in the last bits: query.post headers differ");
            }
            CHECK(read_file(gpu / "query.post") == read_file(cpu / "query.post"));
            CHECK(check_index(gpu, {.full = true}).ok());
        }
    }
}
